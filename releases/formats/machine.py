"""Machine-made ratings in a release, when a curator opts in: their table, its summary and its words (pure: no Django).

``tidy/machine_ratings.jsonl`` and ``tidy/machine_ratings.parquet`` hold the same rows, one per answer
of a machine annotator (a language model asked a campaign's questions), valid or not, each labelled
``annotator_origin`` = ``machine`` with its model, template and settings. They exist only in a
release that opted in (``Snapshot.machine_ratings`` is not None), so a release without the opt-in has
exactly the files, card and datapackage.json it had before machine annotators existed. The rows never
enter the scores or the agreement: those come from ``releases.collect``'s campaign reports, which read
annotators' ratings alone.

The model's identity is written without where it is served from (an endpoint's address) or any
key: ``PUBLIC_IDENTITY`` is the same allow-list as ``probing.exposure.PUBLIC_IDENTITY`` (which a
release cannot import: probing sits above it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache

from releases.formats.meta import DATAPACKAGE
from releases.formats.tidy import (
    json_lines,
    jsonl_bytes,
    parquet_bytes,
    parse_sentence_id,
)
from releases.snapshot import MachineRating, Snapshot

MACHINE_JSONL = "tidy/machine_ratings.jsonl"
MACHINE_PARQUET = "tidy/machine_ratings.parquet"
ORIGIN = "machine"
PUBLIC_IDENTITY = ("kind", "name", "revision", "weights_sha256", "dim", "lowercase", "engine")
QUESTIONS = ("head", "modifier", "compound")
MACHINE_NOTE = (
    "This release also carries MACHINE-MADE ratings: the answers of language models (machine annotators) to "
    f"its campaigns' questions, in `{MACHINE_JSONL}` and `{MACHINE_PARQUET}`. They are not human judgements, "
    "and they are not part of its scores or agreement."
)


def as_float(value) -> float | None:
    """An expected score as written and read back: a float (5.0, never 5), or None."""
    return None if value is None else float(value)


def public_identity(identity: Mapping | None) -> dict:
    """A model's identity as a release may publish it: what it is (name, revision or weights), not where it runs."""
    return {key: identity[key] for key in PUBLIC_IDENTITY if key in identity} if identity else {}


@cache
def machine_schema():
    """The Arrow schema of tidy/machine_ratings.parquet (pyarrow imported on first use)."""
    import pyarrow as pa

    types = {
        "template_version": pa.int32(),
        "sample": pa.int32(),
        "valid": pa.bool_(),
        **{f"{q}_score": pa.int32() for q in QUESTIONS},
        **{f"{q}_expected": pa.float64() for q in QUESTIONS},
        "paraphrases": pa.list_(pa.string()),
    }
    nullable = {"sentence_id", *(f"{q}_{part}" for q in QUESTIONS for part in ("score", "expected"))}
    return pa.schema(
        [pa.field(name, types.get(name, pa.string()), nullable=name in nullable) for name in MACHINE_FIELDS]
    )


MACHINE_FIELDS = {
    "language": "Language code (en, pt).",
    "compound": "The noun compound as the dataset cites it.",
    "campaign": "The campaign whose questions the model answered.",
    "level": "token (a sentence was rated) or type (the compound alone).",
    "sentence_id": "Token level: the rated sentence, <kind>-<slot> as in tidy/pairs.*; empty at type level.",
    "annotator_origin": "Always machine: a language model's answer, never a person's rating.",
    "machine_annotator": "The machine annotator: model · template · sample.",
    "model": "The model's name.",
    "model_kind": "How it was run: openai_chat (a chat endpoint) or causal_lm (local weights).",
    "model_identity": "The model's identity as a JSON object in text: kind, name, and its revision or the "
    "sha256 of its weights (never its address or key).",
    "template": "Name of the prompt template.",
    "template_version": "Version of the prompt template.",
    "settings": "The settings it answered under, as a JSON object in text (temperature, seed, max_tokens …).",
    "sample": "Which sample of the same model, template and settings (1, 2 …).",
    "valid": "False when the answer did not parse: kept, with the reason in error and no scores.",
    "error": "Why an invalid answer is invalid; empty for a valid one.",
    "head_score": "Literality of the head (0-5) the model answered; empty when invalid.",
    "modifier_score": "Literality of the modifier (0-5) the model answered; empty when invalid.",
    "compound_score": "Compositionality of the compound (0-5) the model answered; empty when invalid.",
    "head_expected": "Expected head score under the model's probabilities of 0-5, when they were read; "
    "empty otherwise.",
    "modifier_expected": "Expected modifier score under the model's probabilities of 0-5, when read.",
    "compound_expected": "Expected compound score under the model's probabilities of 0-5, when read.",
    "paraphrases": "Paraphrases the model gave.",
}


def _text(value: dict) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def machine_row(m: MachineRating) -> dict:
    """One answer as a row of the machine table, keys in ``MACHINE_FIELDS`` order."""
    return {
        "language": m.language,
        "compound": m.compound,
        "campaign": m.campaign,
        "level": m.level,
        "sentence_id": f"{m.sentence[0]}-{m.sentence[1]}" if m.sentence else None,
        "annotator_origin": ORIGIN,
        "machine_annotator": m.annotator,
        "model": m.model,
        "model_kind": m.model_kind,
        "model_identity": _text(m.model_identity),
        "template": m.template,
        "template_version": m.template_version,
        "settings": _text(m.settings),
        "sample": m.sample,
        "valid": m.valid,
        "error": m.error,
        "head_score": m.head_score,
        "modifier_score": m.modifier_score,
        "compound_score": m.compound_score,
        **{f"{q}_expected": x for q, x in zip(QUESTIONS, m.expected, strict=True)},
        "paraphrases": list(m.paraphrases),
    }


def machine_files(snapshot: Snapshot) -> dict[str, bytes]:
    """The machine table's two files when the release opted in (maybe with no rows), else none at all."""
    if snapshot.machine_ratings is None:
        return {}
    rows = [machine_row(m) for m in snapshot.sorted().machine_ratings]
    return {MACHINE_JSONL: jsonl_bytes(rows), MACHINE_PARQUET: parquet_bytes(rows, machine_schema())}


def machine_ratings_from_jsonl(data: bytes) -> tuple[MachineRating, ...]:
    """The answers ``machine_files`` wrote."""
    out = []
    for number, row in json_lines(data, MACHINE_JSONL):
        try:
            if row["annotator_origin"] != ORIGIN:
                raise ValueError(f"annotator_origin {row['annotator_origin']!r} is not {ORIGIN!r}")
            out.append(
                MachineRating(
                    language=row["language"],
                    compound=row["compound"],
                    campaign=row["campaign"],
                    level=row["level"],
                    sentence=parse_sentence_id(row["sentence_id"]) if row["sentence_id"] else None,
                    annotator=row["machine_annotator"],
                    model=row["model"],
                    model_kind=row["model_kind"],
                    model_identity=json.loads(row["model_identity"]),
                    template=row["template"],
                    template_version=int(row["template_version"]),
                    settings=json.loads(row["settings"]),
                    sample=int(row["sample"]),
                    valid=bool(row["valid"]),
                    error=row["error"],
                    head_score=row["head_score"],
                    modifier_score=row["modifier_score"],
                    compound_score=row["compound_score"],
                    expected=tuple(as_float(row[f"{q}_expected"]) for q in QUESTIONS),
                    paraphrases=tuple(row["paraphrases"]),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{MACHINE_JSONL}:{number}: {exc!r}") from None
    return tuple(out)


def machine_annotators(ratings: tuple[MachineRating, ...]) -> list[dict]:
    """One entry per machine annotator among ``ratings``, with its answers counted.

    In a fixed order: by campaign, model, identity, template and version, settings, sample and label.
    """
    found: dict[tuple, dict] = {}
    for m in ratings:
        key = (m.campaign, m.model, _text(m.model_identity), m.template, m.template_version, _text(m.settings))
        key += (m.sample, m.annotator, m.model_kind)
        entry = found.setdefault(
            key,
            {
                "campaign": m.campaign,
                "label": m.annotator,
                "model": m.model,
                "model_kind": m.model_kind,
                "model_identity": dict(sorted(m.model_identity.items())),
                "template": m.template,
                "template_version": m.template_version,
                "settings": dict(sorted(m.settings.items())),
                "sample": m.sample,
                "answers": 0,
                "invalid": 0,
            },
        )
        entry["answers"] += 1
        entry["invalid"] += not m.valid
    return [found[key] for key in sorted(found)]


def machine_package(snapshot: Snapshot) -> dict | None:
    """What datapackage.json says of the machine-made ratings (None: the release has none, and says nothing)."""
    if snapshot.machine_ratings is None:
        return None
    ratings = snapshot.sorted().machine_ratings
    return {
        "annotator_origin": ORIGIN,
        "files": [MACHINE_JSONL, MACHINE_PARQUET],
        "answers": len(ratings),
        "invalid": sum(not m.valid for m in ratings),
        "annotators": machine_annotators(ratings),
        "in_words": MACHINE_NOTE,
    }


def machine_summary(files: Mapping[str, bytes]) -> dict | None:
    """What a release's datapackage.json says of its machine-made ratings (``machine_package``), or None."""
    return json.loads(files[DATAPACKAGE].decode("utf-8")).get("machine_ratings") if DATAPACKAGE in files else None


def words(value: Mapping) -> str:
    """A JSON object in a line of the card: ``key=value`` pairs, sorted."""
    return ", ".join(f"{key}={value[key]}" for key in sorted(value)) or "–"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def card_section(snapshot: Snapshot) -> list[str]:
    """The data card's section on machine-made ratings; none for a release that did not opt in."""
    package = machine_package(snapshot)
    if package is None:
        return []
    campaigns = sorted({entry["campaign"] for entry in package["annotators"]})
    lines = [
        "## Machine-made ratings",
        "",
        "**These are machine-made ratings, not human judgements.** A curator chose to include the answers of "
        "language models (machine annotators) to the campaigns' questions. They are in "
        f"`{MACHINE_JSONL}` and `{MACHINE_PARQUET}`, one row per answer, each labelled `annotator_origin` = "
        "`machine` with its model, template and settings. They are kept apart from the human scores: they never "
        "enter the scores, the classes or the agreement of this release, which come from the annotators' ratings "
        "alone (whether or not this table is included).",
        "",
    ]
    if not package["answers"]:
        return lines + [
            "The campaigns' machine annotators had given no answer to the released compounds: the table is empty."
        ]
    lines += [
        f"{package['answers']} answers from campaign{'s' if len(campaigns) > 1 else ''} "
        f"{', '.join(f'`{c}`' for c in campaigns)}, {package['invalid']} of them invalid (an answer that did not "
        "parse is kept, with `valid` false, the reason in `error` and no scores).",
        "",
    ]
    header = ["Machine annotator", "Campaign", "Model", "Kind", "Identity", "Template", "Settings", "Sample"]
    lines += ["| " + " | ".join([*header, "Answers", "Invalid"]) + " |", "|" + "---|" * (len(header) + 2)]
    for a in package["annotators"]:
        cells = [a["label"], f"`{a['campaign']}`", a["model"], a["model_kind"], words(a["model_identity"])]
        cells += [f"{a['template']} v{a['template_version']}", words(a["settings"]), a["sample"]]
        lines.append("| " + " | ".join(_cell(c) for c in [*cells, a["answers"], a["invalid"]]) + " |")
    return lines
