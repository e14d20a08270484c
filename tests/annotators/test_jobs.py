"""A model asked a campaign's questions: every item per sample, kept apart from the people, paid for once."""

from __future__ import annotations

import pytest

from annotation.curate import exports
from annotation.models import Annotator, Item, MachineAnnotator, MachineAnswer, Rating
from annotation.payments.decisions import decisions
from annotation.reports.build import campaign_report
from annotators.actions import AnnotatorError, create_job, resume_job_shards, run_inline
from annotators.local import LocalAnnotator
from annotators.models import AnnotationJob, CachedResponse

pytestmark = pytest.mark.django_db


def human_view(campaign) -> dict:
    """Everything the people's side of a campaign shows: the report less its machine section and time, the
    items' quotas, the annotators' states and codes, the ratings export and the payment decisions."""
    report = campaign_report(campaign, save_run=False)
    report.pop("machine_annotators"), report.pop("computed_at")
    return {
        "report": report,
        "taken": sorted(Item.objects.filter(campaign=campaign).values_list("pk", "taken")),
        "annotators": sorted(
            Annotator.objects.filter(campaign=campaign).values_list("pk", "status", "completed_at", "training_passed")
        ),  # fmt: skip
        "ratings": list(exports.rating_rows(campaign)),
        "payments": [repr(decision) for decision in decisions(campaign)],
    }


def test_a_local_model_answers_every_item_per_sample_and_the_people_see_no_difference(demo_campaign, local_llama):
    before = human_view(demo_campaign)
    regular = Item.objects.filter(campaign=demo_campaign, role=Item.Role.REGULAR).count()
    job = run_inline(create_job(demo_campaign, local_llama, samples=2, settings={"temperature": 0.0}, shard_size=10))
    assert job.status == AnnotationJob.Status.DONE, job.error
    assert job.answered == 2 * regular == MachineAnswer.objects.filter(annotator__campaign=demo_campaign).count()
    assert job.invalid == 0 and job.requests == 2 * regular and job.prompt_tokens > 0
    answer = MachineAnswer.objects.filter(annotator__sample=1).order_by("item_id").first()
    for key in ("head", "modifier", "compound"):
        found = answer.distributions[key]
        assert sum(found["probs"]) == pytest.approx(1.0, abs=1e-5)
        # At temperature 0 the model answers the digit it finds most likely.
        assert getattr(answer, f"{key}_score") == max(range(6), key=lambda d: found["probs"][d])
    labels = set(MachineAnnotator.objects.filter(campaign=demo_campaign).values_list("label", flat=True))
    assert labels == {"chat-llama · reddy-en v1 · t=0 · sample 1", "chat-llama · reddy-en v1 · t=0 · sample 2"}
    assert MachineAnnotator.objects.get(sample=1).model_identity["weights_sha256"]
    assert human_view(demo_campaign) == before  # no figure, quota, code or rating of the people moved
    assert Rating.objects.filter(item__campaign=demo_campaign).count() == len(before["ratings"])
    section = campaign_report(demo_campaign, save_run=False)["machine_annotators"]
    assert [m["answers"]["answered"] for m in section] == [regular, regular]
    assert all(m["origin"] == "machine" and m["comparison"]["items_compared"] == regular for m in section)
    entropies = [
        d[q]["entropy"]
        for d in MachineAnswer.objects.filter(annotator__sample=1).values_list("distributions", flat=True)
        for q in ("head", "modifier", "compound")
    ]
    assert section[0]["answers"]["distributions"] == regular
    assert section[0]["answers"]["mean_entropy_bits"] == pytest.approx(sum(entropies) / len(entropies), abs=1e-4)
    machine_rows = list(exports.machine_answer_rows(demo_campaign))
    assert len(machine_rows) == 2 * regular and {r["annotator_origin"] for r in machine_rows} == {"machine"}
    assert {r["annotator_origin"] for r in before["ratings"]} == {"simulated"}


def test_the_same_request_is_never_paid_twice(demo_campaign, local_llama, monkeypatch):
    first = run_inline(create_job(demo_campaign, local_llama))
    kept = {(a.item_id, a.compound_score, a.head_score) for a in MachineAnswer.objects.all()}
    MachineAnswer.objects.all().delete()

    def refuse(self, messages, settings, seed):
        raise AssertionError("asked again")

    monkeypatch.setattr(LocalAnnotator, "ask", refuse)
    again = run_inline(create_job(demo_campaign, local_llama))
    assert again.status == AnnotationJob.Status.DONE, again.error
    assert again.cached == first.answered and again.requests == 0 and again.prompt_tokens == 0
    assert {(a.item_id, a.compound_score, a.head_score) for a in MachineAnswer.objects.all()} == kept
    assert CachedResponse.objects.count() == first.requests


def test_a_job_stopped_halfway_resumes_without_asking_anything_twice(demo_campaign, local_llama, monkeypatch):
    asked, real_ask = [], LocalAnnotator.ask

    def flaky(self, messages, settings, seed):
        if len(asked) == 15:
            raise RuntimeError("the GPU fell off the bus")
        asked.append(messages[-1]["content"])
        return real_ask(self, messages, settings, seed)

    monkeypatch.setattr(LocalAnnotator, "ask", flaky)
    job = run_inline(create_job(demo_campaign, local_llama, shard_size=10))
    assert job.status == AnnotationJob.Status.FAILED and "fell off the bus" in job.error
    assert job.answered == 10  # the first shard is recorded; the second failed whole
    asked.append("unblock")  # past 15: the model answers again
    resume_job_shards(job)
    job = run_inline(job)
    assert job.status == AnnotationJob.Status.DONE, job.error
    regular = Item.objects.filter(campaign=demo_campaign, role=Item.Role.REGULAR).count()
    assert job.answered == regular == MachineAnswer.objects.count()
    # Shard 2's five answers before the failure came from the cache the second time: nothing asked twice.
    assert len(asked) - 1 == regular and job.cached == 5
    with pytest.raises(AnnotatorError, match="is done"):
        resume_job_shards(job)


def test_jobs_refuse_what_cannot_answer_naming_the_field(demo_campaign, local_llama):
    from probing.models import EmbeddingModel

    encoder = EmbeddingModel.objects.create(name="bert", kind="transformer", source="/nowhere")
    cases = [
        (dict(model=encoder), "model", "machine annotators are openai_chat endpoints or causal_lm folders"),
        (dict(model=local_llama, template_name="reddy-xx"), "template", "no template 'reddy-xx'"),
        (dict(model=local_llama, samples=0), "samples", "not a whole number from 1 to 20"),
        (dict(model=local_llama, settings={"temperature": 9}), "settings", "temperature: 9 is outside"),
    ]
    for kwargs, field, message in cases:
        with pytest.raises(AnnotatorError, match=message) as error:
            create_job(demo_campaign, **kwargs)
        assert error.value.field == field
    assert not AnnotationJob.objects.exists()


def test_answers_of_other_weights_are_never_mixed_into_a_machine_annotator(demo_campaign, tmp_path, chat_llama_folder):
    import shutil

    from probing.models import EmbeddingModel

    folder = tmp_path / "llama"
    shutil.copytree(chat_llama_folder, folder)
    model = EmbeddingModel.objects.create(name="moving-llama", kind="causal_lm", source=str(folder))
    job = create_job(demo_campaign, model, shard_size=5)
    job.shards.filter(index__gt=1).delete()
    job.shards_total = 2
    job.save()
    run_inline(job)
    assert job.status == AnnotationJob.Status.DONE
    first = MachineAnnotator.objects.get().model_identity["weights_sha256"]
    MachineAnswer.objects.filter(item_id__in=job.shards.get(index=1).items).delete()
    weights = next(folder.glob("*.safetensors"))
    weights.write_bytes(weights.read_bytes()[:-8] + b"\x00" * 8)  # the administrator swapped the weights
    again = create_job(demo_campaign, model, shard_size=5)
    again.shards.filter(index__gt=1).delete()
    run_inline(again)
    assert again.status == AnnotationJob.Status.FAILED and "answered with other weights" in again.error
    assert MachineAnnotator.objects.get().model_identity["weights_sha256"] == first
