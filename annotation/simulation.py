"""Simulated annotators for demos: seeded scores around a known truth (pure: no Django import)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from annotation.protocol import Answers


@dataclass(frozen=True)
class SimulatedAnnotator:
    """How one simulated person answers: their noise, whether they answer at random, their median seconds per item."""

    name: str
    noise: float
    careless: bool = False
    seconds: float = 20.0


def panel(size: int, seed: int) -> list[SimulatedAnnotator]:
    """A panel with mostly careful annotators and one careless one who also rushes (so filtering has work to do)."""
    rng = random.Random(seed)
    # A generator of its own, so that adding reading times left everyone's answers as they were.
    pace = random.Random(f"{seed}:pace")
    people = [
        SimulatedAnnotator(f"sim-{i + 1:02d}", noise=rng.uniform(0.3, 0.9), seconds=pace.uniform(12, 30))
        for i in range(size)
    ]
    if size >= 4:
        people[-1] = SimulatedAnnotator(people[-1].name, noise=0.0, careless=True, seconds=1.5)
    return people


def seconds_per_item(person: SimulatedAnnotator, rng: random.Random) -> float:
    """How long ``person`` takes over one item: log-normal around their median."""
    return rng.lognormvariate(math.log(person.seconds), 0.3)


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
