"""How a campaign judges and shows its work: filter policies (and what they removed), quality thresholds, worked examples."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotation.models.campaigns import SCORE, Campaign


class FilterPolicy(models.Model):
    """A saved rule for dropping annotators before aggregating (Garcia et al. 2021: Spearman rho >= 0.2 or 0.4)."""

    name = models.CharField(max_length=60, unique=True)
    description = models.TextField(blank=True)
    min_rho = models.FloatField(null=True, blank=True, help_text="Minimum Spearman rho against the others (none: any).")
    min_items = models.PositiveIntegerField(default=3, help_text="Minimum number of rated items.")
    min_gold_accuracy = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="Minimum share of gold items right (none: not judged on gold).",
    )
    question = models.CharField(max_length=20, default="compound_score", help_text="The question rho is computed on.")
    exclude_flagged = models.BooleanField(
        default=False, help_text="Also drop the workers the campaign's quality thresholds flag (QualityPolicy)."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "filter policies"

    def __str__(self) -> str:
        return self.name


class PolicyRun(models.Model):
    """What a policy removed on a campaign, saved each time it is applied."""

    policy = models.ForeignKey(FilterPolicy, on_delete=models.CASCADE, related_name="runs")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="policy_runs")
    removed = models.JSONField(default=list, help_text="[{annotator, reason}]")
    kept = models.PositiveIntegerField(default=0, help_text="Annotators kept.")
    computed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-computed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.policy} on {self.campaign.slug}: {len(self.removed)} removed"


class QualityPolicy(models.Model):
    """When a campaign flags a worker (annotation.analysis.quality); a campaign without one uses the defaults."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="quality_policy")
    min_median_seconds = models.FloatField(
        null=True,
        blank=True,
        default=3.0,
        validators=[MinValueValidator(0)],
        help_text="A median time per item below this flags a speeder (none: not judged).",
    )
    max_same_answer_share = models.FloatField(
        null=True,
        blank=True,
        default=0.8,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="This share or more of items answered with one answer triple flags straight-lining (none: off).",
    )
    max_attention_failures = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        default=1,
        help_text="More attention checks failed than this flags the worker (none: not judged).",
    )
    min_rho = models.FloatField(
        null=True,
        blank=True,
        default=0.2,
        validators=[MinValueValidator(-1), MaxValueValidator(1)],
        help_text="A Spearman rho with the others below this flags low agreement (none: not judged).",
    )
    min_items = models.PositiveIntegerField(
        default=10, help_text="Straight-lining and agreement are judged from this many rated items."
    )
    max_skip_share = models.FloatField(
        null=True,
        blank=True,
        default=0.1,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="A share of skipped items above this flags the worker for review (none: not judged).",
    )

    class Meta:
        verbose_name_plural = "quality policies"

    def __str__(self) -> str:
        return f"quality thresholds of {self.campaign.slug}"


class WorkedExample(models.Model):
    """A worked example in a campaign's instructions: a sentence with the expected answers and why."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="worked_examples")
    position = models.PositiveSmallIntegerField(default=1)
    compound = models.CharField(max_length=200, help_text="The compound as it appears in the sentence.")
    sentence = models.TextField(help_text="A sentence using the compound (never one of the campaign's items).")
    head_score = models.PositiveSmallIntegerField(validators=SCORE)
    head_note = models.CharField(max_length=300, blank=True)
    modifier_score = models.PositiveSmallIntegerField(validators=SCORE)
    modifier_note = models.CharField(max_length=300, blank=True)
    compound_score = models.PositiveSmallIntegerField(validators=SCORE)
    compound_note = models.CharField(max_length=300, blank=True)
    paraphrases = models.CharField(max_length=300, blank=True, help_text="Separated by semicolons.")

    class Meta:
        ordering = ["campaign", "position", "id"]

    def __str__(self) -> str:
        return f"{self.campaign.slug}: {self.compound}"
