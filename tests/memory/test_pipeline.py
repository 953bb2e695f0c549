"""The pipeline end to end on the database, with the rules extractor and template summaries —
the embedded default."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory.models import Claim, Episode, Fact, Graph, Observation, PipelineRun
from memory.pipeline import run_pipeline
from tests.conftest import IngestFn
from tests.scenarios import SEED, SHIPPED, TICKETS


def active(graph: Graph) -> list[Observation]:
    return list(Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE))


def names(structure: dict, ids: list[int]) -> list[str]:
    return sorted(structure["names"][str(i)] for i in ids)


@pytest.mark.django_db
def test_the_seed_becomes_one_observation_with_the_auth_refactor_as_root_blocker(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED)

    (observation,) = active(graph)
    assert sorted(observation.episodes.values_list("external_id", flat=True)) == [
        "alice", "bob", "clara"]
    assert observation.kind == Observation.Kind.DEPENDENCY_CHAIN
    root = observation.structure["dependency"]["root_blockers"][0]
    assert names(observation.structure, root["members"]) == ["Auth Service Refactor"]
    assert names(observation.structure, [o["entity"] for o in root["owners"]]) == ["Backend Team"]
    assert root["reach"]["people"] == 3
    assert (observation.reach_people, observation.reach_work_items) == (3, 3)
    assert observation.generator == "template"
    run = observation.created_by_run
    assert (run.status, run.trigger) == (PipelineRun.Status.SUCCEEDED, PipelineRun.Trigger.SETTLED)


@pytest.mark.django_db
def test_every_claim_cites_facts_of_its_own_cluster(graph: Graph, ingest: IngestFn) -> None:
    ingest(graph, SEED)

    (observation,) = active(graph)
    evidence = set(observation.facts.values_list("pk", flat=True))
    claims = list(Claim.objects.filter(observation=observation).prefetch_related("facts"))
    assert claims
    for claim in claims:
        cited = {f.pk for f in claim.facts.all()}
        assert cited and cited <= evidence
    assert observation.summary == " ".join(c.text for c in claims)


@pytest.mark.django_db
def test_shipping_the_root_blocker_retires_the_observation_with_its_reason(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED)
    (before,) = active(graph)
    episodes_before = Episode.objects.count()

    ingest(graph, [SHIPPED], now=datetime.fromisoformat("2026-12-02T10:05:00+00:00"))

    before.refresh_from_db()
    assert before.status == Observation.Status.RETIRED
    # Its facts changed (two dependencies ended): a new version of the same pattern.
    assert before.retired_reason == Observation.RetiredReason.SUPERSEDED
    closed = Fact.objects.filter(pk__in=before.retirement["closed_facts"])
    assert {(f.source.name, f.target.name) for f in closed} == {
        ("API Migration", "Auth Service Refactor"),
        ("Payments Integration", "Auth Service Refactor"),
    }
    assert {f.closed_by_episode.external_id for f in closed} == {"ship"}
    # Nothing deleted: the retired version, its claims and its evidence are all still there.
    assert before.claims.exists() and before.episodes.count() == 3
    assert Episode.objects.count() == episodes_before + 1
    # The pattern re-forms around what blocks work now: the payments integration.
    (successor,) = before.successors.all()
    assert (successor.status, successor.lineage, successor.version) == (
        Observation.Status.ACTIVE, before.lineage, before.version + 1)
    root = successor.structure["dependency"]["root_blockers"][0]
    assert names(successor.structure, root["members"]) == ["Payments Integration"]
    assert before.retirement["successors"] == [str(successor.uuid)]


@pytest.mark.django_db
def test_a_second_run_on_unchanged_evidence_leaves_everything_untouched(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED)
    (observation,) = active(graph)

    run = run_pipeline(graph)

    assert run is not None and run.counts["untouched"] == 1
    assert run.counts["created"] == run.counts["updated"] == run.counts["retired"] == 0
    assert active(graph) == [observation]


@pytest.mark.django_db
def test_a_second_run_cannot_start_while_one_holds_the_graph(graph: Graph) -> None:
    PipelineRun.objects.create(graph=graph, status=PipelineRun.Status.RUNNING,
                               started_at=datetime.now().astimezone(),
                               heartbeat_at=datetime.now().astimezone())

    assert run_pipeline(graph) is None


@pytest.mark.django_db
def test_a_run_that_finds_the_graph_held_leaves_no_queued_run_behind(graph: Graph) -> None:
    """The settle task or the command found the graph busy: nothing is left for nobody to run
    (the next settle check runs the graph again if it changed)."""
    PipelineRun.objects.create(graph=graph, status=PipelineRun.Status.RUNNING,
                               started_at=datetime.now().astimezone(),
                               heartbeat_at=datetime.now().astimezone())

    run_pipeline(graph)

    assert not PipelineRun.objects.filter(graph=graph, status=PipelineRun.Status.QUEUED).exists()


@pytest.mark.django_db
def test_the_database_keeps_one_queued_run_per_graph_and_as_of(graph: Graph) -> None:
    from django.db import IntegrityError, transaction

    PipelineRun.objects.create(graph=graph)
    PipelineRun.objects.create(graph=graph, as_of=datetime(2026, 11, 1).astimezone())

    for as_of in (None, datetime(2026, 11, 1).astimezone()):
        with pytest.raises(IntegrityError), transaction.atomic():
            PipelineRun.objects.create(graph=graph, as_of=as_of)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_for_a_run_share_one_queued_run() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection, connections

    from memory.pipeline import request_run
    from tests.conftest import require

    require(connection.vendor == "postgresql", "concurrent requests need PostgreSQL")
    graph = Graph.objects.create(slug="busy", name="Busy")

    def request(_: int) -> int:
        try:
            return request_run(graph).pk
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=10) as pool:
        runs = set(pool.map(request, range(10)))

    assert len(runs) == 1
    assert PipelineRun.objects.filter(graph=graph).count() == 1


@pytest.mark.django_db
def test_three_customers_hitting_the_same_error_after_the_backfill_are_one_recurring_issue(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, TICKETS)

    (observation,) = active(graph)
    assert observation.kind == Observation.Kind.RECURRING_ISSUE
    assert sorted(observation.episodes.values_list("external_id", flat=True)) == [
        "t1", "t2", "t3"]
    summary = observation.summary.lower()
    assert "worth investigating" in summary
    assert "nightly backfill" in summary
    assert not any(word in summary for word in ("because", "caused", "due to", "led to",
                                                "results in", "the cause"))


@pytest.mark.django_db
def test_export_observations_prints_the_fields_scripts_rely_on(graph: Graph,
                                                              ingest: IngestFn) -> None:
    import io
    import json

    from django.core.management import call_command

    ingest(graph, SEED)
    out = io.StringIO()

    call_command("export_observations", "--graph", graph.slug, "--status", "all", stdout=out)

    (item,) = json.loads(out.getvalue())
    assert {"uuid", "lineage", "version", "status", "retired_reason", "kind", "name", "summary",
            "generator", "episodes", "entities", "root_blockers", "claims", "window",
            "successors"} <= item.keys()
    assert item["episodes"] == ["alice", "bob", "clara"]
    assert item["root_blockers"] == [{"entity": "Auth Service Refactor", "owner": "Backend Team",
                                      "reach_people": 3, "reach_work_items": 3}]
    assert all(claim["facts"] for claim in item["claims"])


@pytest.mark.django_db
def test_run_pipeline_prints_the_runs_counts(graph: Graph, ingest: IngestFn) -> None:
    import io

    from django.core.management import call_command

    ingest(graph, SEED)
    out = io.StringIO()

    call_command("run_pipeline", "--graph", graph.slug, stdout=out)

    assert "3 episodes" in out.getvalue()
    assert "0 created, 0 updated, 1 untouched, 0 retired" in out.getvalue()


@pytest.mark.django_db
def test_a_replay_as_of_a_past_day_sees_only_what_had_been_said_by_then(
    graph: Graph, ingest: IngestFn
) -> None:
    from memory.ingestion import ingest_records

    ingest_records(graph, list(enumerate(SEED, start=1)), process=False)
    from memory.processing import process_episode

    for episode in graph.episodes.all():
        process_episode(episode.pk)
    wednesday_night = datetime.fromisoformat("2026-11-25T23:59:59+00:00")

    run = run_pipeline(graph, as_of=wednesday_night)

    (observation,) = active(graph)
    assert sorted(observation.episodes.values_list("external_id", flat=True)) == ["alice", "bob"]
    assert observation.created_at == wednesday_night == run.published_at


@pytest.mark.django_db
def test_with_a_model_the_summary_is_the_models_and_unchanged_evidence_costs_no_call(
    graph: Graph, ingest: IngestFn, fake_openai
) -> None:
    ingest(graph, SEED)
    (observation,) = active(graph)
    calls = len(fake_openai.completions())

    run = run_pipeline(graph)

    assert observation.generator == "fake-model-1"
    assert observation.llm_call is not None and observation.tokens > 0
    assert calls == 1
    assert run.counts["untouched"] == 1
    assert len(fake_openai.completions()) == calls


@pytest.mark.django_db
def test_an_update_restating_the_same_facts_updates_the_version_in_place_with_no_model_call(
    graph: Graph, ingest: IngestFn, fake_openai
) -> None:
    ingest(graph, SEED)
    (before,) = active(graph)
    calls = len(fake_openai.completions())
    again = {**SEED[0], "external_id": "alice-again",
             "reference_time": "2026-11-30T09:00:00+00:00"}

    ingest(graph, [again])

    (after,) = active(graph)
    assert (after.pk, after.version, after.summary) == (before.pk, 1, before.summary)
    assert after.episode_count == 4
    assert after.episodes.filter(external_id="alice-again").exists()
    assert after.window_end == datetime.fromisoformat("2026-11-30T09:00:00+00:00")
    assert [r["episodes"] for r in after.restatements] == [1]
    assert len(fake_openai.completions()) == calls
    run = PipelineRun.objects.filter(graph=graph).latest("started_at")
    assert (run.counts["restated"], run.counts["created"], run.counts["updated"]) == (1, 0, 0)
    # Restated in place, the evidence is current: the next run leaves it untouched.
    assert run_pipeline(graph).counts["untouched"] == 1


WAITING = [
    {"external_id": "api", "author": "Alice", "reference_time": "2026-11-23T09:00:00+00:00",
     "content": "The API migration is waiting on the auth service refactor."},
    {"external_id": "pay", "author": "Bob", "reference_time": "2026-11-24T09:00:00+00:00",
     "content": "The payments integration is waiting on the auth service refactor."},
    # As a tracker's export says it: the status field, given as a fact.
    {"external_id": "verified", "author": "Dana", "source": "tracker",
     "reference_time": "2026-11-25T09:00:00+00:00",
     "content": "Auth service refactor: status changed to Signed Off.",
     "facts": [{"source": "Auth Service Refactor", "relation": "HAS_STATUS",
                "target": "Signed Off", "source_type": "WorkItem", "target_type": "Status",
                "fact": "Auth service refactor: status changed to Signed Off."}]},
]


@pytest.mark.django_db
def test_a_chain_whose_root_is_done_retires_as_evidence_ended_citing_the_completing_fact(
    graph: Graph, ingest: IngestFn
) -> None:
    # "Signed off" means finished only once the graph says so: until then the chain is current,
    # and no resolution rule closed its dependencies when it was said.
    ingest(graph, WAITING)
    (chain,) = active(graph)
    assert chain.structure["dependency"]["root_blockers"]
    graph.ontology = {"completion_statuses": ["signed off"]}
    graph.save()

    run = run_pipeline(graph)

    chain.refresh_from_db()
    assert chain.retired_reason == Observation.RetiredReason.EVIDENCE_ENDED
    (completing,) = Fact.objects.filter(pk__in=chain.retirement["completing_facts"])
    assert (completing.relation, completing.target.name) == ("HAS_STATUS", "Signed Off")
    assert len(chain.retirement["settled_facts"]) == 2
    assert chain.retirement["closed_facts"] == []
    assert "2 dependencies on finished work" in chain.retirement["note"]
    assert run.counts["retired_by_reason"] == {"evidence_ended": 1}
    assert active(graph) == []
