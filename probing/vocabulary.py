"""The names a probe report is made of (pure: no Django): levels, conditions, probes, measures, subsets.

Every module of probing, and the report pages, take these from here.
"""

from __future__ import annotations

from datasets.vocabulary import CLASS_LABELS, HEAD_ONLY, MODIFIER_ONLY, RANDOM_FREQ, SYNONYM_BOTH, SYNONYM_NC

# Levels: "sentence" compares sentence vectors, "nc" the vectors of the compound's span.
SENTENCE, NC = "sentence", "nc"
LEVELS: tuple[str, ...] = (SENTENCE, NC)
LEVEL_LABELS = {SENTENCE: "Sentence level", NC: "NC level"}

# Conditions: the compound in its naturalistic sentences, or in the neutral patterns.
NATURALISTIC, NEUTRAL = "naturalistic", "neutral"
CONDITIONS: tuple[str, ...] = (NATURALISTIC, NEUTRAL)
CONDITION_SHORT = {NATURALISTIC: "Nat", NEUTRAL: "Neut"}
NATURALISTIC_SLOTS = (1, 2, 3)

# Probe name for each variant kind, in the order pairs are listed (He et al. 2024, section 3.3.1).
PROBE_KINDS: dict[str, str] = {
    SYNONYM_NC: "syn",
    HEAD_ONLY: "head",
    MODIFIER_ONLY: "modifier",
    SYNONYM_BOTH: "words_syn",
    RANDOM_FREQ: "rand",
}
PROBES: tuple[str, ...] = tuple(PROBE_KINDS.values())
CONTEXT_PROBES: tuple[str, ...] = ("nc_out", "nc_out_comp")

# The measures of the papers in their order (tables 10-13), keyed as the flattened per-compound values.
PROBE_MEASURES = [("sim_syn", "P_Syn"), ("sim_comp", "P_Comp"), ("sim_words_syn", "P_WordsSyn"), ("sim_rand", "P_Rand")]
AFFINITY_MEASURES = [("affinity_syn_words_syn", "A_Syn|WordsSyn"), ("affinity_syn_rand", "A_Syn|Rand")]
SCALED_MEASURES = [("scaled_syn", "Sim_R|Syn"), ("scaled_words_syn", "Sim_R|WordsSyn")]
# A likelihood run's measures (probing.likelihood.preferences), labelled as its tables show them.
LIKELIHOOD_MEASURES = [
    ("pref_comp", "Pref_Comp"),
    ("pref_words_syn", "Pref_WordsSyn"),
    ("pref_rand", "Pref_Rand"),
    ("pref_comp_per_token", "Pref_Comp per token"),
    ("pref_words_syn_per_token", "Pref_WordsSyn per token"),
    ("pref_rand_per_token", "Pref_Rand per token"),
    ("surprisal", "Surprisal"),
]
MEASURE_LABELS = dict([*PROBE_MEASURES, *AFFINITY_MEASURES, *SCALED_MEASURES])  # the similarity measures
LIKELIHOOD_LABELS = dict(LIKELIHOOD_MEASURES)
STD = "_std"

# Subsets of compounds a correlation is computed over: all, each class, and those whose synonym shares no word.
ALL, NO_OVERLAP = "all", "no_overlap"
SUBSET_LABELS = {ALL: "All", NO_OVERLAP: "No lexical overlap", **CLASS_LABELS}
