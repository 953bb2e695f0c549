"""Recording one reading's facts and closures under the time rules
(``memory.processing.recording``), on stored facts made by the factories: what ``FactBatch`` reads
of them, and what ``FactRecorder`` ends, revises and writes."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memory.extraction import ExtractedClosure, ExtractedEntity, ExtractedFact, Extraction
from memory.models import Entity, Fact, Graph
from memory.ontology import Ontology, build_ontology, default_ontology
from memory.processing.recording import EpisodeOutcome, FactBatch, FactRecorder, scopes_of
from memory.resolution import Resolution
from tests.factories import MONDAY, EntityFactory, EpisodeFactory, FactFactory

pytestmark = pytest.mark.django_db

TUESDAY = MONDAY + timedelta(days=1)
FRIDAY = MONDAY + timedelta(days=4)
NEXT_MONDAY = MONDAY + timedelta(days=7)


def named(graph: Graph, name: str, type_: str) -> Entity:
    return EntityFactory(graph=graph, name=name, type=type_)


def record(
    graph: Graph,
    extraction: Extraction,
    *,
    at: datetime,
    now: datetime | None = None,
    ontology: Ontology | None = None,
) -> EpisodeOutcome:
    """One episode written at ``at`` (ingested ``now``, by default then) read as ``extraction``,
    recorded over the graph's stored facts and written, as processing does."""
    episode = EpisodeFactory(graph=graph, reference_time=at, ingested_at=now or at)
    resolution = Resolution(
        entities={(e.name, e.type): e for e in Entity.objects.filter(graph=graph)},
        created=[],
        suggestions=[],
        automatic_merges=[],
    )
    batch = FactBatch(graph, ontology or default_ontology())
    outcome = EpisodeOutcome(episode, extraction)
    FactRecorder(batch, episode, resolution, outcome).record(extraction)
    batch.write()
    return outcome


def customer_says(
    customer: str,
    *,
    closes: str,
    issue: str | None = None,
    facts: list[ExtractedFact] | None = None,
) -> Extraction:
    """A customer's message ending their ``closes`` facts (of ``issue``, or unnamed)."""
    return Extraction(
        extractor="rules@1",
        author=ExtractedEntity(customer, "Customer"),
        facts=facts or [],
        closures=[
            ExtractedClosure(
                customer,
                "Customer",
                closes,
                issue,
                "Issue" if issue else None,
                "Works again, thanks.",
            )
        ],
    )


def reload(fact: Fact) -> Fact:
    fact.refresh_from_db()
    return fact


# -- an issue's ending -----------------------------------------------------------------------


@pytest.fixture
def timeouts(graph: Graph) -> dict[str, Fact]:
    """Acme reported the timeouts, which affect checkout; an epic tracks them (stored facts)."""
    issue = named(graph, "Timeouts", "Issue")
    acme = named(graph, "Acme Corp", "Customer")
    return {
        "acme": FactFactory(graph=graph, source=acme, relation="REPORTED", target=issue),
        "affects": FactFactory(
            graph=graph,
            source=issue,
            relation="AFFECTS",
            target=named(graph, "Checkout", "Product"),
        ),
        "tracks": FactFactory(
            graph=graph,
            source=named(graph, "Stability Epic", "WorkItem"),
            relation="TRACKS",
            target=issue,
        ),
    }


#: A graph whose tracking items stop tracking an issue once it ends, besides the default rules.
TRACKING_ENDS = build_ontology(
    {
        "resolution_rules": [
            {"relation": "REPORTED", "side": "target"},
            {"relation": "TRACKS", "side": "target"},
            {"relation": "AFFECTS", "side": "source"},
            {"relation": "PRECEDED_BY", "side": "source"},
        ]
    }
)


def test_the_last_reporter_closing_their_report_without_naming_the_issue_ends_the_issue(
    graph: Graph, timeouts: dict[str, Fact]
) -> None:
    record(graph, customer_says("Acme Corp", closes="REPORTED"), at=FRIDAY, ontology=TRACKING_ENDS)

    assert reload(timeouts["acme"]).invalid_at == FRIDAY
    # The issue's stored facts, read only once the report ended, end with it by its rules.
    for ended in (timeouts["affects"], timeouts["tracks"]):
        assert (reload(ended).invalid_at, ended.close_reason) == (
            FRIDAY,
            Fact.CloseReason.RESOLUTION,
        )


def test_a_report_closed_while_another_customer_still_reports_the_issue_ends_only_itself(
    graph: Graph, timeouts: dict[str, Fact]
) -> None:
    globex = FactFactory(
        graph=graph,
        source=named(graph, "Globex Inc", "Customer"),
        relation="REPORTED",
        target=timeouts["acme"].target,
    )

    record(graph, customer_says("Acme Corp", closes="REPORTED"), at=FRIDAY, ontology=TRACKING_ENDS)

    assert reload(timeouts["acme"]).invalid_at == FRIDAY
    assert reload(globex).is_open
    assert reload(timeouts["affects"]).is_open
    assert reload(timeouts["tracks"]).is_open


# -- what an episode's outcome tells ---------------------------------------------------------


def fact(
    source: str,
    source_type: str,
    relation: str,
    target: str,
    target_type: str,
    *,
    sentence: str = "",
    valid_at: datetime | None = None,
    invalid_at: datetime | None = None,
) -> ExtractedFact:
    return ExtractedFact(
        source,
        source_type,
        relation,
        target,
        target_type,
        sentence or f"{source} {relation} {target}.",
        valid_at,
        invalid_at,
    )


def reading(
    *facts: ExtractedFact,
    closures: tuple[ExtractedClosure, ...] = (),
    author: ExtractedEntity | None = None,
) -> Extraction:
    return Extraction(
        extractor="rules@1", facts=list(facts), closures=list(closures), author=author
    )


def counts(outcome: EpisodeOutcome) -> tuple[int, int, int]:
    """(created, supported, closed)."""
    return outcome.facts_created, outcome.facts_supported, outcome.facts_closed


def test_a_new_fact_is_created_and_a_restatement_of_it_supports_it(graph: Graph) -> None:
    named(graph, "API Migration", "WorkItem")
    named(graph, "Auth Refactor", "WorkItem")
    waits = fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem")

    assert counts(record(graph, reading(waits), at=MONDAY)) == (1, 0, 0)
    assert counts(record(graph, reading(waits), at=TUESDAY)) == (0, 1, 0)
    assert Fact.objects.get(graph=graph).evidence.count() == 2


def test_a_new_value_of_a_single_valued_relation_is_created_and_closes_the_old_one(
    graph: Graph,
) -> None:
    item = named(graph, "API Migration", "WorkItem")
    blocked = FactFactory(
        graph=graph, source=item, relation="HAS_STATUS", target=named(graph, "Blocked", "Status")
    )
    named(graph, "On Track", "Status")

    outcome = record(
        graph,
        reading(fact("API Migration", "WorkItem", "HAS_STATUS", "On Track", "Status")),
        at=TUESDAY,
    )

    assert counts(outcome) == (1, 0, 1)
    assert reload(blocked).invalid_at == TUESDAY


def test_a_backfilled_restatement_is_counted_as_support_not_as_a_new_fact(graph: Graph) -> None:
    FactFactory(
        graph=graph,
        source=named(graph, "API Migration", "WorkItem"),
        target=named(graph, "Auth Refactor", "WorkItem"),
        valid_at=TUESDAY,
    )

    outcome = record(
        graph,
        reading(fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem")),
        at=MONDAY,
        now=FRIDAY,
    )

    assert counts(outcome) == (0, 1, 0)
    assert Fact.objects.filter(graph=graph, valid_at=MONDAY, expired_at=None).exists()


def test_a_fact_from_an_entity_to_itself_is_dropped_with_a_note(graph: Graph) -> None:
    named(graph, "API Migration", "WorkItem")

    outcome = record(
        graph,
        reading(
            fact(
                "API Migration",
                "WorkItem",
                "DEPENDS_ON",
                "API Migration",
                "WorkItem",
                sentence="It waits on itself.",
            )
        ),
        at=MONDAY,
    )

    assert outcome.notes == ["dropped self-loop: It waits on itself."]
    assert counts(outcome) == (0, 0, 0)
    assert not Fact.objects.filter(graph=graph).exists()


def test_a_removal_with_nothing_open_says_so(graph: Graph) -> None:
    named(graph, "API Migration", "WorkItem")
    named(graph, "Auth Refactor", "WorkItem")

    outcome = record(
        graph,
        reading(
            fact(
                "API Migration",
                "WorkItem",
                "DEPENDS_ON",
                "Auth Refactor",
                "WorkItem",
                sentence="Link removed.",
                invalid_at=MONDAY,
            )
        ),
        at=MONDAY,
    )

    assert outcome.notes == ["nothing open to end: Link removed."]


def test_a_customer_saying_an_issue_they_never_reported_is_resolved_ends_nothing_and_says_so(
    graph: Graph, timeouts: dict[str, Fact]
) -> None:
    named(graph, "Initech", "Customer")
    named(graph, "Resolved", "Status")

    outcome = record(
        graph,
        reading(
            fact("Timeouts", "Issue", "HAS_STATUS", "Resolved", "Status", sentence="It is fixed."),
            author=ExtractedEntity("Initech", "Customer"),
        ),
        at=FRIDAY,
    )

    assert outcome.notes == ["resolved for a customer with no open report: It is fixed."]
    assert counts(outcome) == (0, 0, 0)
    assert reload(timeouts["acme"]).is_open


def test_fixed_for_us_without_saying_what_ends_none_of_several_open_reports(
    graph: Graph, timeouts: dict[str, Fact]
) -> None:
    other = FactFactory(
        graph=graph,
        source=timeouts["acme"].source,
        relation="REPORTED",
        target=named(graph, "Slow Search", "Issue"),
    )

    outcome = record(graph, customer_says("Acme Corp", closes="REPORTED"), at=FRIDAY)

    assert outcome.notes == ["not closed, several open reports: Works again, thanks."]
    assert counts(outcome) == (0, 0, 0)
    assert reload(timeouts["acme"]).is_open and reload(other).is_open


def test_a_revised_fact_supports_once_more_than_what_the_same_reading_restates(
    graph: Graph,
) -> None:
    migration = named(graph, "API Migration", "WorkItem")
    FactFactory(
        graph=graph,
        source=migration,
        target=named(graph, "Auth Refactor", "WorkItem"),
        valid_at=TUESDAY,
    )
    FactFactory(
        graph=graph,
        source=named(graph, "Alice", "Person"),
        relation="RESPONSIBLE_FOR",
        target=migration,
        valid_at=MONDAY,
    )

    outcome = record(
        graph,
        reading(
            fact("Alice", "Person", "RESPONSIBLE_FOR", "API Migration", "WorkItem"),
            fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem"),
        ),
        at=MONDAY,
        now=FRIDAY,
    )

    assert counts(outcome) == (0, 2, 0)


def test_no_longer_blocked_on_anything_ends_every_dependency_of_the_item(graph: Graph) -> None:
    migration = named(graph, "API Migration", "WorkItem")
    waits = [
        FactFactory(graph=graph, source=migration, target=named(graph, name, "WorkItem"))
        for name in ("Auth Refactor", "Billing Revamp")
    ]

    outcome = record(
        graph,
        reading(
            closures=(
                ExtractedClosure(
                    "API Migration", "WorkItem", "DEPENDS_ON", None, None, "It is unblocked."
                ),
            )
        ),
        at=FRIDAY,
    )

    assert counts(outcome) == (0, 0, 2)
    for dependency in waits:
        assert (reload(dependency).invalid_at, dependency.close_reason) == (
            FRIDAY,
            Fact.CloseReason.EXPLICIT,
        )


def test_the_fact_a_backfill_revised_is_not_ended_again_by_a_completion_in_the_same_reading(
    graph: Graph,
) -> None:
    named(graph, "Done", "Status")
    recorded_first = FactFactory(
        graph=graph,
        source=named(graph, "API Migration", "WorkItem"),
        target=named(graph, "Auth Refactor", "WorkItem"),
        valid_at=TUESDAY,
    )
    wednesday = TUESDAY + timedelta(days=1)

    record(
        graph,
        reading(
            fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem"),
            fact("Auth Refactor", "WorkItem", "HAS_STATUS", "Done", "Status", valid_at=wednesday),
        ),
        at=MONDAY,
        now=FRIDAY,
    )

    revised = Fact.objects.get(graph=graph, relation="DEPENDS_ON", valid_at=MONDAY)
    assert (revised.invalid_at, revised.close_reason) == (wednesday, Fact.CloseReason.RESOLUTION)
    reload(recorded_first)
    assert (recorded_first.invalid_at, recorded_first.expired_at) == (None, FRIDAY)
    assert recorded_first.close_reason == Fact.CloseReason.REVISED
    assert recorded_first.closed_by_fact == revised


def test_a_report_closed_as_of_an_earlier_day_sees_the_other_reports_as_they_were_that_day(
    graph: Graph, timeouts: dict[str, Fact]
) -> None:
    """Globex's report ended on Wednesday; Acme's, told on Friday, ended on Tuesday: the issue
    was still reported on Tuesday, so it did not end then."""
    wednesday = TUESDAY + timedelta(days=1)
    globex = FactFactory(
        graph=graph,
        source=named(graph, "Globex Inc", "Customer"),
        relation="REPORTED",
        target=timeouts["acme"].target,
        invalid_at=wednesday,
        expired_at=wednesday,
    )
    says = customer_says("Acme Corp", closes="REPORTED", issue="Timeouts")
    says.closures[0] = ExtractedClosure(
        "Acme Corp",
        "Customer",
        "REPORTED",
        "Timeouts",
        "Issue",
        "It has worked since Tuesday.",
        at=TUESDAY,
    )

    record(graph, says, at=FRIDAY)

    assert reload(timeouts["acme"]).invalid_at == TUESDAY
    assert reload(globex).invalid_at == wednesday
    assert reload(timeouts["affects"]).invalid_at != TUESDAY


# -- completions and single values -----------------------------------------------------------

WEDNESDAY = MONDAY + timedelta(days=2)
THURSDAY = MONDAY + timedelta(days=3)


def status(graph: Graph, item: Entity, name: str, valid_at: datetime, **ends: datetime) -> Fact:
    return FactFactory(
        graph=graph,
        source=item,
        relation="HAS_STATUS",
        target=Entity.objects.filter(graph=graph, name=name).first()
        or named(graph, name, "Status"),
        valid_at=valid_at,
        **ends,
    )


def waits_on_auth(valid_at: datetime) -> Extraction:
    return reading(
        fact(
            "API Migration",
            "WorkItem",
            "DEPENDS_ON",
            "Auth Refactor",
            "WorkItem",
            valid_at=valid_at,
        )
    )


def test_a_dependency_that_begins_after_the_work_was_done_is_not_ended_by_it(graph: Graph) -> None:
    named(graph, "API Migration", "WorkItem")
    auth = named(graph, "Auth Refactor", "WorkItem")
    status(graph, auth, "Done", MONDAY)

    record(graph, waits_on_auth(WEDNESDAY), at=FRIDAY)

    assert Fact.objects.get(graph=graph, relation="DEPENDS_ON").is_open


def test_a_backfilled_dependency_that_began_the_moment_the_work_was_done_ends_then(
    graph: Graph,
) -> None:
    named(graph, "API Migration", "WorkItem")
    status(graph, named(graph, "Auth Refactor", "WorkItem"), "Done", WEDNESDAY)

    record(graph, waits_on_auth(WEDNESDAY), at=FRIDAY)

    assert Fact.objects.get(graph=graph, relation="DEPENDS_ON").invalid_at == WEDNESDAY


def test_a_backfilled_dependency_ends_at_the_first_completion_of_the_work(graph: Graph) -> None:
    named(graph, "API Migration", "WorkItem")
    auth = named(graph, "Auth Refactor", "WorkItem")
    # Learned in this order: "won't fix" on Thursday, then that it was done on Wednesday.
    status(graph, auth, "Won't Fix", THURSDAY)
    done = status(graph, auth, "Done", WEDNESDAY, invalid_at=THURSDAY)

    record(graph, waits_on_auth(MONDAY), at=FRIDAY)

    dependency = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert (dependency.invalid_at, dependency.closed_by_fact) == (WEDNESDAY, done)


def test_a_backfilled_value_restated_after_the_newer_value_began_is_a_new_value(
    graph: Graph,
) -> None:
    acme = named(graph, "Acme Corp", "Customer")
    enterprise = FactFactory(
        graph=graph,
        source=acme,
        relation="ON_PLAN",
        target=named(graph, "Enterprise", "Plan"),
        valid_at=TUESDAY,
    )
    named(graph, "Pro", "Plan")

    record(
        graph,
        reading(
            fact("Acme Corp", "Customer", "ON_PLAN", "Pro", "Plan", valid_at=MONDAY),
            fact("Acme Corp", "Customer", "ON_PLAN", "Pro", "Plan", valid_at=THURSDAY),
        ),
        at=FRIDAY,
    )

    pro = Fact.objects.filter(graph=graph, target__name="Pro").order_by("valid_at")
    assert [(f.valid_at, f.invalid_at) for f in pro] == [(MONDAY, TUESDAY), (THURSDAY, None)]
    assert reload(enterprise).invalid_at == THURSDAY


def test_waiting_on_another_item_and_no_longer_on_one_ends_only_that_dependency(
    graph: Graph,
) -> None:
    """The update: the API migration now waits on the billing revamp, no longer on the auth
    refactor."""
    migration = named(graph, "API Migration", "WorkItem")
    auth = FactFactory(
        graph=graph, source=migration, target=named(graph, "Auth Refactor", "WorkItem")
    )
    named(graph, "Billing Revamp", "WorkItem")

    record(
        graph,
        reading(
            fact("API Migration", "WorkItem", "DEPENDS_ON", "Billing Revamp", "WorkItem"),
            closures=(
                ExtractedClosure(
                    "API Migration",
                    "WorkItem",
                    "DEPENDS_ON",
                    "Auth Refactor",
                    "WorkItem",
                    "No longer on the auth refactor.",
                ),
            ),
        ),
        at=FRIDAY,
    )

    assert reload(auth).invalid_at == FRIDAY
    assert Fact.objects.get(graph=graph, target__name="Billing Revamp").is_open


def test_of_two_completions_at_the_same_moment_the_one_told_first_ends_a_later_told_dependency(
    graph: Graph,
) -> None:
    named(graph, "API Migration", "WorkItem")
    named(graph, "Auth Refactor", "WorkItem")
    named(graph, "Done", "Status")
    named(graph, "Won't Fix", "Status")

    record(
        graph,
        reading(
            fact("Auth Refactor", "WorkItem", "HAS_STATUS", "Done", "Status", valid_at=WEDNESDAY),
            fact(
                "Auth Refactor", "WorkItem", "HAS_STATUS", "Won't Fix", "Status", valid_at=WEDNESDAY
            ),
            fact(
                "API Migration",
                "WorkItem",
                "DEPENDS_ON",
                "Auth Refactor",
                "WorkItem",
                valid_at=MONDAY,
            ),
        ),
        at=FRIDAY,
    )

    dependency = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert dependency.invalid_at == WEDNESDAY
    assert dependency.closed_by_fact.target.name == "Done"


def test_a_restatement_dated_inside_an_ended_facts_interval_supports_it(graph: Graph) -> None:
    ended = FactFactory(
        graph=graph,
        source=named(graph, "API Migration", "WorkItem"),
        target=named(graph, "Auth Refactor", "WorkItem"),
        valid_at=MONDAY,
        invalid_at=WEDNESDAY,
        expired_at=WEDNESDAY,
    )

    outcome = record(graph, waits_on_auth(TUESDAY), at=TUESDAY, now=FRIDAY)

    assert counts(outcome) == (0, 1, 0)
    assert list(Fact.objects.filter(graph=graph)) == [ended]
    assert ended.evidence.count() == 2


def test_each_fact_a_reading_restates_counts_as_supported(graph: Graph) -> None:
    migration = named(graph, "API Migration", "WorkItem")
    for name in ("Auth Refactor", "Billing Revamp"):
        FactFactory(graph=graph, source=migration, target=named(graph, name, "WorkItem"))

    outcome = record(
        graph,
        reading(
            fact("API Migration", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem"),
            fact("API Migration", "WorkItem", "DEPENDS_ON", "Billing Revamp", "WorkItem"),
        ),
        at=FRIDAY,
    )

    assert counts(outcome) == (0, 2, 0)


def test_a_completion_already_stored_comes_before_one_told_for_the_same_moment(
    graph: Graph,
) -> None:
    named(graph, "API Migration", "WorkItem")
    done = status(graph, named(graph, "Auth Refactor", "WorkItem"), "Done", WEDNESDAY)
    named(graph, "Won't Fix", "Status")

    record(
        graph,
        reading(
            fact(
                "Auth Refactor", "WorkItem", "HAS_STATUS", "Won't Fix", "Status", valid_at=WEDNESDAY
            ),
            fact(
                "API Migration",
                "WorkItem",
                "DEPENDS_ON",
                "Auth Refactor",
                "WorkItem",
                valid_at=MONDAY,
            ),
        ),
        at=FRIDAY,
    )

    assert Fact.objects.get(graph=graph, relation="DEPENDS_ON").closed_by_fact == done


def test_finishing_work_nothing_waits_on_ends_nothing(graph: Graph) -> None:
    named(graph, "Auth Refactor", "WorkItem")
    named(graph, "Done", "Status")

    outcome = record(
        graph, reading(fact("Auth Refactor", "WorkItem", "HAS_STATUS", "Done", "Status")), at=FRIDAY
    )

    assert counts(outcome) == (1, 0, 0)
    assert Fact.objects.get(graph=graph).is_open


def test_a_fact_with_a_name_that_resolved_to_no_entity_is_skipped(graph: Graph) -> None:
    """A name normalizing to nothing ("!!!") resolves to no entity (``resolve_entities``)."""
    named(graph, "Auth Refactor", "WorkItem")

    outcome = record(
        graph,
        reading(fact("!!!", "WorkItem", "DEPENDS_ON", "Auth Refactor", "WorkItem")),
        at=FRIDAY,
    )

    assert counts(outcome) == (0, 0, 0)
    assert not Fact.objects.filter(graph=graph).exists()


def test_a_restatement_supports_the_earliest_interval_of_the_fact_that_can_hold_it(
    graph: Graph,
) -> None:
    migration = named(graph, "API Migration", "WorkItem")
    auth = named(graph, "Auth Refactor", "WorkItem")
    first = FactFactory(
        graph=graph,
        source=migration,
        target=auth,
        valid_at=MONDAY,
        invalid_at=WEDNESDAY,
        expired_at=WEDNESDAY,
    )
    again = FactFactory(graph=graph, source=migration, target=auth, valid_at=THURSDAY)

    record(graph, waits_on_auth(TUESDAY), at=TUESDAY, now=FRIDAY)

    assert (first.evidence.count(), again.evidence.count()) == (2, 1)


# -- what a batch reads ----------------------------------------------------------------------


def test_a_batch_asked_back_to_an_earlier_start_reads_the_new_scope_and_the_covered_ones_again(
    graph: Graph,
) -> None:
    search, audit = named(graph, "Search Rewrite", "WorkItem"), named(graph, "Audit", "WorkItem")
    closed = FactFactory(graph=graph, source=search, relation="HAS_STATUS", invalid_at=TUESDAY)
    waiting = FactFactory(graph=graph, source=audit, relation="DEPENDS_ON")
    batch = FactBatch(graph, default_ontology())
    batch.cover({("from", search.pk, "HAS_STATUS")}, since=FRIDAY)
    assert set(batch.facts) == set()  # its status had ended before Friday

    batch.cover({("from", audit.pk, "DEPENDS_ON")}, since=MONDAY)

    assert set(batch.facts) == {closed.pk, waiting.pk}


def test_a_batch_reads_a_covered_scope_once_whatever_the_later_starts(
    graph: Graph, django_assert_num_queries
) -> None:
    search, audit = named(graph, "Search Rewrite", "WorkItem"), named(graph, "Audit", "WorkItem")
    batch = FactBatch(graph, default_ontology())
    batch.cover({("from", search.pk, "HAS_STATUS")}, since=MONDAY)
    batch.cover({("from", audit.pk, "DEPENDS_ON")}, since=FRIDAY)

    with django_assert_num_queries(0):  # Tuesday is after the batch's Monday: read already
        batch.cover({("from", search.pk, "HAS_STATUS")}, since=TUESDAY)


def test_a_batch_reads_the_facts_its_scopes_name_and_not_their_neighbours(
    graph: Graph, django_assert_num_queries
) -> None:
    search, audit, review = (named(graph, name, "WorkItem")
                             for name in ("Search Rewrite", "Audit", "Security Review"))
    waits = FactFactory(graph=graph, source=search, relation="DEPENDS_ON", target=review)
    status = FactFactory(graph=graph, source=audit, relation="HAS_STATUS")
    for source, relation, target in [(search, "TRACKS", review), (search, "DEPENDS_ON", audit),
                                     (audit, "DEPENDS_ON", review)]:
        FactFactory(graph=graph, source=source, relation=relation, target=target)
    tracked = FactFactory(graph=graph, source=audit, relation="TRACKS", target=search)
    FactFactory(graph=graph, source=search, relation="HAS_STATUS")
    FactFactory(graph=graph, source=review, relation="DEPENDS_ON", target=search)
    batch = FactBatch(graph, default_ontology())

    batch.cover({("edge", search.pk, "DEPENDS_ON", review.pk), ("from", audit.pk, "HAS_STATUS"),
                 ("to", "TRACKS", search.pk)}, since=MONDAY)

    assert set(batch.facts) == {waits.pk, status.pk, tracked.pk}
    with django_assert_num_queries(0):  # read with their targets
        assert {f.target.name for f in batch.facts.values()} == {
            "Security Review", status.target.name, "Search Rewrite"}


def test_a_batch_does_not_read_a_fact_retracted_without_an_end(graph: Graph) -> None:
    search = named(graph, "Search Rewrite", "WorkItem")
    FactFactory(graph=graph, source=search, relation="HAS_STATUS", expired_at=TUESDAY)
    holding = FactFactory(graph=graph, source=search, relation="HAS_STATUS")
    batch = FactBatch(graph, default_ontology())

    batch.cover({("from", search.pk, "HAS_STATUS")}, since=MONDAY)

    assert set(batch.facts) == {holding.pk}


# -- what a reading can touch ----------------------------------------------------------------

IDS = {("Search Rewrite", "WorkItem"): 1, ("Audit", "WorkItem"): 2, ("Done", "Status"): 3,
       ("Acme Corp", "Customer"): 4, ("Timeouts", "Issue"): 5}


def id_of(name: str | None, type_: str | None) -> int | None:
    return IDS.get((name or "", type_ or ""))


def test_a_finished_item_touches_what_its_resolution_rules_end_and_a_dependency_its_status(
) -> None:
    extraction = Extraction(extractor="rules@1", author=ExtractedEntity("Bob", "Person"), facts=[
        ExtractedFact("Search Rewrite", "WorkItem", "HAS_STATUS", "Done", "Status", "It is done."),
        ExtractedFact("Audit", "WorkItem", "DEPENDS_ON", "Search Rewrite", "WorkItem", "Waits."),
        # An item not stored yet has no stored facts to touch, finished or not.
        ExtractedFact("Something New", "WorkItem", "HAS_STATUS", "Done", "Status", "Done too."),
    ], closures=[])

    scopes = scopes_of(extraction, TRACKING_ENDS, id_of)

    assert scopes == {
        ("edge", 1, "HAS_STATUS", 3), ("from", 1, "HAS_STATUS"),  # its status, single-valued
        ("to", "REPORTED", 1), ("to", "TRACKS", 1), ("from", 1, "AFFECTS"),
        ("from", 1, "PRECEDED_BY"),  # what its resolution rules end
        ("edge", 2, "DEPENDS_ON", 1),  # the dependency, and whether what it waits on is done
    }


def test_closures_touch_what_they_end_and_a_report_every_other_report_of_its_issue() -> None:
    extraction = Extraction(extractor="rules@1", author=ExtractedEntity("Acme Corp", "Customer"),
                            facts=[], closures=[
        ExtractedClosure("Nobody Known", "Customer", "REPORTED", "Timeouts", "Issue", "Fixed."),
        ExtractedClosure("Acme Corp", "Customer", "REPORTED", "Timeouts", "Issue", "Fixed."),
        ExtractedClosure("Audit", "WorkItem", "DEPENDS_ON", "Something New", "WorkItem", "No."),
    ])

    scopes = scopes_of(extraction, TRACKING_ENDS, id_of)

    assert scopes == {
        ("edge", 4, "REPORTED", 5), ("from", 4, "REPORTED"),
        ("to", "REPORTED", 5), ("to", "TRACKS", 5), ("from", 5, "AFFECTS"),
        ("from", 5, "PRECEDED_BY"),
        ("from", 2, "DEPENDS_ON"),
    }
