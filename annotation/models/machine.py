"""Machine annotators: language models asked a campaign's questions, kept apart from the people.

A ``MachineAnnotator`` is one model × prompt template × settings × sample of a campaign: the unit
that behaves like one more annotator in the comparisons (alpha with the model as one more rater,
its reliability among the workers). Its answers are ``MachineAnswer`` rows, never ``Rating`` rows:
agreement, reliability filters, assignment quotas, completion codes, payments and release
aggregates read ``Rating`` alone, so machine answers cannot leak into them by a forgotten filter.
An answer that did not parse is kept (``valid`` false, with its raw text and the reason), never
coerced or dropped. The ``annotators`` app asks the models and writes these rows.
"""

from __future__ import annotations

from django.db import models

from annotation.models.campaigns import SCORE, Campaign, Item

QUESTIONS = ("head", "modifier", "compound")


class MachineAnnotator(models.Model):
    """One model, template, settings and sample answering a campaign (``origin = machine`` wherever it is shown)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="machine_annotators")
    key = models.CharField(max_length=64, help_text="sha256 of the model's identity, template, settings and sample.")
    label = models.CharField(max_length=200, help_text="How reports name it: model · template · sample.")
    model_name = models.CharField(max_length=200)
    model_kind = models.CharField(max_length=40)
    model_identity = models.JSONField(default=dict, help_text="The backend's identity when it answered.")
    template_name = models.CharField(max_length=60)
    template_version = models.PositiveSmallIntegerField()
    template_text = models.TextField(help_text="The template exactly as the model was asked.")
    settings = models.JSONField(default=dict, help_text="temperature, seed, max_tokens, structured output…")
    sample = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "model_name", "template_name", "sample"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="machine_annotator_once")]

    def __str__(self) -> str:
        return self.label

    @property
    def origin(self) -> str:
        return "machine"


class MachineAnswer(models.Model):
    """A machine annotator's answer to one item: three ratings and up to three paraphrases, or why it is invalid."""

    annotator = models.ForeignKey(MachineAnnotator, on_delete=models.CASCADE, related_name="answers")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="machine_answers")
    valid = models.BooleanField(db_index=True)
    head_score = models.PositiveSmallIntegerField(null=True, blank=True, validators=SCORE)
    modifier_score = models.PositiveSmallIntegerField(null=True, blank=True, validators=SCORE)
    compound_score = models.PositiveSmallIntegerField(null=True, blank=True, validators=SCORE)
    distributions = models.JSONField(
        default=dict, blank=True, help_text="Per question: probabilities of 0-5, expected value, mode, entropy."
    )
    paraphrases = models.JSONField(default=list, blank=True)
    raw_text = models.TextField(blank=True, help_text="What the model answered, verbatim (the last attempt).")
    error = models.CharField(max_length=300, blank=True, help_text="Why the answer is invalid.")
    attempts = models.PositiveSmallIntegerField(default=1)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cached = models.BooleanField(default=False, help_text="Read from the response cache: not paid again.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["annotator", "item"]
        constraints = [
            models.UniqueConstraint(fields=["annotator", "item"], name="machine_answer_once"),
            models.CheckConstraint(
                condition=models.Q(valid=False)
                | models.Q(head_score__isnull=False, modifier_score__isnull=False, compound_score__isnull=False),
                name="machine_answer_valid_has_scores",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on item {self.item_id}"
