"""Choose the synonym ranking's weights on the development half, record them, then report the held-out half once.

Usage: .venv/bin/python benchmarks/tune_ranking.py [--data PATH/TO/shared/data] [--context-model default|none|SOURCE]
       [--languages en,pt] [--seed 33] [--restarts 6] [--output building/rules/synonyms/ranking_weights.json]

1. Imports NCTTI into a throwaway database (DATABASE_URL if set, else SQLite in a scratch folder),
   derives the gold synonyms, and builds every compound's ``SynonymQuery`` with the product's own
   code (``building.variants.planning.synonym_query``: the lexicon's synonyms, the crowd's words, the
   evidence; scored in the compound's naturalistic sentences when a context model is on).
2. Splits the compounds as ``benchmarks/variant_quality.py`` does (``expert_comparison.SPLIT_SEED``)
   and searches the weights on the development half only (``building.rules.synonyms.tuning``).
3. Writes the weights, the seed, the search space and the development figures to ``--output``, the
   file ``building.rules.synonyms.scoring`` reads; then measures the held-out half with them, once,
   and adds those figures to the record under "held_out", which the search never reads.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.variant_quality import context_model_flag, context_model_option, expert_rows, format_table  # noqa: E402
from benchmarks.variants import setup_django  # noqa: E402

MEASURES = ("syn", "modifier_top", "head_top", "pair", "modifier_any", "head_any")


def naturalistic_contexts(compound) -> list:
    from datasets import vocabulary

    return [
        (s.text, (s.span_start, s.span_end))
        for s in compound.sentences.all()
        if s.kind == vocabulary.NATURALISTIC and s.available and s.text and s.has_span
    ]


def generated(compound, query, weights):
    """What the generator would propose with ``weights``, as ``expert_comparison.Generated``."""
    from building.rules.expert_comparison import Generated
    from building.rules.synonyms.layout import WordNotInCompound
    from building.rules.synonyms.words_syn import head_synonyms, modifier_synonyms, words_syn

    query = dataclasses.replace(query, weights=weights)
    try:
        every = dataclasses.replace(query, limit=10_000)
        modifier_ranked = [r.details["modifier"]["synonym"] for r in modifier_synonyms(every)]
        head_ranked = [r.details["head"]["synonym"] for r in head_synonyms(every)]
        pairs = tuple(r.text for r in words_syn(query))
    except WordNotInCompound:
        modifier_ranked, head_ranked, pairs = [], [], ()
    return Generated(
        language=compound.language,
        compound=compound.text,
        gold_synonym=compound.gold_synonym or "",
        modifier_top=tuple(modifier_ranked[:5]),
        head_top=tuple(head_ranked[:5]),
        modifier_ranked=tuple(modifier_ranked),
        head_ranked=tuple(head_ranked),
        pairs=pairs,
    )


def cases_of(rows, queries) -> list:
    """One tuning case per expert row and side that has an expert word and a compound with candidates."""
    from building.rules.expert_comparison import word_found
    from building.rules.synonyms.layout import WordNotInCompound
    from building.rules.synonyms.tuning import case
    from building.rules.synonyms.words_syn import side_evidence

    evidence: dict[tuple[str, str], list] = {}
    out = []
    for row in rows:
        query = queries.get(row.key)
        for side, expert in (("modifier", row.modifier_synonym), ("head", row.head_synonym)):
            if query is None or not expert:
                continue
            if (row.key, side) not in evidence:
                try:
                    query.layout()
                    evidence[(row.key, side)] = [e for _, e in side_evidence(query, side)]
                except WordNotInCompound:
                    evidence[(row.key, side)] = []
            found = evidence[(row.key, side)]
            hit = lambda word, expert=expert, language=row.language: word_found(expert, [word], language)  # noqa: E731
            out.append(case(row.source, side, found, hit))
    return out


def figures_of(figures: dict) -> dict:
    return {source: {m: f.get(m) for m in (*MEASURES, "compounds")} | {
        f"{m}_n": f.get(f"{m}_n") for m in MEASURES} for source, f in figures.items()}  # fmt: skip


def main() -> None:
    from building.rules.synonyms.scoring import WEIGHTS_FILE
    from building.rules.synonyms.tuning import RESTARTS, TUNING_SEED

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    context_model_flag(parser)
    parser.add_argument("--languages", default="en,pt")
    parser.add_argument("--seed", type=int, default=TUNING_SEED)
    parser.add_argument("--restarts", type=int, default=RESTARTS)
    parser.add_argument("--output", default=str(WEIGHTS_FILE))
    args = parser.parse_args()
    data = Path(args.data)
    languages = sorted({code.strip() for code in args.languages.split(",") if code.strip()})
    in_context = args.context_model != "none"
    context_model = context_model_option(args.context_model)
    setup_django(tempfile.mkdtemp(prefix="workbench-tune-"))

    from django.core.management import call_command

    from building.counts.frequency import per_million
    from building.rules.expert_comparison import DEV, HELD_OUT, SPLIT_SEED, compare, compound_key, split_halves
    from building.rules.synonyms.tuning import coordinate_ascent, shares
    from building.variants.gold_synonyms import derive_gold_synonyms
    from building.variants.planning import synonym_query
    from building.variants.resources import GenerationOptions, load_resources
    from datasets.models import Compound

    started = time.perf_counter()
    halves, queries, compounds = {}, {}, {}
    for language in languages:
        call_command("import_nctti", str(data / "nctti"), "--language", language, stdout=StringIO())
        derive_gold_synonyms(language=language)
        resources = load_resources(language, GenerationOptions(context_model=context_model))
        found = Compound.objects.filter(language=language).prefetch_related("sentences", "paraphrases")
        for compound in found:
            key = compound_key(compound.text)
            contexts = naturalistic_contexts(compound) if in_context else None
            queries[key], compounds[key] = synonym_query(compound, resources, contexts), compound
        halves |= split_halves(compound_key(c.text) for c in found)
    rows = expert_rows(data, set(languages))
    dev_rows = [r for r in rows if halves.get(r.key) == DEV]
    cases = cases_of(dev_rows, queries)
    search = coordinate_ascent(cases, seed=args.seed, restarts=args.restarts)
    weights = search.weights

    def measured(half: str) -> dict:
        keys = [k for k, h in halves.items() if h == half]
        made = {k: generated(compounds[k], queries[k], weights) for k in keys}
        return compare([r for r in rows if halves.get(r.key) == half], made, per_million)

    dev = measured(DEV)
    record = {
        "weights": weights,
        "tuning": {
            "command": "benchmarks/tune_ranking.py " + " ".join(sys.argv[1:]),
            "seed": search.seed,
            "restarts": search.restarts,
            "split_seed": SPLIT_SEED,
            "search_space": {name: list(values) for name, values in search.space.items()},
            "untuned": search.untuned,
            "evaluations": search.evaluations,
            "objective": "mean over (expert source, side) of the dev-half share with the expert's word in the top 5",
            "context_model": args.context_model,
            "context_models": GenerationOptions(context_model=context_model).context_models(languages),
            "languages": languages,
            "dev_cases": len(cases),
            "dev_objective": round(search.value, 4),
            "dev_shares": {f"{s} {side}": round(v, 4) for (s, side), v in shares(cases, weights).items()},
        },
        "dev": figures_of(dev),
    }
    print(format_table(f"dev half, tuned weights {json.dumps(weights)}", dev, 0), end="\n\n")
    held_out = measured(HELD_OUT)  # once, after the weights are chosen
    record["held_out"] = figures_of(held_out)
    print(format_table("held-out half (reported once)", held_out, 0), end="\n\n")
    Path(args.output).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.output} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
