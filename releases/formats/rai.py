"""What a release says about its responsible use: how its data was collected and annotated, by whom, for
what, and what it cannot tell (pure: no Django import).

One definition, two readers: the data card's "Responsible use" section (``card_section``) and the
Responsible-AI fields of croissant.json (``releases.formats.croissant``) are both written from
``responsible_ai``, so the card and the Croissant file never disagree. Each field holds the facts the
snapshot shows (campaigns, platforms, pay, consent, filtering, machine-made ratings, simulated
annotators) after the curator's own words (``ReleaseMeta.intended_use``, ``limitations``, ``biases``).
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.protocol import MAX_PARAPHRASES
from datasets import vocabulary
from releases.formats.machine import machine_package
from releases.formats.meta import ReleaseMeta
from releases.formats.score_sources import simulated_note
from releases.snapshot import CampaignSource, Snapshot

# The platforms annotators came through (annotation's Annotator.Platform values), as a reader names them.
PLATFORM_LABELS = {
    "prolific": "Prolific",
    "mturk": "Amazon Mechanical Turk",
    "local": "local accounts of the workbench",
    "generic": "another crowd platform",
}
PROTOCOL = (
    "Reddy et al. (2011): for each noun compound (in a sentence at the token level, alone at the type "
    "level) an annotator rates how literally the head contributes to its meaning, how literally the "
    "modifier contributes, and how literal the whole compound is, each on a 0-5 scale (0: not at all, "
    f"5: fully literal), and may give up to {MAX_PARAPHRASES} paraphrases. A compound's score is the mean "
    "of the ratings that count under the filtering policy."
)
INTENDED_USE = (
    "Research on idiomaticity and compositionality: evaluating how language models and word or sentence "
    "representations treat noun compounds that range from compositional to idiomatic (minimal-pair probes "
    "such as Sim, Affinity and Scaled Similarity, likelihood preferences), and studying human judgements of "
    "compositionality. Not intended for judging individuals, nor as the only test of a deployed system."
)
DEMOGRAPHICS = (
    "Not collected: the workbench asks annotators no demographic question, and no platform's demographic "
    "export is part of the release."
)
PERSONAL = (
    "No personal information is known to be included. The release holds compounds, sentences, their "
    "minimal-pair variants and aggregate scores. "
    "No annotator is named: crowd platform ids and account names stay in the workbench, and annotators "
    "left out by the filtering policy are numbered. Sentences come from public corpora and datasets and may "
    "mention people, as published text does; offensive words are never proposed as variants."
)
BASE_BIASES = (
    "Compounds were chosen by the datasets' authors (frequency and class balance), not sampled from "
    "language use; naturalistic sentences come from web corpora and share their genre and topic biases; "
    "ratings reflect the annotators who took part (platform users, speakers of the language), not every "
    "speaker."
)


@dataclass(frozen=True)
class ResponsibleAI:
    """The Responsible-AI facts of a release, each as plain sentences (Croissant RAI 1.0 field names in comments)."""

    collection: str  # rai:dataCollection
    collection_types: tuple[str, ...]  # rai:dataCollectionType
    annotation_protocol: str  # rai:dataAnnotationProtocol
    annotation_platforms: tuple[str, ...]  # rai:dataAnnotationPlatform
    annotation_analysis: str  # rai:dataAnnotationAnalysis (filtering, agreement)
    demographics: str  # rai:annotatorDemographics
    preprocessing: str  # rai:dataPreprocessingProtocol
    machine_annotation: str  # rai:machineAnnotationTools ("" when no model's answers are included)
    intended_use: str  # rai:dataUseCases
    limitations: str  # rai:dataLimitations
    biases: str  # rai:dataBiases
    personal_information: str  # rai:personalSensitiveInformation
    simulated: str  # "" unless simulated (demo) ratings count in the scores


def _campaign_sentence(campaign: CampaignSource) -> str:
    platforms = ", ".join(PLATFORM_LABELS.get(p, p) for p in campaign.platforms) or "no platform recorded"
    pay = (
        f"paid {campaign.pay_per_rating} per rating (the study's currency)"
        if campaign.pay_per_rating
        else ("pay not recorded in the workbench")
    )
    consent = (
        "every person counted gave informed consent in the study"
        if campaign.consent
        else ("consent not recorded in the workbench")
    )
    design = (
        "adaptive allocation (more ratings where annotators disagree)"
        if campaign.allocation == "adaptive"
        else f"{campaign.ratings_per_item} ratings per item"
        if campaign.ratings_per_item
        else "ratings per item not recorded"
    )
    who = f"{campaign.people} people" + (
        f" and {campaign.simulated} SIMULATED annotators" if campaign.simulated else ""
    )
    return (
        f"Campaign `{campaign.slug}` ({campaign.level} level): {campaign.ratings} ratings from {who} "
        f"through {platforms}; {pay}; {consent}; {design}."
    )


def _collection(snapshot: Snapshot) -> tuple[str, tuple[str, ...]]:
    sentences, types = [], []
    for language in snapshot.scores.languages:
        name = vocabulary.language_name(language.language)
        if language.imported:
            sentences.append(
                f"{name}: compounds, sentences and reference scores imported from "
                f"{', '.join(vocabulary.IMPORTED_FROM.get(i, i) for i in language.imported)}."
            )
            types.append("Secondary data analysis")
        for campaign in language.campaigns:
            sentences.append(f"{name}: {_campaign_sentence(campaign)}")
            types.append("Crowdsourcing" if set(campaign.platforms) - {"local"} else "Manual human curation")
    sentences.append(
        "Minimal-pair variants were generated by rules and models from lexical resources and approved or "
        "edited by curators; only approved and edited variants are released (imported ones keep their status)."
    )
    types.append("Manual human curation")
    return " ".join(sentences), tuple(dict.fromkeys(types))


def _analysis(snapshot: Snapshot) -> str:
    info = snapshot.scores
    if info.source != "campaign":
        return "Reference scores as published with the imported datasets; no ratings were filtered here."
    policy = dict(info.policy or {})
    name = policy.pop("name", "") or "none"
    params = ", ".join(f"{k}={policy[k]!r}" for k in sorted(policy))
    excluded = sum(len(c.excluded) for lang in info.languages for c in lang.campaigns)
    agreement = "; ".join(
        f"{a.language} {a.question} ({a.level}): Krippendorff's alpha {a.alpha:.3f}"
        for a in snapshot.agreement
        if a.alpha is not None
    )
    left_out = f"{excluded} annotator{'' if excluded == 1 else 's'} left out"
    text = f"Filtering policy `{name}`" + (f" ({params})" if params else "") + f": {left_out}. "
    text += f"Scores are the {info.aggregation} of the ratings that count."
    return text + (f" Agreement: {agreement}." if agreement else "")


def _joined(*parts: str) -> str:
    return " ".join(part.strip() for part in parts if part and part.strip())


def _machine(snapshot: Snapshot) -> str:
    package = machine_package(snapshot)
    if package is None:
        return ""
    models = sorted({f"{a['model']} ({a['model_kind']})" for a in package["annotators"]})
    return (
        f"MACHINE-MADE ratings included: {package['answers']} answers of language models "
        f"({', '.join(models) or 'none answered'}) to the campaigns' questions, with their prompt templates and "
        "settings, in a table of their own; they are not human judgements and never enter the scores."
    )


def responsible_ai(snapshot: Snapshot, meta: ReleaseMeta) -> ResponsibleAI:
    """The release's Responsible-AI facts, from its snapshot and the curator's words in ``meta``."""
    snapshot = snapshot.sorted()
    collection, types = _collection(snapshot)
    platforms = sorted({p for lang in snapshot.scores.languages for c in lang.campaigns for p in c.platforms})
    simulated = simulated_note(snapshot.scores) or ""
    facts = []
    if snapshot.scores.source != "campaign":
        facts.append("The scores are the reference scores imported with the data; no new ratings were collected.")
    if simulated:
        facts.append(simulated)
    if snapshot.machine_ratings is not None:
        facts.append("Machine-made ratings are included in a table of their own and never enter the scores.")
    languages = ", ".join(vocabulary.language_name(lang) for lang in snapshot.languages)
    facts.append(f"Languages: {languages}; {len(snapshot.compounds)} compounds.")
    return ResponsibleAI(
        collection=collection,
        collection_types=(*types, *(("Machine-generated",) if snapshot.machine_ratings is not None else ())),
        annotation_protocol=PROTOCOL,
        annotation_platforms=tuple(PLATFORM_LABELS.get(p, p) for p in platforms),
        annotation_analysis=_analysis(snapshot),
        demographics=DEMOGRAPHICS,
        preprocessing=(
            "Spans are located in each sentence and checked; rows are sorted and normalised as the card's "
            "Normalisations list says; scores are rounded in the tidy tables only."
        ),
        machine_annotation=_machine(snapshot),
        intended_use=_joined(meta.intended_use, INTENDED_USE),
        limitations=_joined(meta.limitations, " ".join(facts)),
        biases=_joined(meta.biases, BASE_BIASES),
        personal_information=PERSONAL,
        simulated=simulated,
    )


def card_section(facts: ResponsibleAI) -> list[str]:
    """The data card's "Responsible use" section (Markdown lines)."""
    rows = [
        ("Data collection", facts.collection),
        ("Annotation protocol", facts.annotation_protocol),
        ("Annotation platforms", ", ".join(facts.annotation_platforms) or "none (no campaign's ratings)"),
        ("Filtering and agreement", facts.annotation_analysis),
        ("Annotator demographics", facts.demographics),
        ("Preprocessing", facts.preprocessing),
        *([("Machine annotation", facts.machine_annotation)] if facts.machine_annotation else []),
        ("Intended use", facts.intended_use),
        ("Limitations", facts.limitations),
        ("Biases", facts.biases),
        ("Personal and sensitive information", facts.personal_information),
    ]
    lines = ["## Responsible use", ""]
    if facts.simulated:
        lines += [f"**{facts.simulated}**", ""]
    for title, text in rows:
        lines += [f"**{title}.** {text}", ""]
    return lines[:-1]
