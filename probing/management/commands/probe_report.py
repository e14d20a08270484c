"""Print a probe run's report: JSON (every table), CSV (one table) or a short text summary."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from probing.likelihood.choices import METRICS
from probing.models import ProbeRun
from probing.report.build import TABLES, provenance_lines, report_csv, run_report
from probing.report.likelihood import LIKELIHOOD_TABLES, SIMILARITY_PREFIX
from probing.vocabulary import ALL

# Every table name some run has (report_csv says which ones this run has).
EVERY_TABLE = list(dict.fromkeys([*TABLES, *LIKELIHOOD_TABLES, *(SIMILARITY_PREFIX + table for table in TABLES)]))


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
        parser.add_argument(
            "--table",
            choices=EVERY_TABLE,
            default="per_compound",
            help="With --format csv: a table of the run's family (a likelihood run's items, accuracy...; "
            "its similarity_* tables when it computed them too).",
        )
        parser.add_argument("--all", action="store_true", help="Text: every correlation, not only p <= 0.05.")

    def handle(self, *args, **options) -> None:
        run = ProbeRun.objects.select_related("release", "model").filter(pk=options["run"]).first()
        if run is None:
            raise CommandError(f"no probe run {options['run']}")
        if options["format"] == "json":
            self.stdout.write(json.dumps(run_report(run), indent=2, ensure_ascii=False))
        elif options["format"] == "csv":
            try:
                self.stdout.write(report_csv(run, options["table"]), ending="")
            except ValueError as error:  # a table of the other family
                raise CommandError(f"run {run.pk}: {error}") from None
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
    if run.family != ProbeRun.Family.LIKELIHOOD:
        return lines + summary_lines(report["summary"]) + correlation_lines(report["correlations"], every)
    lines += ["", "multiple-choice accuracy (all classes):"]
    for row in report["accuracy"]:
        if row["class"] == ALL:
            metrics = " ".join(f"{metric}={row[metric]:.3f}" for metric in METRICS if row.get(metric) is not None)
            lines.append(f"  {row['language']} {row['condition']:<12} items={row['items']:<5} {metrics}")
    lines += correlation_lines(report["correlations"], every)
    if similarity := report.get("similarity"):
        lines += ["", "similarity measures from the same forward pass:"]
        lines += summary_lines(similarity["summary"]) + correlation_lines(similarity["correlations"], every)
    return lines


def summary_lines(summary: list[dict]) -> list[str]:
    lines = ["", "mean (std) over compounds:"]
    for row in summary:
        if row["mean"] is not None and not row["measure"].endswith("_std"):
            std = f" ({row['std']:.3f})" if row["std"] is not None else ""
            lines.append(
                f"  {row['language']} {row['condition']:<12} {row['level']:<8} {row['measure']:<24} "
                f"{row['mean']:.3f}{std}  n={row['n']}"
            )
    return lines


def correlation_lines(correlations: list[dict], every: bool) -> list[str]:
    lines = ["", "Spearman rho against human compositionality" + ("" if every else " (p <= 0.05 only):")]
    for row in correlations:
        if row["rho"] is not None and (every or row["significant"]):
            lines.append(
                f"  {row['language']} {row['condition']:<12} {row['level']:<8} {row['measure']:<24} "
                f"{row.get('subset') or 'all':<20} rho={row['rho']:+.3f} p={row['p']:.3g} n={row['n']}"
            )
    return lines
