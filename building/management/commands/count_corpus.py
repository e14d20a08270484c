import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from building.counts.actions import apply_frequency_table
from building.models import BuildJob, FrequencyTable
from building.tasks import start_corpus_count


class Command(BaseCommand):
    help = (
        "Count a corpus (plain text, CoNLL or ukWaC-style vertical XML; .gz allowed) for the compounds of a "
        "language: the file is cut into chunks counted by Celery workers in parallel, then summed into a "
        "frequency table. A .gz file cannot be cut by byte offset, so it is one chunk for one worker."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--language", required=True, help="Whose compounds to count (en, pt …).")
        parser.add_argument("--corpus", required=True, help="Path of the corpus file on this machine.")
        parser.add_argument("--format", help="text, conll or vertical (default: from the extension or first lines).")
        parser.add_argument("--chunks", type=int, default=8, help="How many chunks (tasks) to cut the file into.")
        parser.add_argument("--name", help="Name of the frequency table (default: the file name).")
        parser.add_argument("--collection", help="Only this collection's compounds (default: all of the language).")
        parser.add_argument(
            "--no-pool",
            action="store_true",
            help="Count only the compounds and their words, not the NC_Rand candidates (WordNet/thesaurus entries).",
        )
        parser.add_argument("--wait", action="store_true", help="Wait for the workers, printing progress.")
        parser.add_argument("--apply", action="store_true", help="Then write frequencies and PMI (implies --wait).")
        parser.add_argument("--timeout", type=float, help="With --wait: give up after this many seconds.")

    def handle(self, *args, **options) -> None:
        path = Path(options["corpus"])
        try:
            job = start_corpus_count(
                path,
                options["language"],
                options["name"] or path.name,
                fmt=options["format"],
                chunks=options["chunks"],
                collection=options["collection"],
                pool=not options["no_pool"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"Job {job.pk}: {job.message}")
        if not (options["wait"] or options["apply"]):
            self.stdout.write(f"Job {job.pk} queued: follow it at /build/jobs/{job.pk}/ (Celery workers do the work).")
            return
        job = self.wait(job, options["timeout"])
        if job.status != BuildJob.Status.DONE:
            raise CommandError(f"Job {job.pk} {job.status}: {job.message}")
        table = FrequencyTable.objects.get(job=job)
        self.stdout.write(
            f"Frequency table {table.pk} {table.name!r} ({table.language}): {table.tokens:,} tokens, "
            f"{len(table.counts)} of {job.result.get('targets', 0)} targets found"
        )
        if options["apply"]:
            changed = apply_frequency_table(table, options["collection"])
            self.stdout.write(f"Frequencies and PMI written to {changed} compounds")

    def wait(self, job: BuildJob, timeout: float | None) -> BuildJob:
        started, last = time.monotonic(), None
        while True:
            job.refresh_from_db()
            if (job.status, job.done) != last:
                last = (job.status, job.done)
                self.stderr.write(f"{job.status}: {job.done}/{job.total} chunks ({job.progress:.0%}) {job.message}")
            if job.is_finished:
                return job
            if timeout is not None and time.monotonic() - started > timeout:
                raise CommandError(
                    f"Job {job.pk} still {job.status} after {timeout:g} s: are Celery workers running "
                    "(celery -A config worker)? It goes on in the background."
                )
            time.sleep(1)
