"""Generate (or regenerate, keeping curator decisions) the minimal-pair variants of compounds."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from building.lexicon.base import LexiconUnavailable
from building.variants.generation import ensure_compounds, generate_variants, variants_report
from building.variants.resources import GenerationOptions
from datasets.models import Compound


class Command(BaseCommand):
    help = (
        "Generate NC_Syn, NC_Comp, NC_WordsSyn, NC_Rand, generic and neutral variants for compounds of one "
        "language. Curators' decisions are never overwritten. A compound named with --compounds that is not "
        "in the database is created from its words (head last)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--language", required=True, help="Language code (en, pt).")
        parser.add_argument("--compounds", default="", help='Comma-separated compounds ("front man,eager beaver").')
        parser.add_argument("--collection", default="", help="Only compounds of this collection (slug).")
        parser.add_argument(
            "--new-collection",
            default="workbench",
            help="Collection for compounds created from --compounds (default: workbench).",
        )
        parser.add_argument("--frequency-table", type=int, help="FrequencyTable id for NC_Rand matching.")
        parser.add_argument("--pool", default="", help="File of candidate random compounds, one per line.")
        parser.add_argument("--no-neutral", action="store_true", help="Leave neutral sentences out.")
        parser.add_argument(
            "--context-model",
            default="",
            help=(
                "Rank synonyms by fit in the compound's sentences with this encoder: bundled:e5-enpt, bundled:e5, "
                'bundled:minilm or a folder; "none": by the lexicon alone (default: the language\'s model, '
                "docs/building.md)."
            ),
        )
        parser.add_argument(
            "--format", choices=["text", "json"], default="text", help="The summary as text (default) or json."
        )

    def handle(self, *args, **options) -> None:
        language = options["language"]
        names = [name for name in options["compounds"].split(",") if name.strip()]
        try:
            if names:
                compounds = ensure_compounds(language, names, options["new_collection"])
            else:
                query = Compound.objects.filter(language=language)
                if options["collection"]:
                    query = query.filter(collection__slug=options["collection"])
                compounds = list(query.order_by("collection__slug", "key"))
            if not compounds:
                raise CommandError(f"no compounds for language {language!r}: import some or name them with --compounds")
            generation = GenerationOptions(
                frequency_table=options["frequency_table"],
                pool_file=options["pool"],
                neutral=not options["no_neutral"],
                context_model=options["context_model"],
            )
            summary = generate_variants(compounds, generation)
        except (ValueError, OSError, LexiconUnavailable) as exc:
            raise CommandError(str(exc)) from None
        if options["format"] == "json":
            report = {"compounds": variants_report(compounds), "summary": summary.as_dict()}
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        self.stdout.write(
            f"{summary.compounds} compounds: {summary.created} variants created, {summary.updated} updated, "
            f"{summary.removed} removed, {summary.unchanged} unchanged, {summary.kept_decided} curator decisions "
            f"kept; {summary.neutral_sentences} neutral sentences created"
        )
        for compound, notes in summary.notes.items():
            self.stdout.write(f"  {compound}: " + "; ".join(notes))
