"""Human scores in probe reports: the public NCIMP table alone gives correlations; none says so, and how to fix it."""

from __future__ import annotations

import json
import unicodedata
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from probing.actions import create_probe_run, run_inline
from probing.models import EmbeddingModel, ProbeRun
from probing.report.build import run_report
from releases.actions import create_release
from releases.collect import collect_snapshot
from releases.models import Release
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish, register_tiny_bert
from tests.tiny_models import save_tiny_bert, words_of

pytestmark = pytest.mark.django_db

NO_SCORES = "No human compositionality scores"


def release_texts(language: str) -> list[str]:
    """Every text a probe run of the language's release may embed: sentences, variants, compounds and words."""
    texts = []
    for c in collect_snapshot([language]).compounds:
        texts += [c.text, c.modifier, c.head]
        for s in c.sentences:
            texts += [s.text, *(x.text for x in s.variants)]
    return texts


def unaccented(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch))


def test_a_run_on_the_public_portuguese_ncimp_alone_correlates_with_its_human_scores(shared_data, tmp_path):
    call_command("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt", stdout=StringIO())
    release = create_release("1.0.0", ["pt"], publish=True)
    texts = release_texts("pt")
    # BERT's lower-casing also strips accents: the vocabulary holds both spellings.
    words = {w for word in words_of(texts) for w in (word, unaccented(word))}
    folder = save_tiny_bert(tmp_path / "tiny-bert-pt", sorted(words), texts=texts)
    model = EmbeddingModel.objects.create(
        name="tiny-bert-pt", kind=EmbeddingModel.Kind.TRANSFORMER, source=str(folder), config={"batch_size": 64}
    )

    run = run_inline(create_probe_run(release, model, shard_size=60))

    assert run.status == ProbeRun.Status.DONE
    report = run_report(run)
    assert report["human_score"]["sources"] == {"token_score": 180}
    assert report["human_score"]["note"] == ""
    overall = [r for r in report["correlations"] if r["subset"] == "all"]
    assert {(r["condition"], r["level"]) for r in overall} == {
        ("naturalistic", "sentence"),
        ("naturalistic", "nc"),
        ("neutral", "sentence"),
        ("neutral", "nc"),
    }
    assert all(isinstance(r["rho"], float) and r["n"] == 180 for r in overall if r["measure"] == "sim_syn")
    # The classes and the no_overlap subset come from the public table too.
    subsets = {r["subset"] for r in report["correlations"]}
    assert {"idiomatic", "partly_compositional", "compositional", "no_overlap"} <= subsets
    print("\nSpearman rho of the tiny random BERT against the public PT human scores (subset all):")
    for r in overall:
        print(
            f"  {r['condition']:<12} {r['level']:<8} {r['measure']:<24} rho={r['rho']:+.3f} p={r['p']:.3g} n={r['n']}"
        )


@pytest.fixture
def unscored(tmp_path) -> Release:
    make_probe_data([(text, synonym, None, None, None) for text, synonym, *_ in COMPOUNDS[:3]])
    register_tiny_bert(tmp_path / "tiny-bert")
    return publish("1.0.0")


def test_a_report_without_human_scores_says_so_and_how_to_add_them(unscored, client):
    out, err = StringIO(), StringIO()
    call_command("run_probes", "--model", "tiny-bert", "--inline", stdout=out, stderr=err)
    run = ProbeRun.objects.get(pk=int(out.getvalue()))

    assert run.status == ProbeRun.Status.DONE and run.report["correlations"] == []
    assert NO_SCORES in err.getvalue() and "import_ncimp" in err.getvalue()
    note = run_report(run)["human_score"]["note"]
    assert note.startswith(f"{NO_SCORES}: release 1.0.0") and "--scores" in note and "import_nctti" in note
    assert run.report["human_score"]["note"] == note  # the stored report says it too
    assert json.loads(client.get(reverse("probe_run_report", args=[run.pk])).content)["human_score"]["note"] == note
    page = client.get(reverse("probe_run", args=[run.pk])).content.decode()
    assert 'data-field="human-score-note"' in page and NO_SCORES in page
    text = StringIO()
    call_command("probe_report", str(run.pk), "--format", "text", stdout=text)
    assert note in text.getvalue()


def test_a_report_with_some_compounds_unscored_says_how_many(tmp_path):
    make_probe_data([*COMPOUNDS[:3], (COMPOUNDS[3][0], COMPOUNDS[3][1], None, None, None)])
    run = run_inline(create_probe_run(publish("1.0.0"), register_tiny_bert(tmp_path / "tiny-bert")))
    assert run_report(run)["human_score"]["note"] == (
        "1 of 4 compounds have no human compositionality score: the correlations leave them out."
    )
