"""Simulated annotators for demos: seeded scores around a known truth (pure: no Django import)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from annotation.protocol import Answers


@dataclass(frozen=True)
class SimulatedAnnotator:
    """How one simulated person answers: their noise, and whether they answer at random."""

    name: str
    noise: float
    careless: bool = False


def panel(size: int, seed: int) -> list[SimulatedAnnotator]:
    """A panel with mostly careful annotators and one careless one (so filtering has work to do)."""
    rng = random.Random(seed)
    people = [SimulatedAnnotator(f"sim-{i + 1:02d}", noise=rng.uniform(0.3, 0.9)) for i in range(size)]
    if size >= 4:
        people[-1] = SimulatedAnnotator(people[-1].name, noise=0.0, careless=True)
    return people


def _clip(value: float) -> int:
    return max(0, min(5, round(value)))


def answer(person: SimulatedAnnotator, truth: float, rng: random.Random) -> Answers:
    """Scores near ``truth`` (0-5); heads and modifiers a little more literal than the whole, as in the paper."""
    if person.careless:
        return Answers(rng.randint(0, 5), rng.randint(0, 5), rng.randint(0, 5))
    compound = truth + rng.gauss(0, person.noise)
    head = truth + 0.6 + rng.gauss(0, person.noise)
    modifier = truth + 0.4 + rng.gauss(0, person.noise)
    return Answers(head_score=_clip(head), modifier_score=_clip(modifier), compound_score=_clip(compound))
