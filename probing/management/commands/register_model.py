"""Register an embedding model to probe (or update one by name)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from probing.actions import ProbeError, register_model
from probing.models import EmbeddingModel


def json_object(value: str | None, option: str) -> dict:
    if not value:
        return {}
    try:
        data = json.loads(value)
    except json.JSONDecodeError as error:
        raise CommandError(f"{option}: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise CommandError(f'{option}: give a JSON object such as {{"layers": [-1]}}')
    return data


class Command(BaseCommand):
    help = (
        "Register (or update) a model: a HuggingFace folder, a sentence-transformers model, vectors…, or a causal "
        "or masked language model for likelihood probes"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="A slug, e.g. bert-base.")
        parser.add_argument(
            "--kind",
            required=True,
            choices=[k for k, _ in EmbeddingModel.Kind.choices],
            help="The backend that loads it (docs/probing.md lists what each reads).",
        )
        parser.add_argument(
            "--source",
            required=True,
            help='Folder, vectors file, ELMo folder or weights file, "bundled:minilm", "bundled:e5" / "bundled:e5-enpt" (kind e5) or the OpenAI model name.',
        )
        parser.add_argument(
            "--options",
            help='JSON, e.g. {"revision": "abc123"}, {"api_key_env": "OPENAI_API_KEY"} or '
            '{"options_file": "/models/elmo/options.json"}.',
        )
        parser.add_argument("--config", help='JSON EmbedConfig overrides, e.g. {"layers": [-1], "batch_size": 16}.')
        parser.add_argument(
            "--queue",
            choices=[q for q, _ in EmbeddingModel.Queue.choices],
            default="cpu",
            help="The workers its runs go to: cpu (default, probe_cpu) or gpu (probe_gpu).",
        )
        parser.add_argument("--inactive", action="store_true", help="Leave it out of the nightly runs.")
        parser.add_argument("--run-on-publish", action="store_true", help="Probe every release when published.")
        parser.add_argument("--notes", default="", help="Free text shown with the model.")

    def handle(self, *args, **options) -> None:
        try:
            model = register_model(
                options["name"],
                options["kind"],
                options["source"],
                options=json_object(options["options"], "--options"),
                config=json_object(options["config"], "--config"),
                queue=options["queue"],
                active=not options["inactive"],
                run_on_publish=options["run_on_publish"],
                notes=options["notes"],
            )
        except ProbeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"model {model.name}: {model.kind} from {model.source} (queue {model.celery_queue})")
