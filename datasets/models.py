"""The dataset: compounds, the sentences they occur in, paraphrases and minimal-pair variants."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Count, Q

from datasets import vocabulary

language_code_validator = RegexValidator(
    r"^[a-z]{2,3}(-[A-Za-z]{2,4})?$", "Use an ISO 639 code such as en, pt or pt-BR."
)
score_validators = [MinValueValidator(0.0), MaxValueValidator(5.0)]


class ImportRun(models.Model):
    """One run of an importer: what it read (with checksums) and what it did."""

    importer = models.CharField(max_length=40)
    source_dir = models.CharField(max_length=500)
    files = models.JSONField(default=list, help_text="[{name, sha256, rows}]")
    options = models.JSONField(default=dict)
    summary = models.JSONField(default=dict)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.importer} {self.source_dir} ({self.started_at:%Y-%m-%d %H:%M})"


class Provenance(models.Model):
    """Where a row came from: the import run, file and line (blank for rows made in the app)."""

    import_run = models.ForeignKey(ImportRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source_file = models.CharField(max_length=300, blank=True)
    source_line = models.PositiveIntegerField(null=True, blank=True)
    flags = models.JSONField(default=list, blank=True, help_text="Problems noticed on import.")

    class Meta:
        abstract = True

    @property
    def provenance(self) -> str:
        if not self.source_file:
            return ""
        return f"{self.source_file}:{self.source_line}" if self.source_line else self.source_file


class Collection(models.Model):
    """A namespace of compounds: the public data, the demo, a team's own set. Imports name one."""

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name or self.slug

    @classmethod
    def named(cls, slug: str, name: str = "") -> Collection:
        collection, _ = cls.objects.get_or_create(slug=slug, defaults={"name": name or slug})
        return collection


class CompoundQuerySet(models.QuerySet):
    def for_language(self, language: str) -> CompoundQuerySet:
        return self.filter(language=language)

    def with_counts(self) -> CompoundQuerySet:
        return self.annotate(
            sentence_count=Count("sentences", distinct=True),
            available_sentence_count=Count("sentences", filter=Q(sentences__available=True), distinct=True),
        )


class Compound(Provenance):
    """A noun compound type in one language (modifier + head)."""

    collection = models.ForeignKey(Collection, on_delete=models.PROTECT, related_name="compounds")
    language = models.CharField(max_length=8, validators=[language_code_validator], db_index=True)
    text = models.CharField(max_length=200, help_text="Lemma form as the dataset cites it.")
    key = models.CharField(max_length=200, editable=False, help_text="Case-folded text: identity within a language.")
    modifier = models.CharField(max_length=100, blank=True)
    head = models.CharField(max_length=100, blank=True)
    compositionality_class = models.CharField(max_length=24, choices=vocabulary.CLASS_CHOICES, null=True, blank=True)
    type_score = models.FloatField(
        null=True, blank=True, validators=score_validators, help_text="Reference compositionality at type level (0-5)."
    )
    token_score = models.FloatField(
        null=True,
        blank=True,
        validators=score_validators,
        help_text="Reference compositionality averaged over the sentences (0-5).",
    )
    head_score = models.FloatField(
        null=True, blank=True, validators=score_validators, help_text="How literally the head contributes (0-5)."
    )
    modifier_score = models.FloatField(
        null=True, blank=True, validators=score_validators, help_text="How literally the modifier contributes (0-5)."
    )
    gold_synonym = models.CharField(max_length=200, blank=True)
    gold_synonym_source = models.CharField(
        max_length=12, choices=vocabulary.GOLD_SOURCE_CHOICES, blank=True, help_text="Where the gold synonym came from."
    )
    gold_synonym_set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    gold_synonym_set_at = models.DateTimeField(null=True, blank=True)
    gold_synonym_evidence = models.JSONField(
        default=dict,
        blank=True,
        help_text="Why the paraphrases gave this gold synonym: the reason and the runners-up with their counts.",
    )
    synonym_overlap = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Words the compound shares with its synonym as a published file gives them "
        "(NCIMP's MWE Synonym Overlap); empty: computed from the gold synonym.",
    )
    frequency = models.FloatField(null=True, blank=True)
    modifier_frequency = models.FloatField(null=True, blank=True)
    head_frequency = models.FloatField(null=True, blank=True)
    frequency_source = models.CharField(max_length=200, blank=True)
    pmi = models.FloatField(null=True, blank=True, help_text="Pointwise mutual information of the two words (log2).")
    ppmi = models.FloatField(null=True, blank=True, help_text="Positive PMI: max(0, PMI).")

    objects = CompoundQuerySet.as_manager()

    class Meta:
        ordering = ["collection", "language", "key"]
        constraints = [
            models.UniqueConstraint(fields=["collection", "language", "key"], name="compound_unique_per_language")
        ]

    def __str__(self) -> str:
        return f"{self.text} ({self.language})"

    def save(self, *args, **kwargs) -> None:
        self.key = vocabulary.compound_key(self.text)
        super().save(*args, **kwargs)

    @property
    def class_short(self) -> str:
        return vocabulary.CLASS_SHORT.get(self.compositionality_class or "", "")


class Sentence(Provenance):
    """A sentence in which a compound occurs, with the character span of its occurrence."""

    compound = models.ForeignKey(Compound, on_delete=models.CASCADE, related_name="sentences")
    kind = models.CharField(max_length=20, choices=vocabulary.SENTENCE_KIND_CHOICES, default=vocabulary.NATURALISTIC)
    slot = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(3)],
        help_text="Naturalistic: sentence 1-3. Neutral: 1 singular pattern, 2 plural pattern.",
    )
    text = models.TextField(blank=True)
    span_start = models.PositiveIntegerField(null=True, blank=True)
    span_end = models.PositiveIntegerField(null=True, blank=True)
    span_source = models.CharField(max_length=10, choices=vocabulary.SPAN_SOURCE_CHOICES, blank=True)
    plural = models.BooleanField(default=False, help_text="The compound occurs in the plural.")
    available = models.BooleanField(default=True, help_text="False when the public file holds only a corpus pointer.")
    corpus_pointer = models.TextField(blank=True, help_text="The pointer given instead of the text.")
    token_score = models.FloatField(
        null=True,
        blank=True,
        validators=score_validators,
        help_text="Reference token-level compositionality (mean over annotators).",
    )
    length = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Words in the sentence as a published file counts them (NCIMP's naturalistics_sentence_length); "
        "empty: counted from the text.",
    )

    class Meta:
        ordering = ["compound__language", "compound__key", "kind", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["compound", "kind", "slot"], name="sentence_unique_slot"),
            models.CheckConstraint(
                condition=Q(span_start__isnull=True, span_end__isnull=True)
                | Q(span_start__isnull=False, span_end__isnull=False, span_start__lt=models.F("span_end")),
                name="sentence_span_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.compound.text} {self.kind} {self.slot}"

    @property
    def has_span(self) -> bool:
        return self.span_start is not None and self.span_end is not None

    @property
    def surface(self) -> str:
        """The compound as it occurs in this sentence ("eager beavers")."""
        return self.text[self.span_start : self.span_end] if self.has_span else ""

    def parts(self) -> tuple[str, str, str]:
        """Text before, at and after the compound, for highlighting."""
        if not self.has_span:
            return self.text, "", ""
        return self.text[: self.span_start], self.surface, self.text[self.span_end :]


class Paraphrase(Provenance):
    """A paraphrase suggested by annotators, for the type or for one sentence (token)."""

    compound = models.ForeignKey(Compound, on_delete=models.CASCADE, related_name="paraphrases")
    sentence = models.ForeignKey(Sentence, null=True, blank=True, on_delete=models.CASCADE, related_name="paraphrases")
    level = models.CharField(max_length=5, choices=vocabulary.LEVEL_CHOICES)
    text = models.CharField(max_length=300)
    frequency = models.PositiveIntegerField(default=1, help_text="How many annotators proposed it.")

    class Meta:
        ordering = ["compound", "level", "-frequency", "text"]
        constraints = [
            models.UniqueConstraint(
                fields=["compound", "level", "text"],
                condition=Q(sentence__isnull=True),
                name="paraphrase_unique_type",
            ),
            models.UniqueConstraint(
                fields=["compound", "sentence", "level", "text"],
                condition=Q(sentence__isnull=False),
                name="paraphrase_unique_token",
            ),
            models.CheckConstraint(
                condition=Q(level=vocabulary.TYPE_LEVEL, sentence__isnull=True)
                | Q(level=vocabulary.TOKEN_LEVEL, sentence__isnull=False),
                name="paraphrase_level_matches_sentence",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.text} ({self.level}, {self.frequency})"


class Variant(Provenance):
    """A minimal-pair partner of a sentence: the compound replaced by something else."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="variants")
    kind = models.CharField(max_length=32, choices=vocabulary.VARIANT_KIND_CHOICES)
    rank = models.PositiveSmallIntegerField(default=1, help_text="1-5 for random compounds, 1.. for alternatives.")
    isolated = models.BooleanField(default=False, help_text="Out of context: the replacement alone, no sentence.")
    text = models.TextField()
    span_start = models.PositiveIntegerField(null=True, blank=True)
    span_end = models.PositiveIntegerField(null=True, blank=True)
    span_source = models.CharField(max_length=10, choices=vocabulary.SPAN_SOURCE_CHOICES, blank=True)
    status = models.CharField(
        max_length=10, choices=vocabulary.VARIANT_STATUS_CHOICES, default=vocabulary.GENERATED, db_index=True
    )
    origin = models.CharField(max_length=10, choices=vocabulary.ORIGIN_CHOICES, default=vocabulary.ORIGIN_GENERATED)
    source_column = models.CharField(max_length=100, blank=True)
    details = models.JSONField(
        default=dict, blank=True, help_text="How a generated variant was made: resource, senses, frequencies."
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["sentence", "kind", "rank", "isolated"]
        constraints = [
            models.UniqueConstraint(fields=["sentence", "kind", "rank", "isolated"], name="variant_unique_kind_rank"),
            models.CheckConstraint(
                condition=Q(span_start__isnull=True, span_end__isnull=True)
                | Q(span_start__isnull=False, span_end__isnull=False, span_start__lt=models.F("span_end")),
                name="variant_span_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.rank}: {self.text[:60]}"

    @property
    def has_span(self) -> bool:
        return self.span_start is not None and self.span_end is not None

    @property
    def replacement(self) -> str:
        return self.text[self.span_start : self.span_end] if self.has_span else ""

    def parts(self) -> tuple[str, str, str]:
        if not self.has_span:
            return self.text, "", ""
        return self.text[: self.span_start], self.replacement, self.text[self.span_end :]

    @property
    def is_decided(self) -> bool:
        """A curator approved, edited or rejected it: regeneration leaves it alone."""
        return self.status != vocabulary.GENERATED

    def snapshot(self) -> dict:
        """The reviewable state, as recorded before and after a curator's change."""
        return {"text": self.text, "span": [self.span_start, self.span_end], "status": self.status}
