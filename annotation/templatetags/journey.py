"""The annotator's pages: ``{% journey_step campaign "Instructions" %}`` (where an annotator is in the study,
as "Step 2 of 4 · Instructions") and ``{% scale_options field %}`` (a question's radio buttons)."""

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from annotation.crowd.journey import campaign_counts
from annotation.models import Campaign

register = template.Library()


def journey_steps(campaign: Campaign) -> list[str]:
    """The pages an annotator goes through, in order; practice only when the campaign has practice items."""
    return ["Consent", "Instructions", *(["Practice"] if campaign_counts(campaign).training else []), "Rating"]


@register.simple_tag
def journey_step(campaign: Campaign, step: str) -> str:
    names = journey_steps(campaign)
    return f"Step {names.index(step) + 1} of {len(names)} · {step}"


@register.simple_tag
def scale_options(field: dict) -> str:
    """The radio buttons of one rating question's scale, the answer given checked (``rating_views.item_page``).

    Built here rather than by a template loop: six options of three questions were a third of the
    rating page's rendering, which every submit-and-next pays. Names and values are escaped once each.
    """
    name, chosen = escape(field["name"]), field["value"]
    options = []
    for i, value in enumerate(field["scale"]):
        checked = " checked" if value == chosen else ""
        autofocus = " autofocus" if field["autofocus"] and not i else ""
        value = escape(value)
        options.append(
            f'<label class="scale-option"><input type="radio" name="{name}" value="{value}"{checked}{autofocus}>'
            f"<span>{value}</span></label>"
        )
    return mark_safe("\n".join(options))  # every piece above is escaped or a literal
