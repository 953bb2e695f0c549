"""The time rules as pure decisions: scoped supersession, resolution, explicit ends, backfill."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.time_rules import Span, decide_explicit, decide_resolution, decide_single_valued

JAN = datetime(2026, 1, 1, tzinfo=UTC)
MAR = datetime(2026, 3, 1, tzinfo=UTC)
APR_28 = datetime(2026, 4, 28, tzinfo=UTC)

STANDARD, ENTERPRISE, PRO = 10, 11, 12


def plan(key: str, target: int, valid_at: datetime, invalid_at: datetime | None = None) -> Span:
    return Span(key, source_id=1, relation="ON_PLAN", target_id=target, valid_at=valid_at,
                invalid_at=invalid_at)


def test_a_newer_value_closes_the_older_one_at_its_start() -> None:
    standard = plan("standard", STANDARD, JAN)
    enterprise = plan("enterprise", ENTERPRISE, APR_28)

    decision = decide_single_valued(enterprise, [standard])

    assert [(c.span.key, c.at) for c in decision.closings] == [("standard", APR_28)]
    assert decision.new_ends_at is None


def test_a_backfilled_older_value_never_closes_a_newer_one() -> None:
    enterprise = plan("enterprise", ENTERPRISE, APR_28)
    backfilled_standard = plan("standard", STANDARD, JAN)

    decision = decide_single_valued(backfilled_standard, [enterprise])

    assert decision.closings == ()
    assert decision.new_ends_at == APR_28
    assert decision.new_ended_by is enterprise


def test_a_backfill_inside_history_narrows_the_value_it_interrupts() -> None:
    standard = plan("standard", STANDARD, JAN, invalid_at=APR_28)
    enterprise = plan("enterprise", ENTERPRISE, APR_28)
    pro_from_march = plan("pro", PRO, MAR)

    decision = decide_single_valued(pro_from_march, [standard, enterprise])

    assert [(c.span.key, c.at) for c in decision.closings] == [("standard", MAR)]
    assert decision.new_ends_at == APR_28


def test_the_same_value_restated_closes_nothing() -> None:
    decision = decide_single_valued(plan("again", STANDARD, MAR), [plan("first", STANDARD, JAN)])

    assert decision.closings == ()
    assert decision.new_ends_at is None


def test_completion_ends_only_dependencies_that_began_before_it() -> None:
    older = Span("older", 1, "DEPENDS_ON", 9, valid_at=JAN)
    newer = Span("newer", 2, "DEPENDS_ON", 9, valid_at=APR_28)

    closings = decide_resolution(MAR, [older, newer])

    assert [(c.span.key, c.at) for c in closings] == [("older", MAR)]


def test_an_explicit_end_skips_facts_already_closed() -> None:
    open_ = Span("open", 1, "DEPENDS_ON", 9, valid_at=JAN)
    closed = Span("closed", 1, "DEPENDS_ON", 8, valid_at=JAN, invalid_at=MAR)

    closings = decide_explicit(APR_28, [open_, closed])

    assert [c.span.key for c in closings] == ["open"]


# --- The boundaries (each found by a surviving mutant: ``make mutation``) -------------------------


def test_a_span_holds_from_its_start_until_just_before_its_end() -> None:
    ended = plan("standard", STANDARD, JAN, invalid_at=APR_28)
    still = plan("enterprise", ENTERPRISE, APR_28)

    assert [ended.holds_at(t) for t in (JAN, MAR, APR_28)] == [True, True, False]
    assert ended.holds_at(datetime(2025, 12, 31, tzinfo=UTC)) is False
    assert [still.holds_at(t) for t in (MAR, APR_28, datetime(2030, 1, 1, tzinfo=UTC))] == [
        False, True, True]


def test_a_statement_ends_what_began_at_the_very_same_moment() -> None:
    same_moment = Span("same", 1, "DEPENDS_ON", 9, valid_at=MAR)

    assert [c.span.key for c in decide_explicit(MAR, [same_moment])] == ["same"]
    assert [c.span.key for c in decide_resolution(MAR, [same_moment])] == ["same"]


def test_expired_spans_are_never_closed_again() -> None:
    expired = Span("expired", 1, "DEPENDS_ON", 9, valid_at=JAN, expired=True)

    assert decide_explicit(MAR, [expired]) == ()
    assert decide_resolution(MAR, [expired]) == ()
    assert decide_single_valued(plan("pro", PRO, MAR), [
        Span("old", 1, "ON_PLAN", STANDARD, valid_at=JAN, expired=True)]).closings == ()


def test_a_value_said_at_the_same_moment_is_neither_closed_nor_closing() -> None:
    standard = plan("standard", STANDARD, MAR)

    decision = decide_single_valued(plan("enterprise", ENTERPRISE, MAR), [standard])

    assert (decision.closings, decision.new_ends_at, decision.new_ended_by) == ((), None, None)


def test_a_value_that_ended_as_the_new_one_begins_is_left_alone() -> None:
    standard = plan("standard", STANDARD, JAN, invalid_at=MAR)

    assert decide_single_valued(plan("pro", PRO, MAR), [standard]).closings == ()


def test_a_backfill_ends_at_the_nearest_later_value_ties_broken_by_creation_order() -> None:
    later_first_made = Span("enterprise", 1, "ON_PLAN", ENTERPRISE, valid_at=APR_28, rank=(0, 2))
    later_made_after = Span("pro", 1, "ON_PLAN", PRO, valid_at=APR_28, rank=(0, 5))
    latest = Span("standard", 1, "ON_PLAN", STANDARD, valid_at=datetime(2026, 6, 1, tzinfo=UTC))
    backfill = plan("basic", 13, JAN)

    decision = decide_single_valued(backfill, [latest, later_made_after, later_first_made])

    assert decision.new_ends_at == APR_28 and decision.new_ended_by is later_first_made
