"""Two open demo campaigns on the demo collection, with crowd links to try the annotator's journey."""

from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from annotation.models import Campaign, Item
from annotation.setup_actions import add_check_item, add_items, create_campaign
from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence

INSTRUCTIONS = (
    "Read each sentence and think about what the highlighted compound means there. "
    "Answer the three questions on the scale from 0 (not literal at all) to 5 (completely literal). "
    "There are no wrong answers for the real items: we want your own judgement."
)
CONSENT = (
    "This demo study asks how literally you understand noun compounds such as 'eager beaver'. "
    "It takes about five minutes. Your answers are stored with your worker id only and are used for research. "
    "You may stop at any time."
)
# (compound, sentence slot, gold head, gold modifier, gold compound, feedback)
TRAINING = [
    ("coffee cup", 1, 5, 5, 5, "A coffee cup is literally a cup, and it is literally for coffee: 5 everywhere."),
    (
        "night owl",
        1,
        0,
        4,
        1,
        "A night owl is a person, not a bird (head 0), though it does have to do with the night (modifier about 4); "
        "the whole is mostly figurative.",
    ),
]
ATTENTION = ("swimming pool", 1, 5, 5, 5)
DEMO_ITEMS_PER_WORKER = 12


class Command(BaseCommand):
    help = "Create the open demo campaigns demo-token and demo-type (idempotent) and print their crowd links."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Host part of the printed links.")

    def handle(self, *args, base_url: str, **options) -> None:
        if not Collection.objects.filter(slug="demo").exists():
            call_command("load_demo", stdout=self.stdout)
        collection = Collection.objects.get(slug="demo")
        with transaction.atomic():
            token = self.token_campaign(collection)
            type_ = self.type_campaign(collection)
        for campaign in (token, type_):
            counts = {role: campaign.items.filter(role=role).count() for role, _ in Item.Role.choices}
            self.stdout.write(
                f"{campaign.slug}: {campaign.get_level_display()}, {campaign.get_status_display().lower()}, "
                f"N={campaign.ratings_per_item}, items {counts}"
            )
            self.stdout.write(
                f"  {base_url.rstrip('/')}/annotate/{campaign.slug}/start/"
                f"?PROLIFIC_PID=demo-worker&STUDY_ID=demo&SESSION_ID=1"
            )

    def campaign(self, collection: Collection, slug: str, **fields) -> tuple[Campaign, bool]:
        defaults = {
            "collection": collection,
            "language": "en",
            "ratings_per_item": 5,
            "seed": 2011,
            "status": Campaign.Status.OPEN,
            "instructions": INSTRUCTIONS,
            "consent_text": CONSENT,
            "completion_code": "DEMO" + slug.split("-")[-1].upper(),
            # About five minutes, as the consent text says; the code needs every one of them rated,
            # and a worker who skips more than one in five is screened out.
            "max_items_per_annotator": DEMO_ITEMS_PER_WORKER,
            "min_items_for_code": None,
            "max_skip_share": 0.2,
            "screen_out_code": "DEMOSKIP",
        } | fields
        if existing := Campaign.objects.filter(slug=slug).first():
            return existing, False
        campaign, _ = create_campaign(Campaign(slug=slug, **defaults), targets=[])
        return campaign, True

    def token_campaign(self, collection: Collection) -> Campaign:
        campaign, created = self.campaign(
            collection, "demo-token", name="Demo: literalness of compounds in context", level=Campaign.Level.TOKEN
        )
        if not created and campaign.items.exists():
            return campaign
        sentences = Sentence.objects.filter(
            compound__collection=collection, compound__language="en", kind=vocabulary.NATURALISTIC, available=True
        ).order_by("compound__key", "slot")
        by_key = {(s.compound.text, s.slot): s for s in sentences.select_related("compound")}
        checks = {(text, slot) for text, slot, *_ in TRAINING} | {ATTENTION[:2]}
        add_items(campaign, [s for key, s in by_key.items() if key not in checks])
        for text, slot, head, modifier, compound, feedback in TRAINING:
            if sentence := by_key.get((text, slot)):
                self.check_item(campaign, sentence, Item.Role.TRAINING, head, modifier, compound, feedback)
        text, slot, head, modifier, compound = ATTENTION
        if sentence := by_key.get((text, slot)):
            self.check_item(campaign, sentence, Item.Role.ATTENTION, head, modifier, compound, "")
        return campaign

    def check_item(self, campaign, sentence, role, head, modifier, compound, feedback) -> None:
        gold = {"gold_head": head, "gold_modifier": modifier, "gold_compound": compound}
        add_check_item(campaign, sentence, role, gold, feedback)

    def type_campaign(self, collection: Collection) -> Campaign:
        campaign, created = self.campaign(
            collection, "demo-type", name="Demo: literalness of compounds (type level)", level=Campaign.Level.TYPE
        )
        if created or not campaign.items.exists():
            add_items(campaign, list(Compound.objects.filter(collection=collection, language="en").order_by("key")))
        return campaign
