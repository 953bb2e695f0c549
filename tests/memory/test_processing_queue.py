"""The queue applies a graph's episodes in the order they were ingested, whatever order their
tasks arrive in and whichever worker dies: a crash and its recovery end in the same facts — what
held at any time (``as_of``) and what was believed at any time (``known_at``) — as one
uninterrupted worker."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_for_hypothesis
from hypothesis import strategies as st

from memory import tasks
from memory.api import selectors as api_selectors
from memory.ingestion import ingest_records
from memory.models import Episode, Fact, Graph
from memory.processing import claim_next, process_episodes

DAY = timedelta(days=1)
START = datetime.fromisoformat("2026-11-02T09:00:00+00:00")


def update(n: int, content: str, *, said: datetime) -> dict[str, Any]:
    return {"external_id": f"u{n}", "author": "Alice", "reference_time": said.isoformat(),
            "content": content}


# Three deliveries, each its own ingestion (a minute apart): the second restates the first's
# dependency as having begun three days earlier (a revision), the third says it has ended.
DELIVERIES = [
    [update(1, "The API migration is blocked. I'm waiting on the auth service refactor.",
            said=START + 3 * DAY)],
    [update(2, "The API migration is waiting on the auth service refactor.", said=START)],
    [update(3, "The API migration is back on track. I'm no longer waiting on the auth service "
               "refactor.", said=START + 6 * DAY)],
]
ARRIVED = [START + 7 * DAY + timedelta(minutes=n) for n in range(len(DELIVERIES))]
MOMENTS = [START + n * DAY for n in range(-1, 9)] + [
    moment + timedelta(seconds=30) for moment in ARRIVED]


def answers(graph: Graph, moments: list[datetime] = MOMENTS) -> dict[str, Any]:
    """Every as_of and known_at answer at the scenario's moments, and the episodes' states."""
    def rows(facts: Any) -> list[tuple[Any, ...]]:
        return sorted((f.source.name, f.relation, f.target.name, f.valid_at, f.invalid_at)
                      for f in facts)

    return {
        "as_of": {m: rows(api_selectors.facts(graph, as_of=m)) for m in moments},
        "known_at": {m: rows(api_selectors.facts(graph, known_at=m)) for m in moments},
        "episodes": sorted(Episode.objects.filter(graph=graph).values_list("external_id",
                                                                          "status")),
    }


def deliver(graph: Graph, n: int) -> list[int]:
    report = ingest_records(graph, list(enumerate(DELIVERIES[n], start=1)), now=ARRIVED[n],
                            process=False)
    return report.stored_ids


@pytest.mark.django_db
def test_a_worker_lost_mid_batch_ends_in_the_facts_of_an_uninterrupted_run(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    clean = Graph.objects.create(slug="clean", name="Clean")
    for n in range(len(DELIVERIES)):
        process_episodes(deliver(clean, n))
    crashed = Graph.objects.create(slug="crashed", name="Crashed")

    # A worker claims the first two deliveries and dies before applying them.
    deliver(crashed, 0)
    deliver(crashed, 1)
    lost, _ = claim_next(crashed.pk, limit=500)
    # The last delivery's task arrives at a live worker meanwhile.
    process_episodes(deliver(crashed, 2))
    # The lost worker's claim goes stale; beat's sweep recovers it.
    settings.EPISODE_STALE_SECONDS = 60
    Episode.objects.filter(pk__in=[e.pk for e in lost]).update(
        processing_started_at=timezone.now() - timedelta(minutes=5))
    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep()

    assert answers(crashed) == answers(clean)
    assert Fact.objects.filter(graph=crashed, close_reason="revised").count() == 1


@pytest.mark.django_db
def test_tasks_arriving_out_of_order_apply_their_graphs_episodes_in_ingestion_order() -> None:
    clean, shuffled = (Graph.objects.create(slug=s, name=s) for s in ("clean", "shuffled"))
    for n in range(len(DELIVERIES)):
        process_episodes(deliver(clean, n))
    ids = [deliver(shuffled, n) for n in range(len(DELIVERIES))]

    counts = process_episodes(ids[2])  # the last delivery's task first

    assert counts == {"processed": 3}
    assert answers(shuffled) == answers(clean)
    assert process_episodes(ids[0]) == process_episodes(ids[1]) == {"skipped": 1}


@pytest.mark.django_db
def test_a_graph_whose_head_a_live_worker_holds_is_left_to_that_worker() -> None:
    graph = Graph.objects.create(slug="held", name="Held")
    first = deliver(graph, 0)
    held, _ = claim_next(graph.pk, limit=500)  # a live worker is applying it
    later = deliver(graph, 1)

    assert process_episodes(later) == {"skipped": 1}
    assert Episode.objects.get(pk=later[0]).status == "pending"
    assert [e.pk for e in held] == first


@pytest.mark.django_db
def test_after_its_time_budget_a_call_hands_its_graph_over() -> None:
    graph = Graph.objects.create(slug="long", name="Long")
    ids = [pk for n in range(len(DELIVERIES)) for pk in deliver(graph, n)]
    handed: list[int] = []

    counts = process_episodes(ids, batch_size=1, seconds=0, continue_later=handed.append)

    assert counts == {"processed": 1, "skipped": 2}
    assert handed == [ids[1]]


# --- Order independence, as a property ------------------------------------------------------------

# Six deliveries whose facts depend on what came before: a dependency, its earlier restatement
# (a revision), a second dependency, a status, a backfill from before them all, and two endings.
HISTORY = [
    [update(11, "The API migration is blocked. I'm waiting on the auth service refactor.",
            said=START + 3 * DAY)],
    [update(12, "The API migration is waiting on the auth service refactor.", said=START)],
    [update(13, "The billing export is blocked on the data warehouse upgrade, which the data "
                "team owns.", said=START + 4 * DAY),
     update(14, "The search reindex is waiting on the data warehouse upgrade.",
            said=START + 4 * DAY)],
    [update(15, "The API migration is on hold.", said=START - 2 * DAY)],
    [update(16, "The API migration is back on track. I'm no longer waiting on the auth service "
                "refactor.", said=START + 6 * DAY)],
    [update(17, "The data warehouse upgrade shipped today.", said=START + 5 * DAY)],
]
HISTORY_ARRIVED = [START + 7 * DAY + timedelta(minutes=n) for n in range(len(HISTORY))]


def deliver_history(graph: Graph, n: int) -> list[int]:
    return ingest_records(graph, list(enumerate(HISTORY[n], start=1)), now=HISTORY_ARRIVED[n],
                          process=False).stored_ids


HISTORY_MOMENTS = [START + n * DAY for n in range(-3, 9)] + [
    moment + timedelta(seconds=30) for moment in HISTORY_ARRIVED]


@pytest.mark.django_db
@settings_for_hypothesis(max_examples=25, deadline=None,
                         suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arrival=st.permutations(range(len(HISTORY))),
       crashes=st.sets(st.integers(0, len(HISTORY) - 1), max_size=3))
def test_whatever_order_tasks_arrive_in_and_wherever_workers_die_the_facts_are_the_same(
    arrival: list[int], crashes: set[int], settings: Any
) -> None:
    """Every delivery is ingested in turn; its task reaches a worker in a random order, and at
    random steps the worker that takes it dies holding what it claimed; the sweep recovers the
    lost claims. World time (as_of) and system time (known_at) answers equal one clean worker's."""
    clean = Graph.objects.create(slug=f"clean-{uuid4().hex[:8]}", name="Clean")
    for n in range(len(HISTORY)):
        process_episodes(deliver_history(clean, n))
    graph = Graph.objects.create(slug=f"shuffled-{uuid4().hex[:8]}", name="Shuffled")
    tasks_by_delivery = [deliver_history(graph, n) for n in range(len(HISTORY))]

    lost: list[int] = []
    for step, n in enumerate(arrival):
        if step in crashes:  # the worker claims the head of the graph's queue and dies
            claimed, _ = claim_next(graph.pk, limit=2)
            lost += [episode.pk for episode in claimed]
        else:
            process_episodes(tasks_by_delivery[n])
    settings.EPISODE_STALE_SECONDS = 60
    Episode.objects.filter(pk__in=lost).update(
        processing_started_at=timezone.now() - timedelta(minutes=5))
    tasks.sweep()

    assert answers(graph, HISTORY_MOMENTS) == answers(clean, HISTORY_MOMENTS)
    assert not Episode.objects.filter(graph=graph).exclude(status="processed").exists()
