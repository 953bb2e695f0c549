"""The run's writes: COPY on PostgreSQL and bulk_create elsewhere write the same rows, and a run
publishes in one transaction (a failure mid-publish leaves the previous observations)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import OperationalError, connection

from memory.engine.lifecycle import Restated, Retired
from memory.engine.structure import Structure
from memory.engine.types import Cluster, Summary
from memory.ingestion import ingest_records
from memory.models import Claim, Entity, Episode, Graph, Observation, PipelineRun
from memory.pipeline import run_pipeline
from memory.processing import process_episode
from memory.publishing import (
    ObservationDraft,
    insert_links,
    insert_models,
    insert_values,
    publish_run,
    uses_copy,
)
from memory.summarize import PROMPT_VERSION, SummaryOutcome
from tests.conftest import IngestFn
from tests.factories import EpisodeFactory, GraphFactory, ObservationFactory, PipelineRunFactory
from tests.scenarios import SEED

needs_postgres = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="COPY is PostgreSQL's; SQLite has bulk_create only"
)
IDENTITY = {"id", "uuid", "lineage"}
NOW = datetime(2026, 12, 1, 9, tzinfo=UTC)


def observations(graph: Graph, run: PipelineRun, count: int) -> list[Observation]:
    return [ObservationFactory.build(graph=graph, created_by_run=run) for _ in range(count)]


def stored(observation: Observation) -> dict[str, Any]:
    row = Observation.objects.filter(pk=observation.pk).values().get()
    return {k: v for k, v in row.items() if k not in IDENTITY}


def written(observation: Observation) -> dict[str, Any]:
    return {f.attname: getattr(observation, f.attname) for f in Observation._meta.concrete_fields
            if f.attname not in IDENTITY}


@pytest.mark.django_db
def test_the_embedded_database_never_copies() -> None:
    assert uses_copy() == (connection.vendor == "postgresql")


@needs_postgres
@pytest.mark.django_db
def test_copy_and_bulk_create_write_the_same_observations_with_ids_in_order() -> None:
    graph = GraphFactory()
    run = PipelineRunFactory(graph=graph)
    copied, created = observations(graph, run, 3), observations(graph, run, 3)
    for a, b in zip(copied, created, strict=True):
        b.name, b.summary, b.window_end = a.name, a.summary, a.window_end
        b.evidence_fingerprint = a.evidence_fingerprint + "-again"

    insert_models(copied, copy=True)
    insert_models(created, copy=False)

    assert [o.pk for o in copied] == sorted(o.pk for o in copied)
    # Saved instances as bulk_create leaves them: no longer being added, in this database.
    assert [(o._state.adding, o._state.db) for o in copied] == [
        (o._state.adding, o._state.db) for o in created] == [(False, connection.alias)] * 3
    for a, b in zip(copied, created, strict=True):
        assert stored(a) == written(a)
        assert stored(a) == {**stored(b), "evidence_fingerprint": a.evidence_fingerprint}
        assert Observation.objects.get(pk=a.pk).uuid == a.uuid


@needs_postgres
@pytest.mark.django_db
def test_copy_and_bulk_create_write_the_same_links_and_claims() -> None:
    graph = GraphFactory()
    run = PipelineRunFactory(graph=graph)
    episodes = [EpisodeFactory(graph=graph).pk for _ in range(4)]
    first, second = observations(graph, run, 2)
    insert_models([first, second])
    through = Observation.episodes.through

    insert_links(through, ("observation_id", "episode_id"), ((first.pk, e) for e in episodes),
                 copy=True)
    insert_links(through, ("observation_id", "episode_id"), ((second.pk, e) for e in episodes),
                 copy=False)
    claims = [Claim(observation=o, position=p, text=f"claim {p}")
              for o in (first, second) for p in range(2)]
    insert_models(claims[:2], copy=True)
    insert_models(claims[2:], copy=False)

    assert sorted(first.episodes.values_list("pk", flat=True)) == sorted(episodes)
    assert sorted(second.episodes.values_list("pk", flat=True)) == sorted(episodes)
    assert [(c.position, c.text) for c in first.claims.all()] == [
        (c.position, c.text) for c in second.claims.all()] == [(0, "claim 0"), (1, "claim 1")]
    assert Episode.objects.filter(observations=first).count() == 4


@pytest.mark.django_db
@pytest.mark.parametrize("copy", [
    pytest.param(True, marks=needs_postgres), False,
])
def test_insert_values_writes_plain_rows_and_returns_their_ids_in_order(copy: bool) -> None:
    graph = GraphFactory()
    at = datetime(2026, 9, 1, tzinfo=UTC)
    columns = ("uuid", "graph_id", "name", "normalized_name", "type", "summary",
               "summary_fingerprint", "summary_generator", "created_at")
    rows = [(uuid.uuid4(), graph.pk, f"Item {n}", f"item {n}", "WorkItem", "", "", "", at)
            for n in range(3)]

    ids = insert_values(Entity, columns, rows, copy=copy)

    assert ids == sorted(ids) and len(set(ids)) == 3
    assert list(Entity.objects.filter(pk__in=ids).order_by("pk").values_list(
        "uuid", "name", "type", "created_at")) == [(r[0], r[2], r[4], at) for r in rows]
    assert insert_values(Entity, columns, [
        (uuid.uuid4(), graph.pk, "Item 9", "item 9", "WorkItem", "", "", "", at)],
        ids=False, copy=copy) == []
    assert Entity.objects.filter(graph=graph).count() == 4


# --- One transaction -----------------------------------------------------------------------------

DAVE = {"external_id": "dave", "author": "Dave", "reference_time": "2026-11-28T09:00:00+00:00",
        "content": "The mobile app is blocked. I'm waiting on the auth service refactor too."}


def fail_when(matches: Callable[[str], bool]) -> Callable[..., Any]:
    """A database execute wrapper (Django's hook at the edge of the database) that answers a
    matching statement with the error a lost connection gives."""

    def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool,
                context: Any) -> Any:
        if matches(sql):
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    return wrapper


def retiring(sql: str) -> bool:
    return sql.startswith('UPDATE "memory_observation"') and '"retired_at"' in sql


def marking_published(sql: str) -> bool:
    return sql.startswith('UPDATE "memory_pipelinerun"') and '"published_at"' in sql


def everything_published(graph: Graph) -> dict[str, Any]:
    """Every row a run publishes, as plain values."""
    observations = Observation.objects.filter(graph=graph)
    return {
        "observations": list(observations.order_by("pk").values_list(
            "pk", "version", "status", "retired_reason", "retired_at", "retired_by_run")),
        "claims": list(Claim.objects.filter(observation__graph=graph).values_list("pk", "text")),
        "links": [
            sorted(through.objects.filter(**{f"{column}__graph": graph}).values_list("pk"))
            for through, column in ((Observation.episodes.through, "observation"),
                                    (Observation.facts.through, "observation"),
                                    (Observation.entities.through, "observation"),
                                    (Observation.predecessors.through, "from_observation"),
                                    (Claim.facts.through, "claim__observation"))
        ],
    }


@pytest.mark.django_db(transaction=True)  # autocommit, as on a worker: what is written stays
@pytest.mark.parametrize("failing", [retiring, marking_published],
                         ids=["at the retirement", "at the last statement"])
def test_a_run_failing_mid_publish_leaves_the_previous_observations_and_nothing_half_written(
    graph: Graph, ingest: IngestFn, failing: Callable[[str], bool]
) -> None:
    ingest(graph, SEED)
    ingest_records(graph, [(1, DAVE)], process=False)
    process_episode(Episode.objects.get(graph=graph, external_id="dave").pk)
    before = everything_published(graph)
    (previous,) = Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)

    with connection.execute_wrapper(fail_when(failing)):
        run = run_pipeline(graph)

    assert run.status == PipelineRun.Status.FAILED and run.published_at is None
    assert "OperationalError" in run.error
    assert everything_published(graph) == before
    assert list(Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)) == [
        previous]
    assert not Observation.objects.filter(created_by_run=run).exists()
    # Nothing is held: the next run publishes what this one could not, in full.
    retry = run_pipeline(graph)
    assert (retry.counts["updated"], retry.counts["retired"]) == (1, 1)
    previous.refresh_from_db()
    assert (previous.status, previous.retired_reason) == ("retired", "superseded")
    assert (previous.retired_by_run, previous.retired_at) == (retry, retry.published_at)
    assert previous.retirement["successors"] == [
        str(Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE).uuid)]


@pytest.mark.django_db
def test_a_published_observation_carries_its_clusters_counts_and_its_summarys_audit(
    graph: Graph, ingest: IngestFn, fake_openai: Any, settings: Any
) -> None:
    settings.LLM_TIMEOUT_SECONDS = 10.0  # a busy machine must not make the answer late
    ingest(graph, SEED)

    (observation,) = Observation.objects.filter(graph=graph)
    call = observation.llm_call
    assert (observation.status, observation.version) == ("active", 1)
    assert observation.name == "Pattern around API Migration"  # the fake model's name for it
    assert (observation.episode_count, observation.fact_count, observation.people_count) == (
        observation.episodes.count(), observation.facts.count(), 3)
    assert observation.prompt_version == PROMPT_VERSION
    assert observation.tokens == call.tokens_in + call.tokens_out > call.tokens_in > 0


@pytest.mark.django_db
def test_a_run_finishes_when_it_publishes_and_its_observations_know_their_facts(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED)

    run = PipelineRun.objects.filter(graph=graph).latest("started_at")
    (observation,) = Observation.objects.filter(graph=graph)
    assert run.status == PipelineRun.Status.SUCCEEDED
    assert run.finished_at == run.published_at is not None
    assert run.heartbeat_at is not None and run.heartbeat_at >= run.published_at
    # The fingerprint of its facts is what tells a later restatement from a change.
    assert observation.facts_fingerprint and len(observation.facts_fingerprint) == 64


# --- publish_run given a run's decisions directly -------------------------------------------------


def draft_of(episode: Episode, *, fallback_reason: str = "") -> ObservationDraft:
    """A run's decision to publish one observation of ``episode``, summarized by the template."""
    at = episode.reference_time
    structure = Structure(
        kind="dependency_chain",
        entity_ids=(),
        people=(),
        episode_ids=(episode.pk,),
        fact_ids=(),
        window_start=at,
        window_end=at,
        links=(),
    )
    outcome = SummaryOutcome(
        summary=Summary(
            name="Work Item 1 blocking 1 workstream", summary="Work Item 1 waits.", claims=()
        ),
        generator="template",
        prompt_version="",
        fallback_reason=fallback_reason,
    )
    cluster = Cluster(episode_ids=(episode.pk,), fact_ids=(), links=())
    return ObservationDraft(
        cluster=cluster,
        structure=structure,
        outcome=outcome,
        lineage=None,
        version=1,
        predecessor_ids=(),
    )


def retirement_of(observation: Observation) -> Retired:
    return Retired(
        observation_id=observation.pk,
        reason="evidence_ended",
        successor_keys=(),
        closed_fact_ids=(),
        dropped_episode_ids=(),
        out_of_window_episode_ids=(),
    )


@pytest.mark.django_db
def test_a_fallback_reason_longer_than_its_column_is_published_cut_to_200_characters() -> None:
    episode = EpisodeFactory()
    run = PipelineRunFactory(graph=episode.graph)
    reason = "model output rejected: " + "claim 1 names someone the facts do not; " * 10

    created = publish_run(
        run,
        drafts=[draft_of(episode, fallback_reason=reason)],
        retired=[],
        names={},
        now=NOW,
        counts={},
    )

    (observation,) = created.values()
    observation.refresh_from_db()
    assert observation.summary_fallback == reason[:200]
    assert (observation.status, observation.created_by_run) == ("active", run)


@pytest.mark.django_db
def test_a_run_retiring_a_retired_observation_leaves_it_as_the_first_run_retired_it() -> None:
    graph = GraphFactory()
    first, second = PipelineRunFactory(graph=graph), PipelineRunFactory(graph=graph)
    observation = ObservationFactory(graph=graph)
    publish_run(
        first, drafts=[], retired=[retirement_of(observation)], names={}, now=NOW, counts={}
    )
    observation.refresh_from_db()
    as_first_retired = (
        observation.status,
        observation.retired_at,
        observation.retired_by_run,
        observation.retired_reason,
        observation.retirement,
    )

    later = NOW + timedelta(days=1)
    superseded = replace(retirement_of(observation), reason="superseded")
    publish_run(second, drafts=[], retired=[superseded], names={}, now=later, counts={})

    observation.refresh_from_db()
    assert (
        observation.status,
        observation.retired_at,
        observation.retired_by_run,
        observation.retired_reason,
        observation.retirement,
    ) == as_first_retired
    assert as_first_retired[:4] == ("retired", NOW, first, "evidence_ended")


@pytest.mark.django_db
def test_publishing_marks_the_run_succeeded_published_finished_and_alive_at_its_moment() -> None:
    episode = EpisodeFactory()
    run = PipelineRunFactory(graph=episode.graph, status=PipelineRun.Status.RUNNING)

    publish_run(
        run, drafts=[draft_of(episode)], retired=[], names={}, now=NOW, counts={"created": 1}
    )

    run.refresh_from_db()
    assert run.status == PipelineRun.Status.SUCCEEDED
    assert run.published_at == run.finished_at == run.heartbeat_at == NOW
    assert run.counts == {"created": 1}


@pytest.mark.django_db
def test_a_restatement_of_a_retired_observation_leaves_it_and_the_next_one_is_restated() -> None:
    graph = GraphFactory()
    run = PipelineRunFactory(graph=graph)
    retired = ObservationFactory(graph=graph, status=Observation.Status.RETIRED)
    # the factory's window ends a sequence of hours after MONDAY: later than NOW once a run of
    # the suite has made ~190 observations, and a restatement only ever moves the end later
    active = ObservationFactory(graph=graph, window_end=NOW - timedelta(days=1))
    update = EpisodeFactory(graph=graph, reference_time=NOW)
    evidence = Cluster(episode_ids=(update.pk,), fact_ids=(), links=())
    as_retired = (retired.restatements, retired.episode_count, retired.window_end)

    publish_run(
        run,
        drafts=[],
        retired=[],
        names={},
        now=NOW,
        counts={},
        restated=[
            (Restated(retired.pk, 1, (update.pk,), ()), evidence),
            (Restated(active.pk, 2, (update.pk,), ()), evidence),
        ],
    )

    retired.refresh_from_db()
    active.refresh_from_db()
    assert (retired.restatements, retired.episode_count, retired.window_end) == as_retired
    assert as_retired[:2] == ([], 2)
    assert active.restatements == [{"at": NOW.isoformat(), "run": str(run.uuid), "episodes": 1}]
    assert (active.episode_count, active.window_end) == (1, NOW)
