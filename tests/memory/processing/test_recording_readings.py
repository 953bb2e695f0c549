"""Recording one reading (``memory.processing.recording``): a fact said twice by the same
reading, a fact given with both its ends, what the outcome counts, and which stored fact comes
first when two begin at the same moment."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from memory.extraction import ExtractedFact, Extraction
from memory.models import Entity, Fact, Graph
from memory.ontology import default_ontology
from memory.processing.recording import EpisodeOutcome, FactBatch, FactRecorder
from memory.resolution import Resolution
from tests.factories import MONDAY, EpisodeFactory, FactFactory
from tests.memory.processing.test_recording import (
    FRIDAY,
    THURSDAY,
    TUESDAY,
    WEDNESDAY,
    counts,
    fact,
    named,
    reading,
    record,
    reload,
    status,
)

pytestmark = pytest.mark.django_db


def waits(*, valid_at: datetime, invalid_at: datetime | None = None) -> ExtractedFact:
    """"The API migration waits on the auth refactor", from ``valid_at`` (to ``invalid_at``)."""
    return fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem",
                valid_at=valid_at, invalid_at=invalid_at)


# -- one reading saying a fact twice ---------------------------------------------------------


def test_a_dependency_said_twice_by_one_reading_begins_at_the_earlier_start_said_second(
    graph: Graph,
) -> None:
    named(graph, "API Migration", "WorkItem")
    named(graph, "Auth Refactor", "WorkItem")

    outcome = record(
        graph,
        reading(waits(valid_at=WEDNESDAY), waits(valid_at=MONDAY), waits(valid_at=TUESDAY)),
        at=FRIDAY,
    )

    assert counts(outcome) == (1, 0, 0)
    dependency = Fact.objects.get(graph=graph)
    assert (dependency.valid_at, dependency.invalid_at) == (MONDAY, None)
    assert dependency.evidence.count() == 1


def test_a_plan_said_twice_by_one_reading_keeps_the_start_said_first(graph: Graph) -> None:
    """A single-valued relation's value is not moved back by a second, earlier mention."""
    named(graph, "Acme Corp", "Customer")
    named(graph, "Pro", "Plan")

    record(
        graph,
        reading(
            fact("Acme Corp", "Customer", "ON_PLAN", "Pro", "Plan", valid_at=THURSDAY),
            fact("Acme Corp", "Customer", "ON_PLAN", "Pro", "Plan", valid_at=MONDAY),
        ),
        at=FRIDAY,
    )

    plan = Fact.objects.get(graph=graph)
    assert (plan.valid_at, plan.invalid_at) == (THURSDAY, None)


# -- a fact given with both its ends ---------------------------------------------------------


def test_a_fact_given_ending_the_moment_it_began_is_recorded_ended_by_the_episode(
    graph: Graph,
) -> None:
    named(graph, "API Migration", "WorkItem")
    named(graph, "Auth Refactor", "WorkItem")

    outcome = record(graph, reading(waits(valid_at=MONDAY, invalid_at=MONDAY)), at=FRIDAY)

    dependency = Fact.objects.get(graph=graph)
    assert (dependency.valid_at, dependency.invalid_at, dependency.close_reason,
            dependency.closed_by_episode, dependency.expired_at) == (
        MONDAY, MONDAY, Fact.CloseReason.GIVEN, outcome.episode, None)


def test_a_dependency_given_with_its_end_is_not_ended_earlier_by_the_work_being_done(
    graph: Graph,
) -> None:
    named(graph, "API Migration", "WorkItem")
    status(graph, named(graph, "Auth Refactor", "WorkItem"), "Done", WEDNESDAY)

    record(graph, reading(waits(valid_at=MONDAY, invalid_at=THURSDAY)), at=FRIDAY)

    dependency = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert (dependency.invalid_at, dependency.close_reason, dependency.closed_by_fact) == (
        THURSDAY, Fact.CloseReason.GIVEN, None)


# -- what the outcome counts -----------------------------------------------------------------


def test_every_fact_a_reading_creates_is_counted(graph: Graph) -> None:
    named(graph, "API Migration", "WorkItem")
    for name in ("Auth Refactor", "Billing Revamp", "Search Rewrite"):
        named(graph, name, "WorkItem")

    outcome = record(
        graph,
        reading(*(fact("API Migration", "WorkItem", "DEPENDS_ON", name, "WorkItem")
                  for name in ("Auth Refactor", "Billing Revamp", "Search Rewrite"))),
        at=FRIDAY,
    )

    assert counts(outcome) == (3, 0, 0)
    assert Fact.objects.filter(graph=graph).count() == 3


# -- which fact comes first at the same moment -----------------------------------------------


def test_a_stored_completion_comes_before_one_told_for_the_same_moment_whatever_its_id(
    graph: Graph,
) -> None:
    """The stored completion has an id above 1 (another fact was stored before it): stored facts
    still come before every fact the reading makes, whatever their ids."""
    migration = named(graph, "API Migration", "WorkItem")
    auth = named(graph, "Auth Refactor", "WorkItem")
    FactFactory(graph=graph, source=named(graph, "Alice", "Person"), relation="RESPONSIBLE_FOR",
                target=migration)
    done = status(graph, auth, "Done", WEDNESDAY)
    assert done.pk > 1
    named(graph, "Won't Fix", "Status")

    record(
        graph,
        reading(
            fact("Auth Refactor", "WorkItem", "HAS_STATUS", "Won't Fix", "Status",
                 valid_at=WEDNESDAY),
            waits(valid_at=MONDAY),
        ),
        at=FRIDAY,
    )

    dependency = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert (dependency.invalid_at, dependency.closed_by_fact) == (WEDNESDAY, done)
    assert reload(done).invalid_at is None


# -- the evidence a batch writes -------------------------------------------------------------


def record_batch(graph: Graph, *readings: tuple[Extraction, datetime], now: datetime
                 ) -> list[EpisodeOutcome]:
    """Episodes written at the given times, read as the extractions and ingested ``now``,
    recorded one after the other in one batch over the graph's stored facts, then written."""
    entities = {(e.name, e.type): e for e in Entity.objects.filter(graph=graph)}
    batch = FactBatch(graph, default_ontology())
    outcomes = []
    for extraction, at in readings:
        episode = EpisodeFactory(graph=graph, reference_time=at, ingested_at=now)
        outcome = EpisodeOutcome(episode, extraction)
        FactRecorder(batch, episode, Resolution(entities=entities, created=[], suggestions=[],
                                                automatic_merges=[]), outcome).record(extraction)
        outcomes.append(outcome)
    batch.write()
    return outcomes


def support(fact: Fact) -> set[tuple[str, str]]:
    """(episode's external id, sentence) of each piece of evidence of the fact."""
    return set(fact.evidence.values_list("episode__external_id", "sentence"))


def test_each_piece_of_evidence_keeps_the_sentence_of_its_episode(graph: Graph) -> None:
    named(graph, "API Migration", "WorkItem")
    named(graph, "Auth Refactor", "WorkItem")

    outcome = record(graph, reading(fact("API Migration", "WorkItem", "DEPENDS_ON",
                                         "Auth Refactor", "WorkItem",
                                         sentence="Still blocked on auth.")), at=FRIDAY)

    assert support(Fact.objects.get(graph=graph)) == {
        (outcome.episode.external_id, "Still blocked on auth.")}


def test_a_fact_revised_twice_in_one_batch_carries_the_evidence_of_both_predecessors(
    graph: Graph,
) -> None:
    stored = FactFactory(graph=graph, source=named(graph, "API Migration", "WorkItem"),
                         target=named(graph, "Auth Refactor", "WorkItem"), valid_at=WEDNESDAY,
                         sentence="Blocked on auth.")
    (first,) = (support(stored))

    tuesday, monday = record_batch(
        graph,
        (reading(fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem",
                      sentence="Blocked since Tuesday.", valid_at=TUESDAY)), FRIDAY),
        (reading(fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem",
                      sentence="Blocked since Monday.", valid_at=MONDAY)), FRIDAY),
        now=FRIDAY,
    )

    said_tuesday = (tuesday.episode.external_id, "Blocked since Tuesday.")
    said_monday = (monday.episode.external_id, "Blocked since Monday.")
    facts = Fact.objects.filter(graph=graph).order_by("-valid_at")
    assert [(f.valid_at, f.expired_at is not None, support(f)) for f in facts] == [
        (WEDNESDAY, True, {first}),
        (TUESDAY, True, {first, said_tuesday}),
        (MONDAY, False, {first, said_tuesday, said_monday}),
    ]


def test_a_reading_supporting_a_fact_and_then_revising_it_is_evidence_of_the_revision_once(
    graph: Graph,
) -> None:
    stored = FactFactory(graph=graph, source=named(graph, "API Migration", "WorkItem"),
                         target=named(graph, "Auth Refactor", "WorkItem"), valid_at=WEDNESDAY,
                         sentence="Blocked on auth.")
    (first,) = (support(stored))

    outcome = record(
        graph,
        reading(
            fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem",
                 sentence="Still blocked.", valid_at=WEDNESDAY),
            fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem",
                 sentence="Blocked since Monday in fact.", valid_at=MONDAY),
        ),
        at=FRIDAY,
    )

    said = outcome.episode.external_id
    revised = Fact.objects.get(graph=graph, valid_at=MONDAY)
    assert support(reload(stored)) == {first, (said, "Still blocked.")}
    # The episode's own sentence for the revision, not the one it carries from the old fact.
    assert support(revised) == {first, (said, "Blocked since Monday in fact.")}
    assert revised.evidence.count() == 2
    # It is the stored fact, as first said and read, with an earlier start.
    assert (revised.sentence, revised.extractor) == ("Blocked on auth.", "structured@1")


def test_of_two_stored_completions_at_the_same_moment_the_one_stored_first_ends_a_dependency(
    graph: Graph,
) -> None:
    """In whatever order the database returns them: PostgreSQL reads them here by its index of
    (relation, target), "Won't Fix" (the status named first) before "Done" (stored first)."""
    named(graph, "API Migration", "WorkItem")
    auth = named(graph, "Auth Refactor", "WorkItem")
    named(graph, "Won't Fix", "Status")
    named(graph, "Done", "Status")
    done = status(graph, auth, "Done", WEDNESDAY)
    wont_fix = status(graph, auth, "Won't Fix", WEDNESDAY)
    assert (done.pk < wont_fix.pk, done.target_id > wont_fix.target_id) == (True, True)

    record(graph, reading(waits(valid_at=MONDAY)), at=FRIDAY)

    dependency = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert (dependency.invalid_at, dependency.closed_by_fact) == (WEDNESDAY, done)


# -- what a batch reads ----------------------------------------------------------------------


def test_a_batch_that_read_every_fact_of_an_item_s_relation_reads_none_of_its_edges_again(
    graph: Graph, django_assert_num_queries: Any
) -> None:
    migration, auth = named(graph, "API Migration", "WorkItem"), named(graph, "Auth Refactor",
                                                                       "WorkItem")
    waiting = FactFactory(graph=graph, source=migration, target=auth)
    batch = FactBatch(graph, default_ontology())
    batch.cover({("from", migration.pk, "DEPENDS_ON")}, since=MONDAY)

    with django_assert_num_queries(0):
        batch.cover({("edge", migration.pk, "DEPENDS_ON", auth.pk)}, since=TUESDAY)

    assert set(batch.facts) == {waiting.pk}


def test_a_batch_reads_nothing_for_what_points_at_an_item_it_created(
    graph: Graph, django_assert_num_queries: Any
) -> None:
    """An item created in the batch (``batches`` adds it to ``fresh_entities``) is in no stored
    fact: nothing can point at it yet, nor start from it."""
    new_item = named(graph, "Search Rewrite", "WorkItem")
    batch = FactBatch(graph, default_ontology())
    batch.fresh_entities.add(new_item.pk)

    with django_assert_num_queries(0):
        batch.cover({("to", "DEPENDS_ON", new_item.pk), ("from", new_item.pk, "HAS_STATUS")},
                    since=MONDAY)

    assert batch.facts == {}
