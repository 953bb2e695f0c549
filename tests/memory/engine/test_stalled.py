"""Stalled items: an item in one state for N weeks, since when and how; its view reconciled with
the same item's earlier view; its words."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import UUID

from memory.engine.lifecycle import (
    EVIDENCE_ENDED,
    SUPERSEDED,
    ActiveObservation,
    Reconciliation,
    reconcile_views,
)
from memory.engine.stalled import (
    AGENDA,
    BLOCKED,
    REPORTED_STATE,
    STATUS,
    ItemState,
    Mention,
    Stall,
    StateFact,
    find_stall,
    find_stalls,
    held_by_patterns,
    is_quiet,
    item_states,
    one_stall_per_evidence,
    stall_cluster,
    stall_structure,
    stalls_to_show,
    tracking_facts,
)
from memory.engine.template_summary import summarize_with_template
from memory.engine.types import (
    Cluster,
    EntityInfo,
    EpisodeInfo,
    FactInfo,
    Summary,
    validate_summary,
)

NOW = datetime(2026, 12, 21, 12, tzinfo=UTC)
ITEM, REVIEW, IN_REVIEW, DONE, ON_TRACK, ALICE, BOB = 1, 2, 3, 4, 5, 6, 7
UNSTUCK = frozenset({DONE, ON_TRACK})


def weeks_ago(weeks: float) -> datetime:
    return NOW - timedelta(weeks=weeks)


def status(fact: int, status_id: int, since: datetime, *episodes: int) -> StateFact:
    return StateFact(fact, status_id, since, episodes or (fact,))


def waits_on(fact: int, item: int, since: datetime, *episodes: int) -> StateFact:
    return StateFact(fact, item, since, episodes or (fact,))


def stall_of(item: ItemState, after_weeks: int = 3,
             shown: frozenset[int] = frozenset()) -> Stall | None:
    return find_stall(item, NOW, after_weeks, UNSTUCK, shown)


# --- When an item is stalled, since when and how ------------------------------------------------


def test_an_item_blocked_for_five_weeks_is_stalled_since_its_first_dependency() -> None:
    item = ItemState(ITEM, dependencies=(waits_on(10, REVIEW, weeks_ago(5)),
                                         waits_on(11, 9, weeks_ago(1))))

    stall = stall_of(item)

    assert stall is not None
    assert (stall.state, stall.since, stall.weeks) == (BLOCKED, weeks_ago(5), 5)
    assert stall.fact_ids == (10, 11) and stall.other_ids == (REVIEW, 9)


def test_an_item_blocked_for_two_weeks_is_not_stalled_yet() -> None:
    assert stall_of(ItemState(ITEM, dependencies=(waits_on(10, REVIEW, weeks_ago(2)),))) is None


def test_the_threshold_is_the_graphs_setting() -> None:
    item = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(2)),))

    assert stall_of(item, after_weeks=3) is None
    assert stall_of(item, after_weeks=2) is not None


def test_an_item_in_one_status_for_weeks_is_stalled_since_that_status_began() -> None:
    item = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(4), 100, 101),))

    stall = stall_of(item)

    assert stall is not None
    assert (stall.state, stall.other_ids, stall.weeks) == (STATUS, (IN_REVIEW,), 4)
    assert stall.episode_ids == (100, 101)


def test_a_status_that_just_changed_starts_the_count_again() -> None:
    # The status is single-valued: the new one is the current fact, begun a week ago.
    assert stall_of(ItemState(ITEM, statuses=(status(12, IN_REVIEW, weeks_ago(1)),))) is None


def test_an_item_done_or_on_track_is_never_stalled() -> None:
    for final in (DONE, ON_TRACK):
        item = ItemState(ITEM, statuses=(status(10, final, weeks_ago(30)),),
                         dependencies=(waits_on(11, REVIEW, weeks_ago(30)),))
        assert stall_of(item) is None


def test_an_item_waiting_in_a_chain_is_the_chains_to_show() -> None:
    item = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(9)),),
                     dependencies=(waits_on(11, REVIEW, weeks_ago(9)),))

    assert stall_of(item, shown=frozenset({11})) is None


def test_a_ticket_with_no_status_still_reported_after_weeks_is_reported_and_open() -> None:
    item = ItemState(ITEM, reports=(StateFact(10, ALICE, weeks_ago(6), (1,)),
                                    StateFact(11, BOB, weeks_ago(2), (2,))))

    stall = stall_of(item)

    assert stall is not None
    assert (stall.state, stall.since, stall.other_ids) == (REPORTED_STATE, weeks_ago(6),
                                                           (ALICE, BOB))


def test_reports_a_recurring_issue_shows_are_not_a_stall() -> None:
    item = ItemState(ITEM, reports=(StateFact(10, ALICE, weeks_ago(6), (1,)),))

    assert stall_of(item, shown=frozenset({10})) is None


def mentions(*weeks: float) -> tuple[Mention, ...]:
    return tuple(Mention(100 + i, weeks_ago(w), (200 + i,)) for i, w in enumerate(weeks))


def test_an_item_mentioned_in_most_weeks_is_on_the_agenda_in_k_of_the_last_n_weeks() -> None:
    # Weekly agendas for 30 weeks; it was discussed in 26 of them, the latest this week.
    skipped = {3, 9, 15, 22}
    item = ItemState(ITEM, mentions=mentions(*(w + 0.5 for w in range(30) if w not in skipped)))

    stall = stall_of(item)

    assert stall is not None
    assert stall.state == AGENDA
    assert (stall.weeks_mentioned, stall.weeks_counted) == (26, 30)
    assert len(stall.episode_ids) == 26


def test_an_item_no_longer_on_the_agenda_or_new_to_it_is_not_stalled() -> None:
    assert stall_of(ItemState(ITEM, mentions=mentions(5.5, 6.5, 7.5))) is None  # dropped off
    assert stall_of(ItemState(ITEM, mentions=mentions(0.1, 1.1, 1.5, 2.0))) is None  # two weeks


def test_an_item_with_a_state_is_judged_by_its_state_not_by_its_mentions() -> None:
    item = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(1)),),
                     mentions=mentions(0.5, 1.5, 2.5, 3.5))

    assert stall_of(item) is None


def test_find_stalls_keeps_the_stalled_items_by_item_id() -> None:
    stuck = ItemState(9, statuses=(status(10, IN_REVIEW, weeks_ago(4)),))
    moving = ItemState(8, statuses=(status(11, IN_REVIEW, weeks_ago(1)),))

    assert [s.item_id for s in find_stalls([stuck, moving], NOW, 3, UNSTUCK)] == [9]


def test_item_states_read_statuses_dependencies_reports_and_mentions_from_the_rows() -> None:
    rows = [
        (100, 10, ITEM, "HAS_STATUS", IN_REVIEW),
        (101, 10, ITEM, "HAS_STATUS", IN_REVIEW),
        (101, 11, ITEM, "DEPENDS_ON", REVIEW),
        (102, 12, ALICE, "REPORTED", ITEM),
        (103, 13, BOB, "RESPONSIBLE_FOR", REVIEW),
    ]
    valid_at = {10: weeks_ago(4), 11: weeks_ago(3), 12: weeks_ago(6)}
    times = {100: weeks_ago(4), 101: weeks_ago(3), 102: weeks_ago(6)}

    (state,) = item_states(rows, valid_at, {ITEM}, times)

    assert state.statuses == (status(10, IN_REVIEW, weeks_ago(4), 100, 101),)
    assert state.dependencies == (waits_on(11, REVIEW, weeks_ago(3), 101),)
    assert state.reports == (StateFact(12, ALICE, weeks_ago(6), (102,)),)
    assert [m.episode_id for m in state.mentions] == [100, 101, 102]


# --- Its view, reconciled by item ------------------------------------------------------------


def view(observation_id: int, stall_item: ItemState, version: int = 1) -> ActiveObservation:
    stall = stall_of(stall_item)
    assert stall is not None
    cluster = stall_cluster(stall)
    return ActiveObservation(
        id=observation_id, lineage=UUID(int=observation_id), version=version,
        episode_ids=cluster.episode_ids, fact_ids=cluster.fact_ids,
        fingerprint=cluster.fingerprint, facts_fingerprint=cluster.facts_fingerprint,
        kind="stalled",
    )


def reconcile_items(items: list[ItemState], active: list[ActiveObservation],
                    anchors: dict[int, int],
                    current: frozenset[int] = frozenset(range(1000))) -> Reconciliation:
    stalls = [s for s in (stall_of(item) for item in items) if s is not None]
    clusters = [stall_cluster(s) for s in stalls]
    return reconcile_views(clusters, {c.key: c.anchor for c in clusters if c.anchor is not None},
                           active, anchors, current, frozenset(range(1000)))


def test_the_same_stall_a_week_later_is_untouched() -> None:
    item = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5), 100),))

    decisions = reconcile_items([item], [view(7, item)], {7: ITEM})

    assert [(u.observation_id, u.cluster_key) for u in decisions.untouched] == [(7, -ITEM)]
    assert not decisions.created and not decisions.retired


def test_a_new_update_restating_the_status_restates_the_view_in_place() -> None:
    before = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5), 100),))
    after = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5), 100, 101),))

    decisions = reconcile_items([after], [view(7, before)], {7: ITEM})

    assert [(r.observation_id, r.added_episode_ids) for r in decisions.restated] == [(7, (101,))]


def test_a_new_dependency_of_a_blocked_item_is_a_new_version_of_its_view() -> None:
    before = ItemState(ITEM, dependencies=(waits_on(10, REVIEW, weeks_ago(5), 100),))
    after = ItemState(ITEM, dependencies=(waits_on(10, REVIEW, weeks_ago(5), 100),
                                          waits_on(11, 9, weeks_ago(1), 101)))

    decisions = reconcile_items([after], [view(7, before, version=2)], {7: ITEM})

    (created,) = decisions.created
    assert (created.cluster_key, created.version, created.predecessor_ids) == (-ITEM, 3, (7,))
    assert [(r.observation_id, r.reason) for r in decisions.retired] == [(7, SUPERSEDED)]


def test_an_item_that_moves_on_retires_its_view_as_evidence_ended_naming_the_closed_fact() -> None:
    before = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5), 100),))
    moved = ItemState(ITEM, statuses=(status(11, DONE, weeks_ago(0), 101),))

    decisions = reconcile_items([moved], [view(7, before)], {7: ITEM},
                                current=frozenset({11}))

    (retired,) = decisions.retired
    assert (retired.observation_id, retired.reason, retired.closed_fact_ids) == (
        7, EVIDENCE_ENDED, (10,))
    assert not decisions.created


def test_two_items_sharing_an_update_keep_their_own_views() -> None:
    # One sentence about both: "the API migration and the audit are in review".
    first = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5), 100),))
    second = ItemState(9, statuses=(status(11, IN_REVIEW, weeks_ago(5), 100, 101),))
    second_before = ItemState(9, statuses=(status(11, IN_REVIEW, weeks_ago(5), 100),))

    decisions = reconcile_items([first, second], [view(7, first), view(8, second_before)],
                                {7: ITEM, 8: 9})

    assert [u.observation_id for u in decisions.untouched] == [7]
    assert [(r.observation_id, r.cluster_key) for r in decisions.restated] == [(8, -9)]
    assert not decisions.retired


# --- Its words ------------------------------------------------------------------------------


def summary_of(item: ItemState, entities: dict[int, EntityInfo]) -> Summary:
    stall = stall_of(item)
    assert stall is not None
    cluster = stall_cluster(stall)
    episodes = {e: EpisodeInfo(e, stall.since) for e in cluster.episode_ids}
    structure = stall_structure(stall, cluster, entities, episodes)
    facts = {f: FactInfo(f, ITEM, "HAS_STATUS", 0, cluster.episode_ids) for f in cluster.fact_ids}
    summary = summarize_with_template(structure, facts, entities, episodes)
    assert validate_summary(summary, cluster.fact_ids) == []
    return summary


ENTITIES = {
    ITEM: EntityInfo(ITEM, "API Migration", "WorkItem"),
    REVIEW: EntityInfo(REVIEW, "Security Review", "WorkItem"),
    IN_REVIEW: EntityInfo(IN_REVIEW, "In Review", "Status"),
    ALICE: EntityInfo(ALICE, "Alice", "Person"),
}


def test_a_blocked_item_reads_blocked_since_a_day_with_its_weeks() -> None:
    since = datetime(2026, 11, 16, 9, tzinfo=UTC)
    item = ItemState(ITEM, dependencies=(waits_on(10, REVIEW, since),))

    summary = summary_of(item, ENTITIES)

    assert summary.name == "API Migration blocked since 16 Nov"
    assert summary.summary == ("API Migration has been blocked since 16 Nov (5 weeks by 21 Dec), "
                               "waiting on the Security Review.")


def test_a_status_reads_as_a_state_and_one_week_in_the_singular() -> None:
    item = ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(1.5)),))

    summary = summarize_with_template_of_one_week(item)

    assert summary.summary == ("API Migration has been in review since 11 Dec (1 week by "
                               "21 Dec).")


def summarize_with_template_of_one_week(item: ItemState) -> Summary:
    stall = find_stall(item, NOW, 1, UNSTUCK)
    assert stall is not None
    cluster = stall_cluster(stall)
    episodes = {e: EpisodeInfo(e, stall.since) for e in cluster.episode_ids}
    return summarize_with_template(stall_structure(stall, cluster, ENTITIES, episodes), {},
                                   ENTITIES, episodes)


def test_a_years_old_status_reads_in_years_with_the_years_of_both_days() -> None:
    titled = {**ENTITIES, ITEM: EntityInfo(ITEM, "Bug 446261", "WorkItem",
                                           title="Clear Private Data should also reset"),
              IN_REVIEW: EntityInfo(IN_REVIEW, "NEW", "Status")}
    item = ItemState(ITEM, statuses=(status(10, IN_REVIEW, datetime(2008, 7, 20, tzinfo=UTC)),))

    summary = summary_of(item, titled)

    assert summary.name == ("Bug 446261 “Clear Private Data should also reset” in status NEW "
                            "since 20 Jul 2008")
    assert summary.summary == ("Bug 446261 “Clear Private Data should also reset” has been in "
                               "status NEW since 20 Jul 2008 (over 18 years by 21 Dec 2026).")


def test_a_ticket_reported_and_open_reads_since_its_first_report_naming_its_reporters() -> None:
    reporters = {**ENTITIES, BOB: EntityInfo(BOB, "Bob", "Person")}
    item = ItemState(ITEM, reports=(StateFact(10, ALICE, weeks_ago(6), (1,)),
                                    StateFact(11, BOB, weeks_ago(2), (2,))))

    summary = summary_of(item, reporters)

    assert summary.name == "API Migration reported and open since 9 Nov"
    assert summary.summary == ("API Migration has been reported and open since 9 Nov (6 weeks by "
                               "21 Dec), with no status in these updates; reported by Alice and "
                               "Bob.")


def test_an_agenda_item_reads_on_the_agenda_in_k_of_the_last_n_weeks() -> None:
    item = ItemState(ITEM, mentions=mentions(0.5, 1.5, 3.5, 4.5))

    summary = summary_of(item, ENTITIES)

    assert summary.name == "API Migration on the agenda in 4 of the last 5 weeks"
    assert summary.summary == ("API Migration has been on the agenda in 4 of the last 5 weeks: "
                               "4 updates mention it since 20 Nov.")


# --- Which stalls are observations of their own ----------------------------------------------


def said(stall: Stall, weeks: float) -> Stall:
    return replace(stall, last_said=weeks_ago(weeks))


def test_a_stall_gone_quiet_inside_a_pattern_is_the_patterns_to_show() -> None:
    stall = stall_of(ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5)),)))
    assert stall is not None

    own, within = stalls_to_show([said(stall, 5)], shown={10}, after_weeks=3)

    assert (own, within) == ((), (said(stall, 5),))


def test_a_stall_someone_keeps_restating_is_its_own_observation_inside_a_pattern_too() -> None:
    stall = stall_of(ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5), 1, 2),)))
    assert stall is not None

    own, within = stalls_to_show([said(stall, 1)], shown={10}, after_weeks=3)

    assert (own, within) == ((said(stall, 1),), ())
    assert not is_quiet(said(stall, 1), 3) and is_quiet(said(stall, 3), 3)


def test_a_quiet_stall_no_pattern_holds_is_its_own_observation() -> None:
    """A tracker's item alone, "in status NEW since 2008": nothing else shows it."""
    stall = stall_of(ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(900)),)))
    assert stall is not None

    own, within = stalls_to_show([said(stall, 900)], shown={11}, after_weeks=3)

    assert (own, within) == ((said(stall, 900),), ())


# --- One stall per message --------------------------------------------------------------------

TICKET, PROBLEM, KENSAI = 20, 21, 22


def one_message_reporting_a_problem_and_naming_its_ticket() -> list[Stall]:
    """"Login fails since 2024.5 … #9262": kensaiD2591 REPORTED the Login Failures and REPORTED
    bitwarden/clients#9262, both read from update 300 alone."""
    items = [ItemState(PROBLEM, reports=(StateFact(30, KENSAI, weeks_ago(80), (300,)),)),
             ItemState(TICKET, reports=(StateFact(31, KENSAI, weeks_ago(80), (300,)),))]
    return list(find_stalls(items, NOW, 3, UNSTUCK))


def test_one_message_reporting_a_problem_and_its_ticket_is_one_stall_the_tickets() -> None:
    found = one_message_reporting_a_problem_and_naming_its_ticket()
    assert [s.item_id for s in found] == [TICKET, PROBLEM]

    (stall,) = one_stall_per_evidence(found, preferred={TICKET})

    assert (stall.item_id, stall.also_ids, stall.state) == (TICKET, (PROBLEM,), REPORTED_STATE)
    assert (stall.fact_ids, stall.episode_ids, stall.other_ids) == ((30, 31), (300,), (KENSAI,))


def test_the_one_stall_is_the_same_whatever_the_order_of_the_stalls() -> None:
    found = one_message_reporting_a_problem_and_naming_its_ticket()

    assert one_stall_per_evidence(found, {TICKET}) == one_stall_per_evidence(
        list(reversed(found)), {TICKET})
    assert one_stall_per_evidence(found)[0].item_id == TICKET  # the smallest id without a ticket


def test_stalls_of_different_updates_stay_apart_even_sharing_one() -> None:
    first = stall_of(ItemState(ITEM, statuses=(status(10, IN_REVIEW, weeks_ago(5), 100),)))
    second = stall_of(ItemState(9, statuses=(status(11, IN_REVIEW, weeks_ago(5), 100, 101),)))
    assert first is not None and second is not None

    assert one_stall_per_evidence([first, second]) == (first, second)


def test_stalls_to_show_shows_one_stall_per_message() -> None:
    found = one_message_reporting_a_problem_and_naming_its_ticket()

    own, within = stalls_to_show(found, shown=set(), after_weeks=3, preferred={TICKET})

    assert [(s.item_id, s.also_ids) for s in own] == [(TICKET, (PROBLEM,))] and within == ()


def test_the_ticket_stall_names_the_problem_it_reports() -> None:
    (stall,) = one_stall_per_evidence(one_message_reporting_a_problem_and_naming_its_ticket(),
                                      {TICKET})
    entities = {TICKET: EntityInfo(TICKET, "bitwarden/clients#9262", "WorkItem"),
                PROBLEM: EntityInfo(PROBLEM, "Login Failures (bitwarden/clients)", "Issue"),
                KENSAI: EntityInfo(KENSAI, "kensaiD2591", "Customer")}
    cluster = stall_cluster(stall)
    episodes = {300: EpisodeInfo(300, stall.since)}
    structure = stall_structure(stall, cluster, entities, episodes)
    facts = {30: FactInfo(30, KENSAI, "REPORTED", PROBLEM, (300,)),
             31: FactInfo(31, KENSAI, "REPORTED", TICKET, (300,))}

    summary = summarize_with_template(structure, facts, entities, episodes)

    assert validate_summary(summary, cluster.fact_ids) == []
    assert PROBLEM in structure.entity_ids
    assert summary.name.startswith("bitwarden/clients#9262 reports ")
    assert "Login Failures (bitwarden/clients), open since " in summary.name
    assert "it reports" in summary.summary and "Login Failures" in summary.summary
    assert summary.summary == (
        "bitwarden/clients#9262 has been reported and open since 9 Jun 2025 (80 weeks by "
        "21 Dec 2026), with no status in these updates; reported by kensaiD2591; it reports the "
        "Login Failures (bitwarden/clients).")


# --- A tracker's own stall -----------------------------------------------------------------------

TRACKER, TRACKED = 40, 41


def test_a_quiet_trackers_own_stall_is_held_by_its_tracker_pattern() -> None:
    """Bug 447581 "[meta]" stays NEW by design: its tracker card says so, as Bug 1556846's does,
    instead of a card of its own (its status is not among the tracker pattern's facts)."""
    stall = stall_of(ItemState(TRACKER, statuses=(status(50, IN_REVIEW, weeks_ago(900)),)))
    assert stall is not None
    rows = [(60, 51, TRACKER, "TRACKS", TRACKED), (61, 52, TRACKED, "HAS_STATUS", IN_REVIEW)]
    trackers = tracking_facts(rows, shown={51})
    pattern = Cluster(episode_ids=(60,), fact_ids=(51,), links=())

    own, within = stalls_to_show([said(stall, 900)], shown={51}, after_weeks=3,
                                 trackers=trackers)

    assert trackers == {TRACKER: frozenset({51})}
    assert (own, within) == ((), (said(stall, 900),))
    assert held_by_patterns([pattern], within, trackers) == {pattern.key: within}


def test_a_tracker_someone_keeps_moving_is_still_its_own_stall() -> None:
    stall = stall_of(ItemState(TRACKER, statuses=(status(50, IN_REVIEW, weeks_ago(900)),)))
    assert stall is not None

    own, _ = stalls_to_show([said(stall, 1)], shown={51}, after_weeks=3,
                            trackers={TRACKER: frozenset({51})})

    assert own == (said(stall, 1),)


def test_one_update_naming_two_tickets_is_one_stall_naming_both() -> None:
    """A maintainer's "Looks like a duplicate of #5116" in the thread of #5287: one stall, the
    two tickets in its name (neither "reports" the other)."""
    summary = summary_of_two_tickets_said_in((300,))

    assert summary.name.startswith("docker/for-mac#5287 and docker/for-mac#5116 reported and "
                                   "open since ")
    assert "the same update names docker/for-mac#5116" in summary.summary
    assert summary.summary == (
        "docker/for-mac#5287 has been reported and open since 9 Jun 2025 (80 weeks by "
        "21 Dec 2026), with no status in these updates; reported by thaJeztah; the same update "
        "names docker/for-mac#5116.")


def test_two_updates_naming_two_tickets_name_the_other_in_the_plural() -> None:
    summary = summary_of_two_tickets_said_in((300, 301))

    assert summary.name == ("docker/for-mac#5287 and docker/for-mac#5116 reported and open since "
                            "9 Jun 2025")
    assert summary.summary.endswith("; the same updates name docker/for-mac#5116.")


def summary_of_two_tickets_said_in(updates: tuple[int, ...]) -> Summary:
    other = 23
    since = weeks_ago(80)
    found = find_stalls([ItemState(TICKET, reports=(StateFact(31, KENSAI, since, updates),)),
                         ItemState(other, reports=(StateFact(32, KENSAI, since, updates),))],
                        NOW, 3, UNSTUCK)
    (stall,) = one_stall_per_evidence(found, preferred={TICKET, other})
    entities = {TICKET: EntityInfo(TICKET, "docker/for-mac#5287", "WorkItem"),
                other: EntityInfo(other, "docker/for-mac#5116", "WorkItem"),
                KENSAI: EntityInfo(KENSAI, "thaJeztah", "Customer")}
    cluster = stall_cluster(stall)
    episodes = {e: EpisodeInfo(e, stall.since) for e in cluster.episode_ids}
    facts = {31: FactInfo(31, KENSAI, "REPORTED", TICKET, updates),
             32: FactInfo(32, KENSAI, "REPORTED", other, updates)}
    summary = summarize_with_template(stall_structure(stall, cluster, entities, episodes), facts,
                                      entities, episodes)
    assert validate_summary(summary, cluster.fact_ids) == []
    return summary
