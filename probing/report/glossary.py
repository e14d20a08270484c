"""What every measure, score and hash of a probe report means, in a sentence, with where the paper defines it (pure: no Django).

The report page defines each term where it appears (a hover title) and lists them all in a
glossary; the numbers follow He et al. (2024, Computational Linguistics): the probes of section
3.3.1, the measures of section 3.4 (equations 1-5) and the standardisation of appendix C.
"""

from __future__ import annotations

from probing.vocabulary import STD

# (label as the tables print it, definition, where the paper defines it)
TERMS: tuple[tuple[str, str, str], ...] = (
    (
        "P_Syn",
        "Cosine between the compound (in its sentence) and its synonym in the same sentence (NC_Syn): high when "
        "the model represents the compound by its meaning.",
        "He et al. 2024, §3.3.1; Sim, eq. 2",
    ),
    (
        "P_Comp",
        "Cosine between the compound and its head alone or its modifier alone in the same sentence (NC_Comp), "
        "the more similar of the two: high when one word carries the compound.",
        "§3.3.1; eq. 2",
    ),
    (
        "P_WordsSyn",
        "Cosine between the compound and a phrase of synonyms of its two words (NC_WordsSyn), the mean over the "
        "variants' ranks: high when the model composes the compound from its words.",
        "§3.3.1; eqs. 2-3",
    ),
    (
        "P_Rand",
        "Cosine between the compound and frequency-matched random compounds (NC_Rand), the mean over ranks: the "
        "baseline every other cosine is read against.",
        "§3.3.1; eqs. 2-3",
    ),
    (
        "A_Syn|WordsSyn",
        "Affinity: P_Syn minus P_WordsSyn. Positive when the compound is closer to its synonym than to its "
        "words' synonyms: the model sees the compound's meaning, not only its words'.",
        "eq. 4",
    ),
    (
        "A_Syn|Rand",
        "Affinity: P_Syn minus P_Rand. Positive when the synonym is closer than a random compound.",
        "eq. 4",
    ),
    (
        "Sim_R|Syn",
        "Scaled Similarity: (P_Syn - P_Rand) / (1 - P_Rand), per sentence, then the mean: P_Syn measured from the "
        "random baseline, so that models with different cosine ranges compare.",
        "eq. 5",
    ),
    (
        "Sim_R|WordsSyn",
        "Scaled Similarity of P_WordsSyn: (P_WordsSyn - P_Rand) / (1 - P_Rand).",
        "eq. 5",
    ),
    (
        "standardised",
        "The same measure on vectors standardised per dimension over the whole run (mean 0, standard deviation "
        "1), which removes the few 'rogue' dimensions that dominate raw cosines.",
        "appendix C",
    ),
    (
        "Human score",
        "Comp: the compound's human compositionality score, the mean over its sentences of the annotators' mean "
        "0-5 rating (its token score; its type score when it has no token score). High is compositional.",
        "eq. 1",
    ),
    (
        "ρ",
        "Spearman's rank correlation between a measure and the human score over the compounds of a cell: 1 when "
        "the measure orders the compounds as people do.",
        "§3.4",
    ),
    (
        "p",
        "The chance of a ρ at least this far from 0 if the measure and the human score were unrelated; a ρ with "
        "p > 0.05 is left out, as in the papers. No p is given below 10 compounds.",
        "§3.4",
    ),
    (
        "q",
        "p adjusted for the many correlations of one report (Benjamini-Hochberg): decide by q to keep the share "
        "of false discoveries under 5%.",
        "Benjamini and Hochberg 1995",
    ),
    ("n", "The number of compounds behind a mean or a ρ.", ""),
    (
        "NC level",
        "Cosines of the compound's own span (the mean of its tokens' vectors); sentence level: of the whole "
        "sentence's vector.",
        "§3.2",
    ),
    (
        "Naturalistic / Neutral",
        "The compound in its corpus sentences, or in the neutral patterns ('This is a ...') that give no context.",
        "§3.1",
    ),
)
# What a likelihood run's page explains: its measures and lm-evaluation-harness's metrics.
LIKELIHOOD_TERMS: tuple[tuple[str, str, str], ...] = (
    (
        "Pref_Comp",
        "log P(sentence with NC_Syn) − log P(sentence with NC_Comp, the likelier of head-only and modifier-only): "
        "positive when the model expects the compound's synonym more than a reading made of its own words. At the "
        "NC level, the log-probabilities of the replacement's own tokens given the words before them.",
        "",
    ),
    ("Pref_WordsSyn", "log P(NC_Syn sentence) − log P(NC_WordsSyn sentence), mean over its ranks.", ""),
    ("Pref_Rand", "log P(NC_Syn sentence) − log P(NC_Rand sentence), mean over its ranks: a control.", ""),
    (
        "per token",
        "Each log-probability divided by the tokens it sums first, so that a longer variant is not penalised for "
        "its length alone.",
        "",
    ),
    ("Surprisal", "−log P of the compound's sentence (at the NC level, of the compound's tokens), in nats.", ""),
    (
        "acc",
        "A multiple-choice item is right when its gold choice (NC_Syn) has the highest log-likelihood "
        "as a continuation of the item's question.",
        "lm-evaluation-harness",
    ),
    ("acc_norm", "As acc, each log-likelihood divided by its choice's length in characters.", "lm-evaluation-harness"),
    (
        "acc_bytes",
        "As acc, each log-likelihood divided by its choice's length in UTF-8 bytes.",
        "lm-evaluation-harness",
    ),
    (
        "acc_mutual_info",
        "As acc, each log-likelihood minus the choice's log-likelihood after an empty context (a start token).",
        "lm-evaluation-harness",
    ),
)
DEFINITIONS = {label: text for label, text, _ in (*TERMS, *LIKELIHOOD_TERMS)}
MEASURE_LABELS_WITH_STD = {f"{label} (standardised)" for label in DEFINITIONS}

# What each hash of a run's provenance identifies, by the last part of its key.
HASHES = {
    "weights_sha256": "SHA-256 of the model's weight files as this run's worker loaded them: "
    "two runs with the same value used the same weights.",
    "checksum": "SHA-256 of the release's manifest.json, which lists every file's own SHA-256: the release's data.",
    "config_hash": "SHA-256 of the embedding configuration (layers, pooling, dtype): with the weights, the key "
    "of the vector cache.",
    "identity_hash": "SHA-256 of the model's identity (kind, files' hashes, architecture): runs with the same one "
    "share cached vectors.",
    "upstream_weights_sha256": "SHA-256 of the published upstream model's weights (model.origin): equal to the "
    "loaded weights_sha256 when the installed model is byte-identical to its source.",
    "zip_sha256": "SHA-256 of the release's zip.",
}


def definition(label: str) -> str:
    """The definition of a measure as a table labels it ("P_Syn", "Sim_R|Syn (standardised)"), or ""."""
    if label.endswith(" (standardised)"):
        base = DEFINITIONS.get(label.removesuffix(" (standardised)"), "")
        return f"{base} Standardised: {DEFINITIONS['standardised']}" if base else ""
    if label.endswith(STD):
        return definition(label.removesuffix(STD) + " (standardised)")
    return DEFINITIONS.get(label, "")


def hash_explanation(key: str) -> str:
    """What a provenance row's hash identifies ("" for keys that are not hashes)."""
    last = key.rsplit(".", 1)[-1]
    if key.endswith("origin.weights_sha256"):
        return HASHES["upstream_weights_sha256"]
    return HASHES.get(last, "")
