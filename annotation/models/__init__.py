"""The annotation app's models: campaigns and their ratings (``campaigns``), and how a campaign judges and
shows its work (``policies``), the models that answer it beside the people (``machine``). Everything is importable from ``annotation.models``, as migrations expect."""

from annotation.models.campaigns import (
    CAMPAIGN_SETTINGS,
    LOW_CODE_MINIMUM,
    RESUME_ALPHABET,
    RESUME_CODE_LENGTH,
    SCORE,
    Annotator,
    Assignment,
    Campaign,
    Item,
    Rating,
    Skip,
    SuggestedParaphrase,
    completion_code,
    resume_code,
)
from annotation.models.machine import MachineAnnotator, MachineAnswer
from annotation.models.policies import FilterPolicy, PolicyRun, QualityPolicy, WorkedExample

__all__ = [
    "CAMPAIGN_SETTINGS",
    "LOW_CODE_MINIMUM",
    "RESUME_ALPHABET",
    "RESUME_CODE_LENGTH",
    "SCORE",
    "Annotator",
    "Assignment",
    "Campaign",
    "FilterPolicy",
    "Item",
    "MachineAnnotator",
    "MachineAnswer",
    "PolicyRun",
    "QualityPolicy",
    "Rating",
    "Skip",
    "SuggestedParaphrase",
    "WorkedExample",
    "completion_code",
    "resume_code",
]
