"""How a release's data reads on its pages: the data card as safe HTML, numbers rounded, policies in words.

Pure: no Django. The files and the JSON keep the exact values; only the pages round them.
"""

from __future__ import annotations

import math

import nh3
from markdown_it import MarkdownIt

from datasets.vocabulary import CLASS_LABELS_AND_UNCLASSIFIED

# CommonMark with GitHub's tables; raw HTML in the card is shown as text, and nh3 removes whatever
# markup a future Markdown option might let through (scripts, handlers, javascript: links).
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_CARD_TAGS = {
    *("h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "a"),
    *("ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td"),
}
_CARD_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}
DECIMALS = 3


def data_card_html(markdown: str) -> str:
    """The README.md of a release as sanitised HTML (no script, style, handler or javascript: URL survives)."""
    return nh3.clean(
        _MARKDOWN.render(markdown),
        tags=_CARD_TAGS,
        attributes=_CARD_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def number(value: float, decimals: int = DECIMALS) -> str:
    """A float for reading: at most ``decimals`` decimals, no trailing zeros (1.5999999999999999 -> 1.6)."""
    if not math.isfinite(value):
        return "–"
    text = f"{round(value, decimals):.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def display_value(value: object) -> str:
    """One value of a diff row as a reader wants it: rounded numbers, classes and missing values in words."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return number(value)
    if isinstance(value, str) and value in CLASS_LABELS_AND_UNCLASSIFIED:
        return CLASS_LABELS_AND_UNCLASSIFIED[value]
    if isinstance(value, list | tuple):
        return ", ".join(display_value(item) for item in value) or "–"
    return str(value)


def class_label(value: str | None) -> str:
    """A compound class in words; no class at all is "Unclassified"."""
    return CLASS_LABELS_AND_UNCLASSIFIED.get(value or "unclassified", str(value))


def policy_words(policy: dict | None) -> list[str]:
    """The filtering policy of a release's scores (annotation.reports.build.policy_parameters) as phrases."""
    if not policy:
        return []
    name = policy.get("name")
    words = ["no annotator left out" if name in (None, "none") else f"policy “{name}”"]
    if policy.get("min_rho") is not None:
        words.append(f"Spearman ρ against the others at least {number(policy['min_rho'])}")
    if policy.get("min_items"):
        words.append(f"at least {policy['min_items']} rated items")
    if policy.get("min_gold_accuracy") is not None:
        words.append(f"at least {number(100 * policy['min_gold_accuracy'], 1)} % of gold items right")
    if name not in (None, "none"):
        question = str(policy.get("question") or "compound_score").replace("_", " ")
        words.append(f"ρ computed on the {question}")
        words.append("workers flagged by the quality checks left out" if policy.get("exclude_flagged") else "")
    return [word for word in words if word]
