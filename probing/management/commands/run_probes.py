"""Start a probe run of a model on a published release and print its id (progress goes to stderr)."""

from __future__ import annotations

import time

from celery import current_app
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from probing.actions import SHARD_SIZE, ProbeError, create_probe_run, run_inline
from probing.management.commands.register_model import json_object
from probing.models import EmbeddingModel, ProbeRun
from probing.report.build import human_score_note
from probing.run.loading import estimate_cost
from probing.tasks import start_probe_run
from releases.models import Release

POLL = 1.0  # seconds between progress checks
WORKER_CHECK = 3.0  # seconds between asks for a worker on the queue


class Command(BaseCommand):
    help = (
        "Probe RELEASE with MODEL: shards go to the Celery workers of the model's queue (probe_cpu or "
        "probe_gpu); --wait follows the run to its end, --inline computes it here without a worker."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--release", help="Version of a published release (default: the newest).")
        parser.add_argument("--model", required=True, help="Name of a registered model, e.g. minilm.")
        parser.add_argument("--config", help='JSON overrides of the model\'s config, e.g. {"layers": [-1]}.')
        parser.add_argument(
            "--shard-size", type=int, default=SHARD_SIZE, help=f"Compounds per shard (default {SHARD_SIZE})."
        )
        parser.add_argument("--wait", action="store_true", help="Wait until the run finishes, showing progress.")
        parser.add_argument("--timeout", type=float, default=3600.0, help="Seconds --wait waits (default 3600).")
        parser.add_argument("--inline", action="store_true", help="Compute every shard in this process.")
        parser.add_argument("--user", help="Username recorded as who started the run.")
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="Start nothing when a run of this model (default config) on this release exists already.",
        )

    def handle(self, *args, **options) -> None:
        model = EmbeddingModel.objects.filter(name=options["model"]).first()
        if model is None:
            known = ", ".join(EmbeddingModel.objects.values_list("name", flat=True)) or "none"
            raise CommandError(f"--model {options['model']!r}: no such model (registered: {known})")
        release = self._release(options["release"])
        user = None
        if options["user"]:
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"--user {options['user']!r}: no such user")
        cost = estimate_cost(release, model)
        if cost is not None:
            self.stderr.write(
                f"estimated cost: {cost['texts']} texts, about {cost['tokens']:,} tokens, US${cost['usd']:.4f}"
            )
        if options["if_missing"]:
            existing = (
                ProbeRun.objects.filter(release=release, model=model).exclude(status=ProbeRun.Status.FAILED).first()
            )
            if existing is not None:
                self.stderr.write(
                    f"probe run {existing.pk} of {model.name} on {release.version} exists ({existing.status})"
                )
                self.stdout.write(str(existing.pk))
                return
        # --inline computes the shards here; otherwise they go to the workers of the model's queue.
        create = create_probe_run if options["inline"] else start_probe_run
        try:
            run = create(
                release,
                model,
                config=json_object(options["config"], "--config"),
                user=user,
                shard_size=options["shard_size"],
            )
        except ProbeError as error:
            raise CommandError(str(error)) from None
        self.stderr.write(
            f"probe run {run.pk}: {model.name} on release {release.version}, {run.shards_total} shards, "
            f"{run.texts_total} texts" + ("" if options["inline"] else f", queue {run.queue}")
        )
        if options["inline"]:
            run = run_inline(run, on_shard=self._show)
        elif options["wait"]:
            run = self._wait(run, options["timeout"])
        self.stdout.write(str(run.pk))
        if run.status == ProbeRun.Status.DONE:
            # Only the note's part of the report is read (the report is megabytes of JSON).
            human_score = ProbeRun.objects.filter(pk=run.pk).values_list("report__human_score", flat=True).first()
            if note := human_score_note(human_score, release.version):
                self.stderr.write(note)
        if run.status in (ProbeRun.Status.FAILED, ProbeRun.Status.CANCELLED):
            raise CommandError(f"probe run {run.pk} {run.status}: {run.error or 'no message'}")

    def _release(self, version: str | None) -> Release:
        if version is None:
            release = Release.objects.current()
            if release is None:
                raise CommandError("no published release: publish one first (create_release --publish)")
            return release
        release = Release.objects.filter(version=version).first()
        if release is None:
            raise CommandError(f"--release {version}: no such release")
        return release

    def _wait(self, run: ProbeRun, timeout: float) -> ProbeRun:
        deadline = time.monotonic() + timeout
        next_check, worker_seen = 0.0, False
        while True:
            run.refresh_from_db(fields=ProbeRun.PROGRESS_FIELDS)
            self._show(run)
            if run.is_finished:
                return run
            if run.status == ProbeRun.Status.RUNNING:
                worker_seen = True
            elif not worker_seen and time.monotonic() >= next_check:
                worker_seen = queue_has_worker(run.queue)
                next_check = time.monotonic() + WORKER_CHECK
            if time.monotonic() >= deadline:
                break
            time.sleep(POLL)
        if not worker_seen:
            raise CommandError(
                f"no Celery worker consumes queue {run.queue} (waited {timeout:g} s): start one with "
                f"`celery -A config worker -Q celery,{run.queue}`, or use --inline; run {run.pk} stays queued"
            )
        raise CommandError(
            f"timed out after {timeout:g} s: run {run.pk} is at {run.shards_done}/{run.shards_total} shards "
            "and goes on in the background"
        )

    def _show(self, run: ProbeRun) -> None:
        p = run.progress()
        eta = f", about {p['eta_seconds']:.0f} s left" if p["eta_seconds"] else ""
        self.stderr.write(
            f"run {run.pk} {p['status']}: shards {p['shards_done']}/{p['shards_total']}, "
            f"texts {p['texts_done']}/{p['texts_total']} ({p['texts_cached']} cached){eta}"
        )


def queue_has_worker(queue: str) -> bool:
    """Does a live worker consume ``queue``? (False when none answers, or the broker cannot broadcast.)"""
    try:
        replies = current_app.control.inspect(timeout=1.0).active_queues() or {}
    except Exception:  # a broker without broadcast, or unreachable: say no, the timeout decides
        return False
    return any(q.get("name") == queue for queues in replies.values() for q in queues or [])
