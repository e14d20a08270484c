"""benchmarks/synthetic.py: the scaled release's texts are new but keep their shape; ratings are well formed."""

import csv

import numpy as np
import pytest

from benchmarks.scale import exponent
from benchmarks.synthetic import permutation, perturb, rating_plan, write_ncimp_copies


def test_a_perturbed_text_keeps_its_whitespace_tokens_and_capitals():
    mapping = permutation({"abalo", "sísmico", "grandes", "guarda", "chuva"}, seed=3)
    text = "Os grandes abalos sísmicos , um guarda-chuva . "
    new = perturb(text, mapping)
    assert len(new.split(" ")) == len(text.split(" "))  # the tags (booleans over these tokens) still fit
    assert new.startswith("Os ") and new.split(" ")[-2:] == [".", ""]
    assert perturb("Abalo", mapping)[0].isupper()
    assert perturb(text, permutation({"abalo", "sísmico", "grandes", "guarda", "chuva"}, seed=3)) == new


def test_copies_have_new_compounds_and_the_same_tags(tmp_path):
    source = tmp_path / "ncimp"
    (source / "PT").mkdir(parents=True)
    header = ["compound", "original sentence", "original sentence_tag"]
    rows = [
        ["abalo sísmico", "Os grandes abalos sísmicos .", "[False, False, True, True, False]"],
        ["olho gordo", "Ele tem olho gordo .", "[False, False, True, True, False]"],
    ]
    with (source / "PT" / "neutral.csv").open("w", newline="") as handle:
        csv.writer(handle).writerows([header, *rows])
    written = write_ncimp_copies(source, tmp_path / "out", copies=3, seed=1)
    out = list(csv.reader((tmp_path / "out" / "PT" / "neutral.csv").open()))[1:]
    assert written == {"pt": len({r[0] for r in out})}
    assert out[:2] == rows  # copy 0 is the public data
    assert len({r[0] for r in out}) == len(out)  # every compound is new
    assert {r[2] for r in out} == {rows[0][2]}


def test_each_annotator_rates_distinct_items_on_the_scale():
    plan = rating_plan(n_ratings=1050, n_items=300, items_per_annotator=100, seed=2)
    assert len(plan["item"]) == 1050 and plan["annotator"].max() == 10
    pairs = set(zip(plan["annotator"].tolist(), plan["item"].tolist(), strict=True))
    assert len(pairs) == 1050
    for question in ("head", "modifier", "compound"):
        assert plan[question].min() >= 0 and plan[question].max() <= 5
    again = rating_plan(n_ratings=1050, n_items=300, items_per_annotator=100, seed=2)
    assert all(np.array_equal(plan[k], again[k]) for k in plan)
    with pytest.raises(ValueError, match="only 300 items"):
        rating_plan(n_ratings=10, n_items=300, items_per_annotator=301)


def test_growth_exponent():
    assert exponent((1000, 2.0), (10000, 20.0)) == 1.0
    assert exponent((1000, 1.0), (10000, 100.0)) == 2.0
    assert exponent((1000, 0.0), (10000, 1.0)) is None
