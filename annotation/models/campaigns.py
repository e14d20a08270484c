"""Annotation campaigns (Reddy et al. 2011 protocol): items, annotators, assignments, ratings, skips, paraphrases."""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from annotation import allocation
from datasets.models import Collection, Compound, Sentence

SCORE = [MinValueValidator(0), MaxValueValidator(5)]


def completion_code() -> str:
    return secrets.token_hex(4).upper()


# No 0/O, 1/I/L, U: a code read off one screen and typed into another browser.
RESUME_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
RESUME_CODE_LENGTH = 8
# Below this many rated items a completion code pays for too little work: study setup asks to confirm.
LOW_CODE_MINIMUM = 5


def resume_code() -> str:
    """A worker's own secret (about 39 bits): it lets the same person continue in another browser."""
    return "".join(secrets.choice(RESUME_ALPHABET) for _ in range(RESUME_CODE_LENGTH))


class Campaign(models.Model):
    """A set of items to rate, N ratings each, by crowd workers or local accounts."""

    class Level(models.TextChoices):
        TOKEN = "token", "Token level: one sentence per item"
        TYPE = "type", "Type level: a compound with its sentences"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=60, unique=True)
    collection = models.ForeignKey(Collection, on_delete=models.PROTECT, related_name="campaigns")
    language = models.CharField(max_length=8)
    level = models.CharField(max_length=5, choices=Level.choices, default=Level.TOKEN)

    class Allocation(models.TextChoices):
        FIXED = "fixed", "Fixed: every item gets N ratings"
        ADAPTIVE = "adaptive", "Adaptive: from the minimum to N ratings, until the item's score is precise"

    class PrecisionOf(models.TextChoices):
        COMPOUND = "compound", "The compound's score"
        ALL = "all", "The compound's, the head's and the modifier's scores"

    ratings_per_item = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(1)],
        help_text="Fixed allocation: the ratings every item gets. Adaptive: the most an item gets (n_max).",
    )
    allocation = models.CharField(max_length=8, choices=Allocation.choices, default=Allocation.FIXED)
    min_ratings_per_item = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1)],
        help_text="Adaptive allocation: every item gets at least this many ratings (n_min).",
    )
    precision = models.FloatField(
        default=1.5,
        validators=[MinValueValidator(0.05), MaxValueValidator(5)],
        help_text="Adaptive allocation: an item stops once the 95% interval of its score is narrower than this "
        "(points of the 0-5 scale).",
    )
    precision_of = models.CharField(
        max_length=8,
        choices=PrecisionOf.choices,
        default=PrecisionOf.COMPOUND,
        help_text="Adaptive allocation: whose intervals must be narrow before an item stops.",
    )
    budget_ratings = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="The most ratings of regular items the campaign pays for; blank: no limit but the items'.",
    )
    pay_per_rating = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text="What one rating costs (reward and fees), in the study's currency: the planner's cost and a "
        "money budget.",
    )
    budget_money = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text="The most the campaign spends on ratings (needs the pay per rating); blank: no limit.",
    )
    seed = models.PositiveIntegerField(default=0, help_text="Seed of the item order and tie-breaks.")
    max_items_per_annotator = models.PositiveIntegerField(null=True, blank=True)
    reservation_minutes = models.PositiveIntegerField(
        default=30, validators=[MinValueValidator(1)], help_text="An unanswered item is released after this."
    )
    instructions = models.TextField(blank=True)
    consent_text = models.TextField(blank=True)
    training_pass_mark = models.FloatField(
        default=0.8, validators=[MinValueValidator(0), MaxValueValidator(1)], help_text="Share of gold items right."
    )
    gold_tolerance = models.PositiveSmallIntegerField(default=1, help_text="A gold answer within ±this is right.")
    completion_code = models.CharField(max_length=40, default=completion_code)
    completion_url = models.URLField(blank=True, help_text="Where crowd workers go at the end (Prolific, MTurk).")
    min_items_for_code = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Items a worker must rate (not skip) for the completion code. Blank: every item a worker is given "
        "(the items per worker). A number is for open-ended studies; below 5 it must be confirmed.",
    )
    max_skip_share = models.FloatField(
        default=0.2,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="Share of a worker's items they may skip ('I don't know this expression'); a worker who skips "
        "more is screened out (the screen-out code, never the completion code).",
    )
    expected_seconds_per_item = models.PositiveIntegerField(
        default=25,
        validators=[MinValueValidator(1)],
        help_text="Your guess of the seconds an item takes; the time estimate uses it until ratings are measured.",
    )
    full_url = models.URLField(
        blank=True,
        help_text="Where workers go when no item is left for them (Prolific: leave blank, they return the study).",
    )
    screen_out_code = models.CharField(
        max_length=40,
        blank=True,
        help_text="Code for workers the practice items screen out (Prolific: a code designated 'screened out').",
    )
    screen_out_url = models.URLField(
        blank=True,
        help_text="Where screened-out workers go, e.g. https://app.prolific.com/submissions/complete?cc=CODE.",
    )
    status = models.CharField(max_length=6, choices=Status.choices, default=Status.DRAFT, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    items_version = models.PositiveIntegerField(
        default=0, editable=False, help_text="Moves on whenever items are added, removed or change role."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def adaptive(self) -> bool:
        return self.allocation == self.Allocation.ADAPTIVE

    @property
    def rating_budget(self) -> int | None:
        """The most regular ratings the campaign pays for (in ratings, or money at its pay: the smaller); None: no limit."""
        return allocation.rating_budget(self.budget_ratings, self.budget_money, self.pay_per_rating)

    def stopping_policy(self) -> allocation.Policy:
        """The adaptive policy of ``annotation.allocation`` with this campaign's settings."""
        return allocation.Policy(n_min=self.min_ratings_per_item, n_max=self.ratings_per_item, precision=self.precision)


# What a curator sets when creating a campaign, in the UI and the API alike.
CAMPAIGN_SETTINGS = (
    "name",
    "slug",
    "collection",
    "language",
    "level",
    "ratings_per_item",
    "allocation",
    "min_ratings_per_item",
    "precision",
    "precision_of",
    "budget_ratings",
    "pay_per_rating",
    "budget_money",
    "seed",
    "max_items_per_annotator",
    "reservation_minutes",
    "instructions",
    "consent_text",
    "training_pass_mark",
    "gold_tolerance",
    "completion_url",
    "min_items_for_code",
    "max_skip_share",
    "expected_seconds_per_item",
    "full_url",
    "screen_out_code",
    "screen_out_url",
    "status",
)


class Item(models.Model):
    """One thing to rate: a sentence (token level) or a compound (type level)."""

    class Role(models.TextChoices):
        REGULAR = "regular", "Regular"
        TRAINING = "training", "Training (gold, with feedback)"
        ATTENTION = "attention", "Attention check"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    compound = models.ForeignKey(Compound, on_delete=models.PROTECT, related_name="+")
    sentence = models.ForeignKey(Sentence, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    role = models.CharField(max_length=9, choices=Role.choices, default=Role.REGULAR)
    order_key = models.PositiveIntegerField(help_text="Seeded random position: the tie-break among equals.")
    taken = models.PositiveSmallIntegerField(default=0, help_text="Submitted ratings plus live reservations.")
    # Kept under the adaptive allocation only (``actions.refresh_interval``): what the stopping rule decided.
    rating_count = models.PositiveSmallIntegerField(default=0, editable=False, help_text="Submitted ratings.")
    interval_low = models.FloatField(null=True, blank=True, editable=False)
    interval_high = models.FloatField(null=True, blank=True, editable=False)
    interval_width = models.FloatField(
        null=True, blank=True, editable=False, help_text="The widest interval among the questions the rule watches."
    )
    settled = models.BooleanField(default=False, help_text="The adaptive rule stopped the item: no more ratings.")
    gold_compound = models.PositiveSmallIntegerField(null=True, blank=True, validators=SCORE)
    gold_head = models.PositiveSmallIntegerField(null=True, blank=True, validators=SCORE)
    gold_modifier = models.PositiveSmallIntegerField(null=True, blank=True, validators=SCORE)
    feedback = models.TextField(blank=True, help_text="Shown after a training item.")

    class Meta:
        ordering = ["campaign", "order_key"]
        indexes = [models.Index(fields=["campaign", "role", "taken", "order_key"])]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "sentence"], condition=Q(sentence__isnull=False), name="item_unique_sentence"
            ),
            models.UniqueConstraint(
                fields=["campaign", "compound"], condition=Q(sentence__isnull=True), name="item_unique_compound"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign.slug} #{self.pk} {self.compound.text}"


class Annotator(models.Model):
    """A person taking part in one campaign: a local account or a crowd worker's external id."""

    class Platform(models.TextChoices):
        LOCAL = "local", "Local account"
        PROLIFIC = "prolific", "Prolific"
        MTURK = "mturk", "MTurk"
        GENERIC = "generic", "Other"

    class Status(models.TextChoices):
        ACTIVE = "active", "Taking part"
        COMPLETED = "completed", "Completed (earned the completion code)"
        SCREENED_OUT = "screened_out", "Screened out"

    class ScreenOut(models.TextChoices):
        PRACTICE = "practice", "by the practice items"
        SKIPS = "skips", "for skipping more items than the study allows"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="annotators")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    platform = models.CharField(max_length=8, choices=Platform.choices, default=Platform.LOCAL)
    external_id = models.CharField(max_length=200, blank=True)
    study_id = models.CharField(max_length=200, blank=True)
    session_id = models.CharField(max_length=200, blank=True)
    assignment_id = models.CharField(max_length=200, blank=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    training_passed = models.BooleanField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    screen_out_reason = models.CharField(max_length=8, choices=ScreenOut.choices, blank=True)
    resume_code = models.CharField(
        max_length=RESUME_CODE_LENGTH,
        default=resume_code,
        editable=False,
        help_text="The worker's own secret: shown on their first page, it opens the study in another browser.",
    )
    simulated = models.BooleanField(default=False, help_text="A simulated annotator (demo data), not a person.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "platform", "external_id"],
                condition=~Q(external_id=""),
                name="annotator_unique_external_id",
            ),
            models.UniqueConstraint(
                fields=["campaign", "user"], condition=Q(user__isnull=False), name="annotator_unique_user"
            ),
        ]

    def __str__(self) -> str:
        return self.external_id or (self.user.get_username() if self.user_id else f"annotator {self.pk}")


class Assignment(models.Model):
    """An item handed to an annotator; its token makes a submission idempotent."""

    class Status(models.TextChoices):
        RESERVED = "reserved", "Reserved"
        SUBMITTED = "submitted", "Submitted"
        EXPIRED = "expired", "Expired"
        SKIPPED = "skipped", "Skipped"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="assignments")
    token = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.RESERVED, db_index=True)
    reserved_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["reserved_at"]
        constraints = [
            # Nobody sees an item twice.
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_once_per_annotator"),
            # One item at a time: a worker cannot hold several items back from the others.
            models.UniqueConstraint(
                fields=["annotator"], condition=Q(status="reserved"), name="assignment_one_reserved_per_annotator"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item_id} → {self.annotator_id} ({self.status})"


class Rating(models.Model):
    """The three 0-5 answers of the protocol for one assignment (never two for one)."""

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="rating")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="ratings")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="ratings")
    head_score = models.PositiveSmallIntegerField(validators=SCORE)
    modifier_score = models.PositiveSmallIntegerField(validators=SCORE)
    compound_score = models.PositiveSmallIntegerField(validators=SCORE)
    seconds = models.FloatField(null=True, blank=True, help_text="Time from reservation to submission.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="rating_once_per_annotator"),
            models.CheckConstraint(
                condition=Q(head_score__lte=5, modifier_score__lte=5, compound_score__lte=5), name="rating_in_scale"
            ),
        ]

    def __str__(self) -> str:
        return f"head {self.head_score}, modifier {self.modifier_score}, compound {self.compound_score}"


class Skip(models.Model):
    """An item the annotator passed over (e.g. does not know the expression); it went back to the pool."""

    class Reason(models.TextChoices):
        UNKNOWN_EXPRESSION = "unknown_expression", "Does not know this expression"

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="skip")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="skips")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="skips")
    reason = models.CharField(max_length=20, choices=Reason.choices, default=Reason.UNKNOWN_EXPRESSION)
    seconds = models.FloatField(null=True, blank=True, help_text="Time from reservation to the skip.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.item_id} skipped by {self.annotator_id} ({self.reason})"


class SuggestedParaphrase(models.Model):
    """Up to three paraphrases an annotator gave with a rating."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="paraphrases")
    position = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(3)])
    text = models.CharField(max_length=300)

    class Meta:
        ordering = ["rating", "position"]
        constraints = [models.UniqueConstraint(fields=["rating", "position"], name="paraphrase_position_once")]

    def __str__(self) -> str:
        return self.text
