"""``{% journey_step campaign "Instructions" %}``: where an annotator is in the study, as "Step 2 of 4 · Instructions"."""

from django import template

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
