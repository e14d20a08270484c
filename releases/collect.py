"""What goes into a release: the database read into a ``Snapshot``.

Inclusion rule:

- compounds: every compound of the languages (only those of ``collections`` when given);
- sentences: the available ones with a text (a corpus pointer is not a sentence we may publish);
- variants of those sentences: approved or edited by a curator, or imported from a published
  file (origin "imported") and not rejected. Generated variants still pending review and
  rejected ones stay out;
- paraphrases: type level, and token level with the slot of their naturalistic sentence;
- scores: the reference scores stored on the compounds and sentences (``ScoreInfo`` source
  "reference"). With ``campaigns``, their reports under ``policy`` replace them for the
  compounds rated: a type-level campaign gives the type score, a token-level one the sentence
  scores and the compound's token score (mean over its sentences); head and modifier scores
  come from the type-level campaign when there is one, else from the token level. What a
  campaign did not measure keeps its reference value. Their agreement figures (Krippendorff's
  alpha over all kept annotators, with the bootstrap interval) become ``Agreement`` entries.
- machine-made ratings: only when the curator opts in (``machine_annotators``, with ``campaigns``),
  the answers of those campaigns' machine annotators (``releases.machine``), in a table of their
  own. They never enter the scores or the agreement above, opted in or not: the campaigns' reports
  read annotators' ratings alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from django.db.models import Prefetch, Q, QuerySet

from annotation.models import Annotator, Campaign, FilterPolicy, Item
from annotation.protocol import QUESTION_PARTS
from annotation.reports.build import EXCLUDE_FLAGGED, campaign_report, get_policy, policy_parameters
from datasets import vocabulary
from datasets.models import Collection, Compound, Paraphrase, Sentence, Variant
from releases.machine import collect_machine_ratings
from releases.models import ReleaseError
from releases.snapshot import (
    Agreement,
    CampaignSource,
    LanguageSource,
    ReleaseCompound,
    ReleaseParaphrase,
    ReleaseSentence,
    ReleaseVariant,
    ScoreInfo,
    Snapshot,
)

INCLUDED_VARIANTS = Q(status__in=[vocabulary.APPROVED, vocabulary.EDITED]) | (
    Q(origin=vocabulary.ORIGIN_IMPORTED) & ~Q(status=vocabulary.REJECTED)
)
DEFAULT_RELEASE_POLICY = EXCLUDE_FLAGGED  # a release never averages in the workers its campaign flagged unasked
AGREEMENT_PROCEDURE = "full"  # all kept annotators; top-k subsets are diagnostics, not the release's figure


def check_request(
    languages: Iterable[str] | None = None,
    collections: Iterable[str] | None = None,
    campaigns: Iterable[str] | None = None,
    policy: str | None = None,
    machine_annotators: bool = False,
) -> None:
    """Raise the ReleaseError that ``collect_snapshot`` would raise for these arguments, reading only ids and keys.

    The release form checks a request with this before handing it to a worker, so that a bad
    choice is a form error at once, not a failed job later.
    """
    languages, compounds, policy = _chosen(languages, collections, campaigns, policy, machine_annotators)
    keys = list(compounds.values_list("text", "language", "key", "collection__slug"))
    _check_unique(keys)
    if not keys:
        raise_nothing_to_release(languages, collections)
    if campaigns:
        _campaigns(sorted(set(campaigns)), policy, languages)


def raise_nothing_to_release(languages: Iterable[str], collections: Iterable[str] | None) -> None:
    where = f" of collections {', '.join(sorted(set(collections)))}" if collections else ""
    raise ReleaseError(f"nothing to release: no compounds in {', '.join(languages) or 'any language'}{where}")


def _chosen(languages, collections, campaigns, policy, machine=False) -> tuple[list[str], QuerySet, str | None]:
    """The languages, the compounds and the policy a request names, checked."""
    if policy and not campaigns:
        raise ReleaseError(f"policy {policy!r} filters campaign annotators: name the campaigns too")
    if machine and not campaigns:
        raise ReleaseError(
            "machine_annotators: machine-made ratings are the answers to campaigns: name the campaigns too"
        )
    if campaigns and not policy:
        policy = DEFAULT_RELEASE_POLICY
    compounds = Compound.objects.all()
    if collections:
        collections = sorted(set(collections))
        _check_collections(collections)
        compounds = compounds.filter(collection__slug__in=collections)
    if languages:
        languages = sorted(set(languages))
        compounds = compounds.filter(language__in=languages)
    else:
        languages = list(compounds.order_by("language").values_list("language", flat=True).distinct())
    return languages, compounds, policy


def collect_snapshot(
    languages: Iterable[str] | None = None,
    collections: Iterable[str] | None = None,
    campaigns: Iterable[str] | None = None,
    policy: str | None = None,
    machine_annotators: bool = False,
) -> Snapshot:
    """The snapshot of ``languages`` (default: every language found) under the module's inclusion rule.

    Campaign scores are filtered by ``policy``, by default ``DEFAULT_RELEASE_POLICY``: the workers
    the campaign's quality thresholds flag (speeders, straight-liners...) are left out unless a
    policy that keeps them (``"none"``) is named. ``machine_annotators``: carry the campaigns'
    machine-made ratings too, beside the scores (never in them).
    """
    languages, compounds, policy = _chosen(languages, collections, campaigns, policy, machine_annotators)
    rows = list(_with_children(compounds))
    _check_unique((c.text, c.language, c.key, c.collection.slug) for c in rows)
    campaign_scores = _campaign_scores(sorted(set(campaigns)), policy, languages) if campaigns else None
    released = tuple(_compound(c, campaign_scores) for c in rows)
    info = campaign_scores.info if campaign_scores else ScoreInfo(source="reference")
    by_campaign = campaign_scores.sources if campaign_scores else {}
    imported = defaultdict(set)
    for language, importer in compounds.values_list("language", "import_run__importer").distinct():
        if importer:
            imported[language].add(importer)
    sources = tuple(
        LanguageSource(language, tuple(sorted(imported[language])), tuple(by_campaign.get(language, ())))
        for language in languages
    )
    info = replace(info, languages=sources)
    agreement = tuple(campaign_scores.agreement) if campaign_scores else ()
    machine = collect_machine_ratings(campaigns, {c.pk for c in rows}) if machine_annotators else None
    return Snapshot(tuple(languages), released, info, agreement, machine).sorted()


def _campaign_source(campaign: Campaign, report: dict, ratings: int) -> CampaignSource:
    """Who counts in a campaign's scores under the release's policy, and who was left out and why."""
    rows = report["reliability"]["rows"]
    kept = [row for row in rows if not row["removed"]]
    people = Annotator.objects.filter(pk__in=[row["annotator"] for row in kept if not row["simulated"]])
    return CampaignSource(
        slug=campaign.slug,
        level=campaign.level,
        people=sum(1 for row in kept if not row["simulated"]),
        simulated=sum(1 for row in kept if row["simulated"]),
        ratings=ratings,
        # A release names no one: a crowd worker's platform id or a user name is personal data, so the
        # people left out are numbered in the report's order (the dashboard keeps who they are).
        excluded=tuple(
            (f"annotator {n}", row["reason"] or "left out by the policy")
            for n, row in enumerate(rows, start=1)
            if row["removed"]
        ),
        platforms=tuple(sorted(set(people.values_list("platform", flat=True)))),
        pay_per_rating="" if campaign.pay_per_rating is None else str(campaign.pay_per_rating),
        consent=bool(campaign.consent_text.strip()) and not people.filter(consented_at__isnull=True).exists(),
        allocation=campaign.allocation,
        ratings_per_item=campaign.ratings_per_item,
    )


def _check_collections(slugs: list[str]) -> None:
    known = set(Collection.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    if unknown := [s for s in slugs if s not in known]:
        raise ReleaseError(f"no collection {', '.join(unknown)}")


def _with_children(compounds):
    sentences = (
        Sentence.objects.filter(available=True)
        .exclude(text="")
        .only("compound_id", "kind", "slot", "text", "span_start", "span_end", "plural", "token_score", "length")
        .prefetch_related(
            Prefetch(
                "variants",
                queryset=Variant.objects.filter(INCLUDED_VARIANTS).only(
                    "sentence_id", "kind", "rank", "isolated", "text", "span_start", "span_end", "status"
                ),
            )
        )
    )
    paraphrases = Paraphrase.objects.select_related("sentence").only(
        "compound_id", "level", "text", "frequency", "sentence__slot"
    )
    return (
        compounds.select_related("collection")
        .defer("flags", "source_file", "source_line")
        .prefetch_related(Prefetch("sentences", queryset=sentences), Prefetch("paraphrases", queryset=paraphrases))
        .order_by("language", "key", "collection__slug")
    )


def _check_unique(rows: Iterable[tuple[str, str, str, str]]) -> None:
    """A release names a compound once per language: the same one in two collections is ambiguous.

    ``rows``: (text, language, key, collection slug) of each compound.
    """
    seen: dict[tuple[str, str], str] = {}
    for text, language, key, collection in rows:
        other = seen.setdefault((language, key), collection)
        if other != collection:
            raise ReleaseError(
                f"{text} ({language}) is in collections {other} and {collection}: name the collections to release"
            )


def _span(obj) -> tuple[int, int] | None:
    return (obj.span_start, obj.span_end) if obj.span_start is not None and obj.span_end is not None else None


def _compound(c: Compound, scores: _CampaignScores | None) -> ReleaseCompound:
    sentence_scores = scores.sentences if scores else {}
    sentences = tuple(
        ReleaseSentence(
            kind=s.kind,
            slot=s.slot,
            text=s.text,
            span=_span(s),
            plural=s.plural,
            token_score=sentence_scores.get(s.pk, s.token_score),
            length=s.length,
            variants=tuple(
                ReleaseVariant(
                    kind=x.kind, rank=x.rank, isolated=x.isolated, text=x.text, span=_span(x), status=x.status
                )
                for x in s.variants.all()
            ),
        )
        for s in c.sentences.all()
    )
    paraphrases = tuple(
        ReleaseParaphrase(
            level=p.level, slot=p.sentence.slot if p.sentence_id else None, text=p.text, frequency=p.frequency
        )
        for p in c.paraphrases.all()
    )
    released = ReleaseCompound(
        language=c.language,
        text=c.text,
        modifier=c.modifier,
        head=c.head,
        compositionality_class=c.compositionality_class,
        type_score=c.type_score,
        token_score=c.token_score,
        head_score=c.head_score,
        modifier_score=c.modifier_score,
        gold_synonym=c.gold_synonym,
        frequency=c.frequency,
        modifier_frequency=c.modifier_frequency,
        head_frequency=c.head_frequency,
        frequency_source=c.frequency_source,
        pmi=c.pmi,
        ppmi=c.ppmi,
        sentences=sentences,
        paraphrases=paraphrases,
        synonym_overlap=c.synonym_overlap,
    )
    if scores and c.pk in scores.compounds:
        released = replace(released, **scores.compounds[c.pk])
    return released


@dataclass
class _CampaignScores:
    info: ScoreInfo
    compounds: dict[int, dict] = field(default_factory=dict)  # compound id -> ReleaseCompound score fields
    sentences: dict[int, float | None] = field(default_factory=dict)  # sentence id -> token score
    agreement: list[Agreement] = field(default_factory=list)
    sources: dict[str, list[CampaignSource]] = field(default_factory=lambda: defaultdict(list))  # by language


def _campaigns(slugs: list[str], policy_name: str | None, languages: list[str]) -> tuple[dict, FilterPolicy]:
    """The campaigns named (by slug) and the policy, checked against the release's languages."""
    found = {c.slug: c for c in Campaign.objects.filter(slug__in=slugs)}
    if missing := [s for s in slugs if s not in found]:
        raise ReleaseError(f"no campaign {', '.join(missing)}")
    if stray := [s for s in slugs if found[s].language not in languages]:
        raise ReleaseError(f"campaign {', '.join(stray)} is not in the release's languages ({', '.join(languages)})")
    try:
        return found, get_policy(policy_name)
    except FilterPolicy.DoesNotExist:
        raise ReleaseError(f"no filter policy {policy_name!r}") from None


def _campaign_scores(slugs: list[str], policy_name: str | None, languages: list[str]) -> _CampaignScores:
    found, policy = _campaigns(slugs, policy_name, languages)
    result = _CampaignScores(
        info=ScoreInfo(source="campaign", campaigns=tuple(slugs), policy=policy_parameters(policy), aggregation="mean")
    )
    # Type level first, so that a token campaign's head/modifier means only fill what it left empty.
    ordered = sorted(found.values(), key=lambda c: (c.level != Campaign.Level.TYPE, c.slug))
    head_modifier_from_type: set[int] = set()
    for campaign in ordered:
        report = campaign_report(campaign, policy, save_run=False)
        item_sentence = dict(
            Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).values_list("pk", "sentence_id")
        )
        n_ratings: dict[str, int] = defaultdict(int)
        for row in report["items"]["rows"]:
            n_ratings[row["question"]] += row["n"] or 0
            sentence_id = item_sentence.get(row["item"])
            if campaign.level == Campaign.Level.TOKEN and sentence_id and row["question"] == "compound_score":
                result.sentences[sentence_id] = row["mean"]
        result.sources[campaign.language].append(_campaign_source(campaign, report, n_ratings["compound_score"]))
        for row in report["compounds"]["rows"]:
            fields = result.compounds.setdefault(row["compound"], {})
            part = QUESTION_PARTS.get(row["question"])
            if part == "compound":
                fields["type_score" if campaign.level == Campaign.Level.TYPE else "token_score"] = row["comp_mean"]
            elif part and (campaign.level == Campaign.Level.TYPE or row["compound"] not in head_modifier_from_type):
                fields[f"{part}_score"] = row["comp_mean"]
        if campaign.level == Campaign.Level.TYPE:
            head_modifier_from_type |= {row["compound"] for row in report["compounds"]["rows"]}
        for row in report["agreement"]["rows"]:
            if row["procedure"] != AGREEMENT_PROCEDURE:
                continue
            result.agreement.append(
                Agreement(
                    language=campaign.language,
                    question=row["question"],
                    level=row["level"],
                    alpha=row["alpha"],
                    low=row["low"],
                    high=row["high"],
                    n_items=row["n_items"] or 0,
                    n_ratings=n_ratings[row["question"]],
                    source=f"campaign {campaign.slug}",
                )
            )
    return result
