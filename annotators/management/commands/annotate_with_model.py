"""Ask a registered model a campaign's questions as a machine annotator; print the job's id (progress to stderr)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Campaign
from annotators.actions import AnnotatorError, create_job, run_inline
from annotators.prompts import TEMPLATES
from annotators.tasks import start_job
from probing.management.commands.register_model import json_object
from probing.models import EmbeddingModel

FLAGS = {"settings": "config"}  # the option that carries each field the actions name


class Command(BaseCommand):
    help = (
        "Ask MODEL (an openai_chat endpoint or a causal_lm folder) every regular item of CAMPAIGN, as a machine "
        "annotator kept apart from the people: shards go to the workers of the model's queue, or --inline here."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="The campaign's slug.")
        parser.add_argument("--model", required=True, help="Name of a registered openai_chat or causal_lm model.")
        parser.add_argument("--template", choices=sorted(TEMPLATES), help="Default: the campaign language's.")
        parser.add_argument("--samples", type=int, default=1, help="Answers per item (each sample its own seed).")
        parser.add_argument(
            "--config", help='JSON settings, e.g. {"temperature": 0.7, "seed": 1, "structured": false}.'
        )
        parser.add_argument("--inline", action="store_true", help="Answer every shard in this process.")

    def handle(self, *args, **options) -> None:
        campaign = Campaign.objects.filter(slug=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"--campaign {options['campaign']!r}: no such campaign")
        model = EmbeddingModel.objects.filter(name=options["model"]).first()
        if model is None:
            known = ", ".join(EmbeddingModel.objects.values_list("name", flat=True)) or "none"
            raise CommandError(f"--model {options['model']!r}: no such model (registered: {known})")
        create = create_job if options["inline"] else start_job
        try:
            job = create(
                campaign,
                model,
                options["template"],
                options["samples"],
                json_object(options["config"], "--config"),
            )
        except AnnotatorError as error:
            raise CommandError(f"--{FLAGS.get(error.field, error.field)}: {error}") from None
        self.stdout.write(str(job.pk))
        if not options["inline"]:
            self.stderr.write(f"job {job.pk}: {job.shards_total} shards sent to the queue {job.queue}")
            return

        def progress(current) -> None:
            self.stderr.write(
                f"job {current.pk}: {current.answered}/{current.items_total} answered, {current.invalid} invalid, "
                f"{current.cached} from the cache"
            )

        job = run_inline(job, on_shard=progress)
        self.stderr.write(
            f"job {job.pk} {job.status}: {job.answered} answers ({job.invalid} invalid), {job.requests} requests, "
            f"{job.prompt_tokens + job.completion_tokens:,} tokens, US${job.cost:.4f}"
            + (f"; {job.error}" if job.error else "")
        )
        if job.status != job.Status.DONE:
            raise CommandError(f"job {job.pk} {job.status}: {job.error}")
