"""Print a probe run's report: JSON (every table), CSV (one table) or a short text summary."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from probing.models import ProbeRun
from probing.report.build import TABLES, provenance_lines, report_csv, run_report


class Command(BaseCommand):
    help = "Print the report of probe run RUN with its provenance (JSON by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", type=int, help="The run id (run_probes prints it).")
        parser.add_argument(
            "--format",
            choices=["json", "text", "csv"],
            default="json",
            help="json (default), text or csv (one --table).",
        )
        parser.add_argument("--table", choices=TABLES, default="per_compound", help="With --format csv.")
        parser.add_argument("--all", action="store_true", help="Text: every correlation, not only p <= 0.05.")

    def handle(self, *args, **options) -> None:
        run = ProbeRun.objects.select_related("release", "model").filter(pk=options["run"]).first()
        if run is None:
            raise CommandError(f"no probe run {options['run']}")
        if options["format"] == "json":
            self.stdout.write(json.dumps(run_report(run), indent=2, ensure_ascii=False))
        elif options["format"] == "csv":
            self.stdout.write(report_csv(run, options["table"]), ending="")
        else:
            self.stdout.write("\n".join(text_lines(run, every=options["all"])))


def text_lines(run: ProbeRun, every: bool = False) -> list[str]:
    report = run_report(run)
    lines = list(provenance_lines(run))
    p = report["progress"]
    lines.append(
        f"shards {p['shards_done']}/{p['shards_total']}, texts {p['texts_embedded']} embedded, "
        f"{p['texts_cached']} cached"
    )
    if run.status != ProbeRun.Status.DONE:
        lines.append(f"no report yet: the run is {run.status}" + (f" ({run.error})" if run.error else ""))
        return lines
    if human := report.get("human_score"):
        lines.append(f"human score: {human['rule']} {human['sources']}")
        if human.get("note"):
            lines.append(human["note"])
    lines += ["", "mean (std) over compounds:"]
    for row in report["summary"]:
        if row["mean"] is not None and not row["measure"].endswith("_std"):
            std = f" ({row['std']:.3f})" if row["std"] is not None else ""
            lines.append(
                f"  {row['language']} {row['condition']:<12} {row['level']:<8} {row['measure']:<24} "
                f"{row['mean']:.3f}{std}  n={row['n']}"
            )
    lines += ["", "Spearman rho against human compositionality" + ("" if every else " (p <= 0.05 only):")]
    for row in report["correlations"]:
        if row["rho"] is not None and (every or row["significant"]):
            lines.append(
                f"  {row['language']} {row['condition']:<12} {row['level']:<8} {row['measure']:<24} "
                f"{row['subset']:<20} rho={row['rho']:+.3f} p={row['p']:.3g} n={row['n']}"
            )
    return lines
