"""Print the vectors a registered model gives one text (and span), as probe runs compute them."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from probing.embedding.base import ALL_LAYERS, TextSpan
from probing.embedding.describe import describe_text
from probing.embedding.sources import RefusedSource
from probing.management.commands.register_model import json_object
from probing.models import EmbeddingModel


class Command(BaseCommand):
    help = (
        "Embed TEXT with MODEL exactly as a probe run would and print the pooled sentence and span vectors "
        '(the configured combination under "combined", and each layer asked for by --layers), with the tokens '
        "the model read: for inspecting a model and checking it against another implementation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", required=True, help="Name of a registered model, e.g. minilm.")
        parser.add_argument("--text", required=True, help="The text to embed.")
        parser.add_argument("--span", help="START:END, the characters of the compound (Python slice of TEXT).")
        parser.add_argument(
            "--layers",
            help='"all", or hidden-state indices L,... (0 is the embedding layer; write --layers=-1 for a negative one).',
        )
        parser.add_argument("--config", help='JSON overrides of the model\'s config, e.g. {"max_length": 128}.')
        parser.add_argument("--format", choices=["json"], default="json", help="Output format (json).")

    def handle(self, *args, **options) -> None:
        model = registered_model(options["model"])
        overrides = json_object(options["config"], "--config")
        if options["layers"]:
            overrides["sweep"] = parse_layers(options["layers"])
        try:
            item = TextSpan(options["text"], parse_span(options["span"]))
            config = model.embed_config(overrides)
            backend = model.load_backend()
            described = describe_text(backend, item, config, model.name)
        except RefusedSource as error:
            raise CommandError(f"model {model.name} may not load here: {error}") from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(json.dumps(described, ensure_ascii=False))


def registered_model(name: str) -> EmbeddingModel:
    """The model registered as ``name``; CommandError naming the registered ones otherwise."""
    model = EmbeddingModel.objects.filter(name=name).first()
    if model is None:
        known = ", ".join(EmbeddingModel.objects.values_list("name", flat=True)) or "none"
        raise CommandError(f"--model {name!r}: no such model (registered: {known})")
    return model


def parse_span(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    start, colon, end = text.partition(":")
    if not colon or not start.strip().isdigit() or not end.strip().isdigit():
        raise CommandError(f"--span {text!r}: give START:END, two character positions such as 4:16")
    return int(start), int(end)


def parse_layers(text: str) -> str | list[int]:
    if text.strip() == ALL_LAYERS:
        return ALL_LAYERS
    try:
        return [int(part) for part in text.replace(" ", ",").split(",") if part]
    except ValueError:
        raise CommandError(f'--layers {text!r}: "all" or whole numbers separated by commas, such as 0,6') from None
