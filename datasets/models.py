"""The dataset: compounds, the sentences they occur in, paraphrases and minimal-pair variants."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Count, Q

from datasets import vocabulary as v

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
    compositionality_class = models.CharField(max_length=24, choices=v.CLASS_CHOICES, null=True, blank=True)
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
        max_length=12, choices=v.GOLD_SOURCE_CHOICES, blank=True, help_text="Where the gold synonym came from."
    )
    gold_synonym_set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    gold_synonym_set_at = models.DateTimeField(null=True, blank=True)
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
        self.key = v.compound_key(self.text)
        super().save(*args, **kwargs)

    @property
    def class_short(self) -> str:
        return v.CLASS_SHORT.get(self.compositionality_class or "", "")


class Sentence(Provenance):
    """A sentence in which a compound occurs, with the character span of its occurrence."""

    compound = models.ForeignKey(Compound, on_delete=models.CASCADE, related_name="sentences")
    kind = models.CharField(max_length=20, choices=v.SENTENCE_KIND_CHOICES, default=v.NATURALISTIC)
    slot = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(3)],
        help_text="Naturalistic: sentence 1-3. Neutral: 1 singular pattern, 2 plural pattern.",
    )
    text = models.TextField(blank=True)
    span_start = models.PositiveIntegerField(null=True, blank=True)
    span_end = models.PositiveIntegerField(null=True, blank=True)
    span_source = models.CharField(max_length=10, choices=v.SPAN_SOURCE_CHOICES, blank=True)
    plural = models.BooleanField(default=False, help_text="The compound occurs in the plural.")
    available = models.BooleanField(default=True, help_text="False when the public file holds only a corpus pointer.")
    corpus_pointer = models.TextField(blank=True, help_text="The pointer given instead of the text.")
    token_score = models.FloatField(
        null=True,
        blank=True,
        validators=score_validators,
        help_text="Reference token-level compositionality (mean over annotators).",
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
    level = models.CharField(max_length=5, choices=v.LEVEL_CHOICES)
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
                condition=Q(level=v.TYPE_LEVEL, sentence__isnull=True) | Q(level=v.TOKEN_LEVEL, sentence__isnull=False),
                name="paraphrase_level_matches_sentence",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.text} ({self.level}, {self.frequency})"


class Variant(Provenance):
    """A minimal-pair partner of a sentence: the compound replaced by something else."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="variants")
    kind = models.CharField(max_length=32, choices=v.VARIANT_KIND_CHOICES)
    rank = models.PositiveSmallIntegerField(default=1, help_text="1-5 for random compounds, 1.. for alternatives.")
    isolated = models.BooleanField(default=False, help_text="Out of context: the replacement alone, no sentence.")
    text = models.TextField()
    span_start = models.PositiveIntegerField(null=True, blank=True)
    span_end = models.PositiveIntegerField(null=True, blank=True)
    span_source = models.CharField(max_length=10, choices=v.SPAN_SOURCE_CHOICES, blank=True)
    status = models.CharField(max_length=10, choices=v.VARIANT_STATUS_CHOICES, default=v.GENERATED, db_index=True)
    origin = models.CharField(max_length=10, choices=v.ORIGIN_CHOICES, default=v.ORIGIN_GENERATED)
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
        return self.status != v.GENERATED

    def snapshot(self) -> dict:
        """The reviewable state, as recorded before and after a curator's change."""
        return {"text": self.text, "span": [self.span_start, self.span_end], "status": self.status}


class VariantChange(models.Model):
    """One curator decision on a variant: who, when, and the state before and after."""

    APPROVE, EDIT, REJECT, RESET = "approve", "edit", "reject", "reset"
    ACTION_CHOICES = [(APPROVE, "Approved"), (EDIT, "Edited"), (REJECT, "Rejected"), (RESET, "Back to pending")]

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=10, choices=ACTION_CHOICES)
    before = models.JSONField()
    after = models.JSONField()
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.action} variant {self.variant_id} by {self.user} at {self.at:%Y-%m-%d %H:%M}"


class FrequencyTable(models.Model):
    """Counts of words and compounds from one source (a corpus the user uploaded, or wordfreq)."""

    CORPUS, WORDFREQ = "corpus", "wordfreq"
    SOURCE_CHOICES = [(CORPUS, "Counted in a corpus"), (WORDFREQ, "wordfreq (compounds estimated)")]

    name = models.CharField(max_length=200)
    language = models.CharField(max_length=8, validators=[language_code_validator], db_index=True)
    source = models.CharField(max_length=10, choices=SOURCE_CHOICES, default=CORPUS)
    corpus_path = models.CharField(max_length=500, blank=True)
    corpus_format = models.CharField(max_length=20, blank=True)
    corpus_bytes = models.BigIntegerField(null=True, blank=True)
    tokens = models.BigIntegerField(default=0, help_text="Tokens counted in the whole corpus.")
    counts = models.JSONField(default=dict, help_text="{word or compound (lower case): count}")
    job = models.ForeignKey("BuildJob", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.language}, {self.tokens:,} tokens)"


class BuildJob(models.Model):
    """A long dataset-building job run by Celery workers (variant generation, corpus counting)."""

    GENERATE_VARIANTS, COUNT_CORPUS = "generate_variants", "count_corpus"
    KIND_CHOICES = [(GENERATE_VARIANTS, "Generate variants"), (COUNT_CORPUS, "Count a corpus")]
    QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
    STATUS_CHOICES = [
        (QUEUED, "Queued"),
        (RUNNING, "Running"),
        (DONE, "Done"),
        (FAILED, "Failed"),
        (CANCELLED, "Cancelled"),
    ]

    kind = models.CharField(max_length=20, choices=KIND_CHOICES)
    language = models.CharField(max_length=8, blank=True)
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=STATUS_CHOICES, default=QUEUED, db_index=True)
    total = models.PositiveBigIntegerField(default=0, help_text="Units of work (compounds, corpus chunks).")
    done = models.PositiveBigIntegerField(default=0)
    done_parts = models.JSONField(default=list, blank=True, help_text="Indices of finished chunks.")
    message = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    @property
    def progress(self) -> float:
        return self.done / self.total if self.total else 0.0

    @property
    def is_finished(self) -> bool:
        return self.status in (self.DONE, self.FAILED, self.CANCELLED)


# Releases live in their own module; imported here so that Django finds them as this app's models.
from datasets.release_models import Release, ReleaseFile  # noqa: E402, F401
