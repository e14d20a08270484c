"""The controlled vocabulary of the dataset model (pure: no Django import).

Kept apart from the models so that file-format modules and analyses can use the same
names without a database.
"""

from __future__ import annotations

LANGUAGE_NAMES = {"en": "English", "pt": "Portuguese"}
# The datasets an importer brings in, in words (ImportRun.importer -> what a reader should cite or know).
IMPORTED_FROM = {
    "import_nctti": "NCTTI (Garcia et al. 2021, ACL)",
    "import_ncs": "NCS (Garcia et al. 2021, EACL)",
    "import_ncimp": "NCIMP (He et al. 2024)",
    "load_demo": "the workbench demo (written by the team)",
    "import_release": "an imported workbench release",
    "upload_table": "a curator's uploaded table",
    "upload_workbench_json": "a curator's uploaded workbench JSON",
}

# Compositionality classes as the public files spell them, and our names for them.
IDIOMATIC, PARTLY, COMPOSITIONAL = "idiomatic", "partly_compositional", "compositional"
CLASS_CHOICES = [
    (IDIOMATIC, "Idiomatic"),
    (PARTLY, "Partly compositional"),
    (COMPOSITIONAL, "Compositional"),
]
CLASSES = tuple(value for value, _ in CLASS_CHOICES)
CLASS_LABELS = dict(CLASS_CHOICES)
UNCLASSIFIED = "unclassified"  # a compound without a class, where classes are counted or listed
CLASS_LABELS_AND_UNCLASSIFIED = {**CLASS_LABELS, UNCLASSIFIED: "Unclassified"}
CLASS_CODES = {"NC": IDIOMATIC, "I": IDIOMATIC, "PC": PARTLY, "C": COMPOSITIONAL}
CLASS_SHORT = {IDIOMATIC: "NC", PARTLY: "PC", COMPOSITIONAL: "C"}
# Each class's colour in every figure (campaign reports, probe reports): red idiomatic to green compositional.
CLASS_COLOURS = {IDIOMATIC: "#c0392b", PARTLY: "#d68910", COMPOSITIONAL: "#1e8449"}
DEFAULT_COLOUR = "#2e86c1"  # a series that is not a class
# A mean score on the 0-5 scale below 1.5 is idiomatic, below 3.5 partly compositional, else compositional
# (the NCIMP release's ClassToken cut-offs).
CLASS_CUTS = ((1.5, IDIOMATIC), (3.5, PARTLY))


def class_of_score(score: float | None) -> str | None:
    """The compositionality class of a mean 0-5 score under ``CLASS_CUTS``; None without a score."""
    if score is None:
        return None
    return next((cls for cut, cls in CLASS_CUTS if score < cut), COMPOSITIONAL)


NATURALISTIC, NEUTRAL_SHORT, NEUTRAL_LONG = "naturalistic", "neutral_short", "neutral_long"
SENTENCE_KIND_CHOICES = [
    (NATURALISTIC, "Naturalistic"),
    (NEUTRAL_SHORT, "Neutral (short: This is a/an <NC>)"),
    (NEUTRAL_LONG, "Neutral (long: This is what a/an <NC> is supposed to be)"),
]
# Neutral sentences come in a singular and a plural pattern; we store them as slots.
NEUTRAL_SINGULAR_SLOT, NEUTRAL_PLURAL_SLOT = 1, 2

TYPE_LEVEL, TOKEN_LEVEL = "type", "token"
LEVEL_CHOICES = [(TYPE_LEVEL, "Type level"), (TOKEN_LEVEL, "Token level")]

# How a sentence's or variant's span was established.
SPAN_FROM_TAGS = "tags"  # the file's boolean tag list
SPAN_FROM_DIFF = "diff"  # minimal-pair difference with the original sentence
SPAN_FROM_SEARCH = "search"  # the compound (or an inflected form) found in the text
SPAN_FROM_FUZZY = "fuzzy"  # found only by a prefix match: worth a curator's look
SPAN_FROM_MARKUP = "markup"  # [brackets] in a team-written file
SPAN_FROM_EDIT = "edit"  # set by a curator
SPAN_FROM_GENERATION = "generated"  # placed by the variant generator
SPAN_SOURCE_CHOICES = [
    (SPAN_FROM_TAGS, "Tag list"),
    (SPAN_FROM_DIFF, "Minimal-pair difference"),
    (SPAN_FROM_SEARCH, "Found in text"),
    (SPAN_FROM_FUZZY, "Found by prefix match"),
    (SPAN_FROM_MARKUP, "Bracket markup"),
    (SPAN_FROM_EDIT, "Curator edit"),
    (SPAN_FROM_GENERATION, "Placed by the generator"),
]

# Probe kinds of a variant (the minimal-pair partner of a sentence).
ORIGINAL = "original"
SYNONYM_NC = "synonym_nc"
HEAD_ONLY = "head_only"
MODIFIER_ONLY = "modifier_only"
SYNONYM_MODIFIER = "synonym_modifier"
SYNONYM_HEAD = "synonym_head"
SYNONYM_BOTH = "synonym_both"
MODIFIER_SYNONYM_ONLY = "modifier_synonym_only"
HEAD_SYNONYM_ONLY = "head_synonym_only"
GENERIC_MODIFIER = "generic_modifier"
GENERIC_HEAD = "generic_head"
GENERIC_BOTH = "generic_both"
GENERIC_COMPOUND = "generic_compound"
RANDOM_FREQ = "random_freq"
RANDOM_FREQ_MODIFIER_ONLY = "random_freq_modifier_only"
RANDOM_FREQ_HEAD_ONLY = "random_freq_head_only"
RANDOM = "random"
RANDOM_MODIFIER_ONLY = "random_modifier_only"
RANDOM_HEAD_ONLY = "random_head_only"

VARIANT_KIND_CHOICES = [
    (ORIGINAL, "The compound itself"),
    (SYNONYM_NC, "Synonym of the compound (NC_Syn)"),
    (HEAD_ONLY, "Head only (NC_Comp)"),
    (MODIFIER_ONLY, "Modifier only (NC_Comp)"),
    (SYNONYM_MODIFIER, "Synonym of the modifier"),
    (SYNONYM_HEAD, "Synonym of the head"),
    (SYNONYM_BOTH, "Synonyms of both words (NC_WordsSyn)"),
    (MODIFIER_SYNONYM_ONLY, "Synonym of the modifier alone"),
    (HEAD_SYNONYM_ONLY, "Synonym of the head alone"),
    (GENERIC_MODIFIER, "Generic modifier"),
    (GENERIC_HEAD, "Generic head"),
    (GENERIC_BOTH, "Generic words for both (thing thing)"),
    (GENERIC_COMPOUND, "Generic compound"),
    (RANDOM_FREQ, "Frequency-matched random compound (NC_Rand)"),
    (RANDOM_FREQ_MODIFIER_ONLY, "Modifier of a frequency-matched random compound"),
    (RANDOM_FREQ_HEAD_ONLY, "Head of a frequency-matched random compound"),
    (RANDOM, "Unmatched random compound"),
    (RANDOM_MODIFIER_ONLY, "Modifier of an unmatched random compound"),
    (RANDOM_HEAD_ONLY, "Head of an unmatched random compound"),
]
VARIANT_KINDS = {value for value, _ in VARIANT_KIND_CHOICES}
# Random compounds are draws, not a ranking: their ranks 1-5 are five slots of equal standing (five
# NC_Rand columns), where the ranks of the other kinds order the alternatives for one slot.
RANDOM_KINDS = frozenset(
    {RANDOM_FREQ, RANDOM_FREQ_MODIFIER_ONLY, RANDOM_FREQ_HEAD_ONLY, RANDOM, RANDOM_MODIFIER_ONLY, RANDOM_HEAD_ONLY}
)

GENERATED, APPROVED, EDITED, REJECTED = "generated", "approved", "edited", "rejected"
VARIANT_STATUS_CHOICES = [
    (GENERATED, "Generated"),
    (APPROVED, "Approved"),
    (EDITED, "Edited"),
    (REJECTED, "Rejected"),
]

ORIGIN_IMPORTED, ORIGIN_GENERATED, ORIGIN_CURATOR, ORIGIN_DEMO = (
    "imported",
    "generated",
    "curator",
    "demo",
)
ORIGIN_CHOICES = [
    (ORIGIN_IMPORTED, "Imported from a published file"),
    (ORIGIN_GENERATED, "Generated by the platform"),
    (ORIGIN_CURATOR, "Written by a curator"),
    (ORIGIN_DEMO, "Bundled demo data"),
]


GOLD_FROM_FILE, GOLD_FROM_PARAPHRASES, GOLD_FROM_CURATOR = "file", "paraphrases", "curator"
GOLD_SOURCE_CHOICES = [
    (GOLD_FROM_FILE, "Given by the imported file"),
    (GOLD_FROM_PARAPHRASES, "Most frequent type-level paraphrase"),
    (GOLD_FROM_CURATOR, "Picked by a curator"),
]


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


def compound_key(text: str) -> str:
    """Identity of a compound within a language: case and spacing do not matter."""
    return " ".join(text.casefold().split())
