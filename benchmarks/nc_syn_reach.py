"""How often the crowd's paraphrases hold the experts' NC_Syn at all: the ceiling of any crowd-based pick.

Usage: .venv/bin/python benchmarks/nc_syn_reach.py [--data PATH/TO/shared/data] [--languages en,pt] [--save]

Imports NCTTI into a throwaway database (DATABASE_URL if set, else SQLite in a scratch folder), ranks
each compound's paraphrase groups as the gold-synonym rule does (``gold_synonym.candidates``), and
finds the experts' NC_Syn (NCIMP neutral; PT naturalistic too; NCS) among them
(``building.rules.synonyms.nc_syn_reach``), by half (``expert_comparison.SPLIT_SEED``). The share at
rank 1 is what NC_Syn reaches today; "anywhere" is what the best possible crowd-based pick could reach.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.record import emit, save_flag  # noqa: E402
from benchmarks.variant_quality import expert_rows  # noqa: E402
from benchmarks.variants import setup_django  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--languages", default="en,pt")
    save_flag(parser)
    args = parser.parse_args()
    data = Path(args.data)
    languages = {code.strip() for code in args.languages.split(",") if code.strip()}
    setup_django(tempfile.mkdtemp(prefix="workbench-reach-"))

    from django.core.management import call_command

    from building.counts.frequency import per_million
    from building.rules.expert_comparison import compound_key, same, split_halves
    from building.rules.synonyms.gold_synonym import candidates
    from building.rules.synonyms.nc_syn_reach import reach, summary
    from building.variants.gold_synonyms import paraphrase_levels
    from datasets.models import Compound

    ranked, halves = {}, {}
    for language in sorted(languages):
        call_command("import_nctti", str(data / "nctti"), "--language", language, stdout=StringIO())
        found = list(Compound.objects.filter(language=language).prefetch_related("paraphrases"))
        for compound in found:
            groups = candidates(
                *paraphrase_levels(compound),
                language,
                lambda text, language=language: per_million(text, language),
            )
            ranked[compound_key(compound.text)] = [g.text for g in groups]
        halves |= split_halves(compound_key(c.text) for c in found)
    report: dict = {}
    for row in expert_rows(data, languages):
        if not row.synonym or row.key not in ranked:
            continue
        alike = lambda a, b, language=row.language: same(a, b, language)  # noqa: E731
        report.setdefault((row.source, halves[row.key]), {})[row.key] = reach(
            row.compound, row.synonym, ranked[row.key], alike
        )
    figures = {f"{source} {half}": summary(list(by_key.values())) for (source, half), by_key in sorted(report.items())}
    print("| source, half | compounds | rank 1 | top 3 | top 5 | anywhere | absent: shapes |")
    print("|---|---|---|---|---|---|---|")
    for name, f in figures.items():
        pct = lambda v: "—" if v is None else f"{100 * v:.1f}%"  # noqa: E731
        shapes = ", ".join(f"{k} {v}" for k, v in f["absent_shapes"].items())
        cells = [str(f["compounds"]), pct(f["rank_le_1"]), pct(f["rank_le_3"]), pct(f["rank_le_5"]), pct(f["anywhere"])]
        print(f"| {name} | " + " | ".join(cells) + f" | {f['absent']}: {shapes} |")
    emit("nc_syn_reach", {"languages": sorted(languages), "figures": figures}, save=args.save)


if __name__ == "__main__":
    main()
