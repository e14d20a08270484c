"""Load what the pure analyses need from the database, as DataFrames."""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotation.models import Item, Rating
from datasets.models import Sentence
from datasets.vocabulary import NATURALISTIC

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it


def reference_sentence_scores(language: str, collection: str | None = None) -> pd.DataFrame:
    """Imported reference scores: one row per naturalistic sentence with a token-level mean.

    The public NCTTI files hold only per-sentence means, so there are no head or modifier
    scores here: analyses that need raw ratings use the campaign's ratings instead.
    """
    import pandas as pd

    sentences = Sentence.objects.filter(compound__language=language, kind=NATURALISTIC, token_score__isnull=False)
    if collection:
        sentences = sentences.filter(compound__collection__slug=collection)
    rows = sentences.values_list(
        "compound__collection__slug",
        "compound__text",
        "compound__compositionality_class",
        "compound__type_score",
        "token_score",
    )
    frame = pd.DataFrame(list(rows), columns=["collection", "text", "class", "type_score", "compound_score"])
    # A compound is identified by collection and text: the demo's "car park" is not NCTTI's.
    several = frame["collection"].nunique() > 1
    frame["compound"] = frame["collection"] + "/" + frame["text"] if several else frame["text"]
    return frame


def campaign_ratings(campaign_id: int, include_simulated: bool = True) -> pd.DataFrame:
    """Ratings of a campaign's regular items: item, annotator, compound and the three scores."""
    import pandas as pd

    ratings = Rating.objects.filter(item__campaign_id=campaign_id, item__role=Item.Role.REGULAR)
    if not include_simulated:
        ratings = ratings.filter(annotator__simulated=False)
    columns = ["item", "annotator", "compound", "compound_score", "head_score", "modifier_score"]
    rows = ratings.values_list(
        "item_id", "annotator_id", "item__compound_id", "compound_score", "head_score", "modifier_score"
    )
    return pd.DataFrame(list(rows), columns=columns).astype(
        {"compound_score": float, "head_score": float, "modifier_score": float}
    )


def collected_sentence_scores(token_campaign_id: int, type_campaign_id: int) -> pd.DataFrame:
    """Collected ratings in the shape of ``reference_sentence_scores``, with head and modifier too.

    Token level: per sentence the mean over annotators of each question; type level: per
    compound the mean compound score of the type-level campaign.
    """
    import pandas as pd

    token = pd.DataFrame(
        list(
            Rating.objects.filter(item__campaign_id=token_campaign_id, item__role=Item.Role.REGULAR).values_list(
                "item__sentence_id",
                "item__compound__text",
                "item__compound__compositionality_class",
                "compound_score",
                "head_score",
                "modifier_score",
            )
        ),
        columns=["sentence", "compound", "class", "compound_score", "head_score", "modifier_score"],
    )
    kind = pd.DataFrame(
        list(
            Rating.objects.filter(item__campaign_id=type_campaign_id, item__role=Item.Role.REGULAR).values_list(
                "item__compound__text", "compound_score"
            )
        ),
        columns=["compound", "type_score"],
    )
    if token.empty:
        return token
    per_sentence = token.groupby(["sentence", "compound", "class"], dropna=False, as_index=False)[
        ["compound_score", "head_score", "modifier_score"]
    ].mean()
    type_scores = kind.groupby("compound")["type_score"].mean()
    per_sentence["type_score"] = per_sentence["compound"].map(type_scores)
    return per_sentence
