"""Ask a registered model for compounds' synonyms in the sense of their sentences, as candidates a curator reviews."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotators.actions import AnnotatorError
from annotators.proposing import propose_synonyms
from annotators.synonym_prompts import TEMPLATES
from annotators.tasks import start_proposals
from datasets.models import Compound
from datasets.vocabulary import compound_key
from probing.management.commands.register_model import json_object
from probing.models import EmbeddingModel


class Command(BaseCommand):
    help = (
        "Ask MODEL (an openai_chat endpoint or a causal_lm folder) for NC, head and modifier synonyms of the "
        "compounds of a collection in one language; stored as proposals (source model), never approved. Sent to "
        "the workers of the model's queue, or --inline here."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", required=True, help="Name of a registered openai_chat or causal_lm model.")
        parser.add_argument("--collection", required=True, help="The collection's slug.")
        parser.add_argument("--language", required=True, help="The compounds' language, e.g. en or pt.")
        parser.add_argument("--compounds", nargs="+", help="Only these compounds (their text); default: all.")
        parser.add_argument("--template", choices=sorted(TEMPLATES), help="Default: the language's.")
        parser.add_argument("--config", help='JSON settings, e.g. {"temperature": 0.7, "max_attempts": 2}.')
        parser.add_argument("--inline", action="store_true", help="Ask in this process and print what was kept.")

    def handle(self, *args, **options) -> None:
        model = EmbeddingModel.objects.filter(name=options["model"]).first()
        if model is None:
            known = ", ".join(EmbeddingModel.objects.values_list("name", flat=True)) or "none"
            raise CommandError(f"--model {options['model']!r}: no such model (registered: {known})")
        compounds = Compound.objects.filter(
            collection__slug=options["collection"], language=options["language"]
        ).order_by("key")
        if options["compounds"]:
            wanted = {compound_key(text) for text in options["compounds"]}
            compounds = compounds.filter(key__in=wanted)
            missing = wanted - set(compounds.values_list("key", flat=True))
            if missing:
                raise CommandError(f"--compounds: not in the collection: {', '.join(sorted(missing))}")
        if not compounds.exists():
            raise CommandError("no compounds in that collection and language")
        settings = json_object(options["config"], "--config")
        if not options["inline"]:
            start_proposals(model, list(compounds.values_list("pk", flat=True)), options["template"], settings)
            self.stderr.write(f"{compounds.count()} compounds sent to the queue {model.celery_queue}")
            return
        try:
            run = propose_synonyms(model, compounds, options["template"], settings)
        except AnnotatorError as error:
            raise CommandError(f"--{'config' if error.field == 'settings' else error.field}: {error}") from None
        self.stdout.write(
            f"{run.asked} compounds asked ({run.valid} valid, {run.invalid} invalid): {run.sent} requests, "
            f"{run.cached} from the cache; {run.proposals} proposals kept, {run.filtered} left out"
        )
