import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.analysis.typetoken import typetoken_report
from annotation.analysis_data import reference_sentence_scores


class Command(BaseCommand):
    help = "Type/token analysis of the reference scores of one language (Garcia et al. 2021, tables 2-3)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--language", required=True)
        parser.add_argument("--collection", help="Only this collection (default: all).")
        parser.add_argument("--format", choices=["json", "text"], default="text")

    def handle(self, *args, **options) -> None:
        frame = reference_sentence_scores(options["language"], options["collection"])
        if frame.empty:
            raise CommandError(f"no compounds with token-level scores in language {options['language']!r}")
        report = typetoken_report(frame, options["language"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
            return
        self.stdout.write(f"{report['language']}: {report['n_compounds']} compounds")
        for name, row in report["correlations"].items():
            self.stdout.write(f"  type/token Spearman {name:<22} rho {row['rho']}  p {row['p']}  n {row['n']}")
        for name, means in report["class_means"].items():
            compound = means["compound"]
            self.stdout.write(f"  {name:<22} compound mean {compound['mean']}  std {compound['std']}")
        spread = report["spread"]
        self.stdout.write(f"  share of compounds with std < 0.6 across sentences: {spread['share_std_below_0_6']}")
        self.stdout.write(f"  std > 1: {', '.join(r['compound'] for r in spread['std_above_1']) or 'none'}")
