"""How a release's data reads on its pages: the data card as safe HTML, numbers rounded, policies in words.

Pure: no Django. The files and the JSON keep the exact values; only the pages round them.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

from annotation.analysis.wording import number, policy_words
from datasets.vocabulary import CLASS_LABELS_AND_UNCLASSIFIED

# CommonMark with GitHub's tables; raw HTML in the card is shown as text, and nh3 removes whatever
# markup a future Markdown option might let through (scripts, handlers, javascript: links).
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_CARD_TAGS = {
    *("h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "a"),
    *("ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td"),
}
_CARD_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}


def data_card_html(markdown: str) -> str:
    """The README.md of a release as sanitised HTML (no script, style, handler or javascript: URL survives)."""
    return nh3.clean(
        _MARKDOWN.render(markdown),
        tags=_CARD_TAGS,
        attributes=_CARD_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


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


__all__ = ["class_label", "data_card_html", "display_value", "number", "policy_words"]
