"""Writing parsed records into the database: one transaction per import, idempotent.

Parsers (``datasets.formats``) turn files into records and problems; ``import_records``
upserts them. Re-running an import with the same files changes nothing and reports every
row as unchanged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.db import models, transaction
from django.utils import timezone

from core.database import analyze
from datasets import vocabulary
from datasets.formats.records import SKIPPED, WARNING, InputError, ParseResult, Problem, split_compound
from datasets.merge_rules import better_casing, keep_available_text, keep_better_span, keep_precise_scores
from datasets.models import Collection, Compound, ImportRun, Paraphrase, Sentence, Variant

BATCH = 2000
DEFAULT_COLLECTION = "default"


@dataclass
class Tally:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged}


@dataclass
class ImportSummary:
    importer: str
    dry_run: bool
    rows_read: int = 0
    tallies: dict[str, Tally] = field(
        default_factory=lambda: {k: Tally() for k in ("compounds", "sentences", "paraphrases", "variants")}
    )
    warnings: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    import_run_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "importer": self.importer,
            "dry_run": self.dry_run,
            "rows_read": self.rows_read,
            **{name: tally.as_dict() for name, tally in self.tallies.items()},
            "warnings": dict(self.warnings),
            "skipped": dict(self.skipped),
            "import_run": self.import_run_id,
        }

    def lines(self, detail: int = 20) -> list[str]:
        out = [f"{self.importer}{' (dry run: nothing written)' if self.dry_run else ''}: {self.rows_read} rows read"]
        for name, tally in self.tallies.items():
            out.append(
                f"  {name:<12} created {tally.created:>6}  updated {tally.updated:>6}  unchanged {tally.unchanged:>6}"
            )
        for title, counter in (("skipped", self.skipped), ("warnings", self.warnings)):
            for kind, count in counter.most_common():
                out.append(f"  {title}: {count} × {kind}")
        shown = [p for p in self.problems if p.severity in (WARNING, SKIPPED)][:detail]
        for problem in shown:
            out.append(f"    {problem}")
        hidden = len([p for p in self.problems if p.severity in (WARNING, SKIPPED)]) - len(shown)
        if hidden > 0:
            out.append(f"    … {hidden} more (use --verbosity 2 to list all)")
        return out


class _DryRunRollback(Exception):
    pass


def import_records(
    result: ParseResult,
    *,
    importer: str,
    source_dir: str,
    collection: str = DEFAULT_COLLECTION,
    options: dict | None = None,
    dry_run: bool = False,
) -> ImportSummary:
    """Upsert everything in ``result`` into ``collection`` in one transaction (rolled back when ``dry_run``)."""
    if result.errors:
        raise InputError(result.errors)
    summary = ImportSummary(importer=importer, dry_run=dry_run, rows_read=result.rows_read)
    summary.problems = list(result.problems)
    summary.warnings = result.problem_counts(WARNING)
    summary.skipped = result.problem_counts(SKIPPED)
    try:
        with transaction.atomic():
            run = ImportRun.objects.create(
                importer=importer, source_dir=source_dir, files=result.files, options=options or {}
            )
            writer = _Writer(run, summary, Collection.named(collection))
            writer.write(result)
            analyze(Compound, Sentence, Paraphrase, Variant)
            run.summary = summary.as_dict()
            run.finished_at = timezone.now()
            run.save(update_fields=["summary", "finished_at"])
            summary.import_run_id = run.pk
            if dry_run:
                raise _DryRunRollback
    except _DryRunRollback:
        summary.import_run_id = None
    return summary


def _provenance(source, flags: list[str]) -> dict:
    return {"source_file": source.file, "source_line": source.line, "flags": list(flags)}


class _Writer:
    """Bulk upserts keyed by each model's natural key."""

    def __init__(self, run: ImportRun, summary: ImportSummary, collection: Collection):
        self.collection = collection
        self.run = run
        self.summary = summary
        self.compounds: dict[tuple[str, str], Compound] = {}
        self.sentences: dict[tuple[int, str, int], Sentence] = {}

    def write(self, result: ParseResult) -> None:
        self._compounds(result)
        self._sentences(result)
        self._paraphrases(result)
        self._variants(result)

    # -- compounds ---------------------------------------------------------------------------
    def _compounds(self, result: ParseResult) -> None:
        merged: dict[tuple[str, str], dict] = {}
        for rec in result.compounds:
            key = (rec.language, vocabulary.compound_key(rec.text))
            entry = merged.setdefault(key, {"text": rec.text, "fields": {}, "prov": None, "derived": set()})
            entry["text"] = better_casing(entry["text"], rec.text)
            entry["fields"].update(rec.fields)
            entry["derived"] = (entry["derived"] - set(rec.fields)) | set(rec.derived)
            entry["prov"] = _provenance(rec.source, rec.flags)
        # Records that only name a compound through a sentence or variant still need one.
        for rec in [*result.sentences, *result.variants, *result.paraphrases]:
            key = (rec.language, vocabulary.compound_key(rec.compound))
            if key not in merged:
                merged[key] = {
                    "text": rec.compound,
                    "fields": {},
                    "prov": _provenance(rec.source, []),
                    "derived": set(),
                }
        existing = {}
        for language in {k[0] for k in merged}:
            keys = [k[1] for k in merged if k[0] == language]
            for i in range(0, len(keys), BATCH):
                batch = keys[i : i + BATCH]
                for c in Compound.objects.filter(collection=self.collection, language=language, key__in=batch):
                    existing[(c.language, c.key)] = c
        new, changed = [], []
        for key, entry in merged.items():
            compound = existing.get(key)
            values = dict(entry["fields"])
            if compound is None:
                modifier, head = split_compound(entry["text"], key[0])
                values.setdefault("modifier", modifier)
                values.setdefault("head", head)
                compound = Compound(
                    collection=self.collection,
                    language=key[0],
                    text=entry["text"],
                    key=key[1],
                    import_run=self.run,
                    **values,
                    **entry["prov"],
                )
                new.append(compound)
            else:
                values["text"] = better_casing(compound.text, entry["text"])
                for name in entry["derived"]:
                    if getattr(compound, name) is not None:
                        values.pop(name, None)
                values = keep_precise_scores(compound, values)
                if compound.gold_synonym_source == vocabulary.GOLD_FROM_CURATOR:
                    # A curator's pick outlives re-imports.
                    values.pop("gold_synonym", None)
                    values.pop("gold_synonym_source", None)
                if _update(compound, values, entry["prov"], self.run):
                    changed.append(compound)
                else:
                    self.summary.tallies["compounds"].unchanged += 1
            self.compounds[key] = compound
        _bulk(Compound, new, changed, self.summary.tallies["compounds"])

    def _compound(self, language: str, text: str) -> Compound:
        return self.compounds[(language, vocabulary.compound_key(text))]

    # -- sentences ---------------------------------------------------------------------------
    def _sentences(self, result: ParseResult) -> None:
        merged: dict[tuple[int, str, int], dict] = {}
        for rec in result.sentences:
            compound = self._compound(rec.language, rec.compound)
            key = (compound.pk, rec.kind, rec.slot)
            entry = merged.setdefault(key, {"fields": {}, "prov": None})
            entry["fields"].update(rec.fields)
            entry["prov"] = _provenance(rec.source, rec.flags)
        needed = set(merged)
        for rec in [*result.variants, *[p for p in result.paraphrases if p.slot]]:
            compound = self._compound(rec.language, rec.compound)
            kind, slot = (
                (rec.sentence_kind, rec.sentence_slot)
                if hasattr(rec, "sentence_kind")
                else (vocabulary.NATURALISTIC, rec.slot)
            )
            needed.add((compound.pk, kind, slot))
        compound_ids = sorted({k[0] for k in needed})
        existing = {}
        for i in range(0, len(compound_ids), BATCH):
            for s in Sentence.objects.filter(compound_id__in=compound_ids[i : i + BATCH]):
                existing[(s.compound_id, s.kind, s.slot)] = s
        new, changed = [], []
        for key, entry in merged.items():
            sentence = existing.get(key)
            if sentence is None:
                # Scores for a sentence no file has given yet (the scores table without the sentences):
                # kept on an unavailable sentence until a file brings its text.
                availability = {} if "text" in entry["fields"] else {"available": False}
                sentence = Sentence(
                    compound_id=key[0],
                    kind=key[1],
                    slot=key[2],
                    import_run=self.run,
                    **availability,
                    **entry["fields"],
                    **entry["prov"],
                )
                new.append(sentence)
            elif _update(
                sentence,
                keep_precise_scores(
                    sentence, keep_better_span(sentence, keep_available_text(sentence, entry["fields"]))
                ),
                entry["prov"],
                self.run,
            ):
                changed.append(sentence)
            else:
                self.summary.tallies["sentences"].unchanged += 1
            self.sentences[key] = sentence
        _bulk(Sentence, new, changed, self.summary.tallies["sentences"])
        for key in needed - set(merged):
            if key in existing:
                self.sentences[key] = existing[key]
            else:
                raise InputError(f"no sentence {key[1]} {key[2]} for compound id {key[0]}: import its sentences first")

    # -- paraphrases -------------------------------------------------------------------------
    def _paraphrases(self, result: ParseResult) -> None:
        if not result.paraphrases:
            return
        merged: dict[tuple, dict] = {}
        for rec in result.paraphrases:
            compound = self._compound(rec.language, rec.compound)
            sentence = self.sentences[(compound.pk, vocabulary.NATURALISTIC, rec.slot)] if rec.slot else None
            key = (compound.pk, rec.level, sentence.pk if sentence else None, rec.text)
            merged[key] = ({"frequency": rec.frequency}, _provenance(rec.source, []))
        compound_ids = sorted({k[0] for k in merged})
        existing = {}
        for i in range(0, len(compound_ids), BATCH):
            for p in Paraphrase.objects.filter(compound_id__in=compound_ids[i : i + BATCH]):
                existing[(p.compound_id, p.level, p.sentence_id, p.text)] = p
        new, changed = [], []
        tally = self.summary.tallies["paraphrases"]
        for key, (values, prov) in merged.items():
            paraphrase = existing.get(key)
            if paraphrase is None:
                new.append(
                    Paraphrase(
                        compound_id=key[0],
                        level=key[1],
                        sentence_id=key[2],
                        text=key[3],
                        import_run=self.run,
                        **values,
                        **prov,
                    )
                )
            elif _update(paraphrase, values, prov, self.run):
                changed.append(paraphrase)
            else:
                tally.unchanged += 1
        _bulk(Paraphrase, new, changed, tally)

    # -- variants ----------------------------------------------------------------------------
    def _variants(self, result: ParseResult) -> None:
        if not result.variants:
            return
        merged: dict[tuple, dict] = {}
        for rec in result.variants:
            compound = self._compound(rec.language, rec.compound)
            sentence = self.sentences[(compound.pk, rec.sentence_kind, rec.sentence_slot)]
            key = (sentence.pk, rec.kind, rec.rank, rec.isolated)
            prov = {**_provenance(rec.source, rec.flags), "source_column": rec.source.column}
            merged[key] = (rec.fields, prov)
        sentence_ids = sorted({k[0] for k in merged})
        existing = {}
        for i in range(0, len(sentence_ids), BATCH):
            for var in Variant.objects.filter(sentence_id__in=sentence_ids[i : i + BATCH]):
                existing[(var.sentence_id, var.kind, var.rank, var.isolated)] = var
        new, changed = [], []
        tally = self.summary.tallies["variants"]
        for key, (values, prov) in merged.items():
            variant = existing.get(key)
            if variant is None:
                new.append(
                    Variant(
                        sentence_id=key[0],
                        kind=key[1],
                        rank=key[2],
                        isolated=key[3],
                        import_run=self.run,
                        **values,
                        **prov,
                    )
                )
            elif _update(variant, keep_better_span(variant, values), prov, self.run):
                changed.append(variant)
            else:
                tally.unchanged += 1
        _bulk(Variant, new, changed, tally)


def _update(obj: models.Model, values: dict, provenance: dict, run: ImportRun) -> bool:
    """Set ``values``; when any differs, the row's provenance becomes this file and run.

    A file that only confirms what is there leaves the provenance alone, so that importing
    NCS after NCTTI does not make NCS the source of NCTTI's compounds.
    """
    changed = False
    for name, value in values.items():
        if getattr(obj, name) != value:
            setattr(obj, name, value)
            changed = True
    if changed:
        for name, value in provenance.items():
            setattr(obj, name, value)
        obj.import_run = run
    return changed


def _bulk(model: type[models.Model], new: list, changed: list, tally: Tally) -> None:
    if new:
        model.objects.bulk_create(new, batch_size=BATCH)
    if changed:
        names = sorted({f.name for f in model._meta.concrete_fields if not f.primary_key})
        model.objects.bulk_update(changed, names, batch_size=500)
    tally.created += len(new)
    tally.updated += len(changed)
