"""manage.py score_text: one text's log-probabilities under a registered causal or masked LM, as a run computes them."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from probing.embedding.sources import RefusedSource
from probing.likelihood.loading import MEASURES
from probing.management.commands.embed_text import parse_span, registered_model


class Command(BaseCommand):
    help = (
        "Score TEXT with a registered causal_lm or masked_lm MODEL and print, as JSON, the model's identity, the "
        "tokens with their character offsets and natural-log probabilities (null for a first token without "
        "context), the total, and with --span the span's log-probability given its left context (causal) or its "
        "pseudo-log-likelihood (masked): for inspecting a model and checking it against another implementation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", required=True, help="Name of a registered causal_lm or masked_lm model.")
        parser.add_argument("--text", required=True, help="The text to score.")
        parser.add_argument("--span", help="START:END, the characters of the compound (Python slice of TEXT).")
        parser.add_argument("--format", choices=["json"], default="json", help="Output format (json).")

    def handle(self, *args, **options) -> None:
        model = registered_model(options["model"])
        if not model.is_language_model:
            raise CommandError(
                f"--model {model.name}: a {model.kind} model gives vectors, not log-probabilities "
                "(embed_text shows them); score_text needs a causal_lm or masked_lm model"
            )
        text = options["text"]
        span = parse_span(options["span"])
        if span is not None and not 0 <= span[0] < span[1] <= len(text):
            raise CommandError(f"--span {options['span']}: not a span of the text's {len(text)} characters")
        if not text.strip():
            raise CommandError("--text: the text is empty")
        try:
            language_model = model.load_language_model()
        except RefusedSource as error:
            raise CommandError(f"model {model.name} may not load here: {error}") from None
        except (OSError, ValueError) as error:
            raise CommandError(f"model {model.name} could not be opened: {error}") from None
        [score] = language_model.score([text])
        found = {
            "model": model.name,
            "identity": language_model.identity(),
            "measure": MEASURES[model.kind],
            **score.to_dict(),
            "span": list(span) if span else None,
            "span_logprob": score.span_logprob(*span) if span else None,
        }
        self.stdout.write(json.dumps(found, ensure_ascii=False))
