"""How close variants generated from NCTTI alone come to the ones experts made for NCIMP and NCS (issue 17).

Usage: .venv/bin/python benchmarks/variant_quality.py [--data PATH/TO/shared/data] [--per-half 8 | --all]
       [--context-model default|none|SOURCE] [--languages en,pt]

1. Imports NCTTI (compounds, sentences, paraphrases) into a throwaway database (DATABASE_URL if
   set, else SQLite in a scratch folder), derives the gold synonyms and generates every variant
   with the product's own code. The generator reads nothing of NCIMP or NCS.
2. Splits each language's compounds into a development half and a held-out half by a fixed
   seed (``building.rules.expert_comparison.SPLIT_SEED``, chosen before any tuning).
3. Compares the generated variants with the experts' (NCIMP: Portuguese naturalistic sentences
   1-3, Portuguese and English neutral; NCS: Portuguese and English P1/P3) and prints one table
   per half, then one JSON line.

The default run takes ``--per-half`` compounds of each language from each half (spread over
the alphabet) so that it finishes in a minute; ``--all`` measures every compound (a few minutes
with the default context model).
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
from benchmarks.record import emit, save_flag  # noqa: E402
from benchmarks.variants import setup_django  # noqa: E402

SOURCES = ["PT naturalistic", "PT neutral", "EN neutral", "PT NCS", "EN NCS"]
ROWS = [
    ("syn", "NC_Syn equals the experts' (loose)", "share"),
    ("modifier_top", "experts' modifier synonym among the 5", "share"),
    ("modifier_any", "... anywhere in the ranked list", "share"),
    ("head_top", "experts' head synonym among the 5", "share"),
    ("head_any", "... anywhere in the ranked list", "share"),
    ("pair", "NC_WordsSyn: experts' pair among the 5", "share"),
    ("rand", "NC_Rand median abs. zipf f_avg gap, generated vs experts'", "gap"),
]
EVERY = 10_000  # "anywhere in the ranked list": every usable synonym


def context_model_flag(parser) -> None:
    """``--context-model``: "default" (each language's model, as generation uses it), "none", or a source."""
    parser.add_argument(
        "--context-model",
        default="default",
        help='"default": each language\'s context model, as generation uses it; "none": no model; or a source.',
    )


def context_model_option(choice: str) -> str:
    """The ``GenerationOptions.context_model`` of a ``--context-model`` choice ("" is each language's default)."""
    return "" if choice == "default" else choice


def expert_rows(data: Path, languages: set[str]):
    from building.rules.expert_comparison import ncimp_rows, ncs_rows

    rows = []
    if "pt" in languages:
        for k in (1, 2, 3):
            path = data / "ncimp" / "PT" / f"naturalistics_examplesent{k}.csv"
            rows += ncimp_rows(path, "PT naturalistic", "pt", slot=k)
        rows += ncimp_rows(data / "ncimp" / "PT" / "neutral.csv", "PT neutral", "pt")
        rows += ncs_rows(data / "ncs" / "pt" / "neutral", "PT NCS", "pt")
    if "en" in languages:
        rows += ncimp_rows(data / "ncimp" / "EN" / "neutral.csv", "EN neutral", "en")
        rows += ncs_rows(data / "ncs" / "en" / "neutral", "EN NCS", "en")
    return rows


def chosen(halves: dict[str, str], per_half: int | None) -> dict[str, str]:
    """``per_half`` keys of each half, spread evenly over the sorted keys; all of them when None."""
    if per_half is None:
        return halves
    picked = {}
    for half in sorted(set(halves.values())):
        keys = sorted(k for k, h in halves.items() if h == half)
        step = max(1, len(keys) // per_half)
        picked |= {key: half for key in keys[::step][:per_half]}
    return picked


def span_text(item) -> str:
    return item.text[item.span_start : item.span_end]


def generated_of(compound, resources):
    """The generated replacements of one compound, read back from the database, as a ``Generated``."""
    from building.rules.expert_comparison import NATURALISTIC, NEUTRAL, Generated
    from building.rules.synonyms.words_syn import head_synonyms, modifier_synonyms
    from building.variants.planning import synonym_query
    from datasets import vocabulary

    tops: dict[str, dict[int, str]] = {"modifier": {}, "head": {}, "pairs": {}}
    random_freq, candidates = {}, set()
    for sentence in compound.sentences.prefetch_related("variants"):
        variants = sorted(sentence.variants.all(), key=lambda v: (v.kind, v.rank))
        for v in variants:
            candidates.add(v.details.get("replacement") or span_text(v))
            if v.kind == vocabulary.SYNONYM_MODIFIER:
                tops["modifier"][v.rank] = v.details["modifier"]["synonym"]
            elif v.kind == vocabulary.SYNONYM_HEAD:
                tops["head"][v.rank] = v.details["head"]["synonym"]
            elif v.kind == vocabulary.SYNONYM_BOTH and not v.isolated:
                tops["pairs"][v.rank] = v.details["replacement"]
        randoms = tuple(span_text(v) for v in variants if v.kind == vocabulary.RANDOM_FREQ and not v.isolated)
        if sentence.has_span and randoms:
            if sentence.kind == vocabulary.NATURALISTIC:
                random_freq[(NATURALISTIC, sentence.slot, False)] = (span_text(sentence), randoms)
            elif sentence.kind == vocabulary.NEUTRAL_SHORT:
                random_freq[(NEUTRAL, 1, sentence.plural)] = (span_text(sentence), randoms)
    # The generator's own query, by the lexicon alone (not in context), every synonym instead of five.
    query = dataclasses.replace(synonym_query(compound, resources, contexts=None), limit=EVERY)
    try:
        modifier_ranked = [r.details["modifier"]["synonym"] for r in modifier_synonyms(query)]
        head_ranked = [r.details["head"]["synonym"] for r in head_synonyms(query)]
    except ValueError:  # the words are not in the compound's text
        modifier_ranked, head_ranked = [], []
    ordered = lambda ranks: tuple(ranks[r] for r in sorted(ranks))  # noqa: E731
    return Generated(
        language=compound.language,
        compound=compound.text,
        gold_synonym=compound.gold_synonym or "",
        modifier_top=ordered(tops["modifier"]),
        head_top=ordered(tops["head"]),
        modifier_ranked=tuple(modifier_ranked),
        head_ranked=tuple(head_ranked),
        pairs=ordered(tops["pairs"]),
        random_freq=random_freq,
        candidates=tuple(sorted(c for c in candidates if c)),
    )


def format_table(title: str, figures: dict, offensive: int) -> str:
    sources = [s for s in SOURCES if s in figures]
    lines = [f"## {title}", "", "| measure | " + " | ".join(sources) + " |", "|---|" + "---|" * len(sources)]
    lines.append("| compounds | " + " | ".join(str(figures[s]["compounds"]) for s in sources) + " |")
    for name, label, shape in ROWS:
        cells = []
        for source in sources:
            f = figures[source]
            if shape == "gap":
                ours, theirs = f.get("rand_gap"), f.get("rand_gap_experts")
                cells.append("—" if ours is None and theirs is None else f"{_num(ours)} vs {_num(theirs)}")
            else:
                value, n = f.get(name), f.get(f"{name}_n", 0)
                cells.append("—" if value is None else f"{100 * value:.1f}% (n={n})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(f"| offensive candidates | {offensive} |")
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--per-half", type=int, default=8, help="Compounds of each language per half (default 8).")
    parser.add_argument("--all", action="store_true", help="Every compound (the full run).")
    context_model_flag(parser)
    parser.add_argument("--languages", default="en,pt")
    parser.add_argument("--half", choices=["dev", "held-out", "both"], default="both", help="Generate one half only.")
    parser.add_argument("--dump", default="", help="Write each compound's generated and expert replacements (JSONL).")
    save_flag(parser)
    args = parser.parse_args()
    data = Path(args.data)
    languages = {code.strip() for code in args.languages.split(",") if code.strip()}
    context_model = context_model_option(args.context_model)
    setup_django(tempfile.mkdtemp(prefix="workbench-quality-"))

    from django.core.management import call_command

    from building.counts.frequency import per_million
    from building.rules.expert_comparison import compare, compound_key, offensive_count, split_halves
    from building.variants.generation import generate_variants
    from building.variants.gold_synonyms import derive_gold_synonyms
    from building.variants.resources import GenerationOptions, load_resources
    from datasets.models import Compound

    options = GenerationOptions(context_model=context_model)
    halves, generated, seconds, resources = {}, {}, 0.0, {}
    for language in sorted(languages):
        call_command("import_nctti", str(data / "nctti"), "--language", language, stdout=StringIO())
        derive_gold_synonyms(language=language)
        compounds = {compound_key(c.text): c for c in Compound.objects.filter(language=language)}
        split = chosen(split_halves(compounds), None if args.all else args.per_half)
        split = {key: half for key, half in split.items() if args.half in ("both", half)}
        halves |= split
        picked = [compounds[key] for key in sorted(split)]
        started = time.perf_counter()
        generate_variants(picked, options)
        seconds += time.perf_counter() - started
        resources[language] = load_resources(language, options)
        for compound in picked:
            generated[compound_key(compound.text)] = generated_of(compound, resources[language])

    rows = expert_rows(data, languages)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for key, made in sorted(generated.items()):
                experts = [dataclasses.asdict(r) for r in rows if r.key == key]
                line = {"half": halves[key], "generated": dataclasses.asdict(made), "experts": experts}
                line["generated"]["random_freq"] = {"/".join(map(str, k)): v for k, v in made.random_freq.items()}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
    report = {
        "context_model": args.context_model,
        "context_models": options.context_models(languages),
        "seconds_generation": round(seconds, 1),
        "halves": {},
    }
    for half in [h for h in ("dev", "held-out") if args.half in ("both", h)]:
        in_half = {key: g for key, g in generated.items() if halves.get(key) == half}
        figures = compare([r for r in rows if halves.get(r.key) == half], in_half, per_million)
        offensive = offensive_count(in_half.values(), lambda text, language: resources[language].offensive.blocks(text))
        print(format_table(f"{half} half ({len(in_half)} compounds)", figures, offensive))
        print()
        report["halves"][half] = {"figures": figures, "offensive": offensive, "compounds": len(in_half)}
    print(f"generation: {len(generated)} compounds in {seconds:.1f} s (context model: {args.context_model})")
    emit("variant_quality", report, save=args.save)


if __name__ == "__main__":
    main()
