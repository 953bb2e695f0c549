"""A fact given with only its end (``invalid_at`` and no ``valid_at``) — a link removed in a tracker
at a time — ends the matching open fact at that time instead of supporting it (DESIGN §3 and §5),
for every linking mode of the ontology, single-valued relations and others alike."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory.models import Episode, Fact, Graph
from memory.ontology import default_ontology
from tests.conftest import IngestFn

# (relation, source, source type, target, target type): one per linking mode and cardinality.
CASES = [
    ("RESPONSIBLE_FOR", "Alice", "Person", "API Migration", "WorkItem"),  # pair, many
    ("ON_PLAN", "Acme Corp", "Customer", "Enterprise", "Plan"),  # pair, single-valued
    ("DEPENDS_ON", "API Migration", "WorkItem", "Auth Refactor", "WorkItem"),  # chain, many
    ("REPORTED", "Acme Corp", "Customer", "Timeout Errors", "Issue"),  # target, many
    ("USES", "Acme Corp", "Customer", "Billing Dashboard", "Product"),  # none, many
    ("HAS_STATUS", "API Migration", "WorkItem", "In Progress", "Status"),  # none, single-valued
    ("TRACKS", "Bug 447581", "WorkItem", "Bug 536503", "WorkItem"),  # chain, many
    ("DUPLICATE_OF", "Bug 1", "WorkItem", "Bug 2", "WorkItem"),  # pair, single-valued
]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def fact_record(relation: str, source: str, source_type: str, target: str, target_type: str,
                **times: str) -> dict:
    return {"source": source, "source_type": source_type, "relation": relation,
            "target": target, "target_type": target_type,
            "fact": f"{source} {relation} {target}", **times}


def episode(external_id: str, when: str, *facts: dict) -> dict:
    return {"external_id": external_id, "author": "Tracker", "reference_time": when,
            "content": f"change {external_id}", "facts": list(facts)}


def test_every_linking_mode_and_cardinality_is_covered() -> None:
    ontology = default_ontology()
    covered = {(ontology.relations[c[0]].linking, ontology.relations[c[0]].single_valued)
               for c in CASES}
    assert covered == {("pair", False), ("pair", True), ("target", False), ("chain", False),
                       ("none", False), ("none", True)}


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_fact_given_with_only_its_end_closes_the_open_fact_then(
    graph: Graph, ingest: IngestFn, case: tuple[str, str, str, str, str]
) -> None:
    ingest(graph, [episode("added", "2026-11-02T09:00:00+00:00", fact_record(*case))])
    report = ingest(graph, [episode("removed", "2026-11-09T09:00:00+00:00",
                                    fact_record(*case, invalid_at="2026-11-09T08:30:00+00:00"))])

    assert report.summary() == "stored 1, duplicates 0, rejected 0"
    fact = Fact.objects.get(graph=graph, relation=case[0])
    removal = Episode.objects.get(graph=graph, external_id="removed")
    assert fact.valid_at == at("2026-11-02T09:00:00+00:00")
    assert fact.invalid_at == at("2026-11-09T08:30:00+00:00")
    assert fact.expired_at is not None
    assert fact.close_reason == Fact.CloseReason.GIVEN
    assert fact.closed_by_episode_id == removal.pk
    # The removal is what ended it, not one more update saying it holds.
    assert list(fact.evidence.values_list("episode__external_id", flat=True)) == ["added"]


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_link_added_again_after_its_removal_is_a_new_fact(
    graph: Graph, ingest: IngestFn, case: tuple[str, str, str, str, str]
) -> None:
    ingest(graph, [
        episode("added", "2026-11-02T09:00:00+00:00", fact_record(*case)),
        episode("removed", "2026-11-09T09:00:00+00:00",
                fact_record(*case, invalid_at="2026-11-09T09:00:00+00:00")),
        episode("again", "2026-11-16T09:00:00+00:00", fact_record(*case)),
    ])

    spans = list(Fact.objects.filter(graph=graph, relation=case[0])
                 .order_by("valid_at").values_list("valid_at", "invalid_at"))
    assert spans == [(at("2026-11-02T09:00:00+00:00"), at("2026-11-09T09:00:00+00:00")),
                     (at("2026-11-16T09:00:00+00:00"), None)]


@pytest.mark.django_db
def test_a_removal_ends_only_that_edge(graph: Graph, ingest: IngestFn) -> None:
    ingest(graph, [episode(
        "added", "2026-11-02T09:00:00+00:00",
        fact_record("DEPENDS_ON", "Bug 1", "WorkItem", "Bug 2", "WorkItem"),
        fact_record("DEPENDS_ON", "Bug 1", "WorkItem", "Bug 3", "WorkItem"),
        fact_record("DEPENDS_ON", "Bug 4", "WorkItem", "Bug 2", "WorkItem"),
    )])
    ingest(graph, [episode("removed", "2026-11-09T09:00:00+00:00", fact_record(
        "DEPENDS_ON", "Bug 1", "WorkItem", "Bug 2", "WorkItem",
        invalid_at="2026-11-09T09:00:00+00:00"))])

    open_edges = set(Fact.objects.filter(graph=graph, invalid_at__isnull=True)
                     .values_list("source__name", "target__name"))
    assert open_edges == {("Bug 1", "Bug 3"), ("Bug 4", "Bug 2")}


@pytest.mark.django_db
def test_a_removal_older_than_the_link_ends_nothing(graph: Graph, ingest: IngestFn) -> None:
    """A backfilled removal is about an earlier interval: it never ends a link made after it."""
    case = ("DEPENDS_ON", "Bug 1", "WorkItem", "Bug 2", "WorkItem")
    ingest(graph, [episode("added", "2026-11-09T09:00:00+00:00", fact_record(*case))])
    ingest(graph, [episode("old-removal", "2026-11-02T09:00:00+00:00",
                           fact_record(*case, invalid_at="2026-11-02T09:00:00+00:00"))])

    fact = Fact.objects.get(graph=graph)
    assert fact.invalid_at is None
    assert fact.expired_at is None


@pytest.mark.django_db
def test_a_removal_with_nothing_open_records_nothing(graph: Graph, ingest: IngestFn) -> None:
    report = ingest(graph, [episode("removed", "2026-11-09T09:00:00+00:00", fact_record(
        "DEPENDS_ON", "Bug 1", "WorkItem", "Bug 2", "WorkItem",
        invalid_at="2026-11-09T09:00:00+00:00"))])

    assert report.stored == 1
    assert not Fact.objects.filter(graph=graph).exists()
    assert Episode.objects.get(graph=graph).status == Episode.Status.PROCESSED


@pytest.mark.django_db
def test_a_fact_given_with_both_ends_is_still_recorded_as_given(
    graph: Graph, ingest: IngestFn
) -> None:
    case = ("DEPENDS_ON", "Bug 1", "WorkItem", "Bug 2", "WorkItem")
    ingest(graph, [episode("history", "2026-11-20T09:00:00+00:00", fact_record(
        *case, valid_at="2026-11-02T09:00:00+00:00", invalid_at="2026-11-09T09:00:00+00:00"))])

    fact = Fact.objects.get(graph=graph)
    assert (fact.valid_at, fact.invalid_at) == (at("2026-11-02T09:00:00+00:00"),
                                                at("2026-11-09T09:00:00+00:00"))
    assert list(fact.evidence.values_list("episode__external_id", flat=True)) == ["history"]


@pytest.mark.django_db
@pytest.mark.parametrize("status", ["RESOLVED", "Won't Fix", "duplicate"])
def test_a_final_status_ends_what_waits_on_the_item(
    graph: Graph, ingest: IngestFn, status: str
) -> None:
    ingest(graph, [
        episode("waits", "2026-11-02T09:00:00+00:00",
                fact_record("DEPENDS_ON", "Bug 1", "WorkItem", "Bug 2", "WorkItem")),
        episode("over", "2026-11-09T09:00:00+00:00",
                fact_record("HAS_STATUS", "Bug 2", "WorkItem", status, "Status")),
    ])

    dependency = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert dependency.invalid_at == at("2026-11-09T09:00:00+00:00")
    assert dependency.close_reason == Fact.CloseReason.RESOLUTION
