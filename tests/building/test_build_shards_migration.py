"""Jobs made before building jobs had shard rows get them on upgrade, done where ``done_parts`` says so."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("building", "0001_initial")]
AFTER = [("building", "0002_build_shards")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_each_old_job_gets_one_shard_per_part_done_as_its_done_parts_say():
    old = migrate(BEFORE)
    BuildJob = old.get_model("building", "BuildJob")
    generation = BuildJob.objects.create(
        kind="generate_variants", status="running", total=5, done=4, done_parts=[0, 2], options={"parts": 3, "batch": 2}
    )
    count = BuildJob.objects.create(
        kind="count_corpus", status="done", total=2, done=2, done_parts=[0, 1], options={"ranges": [[0, 9], [9, 20]]}
    )
    empty = BuildJob.objects.create(kind="generate_variants", status="done", options={"parts": 0, "batch": 20})
    try:
        new = migrate(AFTER)
        BuildShard = new.get_model("building", "BuildShard")
        shards = {
            job: list(BuildShard.objects.filter(job_id=job).order_by("index").values_list("index", "status"))
            for job in (generation.pk, count.pk, empty.pk)
        }
        assert shards == {
            generation.pk: [(0, "done"), (1, "pending"), (2, "done")],
            count.pk: [(0, "done"), (1, "done")],
            empty.pk: [],
        }
        job = new.get_model("building", "BuildJob").objects.get(pk=generation.pk)
        assert (job.done, job.done_parts) == (4, [0, 2])  # the job's own row is as it was
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
