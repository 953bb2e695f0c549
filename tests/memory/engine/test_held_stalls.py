"""A pattern shows the quiet stalls it holds (issue #13 item 5): which pattern holds each, and
the words its summary gives them — the item, its state, since when and how long, citing the
facts that carry it; items in the same state since the same day in one plural sentence; the
oldest few named and the others counted. Pure: plain data, no ORM."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memory.engine.stalled import (
    AGENDA,
    BLOCKED,
    STATUS,
    Stall,
    held_by_patterns,
    with_held_stalls,
)
from memory.engine.structure import Structure, analyse_cluster
from memory.engine.template_summary import summarize_with_template
from memory.engine.types import MAX_CLAIMS, Cluster, Link, Summary, validate_summary
from tests.memory.engine.stories import Story

NOW = datetime(2026, 12, 5, 12, tzinfo=UTC)
CLEAR_DATA = "Clear Private Data should also reset last directory saved to"
FILED = datetime(2008, 7, 20, 16, 54, tzinfo=UTC)


def stall(item: int, facts: tuple[int, ...], since: datetime, *, state: str = STATUS,
          others: tuple[int, ...] = ()) -> Stall:
    """Found at ``NOW``, last said when it began (quiet)."""
    return Stall(item_id=item, state=state, since=since, as_of=NOW, fact_ids=facts,
                 episode_ids=(1,), other_ids=others, last_said=since)


def cluster_of(story: Story) -> Cluster:
    """Every update and fact of the story as one pattern."""
    return Cluster(episode_ids=tuple(sorted(story.episode_meta)),
                   fact_ids=tuple(sorted(story.fact_ids.values())), links=())


def structure_of(story: Story) -> Structure:
    return analyse_cluster(cluster_of(story), story.facts, story.entities, story.episodes)


def summary_holding(story: Story, *stalls: Stall) -> Summary:
    structure = with_held_stalls(structure_of(story), stalls)
    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)
    assert validate_summary(summary, structure.fact_ids) == []
    return summary


def root_blocker_filed_in_2008() -> Story:
    """Bug 1102808 waits on Bug 446261, NEW since it was filed in 2008 (the Bugzilla sample)."""
    story = Story().title("Bug 446261", CLEAR_DATA).declare("Status", "NEW")
    story.episode("Mladen", ("Bug 446261", "HAS_STATUS", "NEW"), at=FILED)
    story.episode("Gijs", ("Bug 1102808", "DEPENDS_ON", "Bug 446261"),
                  at=datetime(2019, 12, 9, tzinfo=UTC))
    return story


# --- Which pattern holds a stall -------------------------------------------------------------


def test_a_stall_is_held_by_the_pattern_holding_its_facts_oldest_first() -> None:
    chain = Cluster(episode_ids=(1, 2), fact_ids=(10, 11, 12), links=())
    other = Cluster(episode_ids=(3,), fact_ids=(20,), links=())
    young = stall(7, (11,), datetime(2026, 10, 1, tzinfo=UTC))
    old = stall(8, (12,), FILED)

    held = held_by_patterns([chain, other], [young, old])

    assert held == {1: (old, young)}


def test_a_stall_split_between_patterns_is_held_by_the_one_holding_most_of_it_then_the_first(
) -> None:
    first = Cluster(episode_ids=(1,), fact_ids=(10,), links=())
    second = Cluster(episode_ids=(2,), fact_ids=(11, 12), links=())
    mostly_second = stall(7, (10, 11, 12), FILED)
    even = stall(8, (10, 11), FILED)

    held = held_by_patterns([second, first], [mostly_second, even])

    assert held == {2: (mostly_second,), 1: (even,)}


def test_a_stall_no_pattern_holds_is_nobodys_and_no_stall_changes_no_structure() -> None:
    story = root_blocker_filed_in_2008()
    structure = structure_of(story)

    assert held_by_patterns([cluster_of(story)], [stall(99, (5,), FILED)]) == {}
    assert held_by_patterns([cluster_of(story)], []) == {}
    assert with_held_stalls(structure, None) is structure
    assert with_held_stalls(structure, ()) is structure


# --- Its words -------------------------------------------------------------------------------


def test_the_chain_says_how_long_its_root_blocker_has_been_stuck_citing_its_status() -> None:
    story = root_blocker_filed_in_2008()
    status = story.fact("Bug 446261", "HAS_STATUS", "NEW")
    held = stall(story.id("Bug 446261"), (status,), FILED, others=(story.id("NEW"),))

    summary = summary_holding(story, held)

    # The chain introduced the bug by its title: its stall reads by its key.
    assert summary.summary.endswith(
        "Bug 446261 has been in status NEW since 20 Jul 2008 (over 18 years by 5 Dec 2026).")
    assert summary.claims[-1].fact_ids == (status,)
    assert structure_of(story).as_dict()["held_stalls"] == []
    assert with_held_stalls(structure_of(story), (held,)).as_dict()["held_stalls"] == [
        held.as_dict()]


def test_an_item_the_pattern_does_not_name_reads_by_its_title() -> None:
    story = root_blocker_filed_in_2008().title("Bug 99", "Crash on start")
    fact = story.fact("Bug 99", "HAS_STATUS", "NEW")
    story.episode("Mladen", ("Bug 99", "HAS_STATUS", "NEW"), at=datetime(2026, 10, 30, tzinfo=UTC))

    summary = summary_holding(story, stall(story.id("Bug 99"), (fact,), datetime(
        2026, 10, 30, tzinfo=UTC), others=(story.id("NEW"),)))

    assert summary.claims[-1].text == ("Bug 99 “Crash on start” has been in status NEW since "
                                       "30 Oct (5 weeks by 5 Dec).")


def test_two_items_in_the_same_state_since_the_same_day_read_as_one_sentence_in_the_plural(
) -> None:
    story = root_blocker_filed_in_2008()
    first = story.fact("Bug 1556846", "HAS_STATUS", "NEW")
    second = story.fact("Bug 1572869", "HAS_STATUS", "NEW")
    story.episode("Jan", ("Bug 1556846", "HAS_STATUS", "NEW"),
                  ("Bug 1572869", "HAS_STATUS", "NEW"), at=datetime(2019, 8, 9, tzinfo=UTC))
    new = (story.id("NEW"),)
    since = datetime(2019, 8, 9, 21, tzinfo=UTC)

    summary = summary_holding(
        story, stall(story.id("Bug 1556846"), (first,), since, others=new),
        stall(story.id("Bug 1572869"), (second,), since.replace(hour=22), others=new))

    assert summary.claims[-1].text == ("Bug 1556846 and Bug 1572869 have been in status NEW "
                                       "since 9 Aug 2019 (over 7 years by 5 Dec 2026).")
    assert summary.claims[-1].fact_ids == (first, second)


def test_a_blocked_item_held_by_a_pattern_says_what_it_waits_on() -> None:
    story = root_blocker_filed_in_2008()
    waits = story.fact("Bug 1102808", "DEPENDS_ON", "Bug 446261")

    summary = summary_holding(story, stall(
        story.id("Bug 1102808"), (waits,), datetime(2019, 12, 9, tzinfo=UTC), state=BLOCKED,
        others=(story.id("Bug 446261"),)))

    assert summary.claims[-1].text == ("Bug 1102808 has been blocked since 9 Dec 2019 (over 6 "
                                       "years by 5 Dec 2026), waiting on Bug 446261.")


def many_quiet_items(n: int) -> tuple[Story, list[Stall]]:
    """``n`` items NEW since as many different days of 2026, the oldest first."""
    story = root_blocker_filed_in_2008()
    stalls = []
    for i in range(n):
        since = datetime(2026, 1 + i, 1, tzinfo=UTC)
        story.episode("Mladen", (f"Item {i}", "HAS_STATUS", "NEW"), at=since)
        stalls.append(stall(story.id(f"Item {i}"), (story.fact(f"Item {i}", "HAS_STATUS", "NEW"),),
                            since, others=(story.id("NEW"),)))
    return story, stalls


def test_beyond_four_the_three_oldest_are_named_and_the_others_counted_citing_theirs() -> None:
    story, stalls = many_quiet_items(7)

    summary = summary_holding(story, *reversed(stalls))

    texts = [claim.text for claim in summary.claims]
    assert texts[-4].startswith("Item 0 has been in status NEW since 1 Jan (48 weeks by ")
    assert texts[-3].startswith("Item 1 has been in status NEW since 1 Feb")
    assert texts[-2].startswith("Item 2 has been in status NEW since 1 Mar")
    assert texts[-1] == ("4 more items here have not moved for 22 weeks or more: Item 3, "
                         "Item 4, Item 5 and Item 6.")
    assert summary.claims[-1].fact_ids == tuple(f for s in stalls[3:] for f in s.fact_ids)


def test_four_are_all_named_rather_than_one_counted() -> None:
    story, stalls = many_quiet_items(4)

    summary = summary_holding(story, *stalls)

    assert [claim.text.split(" has been")[0] for claim in summary.claims[-4:]] == [
        "Item 0", "Item 1", "Item 2", "Item 3"]


def test_five_are_three_named_and_two_counted_in_the_plural() -> None:
    story, stalls = many_quiet_items(5)

    summary = summary_holding(story, *stalls)

    assert [claim.text.split(" has been")[0] for claim in summary.claims[-4:-1]] == [
        "Item 0", "Item 1", "Item 2"]
    assert summary.claims[-1].text == (
        "2 more items here have not moved for 31 weeks or more: Item 3 and Item 4.")


def test_the_patterns_own_claims_give_way_so_its_held_stalls_always_fit() -> None:
    story, stalls = many_quiet_items(8)
    status = story.id("NEW")
    episodes = tuple(sorted(story.episode_meta))
    # What the updates share, one sentence a signature: as many sentences as a summary holds.
    shared = replace(structure_of(story), kind="shared_context", dependency=None, links=tuple(
        Link(s.item_id, "HAS_STATUS", status, episodes, s.fact_ids) for s in stalls))
    plain = summarize_with_template(shared, story.facts, story.entities, story.episodes)

    summary = summarize_with_template(with_held_stalls(shared, tuple(stalls[:4])), story.facts,
                                      story.entities, story.episodes)

    assert len(plain.claims) == MAX_CLAIMS
    assert len(summary.claims) == MAX_CLAIMS
    assert summary.claims[:4] == plain.claims[:4]
    assert [claim.text.split(" has been")[0] for claim in summary.claims[4:]] == [
        "Item 0", "Item 1", "Item 2", "Item 3"]


def test_two_items_on_the_agenda_since_the_same_day_keep_a_sentence_each() -> None:
    # Each has its own share of the weeks: one plural sentence would give the first one's to
    # both. (An item on the agenda is mentioned in several updates, one a week at least.)
    story = root_blocker_filed_in_2008()
    first = story.fact("Bug 1556846", "HAS_STATUS", "NEW")
    second = story.fact("Bug 1572869", "HAS_STATUS", "NEW")
    story.episode("Jan", ("Bug 1556846", "HAS_STATUS", "NEW"),
                  ("Bug 1572869", "HAS_STATUS", "NEW"), at=datetime(2026, 10, 5, tzinfo=UTC))
    since = datetime(2026, 10, 5, 9, tzinfo=UTC)

    summary = summary_holding(
        story,
        replace(stall(story.id("Bug 1556846"), (first,), since, state=AGENDA),
                weeks_mentioned=8, weeks_counted=9, episode_ids=(1, 2)),
        replace(stall(story.id("Bug 1572869"), (second,), since.replace(hour=10), state=AGENDA),
                weeks_mentioned=6, weeks_counted=9, episode_ids=(1, 2)))

    assert [claim.text for claim in summary.claims[-2:]] == [
        "Bug 1556846 has been on the agenda in 8 of the last 9 weeks: 2 updates mention it "
        "since 5 Oct.",
        "Bug 1572869 has been on the agenda in 6 of the last 9 weeks: 2 updates mention it "
        "since 5 Oct."]


def test_a_duplicate_tracker_introduced_with_the_same_title_is_held_by_its_key_alone() -> None:
    story = Story().declare("Status", "NEW")
    story.title("Bug 1556846", CLEAR_DATA).title("Bug 1572869", CLEAR_DATA)
    for bug in ("Bug 1575995", "Bug 1577367"):
        story.episode("Alastor", ("Bug 1556846", "TRACKS", bug))
        story.episode("Alastor", ("Bug 1572869", "TRACKS", bug))
    story.episode("Jan", ("Bug 1572869", "HAS_STATUS", "NEW"), at=datetime(2019, 8, 9, tzinfo=UTC))
    status = story.fact("Bug 1572869", "HAS_STATUS", "NEW")

    summary = summary_holding(story, stall(story.id("Bug 1572869"), (status,),
                                           datetime(2019, 8, 9, 21, tzinfo=UTC),
                                           others=(story.id("NEW"),)))

    assert [claim.text for claim in summary.claims[-2:]] == [
        "Bug 1572869, with the same title, tracks the same 2 items as Bug 1556846.",
        "Bug 1572869 has been in status NEW since 9 Aug 2019 (over 7 years by 5 Dec 2026)."]
