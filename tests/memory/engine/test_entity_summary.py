"""The template summary of one entity: what holds now, one sentence per relation and direction."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.engine.entity_summary import MAX_SUMMARY_CHARS, EntityFact, ref, summarize_entity

MONDAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def fact(relation: str, other: str, other_type: str = "WorkItem", *, outgoing: bool = True,
         day: int = 0) -> EntityFact:
    return EntityFact(relation=relation, outgoing=outgoing, other=other, other_type=other_type,
                      since=MONDAY.replace(day=23 + day))


def test_a_blocker_reads_as_its_owner_and_what_waits_on_it() -> None:
    text = summarize_entity("Auth Service Refactor", "WorkItem", [
        fact("RESPONSIBLE_FOR", "Backend Team", "Team", outgoing=False),
        fact("DEPENDS_ON", "API Migration", outgoing=False),
        fact("DEPENDS_ON", "Payments Integration", outgoing=False, day=2),
        fact("HAS_STATUS", "In Progress", "Status"),
    ])

    assert text == (
        "The Auth Service Refactor's status is In Progress, since 23 Nov 2026. "
        "The Backend Team is responsible for the Auth Service Refactor. "
        "2 work items wait on the Auth Service Refactor: the API Migration and the Payments "
        "Integration."
    )


def test_a_person_reads_as_what_they_own_and_belong_to() -> None:
    text = summarize_entity("Alice", "Person", [
        fact("RESPONSIBLE_FOR", "API Migration"), fact("MEMBER_OF", "Backend Team", "Team"),
    ])

    assert text == ("Alice is responsible for the API Migration. "
                    "Alice is a member of the Backend Team.")


def test_the_latest_status_wins_and_long_lists_are_cut() -> None:
    waiting = [fact("DEPENDS_ON", f"Item {i}", outgoing=False) for i in range(6)]

    text = summarize_entity("Notification Service", "Service", [
        fact("HAS_STATUS", "Blocked", "Status"), fact("HAS_STATUS", "Delayed", "Status", day=3),
        *waiting,
    ])

    assert "status is Delayed, since 26 Nov 2026" in text
    assert "6 work items wait on the Notification Service: the Item 0, the Item 1, the Item 2 " \
           "and 3 others." in text


def test_events_that_came_before_an_issue_are_not_called_causes() -> None:
    text = summarize_entity("Timeout Errors", "Issue", [
        fact("REPORTED", "Acme Corp", "Customer", outgoing=False),
        fact("PRECEDED_BY", "Nightly Backfill", "Event"),
    ])

    assert "Timeout Errors was reported by Acme Corp." in text
    assert "Timeout Errors came after the Nightly Backfill." in text
    assert "caus" not in text.lower() and "because" not in text.lower()


def test_a_relation_the_template_has_no_words_for_uses_its_own_name() -> None:
    text = summarize_entity("Acme Corp", "Customer", [fact("SUPPLIES", "Globex", "Customer")])

    assert text == "Acme Corp supplies Globex."


def test_an_entity_with_no_current_fact_says_so() -> None:
    assert summarize_entity("Load Testing", "WorkItem", []) == (
        "The Load Testing has no current facts.")


def test_the_summary_is_bounded() -> None:
    facts = [fact(f"RELATION_{i}", "X" * 80) for i in range(40)]

    assert len(summarize_entity("Hub", "Team", facts)) <= MAX_SUMMARY_CHARS


def test_names_read_with_an_article_by_type() -> None:
    assert (ref("Backend Team", "Team"), ref("Alice", "Person"), ref("Release 4.2", "Product"),
            ref("The Platform", "Team")) == ("the Backend Team", "Alice", "Release 4.2",
                                             "The Platform")
