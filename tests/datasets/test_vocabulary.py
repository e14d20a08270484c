"""The compositionality classes: one list, one set of cut-offs, used by every feature that names a class."""

from __future__ import annotations

import pytest

from datasets import vocabulary


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (0.0, vocabulary.IDIOMATIC),
        (1.49, vocabulary.IDIOMATIC),
        (1.5, vocabulary.PARTLY),
        (3.49, vocabulary.PARTLY),
        (3.5, vocabulary.COMPOSITIONAL),
        (5, vocabulary.COMPOSITIONAL),
        (None, None),
    ],
)
def test_a_mean_score_falls_in_the_class_of_its_cut_offs(score, expected):
    assert vocabulary.class_of_score(score) == expected


def test_the_release_table_and_the_reports_share_the_classes():
    from annotation.analysis import typetoken
    from datasets.formats import ncimp_columns
    from probing.report import tables as report_tables
    from releases.formats import card

    assert typetoken.CLASSES is vocabulary.CLASSES and report_tables.CLASSES is vocabulary.CLASSES
    assert card.CLASS_COLUMNS == [*vocabulary.CLASSES, vocabulary.UNCLASSIFIED]
    assert [ncimp_columns.score_class(x) for x in (1.0, 2.0, 4.0, None)] == ["NC", "PC", "C", ""]


def test_probing_names_levels_conditions_and_probes_once():
    from probing import vocabulary as probing_vocabulary
    from probing.measures import analysis, metrics, probes
    from probing.report import tables as report_tables

    assert metrics.LEVELS is probing_vocabulary.LEVELS is report_tables.LEVELS is analysis.LEVELS
    assert analysis.CONDITIONS is probing_vocabulary.CONDITIONS is report_tables.CONDITIONS
    assert probes.PROBE_KINDS is probing_vocabulary.PROBE_KINDS and metrics.PROBES is probing_vocabulary.PROBES
    assert metrics.BASE_MEASURES == tuple(probing_vocabulary.MEASURE_LABELS)
