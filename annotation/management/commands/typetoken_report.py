import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.analysis.typetoken import typetoken_report
from annotation.models import Campaign
from annotation.reports.analysis_data import collected_sentence_scores, reference_sentence_scores


class Command(BaseCommand):
    help = "Type/token analysis of the reference scores of one language (Garcia et al. 2021, tables 2-3)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--language", help="Reference scores of this language (imported data).")
        parser.add_argument("--token-campaign", help="Collected ratings instead: a token-level campaign (id or slug) …")
        parser.add_argument("--type-campaign", help="… and the type-level campaign of the same compounds.")
        parser.add_argument("--collection", help="Only this collection (default: all).")
        parser.add_argument("--format", choices=["json", "text"], default="text", help="text (default) or json.")

    def campaign(self, key: str | None) -> Campaign:
        if not key:
            raise CommandError("give both --token-campaign and --type-campaign")
        campaign = Campaign.objects.filter(**({"pk": int(key)} if key.isdigit() else {"slug": key})).first()
        if campaign is None:
            raise CommandError(f"no campaign {key!r}")
        return campaign

    def handle(self, *args, **options) -> None:
        if options["token_campaign"] or options["type_campaign"]:
            token, kind = (self.campaign(options[k]) for k in ("token_campaign", "type_campaign"))
            if (token.level, kind.level) != (Campaign.Level.TOKEN, Campaign.Level.TYPE):
                raise CommandError("--token-campaign must be token level and --type-campaign type level")
            frame = collected_sentence_scores(token.pk, kind.pk)
            language = token.language
            if frame.empty:
                raise CommandError(f"campaign {token.slug!r} has no ratings yet")
        elif options["language"]:
            language = options["language"]
            frame = reference_sentence_scores(language, options["collection"])
            if frame.empty:
                raise CommandError(f"no compounds with token-level scores in language {language!r}")
        else:
            raise CommandError("give --language, or --token-campaign and --type-campaign")
        report = typetoken_report(frame, language)
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
            return
        self.stdout.write(f"{report['language']}: {report['n_compounds']} compounds")
        for name, row in report["correlations"].items():
            self.stdout.write(f"  type/token Spearman {name:<22} rho {row['rho']}  p {row['p']}  n {row['n']}")
        for name, means in report["class_means"].items():
            parts = [f"{q} mean {m['mean']} std {m['std']}" for q, m in means.items() if m]
            self.stdout.write(f"  {name:<22} " + "; ".join(parts))
        spread = report["spread"]
        self.stdout.write(f"  share of compounds with std < 0.6 across sentences: {spread['share_std_below_0_6']}")
        self.stdout.write(f"  std > 1: {', '.join(r['compound'] for r in spread['std_above_1']) or 'none'}")
