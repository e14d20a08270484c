"""Template tags of the probe report pages: a ρ cell, written once for every table that has them."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag
def rho_cell(cell: dict | None):
    """A ``formatting.correlation_cell`` as a table cell: ρ, and p (and q) under it; "–" when none."""
    if not cell:
        return format_html('<td class="num muted">–</td>')
    if not cell["shown"]:
        return format_html('<td class="num rho muted" title="{}">–</td>', cell["title"])
    significance = cell["mark"] or "not-significant"
    q = format_html(" · q {}", cell["q"]) if cell["q"] else ""
    return format_html(
        '<td class="num rho {}" title="{}">{}<span class="p">p {}{}</span></td>',
        significance,
        cell["title"],
        cell["text"],
        cell["p"],
        q,
    )


@register.filter
def breakable(label: str):
    """A measure's name that may wrap after its "|" and "_" (``A_Syn|WordsSyn``): narrow table headers."""
    escaped = str(format_html("{}", label))
    return mark_safe(escaped.replace("|", "|<wbr>").replace("_", "_<wbr>"))  # escaped first; <wbr> added after
