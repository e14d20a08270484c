"""Template tags of the probe report pages: a ρ cell, written once for every table that has them."""

from __future__ import annotations

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from probing.report.glossary import definition, hash_explanation

register = template.Library()


EMPTY = mark_safe('<td class="num muted">–</td>')


@register.simple_tag
def rho_cell(cell: dict | None):
    """A ``formatting.correlation_cell`` as a table cell: ρ, and p (and q) under it; "–" when none.

    Built with ``escape`` and one f-string: a layer sweep's page has a thousand of these, and
    ``format_html`` per cell was a fifth of its server time.
    """
    if not cell:
        return EMPTY
    title = escape(cell["title"])
    n = escape(cell["n"])
    if not cell["shown"]:
        return mark_safe(f'<td class="num rho muted" title="{title}">–<span class="p">n {n}</span></td>')
    if cell["small"]:
        return mark_safe(
            f'<td class="num rho small-n" title="{title}">{escape(cell["text"])}'
            f'<span class="p">n {n}: too few for p</span></td>'
        )
    significance = escape(cell["mark"] or "not-significant")
    q = f" · q {escape(cell['q'])}" if cell["q"] else ""
    return mark_safe(
        f'<td class="num rho {significance}" title="{title}">{escape(cell["text"])}'
        f'<span class="p">p {escape(cell["p"])}{q} · n {n}</span></td>'
    )


@register.filter
def breakable(label: str):
    """A measure's name that may wrap after its "|" and "_" (``A_Syn|WordsSyn``): narrow table headers."""
    escaped = str(format_html("{}", label))
    return mark_safe(escaped.replace("|", "|<wbr>").replace("_", "_<wbr>"))  # escaped first; <wbr> added after


@register.filter
def measure_definition(label: str) -> str:
    """What a measure's label means (``probing.report.glossary``), for its hover title."""
    return definition(str(label))


@register.filter
def hash_note(key: str) -> str:
    """What a provenance key's hash identifies, or ""."""
    return hash_explanation(str(key))
