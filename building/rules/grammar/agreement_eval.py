"""How often the agreement rewrite makes the experts' inflections in the NCIMP Portuguese variants (pure).

In their head-synonym (NC_Syn head) and both-words (NC_WordsSyn) variants the NCIMP experts
re-inflected the kept adjective ("abalos sísmicos" → "trepidações sísmicas") or changed a
word outside the compound ("os grandes" → "as grandes") in some sentences. For each such
sentence the same substitution (the experts' new words, as a thesaurus would give them: the
noun singular, the adjective masculine singular, the compound's own modifier when kept) is
realised here, and counted as matching when every word the experts changed outside the
compound, and the kept adjective, come out as the experts wrote them. Nothing here is
fitted to these files: they are read only to measure.
"""

from __future__ import annotations

import ast
import csv
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from building.lexicon.portuguese_morphology import ADJECTIVES, NOUNS
from building.rules.grammar.agreement import Morphology
from building.rules.grammar.inflection import pt_adjective_lemma, singular_word
from building.rules.grammar.realise import realise

KINDS = {"synonym head": "head", "synonym both": "both"}
FILES = ("naturalistics_examplesent1.csv", "naturalistics_examplesent2.csv", "naturalistics_examplesent3.csv")


@dataclass
class AgreementScore:
    """Counts over the sentences where the experts re-inflected something."""

    variants: int = 0  # head-synonym and WordsSyn variants compared
    rewritten_by_experts: int = 0  # ... where the experts changed a kept adjective or a word outside
    matched: int = 0  # ... where our rewrite gives the experts' words
    whole_span_matched: int = 0  # ... and the replacement itself too
    unknown: int = 0  # ... where the dictionary did not know a word, so ours was flagged
    misses: list[dict] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.matched / self.rewritten_by_experts if self.rewritten_by_experts else 0.0

    def as_dict(self) -> dict:
        return {
            "variants": self.variants,
            "rewritten_by_experts": self.rewritten_by_experts,
            "matched": self.matched,
            "rate": round(self.rate, 4),
            "whole_span_matched": self.whole_span_matched,
            "unknown": self.unknown,
        }


@dataclass(frozen=True)
class _Tokens:
    words: list[str]
    start: int  # the span's first and last+1 token
    end: int

    @classmethod
    def of(cls, text: str, tags: str) -> _Tokens | None:
        words, marks = text.split(" "), ast.literal_eval(tags)
        inside = [i for i, mark in enumerate(marks) if mark]
        if len(words) != len(marks) or not inside or inside != list(range(inside[0], inside[-1] + 1)):
            return None
        return cls(words, inside[0], inside[-1] + 1)

    @property
    def span(self) -> list[str]:
        return self.words[self.start : self.end]

    @property
    def outside(self) -> tuple[list[str], list[str]]:
        return self.words[: self.start], self.words[self.end :]


def _fold(words: Iterable[str]) -> list[str]:
    return [w.casefold() for w in words]


def _lemma(word: str, categories: frozenset[str], morphology: Morphology, fallback) -> str:
    readings = morphology.analyse(word, categories)
    return readings[0].lemma if readings else fallback(word)


def _modifier_in(span: list[str], old: str, kind: str, modifier_at: int, morphology: Morphology) -> int:
    """Where the modifier is in the experts' span: the kept one by its lemma, a new one as the word that is not the head."""
    if kind == "head":
        lemmas = {a.lemma for a in morphology.analyse(old, ADJECTIVES)} or {pt_adjective_lemma(old)}
        for i, word in enumerate(span):
            found = {a.lemma for a in morphology.analyse(word, ADJECTIVES)} or {pt_adjective_lemma(word)}
            if found & lemmas:
                return i
    elif len(span) == 2:
        readings = [bool(morphology.analyse(w, frozenset({"nc"}))) for w in span]
        if readings == [True, False]:
            return 1
        if readings == [False, True]:
            return 0
    return 0 if modifier_at == 0 else len(span) - 1


def score_sentence(row: dict, kind: str, morphology: Morphology, score: AgreementScore) -> None:
    """Compare one NCIMP variant (``kind`` a column name of ``KINDS``) with our realisation of it."""
    original = _Tokens.of(row["original sentence"], row["original sentence_tag"])
    expert = _Tokens.of(row[kind], row[f"{kind}_tag"]) if row.get(kind) else None
    head_only = _Tokens.of(row["original head only"], row["original head only_tag"])
    compound = row["compound"].split()
    if not (original and expert and head_only) or len(original.span) != 2 or len(compound) != 2:
        return
    before, after = original.outside
    expert_before, expert_after = expert.outside
    if len(before) != len(expert_before) or len(after) != len(expert_after) or len(expert.span) < 2:
        return
    score.variants += 1
    # The modifier is the word the head-only sentence drops; the experts may have moved it
    # ("alta temporada" → "temporada elevada"), so it is found in their span by its lemma.
    modifier_at = 1 if head_only.words[head_only.start] == original.span[0] else 0
    old_modifier = original.span[modifier_at]
    expert_modifier_at = _modifier_in(expert.span, old_modifier, KINDS[kind], modifier_at, morphology)
    expert_modifier = expert.span[expert_modifier_at]
    reinflected = KINDS[kind] == "head" and old_modifier.casefold() != expert_modifier.casefold()
    changed_outside = _fold(before) != _fold(expert_before) or _fold(after) != _fold(expert_after)
    if not (reinflected or changed_outside):
        return
    score.rewritten_by_experts += 1
    head_words = [w for i, w in enumerate(expert.span) if i != expert_modifier_at]
    head_lemma = [_lemma(head_words[0], NOUNS, morphology, lambda w: singular_word(w, "pt")), *head_words[1:]]
    if KINDS[kind] == "head":
        modifier = compound[modifier_at]
    else:
        modifier = _lemma(expert_modifier, ADJECTIVES, morphology, pt_adjective_lemma)
    modifier_first = expert_modifier_at == 0
    replacement = " ".join([modifier, *head_lemma] if modifier_first else [*head_lemma, modifier])
    old_head = morphology.analyse(original.span[1 - modifier_at], NOUNS)
    plural = old_head[0].number == "p" if old_head else None
    sentence = row["original sentence"]
    start = len(" ".join(before)) + (1 if before else 0)
    end = start + len(" ".join(original.span))
    made = realise(
        sentence,
        (start, end),
        replacement,
        "pt",
        compound=row["compound"],
        plural=plural,
        morphology=morphology,
        head=head_lemma[0],
    )
    ours = made.text.split(" ")
    ours_span = made.text[made.span[0] : made.span[1]].split(" ")
    ours_before, ours_after = ours[: len(before)], ours[len(before) + len(ours_span) :]
    ours_modifier = ours_span[0 if modifier_first else -1]
    if any(flag.startswith("agreement:") and "in the Portuguese dictionary" in flag for flag in made.flags):
        score.unknown += 1
    good = (
        _fold(ours_before) == _fold(expert_before)
        and _fold(ours_after) == _fold(expert_after)
        and ours_modifier.casefold() == expert_modifier.casefold()
    )
    if good:
        score.matched += 1
        score.whole_span_matched += _fold(ours_span) == _fold(expert.span)
    else:
        score.misses.append({"compound": row["compound"], "kind": kind, "experts": row[kind], "ours": made.text,
                             "flags": list(made.flags)})  # fmt: skip


def compounds_in(directory: Path) -> list[str]:
    """The compounds of the NCIMP Portuguese naturalistic files, as their ``compound`` column names them."""
    with (directory / FILES[0]).open(encoding="utf-8", newline="") as handle:
        return [row["compound"] for row in csv.DictReader(handle)]


def measure_agreement(directory: Path, morphology: Morphology, compounds: set[str] | None = None) -> AgreementScore:
    """The score over the NCIMP Portuguese naturalistic files in ``directory`` (optionally some compounds only)."""
    score = AgreementScore()
    for name in FILES:
        path = directory / name
        if not path.is_file():
            raise ValueError(f"{path} does not exist: expected the NCIMP PT naturalistic files")
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                if compounds is not None and row["compound"] not in compounds:
                    continue
                for kind in KINDS:
                    score_sentence(row, kind, morphology, score)
    return score
