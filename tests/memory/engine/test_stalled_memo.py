"""Incremental stalled-item detection: a run after another examines only the items whose inputs
changed or whose moment came, and finds exactly what a full detection finds on the same input."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from memory.engine.stalled import AGENDA, BLOCKED, STATUS
from memory.engine.stalled_memo import (
    StallMemo,
    detect_stalls,
    memo_as_bytes,
    memo_from_bytes,
    touched_items,
)
from memory.engine.types import Row

NOW = datetime(2026, 12, 21, 12, tzinfo=UTC)
IN_REVIEW, DONE, ALICE, BOB, REVIEW_ITEM = 900, 901, 902, 903, 904
UNSTUCK = frozenset({DONE})


@dataclass
class World:
    """A graph's rows with when each fact began and each update was written."""

    rows: list[Row] = field(default_factory=list)
    valid_at: dict[int, datetime] = field(default_factory=dict)
    written: dict[int, datetime] = field(default_factory=dict)
    kinds: set[int] = field(default_factory=set)
    shown: set[int] = field(default_factory=set)

    def say(self, episode: int, fact: int, source: int, relation: str, target: int,
            when: datetime) -> None:
        self.rows.append((episode, fact, source, relation, target))
        self.valid_at.setdefault(fact, when)
        self.written.setdefault(episode, when)

    def detect(self, as_of: datetime, memo: StallMemo | None = None,
               after_weeks: int = 3, touched: set[int] | None = None) -> tuple[StallMemo, int]:
        return detect_stalls(
            self.rows, self.kinds, as_of=as_of, after_weeks=after_weeks,
            unstuck_status_ids=UNSTUCK, shown=self.shown, memo=memo,
            load_valid_at=lambda facts: _only(self.valid_at, facts),
            load_reference_times=lambda episodes: _only(self.written, episodes),
            touched=touched,
        )

    def touched_since(self, before: World) -> set[int]:
        """The items a run told what changed since ``before`` would scan again."""
        now, then = set(self.rows), set(before.rows)
        return touched_items([*(now - then), *(then - now)], self.rows,
                             facts=self.shown ^ before.shown, items=self.kinds ^ before.kinds)

    def copy(self) -> World:
        return World(list(self.rows), dict(self.valid_at), dict(self.written), set(self.kinds),
                     set(self.shown))


def _only(values: Mapping[int, datetime], ids: set[int]) -> dict[int, datetime]:
    return {i: values[i] for i in ids if i in values}


def weeks_ago(weeks: float) -> datetime:
    return NOW - timedelta(weeks=weeks)


def small_world() -> World:
    """Item 1 in review for 5 weeks; item 2 waiting on item 3 for 4 weeks; item 4 in review for
    2 weeks (stalled in a week); item 5 mentioned weekly with no state (on the agenda)."""
    world = World(kinds={1, 2, 3, 4, 5})
    world.say(10, 100, 1, "HAS_STATUS", IN_REVIEW, weeks_ago(5))
    world.say(11, 101, 2, "DEPENDS_ON", 3, weeks_ago(4))
    world.say(12, 102, 4, "HAS_STATUS", IN_REVIEW, weeks_ago(2))
    for week in range(5):
        world.say(20 + week, 110 + week, ALICE, "MENTIONS", 5, weeks_ago(week + 0.5))
    return world


def test_a_run_after_another_with_nothing_changed_examines_nothing_and_finds_the_same() -> None:
    world = small_world()
    first, _ = world.detect(NOW)

    again, examined = world.detect(NOW + timedelta(hours=1), first)

    assert examined == 0
    assert sorted(again.stalls) == sorted(first.stalls) == [1, 2, 5]
    assert again.stalls[1].as_of == NOW + timedelta(hours=1)  # found again at the run's time
    assert again == world.detect(NOW + timedelta(hours=1))[0]


def test_an_item_crossing_the_threshold_by_time_alone_is_examined_and_found() -> None:
    world = small_world()
    first, _ = world.detect(NOW)
    assert 4 not in first.stalls

    later, examined = world.detect(NOW + timedelta(weeks=1, hours=1), first)

    assert later.stalls[4].state == STATUS
    # Item 4's moment came; item 5's mentions moved a week back; the others are as they were.
    assert examined == 2
    assert later == world.detect(NOW + timedelta(weeks=1, hours=1))[0]


def test_only_the_items_whose_facts_changed_are_examined() -> None:
    world = small_world()
    first, _ = world.detect(NOW)

    world.say(30, 103, 1, "DEPENDS_ON", REVIEW_ITEM, weeks_ago(6))  # item 1 waits on something
    world.kinds.add(REVIEW_ITEM)
    later, examined = world.detect(NOW + timedelta(minutes=5), first)

    assert examined == 2  # item 1 and the item it waits on (now named by the rows)
    assert later.stalls[1].state == BLOCKED
    assert later == world.detect(NOW + timedelta(minutes=5))[0]


def test_a_dependency_a_pattern_now_shows_makes_its_item_the_chains_to_show() -> None:
    world = small_world()
    first, _ = world.detect(NOW)
    assert first.stalls[2].state == BLOCKED

    world.shown.add(101)
    later, examined = world.detect(NOW + timedelta(minutes=5), first)

    assert examined == 1 and 2 not in later.stalls
    assert later == world.detect(NOW + timedelta(minutes=5))[0]


def test_an_item_done_since_is_no_longer_stalled() -> None:
    world = small_world()
    first, _ = world.detect(NOW)

    world.say(31, 104, 1, "HAS_STATUS", DONE, NOW)
    later, _ = world.detect(NOW + timedelta(minutes=5), first)

    assert 1 not in later.stalls
    assert later == world.detect(NOW + timedelta(minutes=5))[0]


@pytest.mark.parametrize("after_weeks, as_of", [(2, NOW), (3, NOW - timedelta(days=1))])
def test_a_memo_of_another_threshold_or_a_later_time_is_not_used(
    after_weeks: int, as_of: datetime,
) -> None:
    world = small_world()
    first, _ = world.detect(NOW)

    again, examined = world.detect(as_of, first, after_weeks=after_weeks)

    assert examined == len(first.digests)
    assert again == world.detect(as_of, after_weeks=after_weeks)[0]


def test_the_memo_reads_back_as_it_was_written() -> None:
    world = small_world()
    memo, _ = world.detect(NOW)

    again = memo_from_bytes(memo_as_bytes(memo))

    assert again == memo
    assert again is not None and again.stalls[5].state == AGENDA


def test_a_memo_of_another_format_is_none() -> None:
    assert memo_from_bytes(b"something else") is None


# --- Incremental against full, on graphs changed between runs ------------------------------------

STATUSES = (IN_REVIEW, DONE, 905, 906)


def random_world(rng: random.Random, items: int = 40, episodes: int = 160) -> World:
    world = World(kinds=set(range(1, items + 1)))
    fact = 1000
    for episode in range(1, episodes + 1):
        when = NOW - timedelta(days=rng.uniform(0, 70))
        for _ in range(rng.randint(1, 3)):
            fact += 1
            item = rng.randint(1, items)
            kind = rng.random()
            if kind < 0.35:
                world.say(episode, fact, item, "HAS_STATUS", rng.choice(STATUSES), when)
            elif kind < 0.5:
                world.say(episode, fact, item, "DEPENDS_ON", rng.randint(1, items), when)
            elif kind < 0.6:
                world.say(episode, fact, rng.choice((ALICE, BOB)), "REPORTED", item, when)
            else:
                world.say(episode, fact, rng.choice((ALICE, BOB)), "MENTIONS", item, when)
    world.shown = {f for f in world.valid_at if rng.random() < 0.1}
    return world


def change(world: World, rng: random.Random) -> None:
    """Facts closed, restated, added (some starting in the future), patterns showing other
    facts, an item no longer of a kind that stalls."""
    world.rows = [row for row in world.rows if rng.random() > 0.05]
    next_episode = max(world.written) + 1
    for row in rng.sample(world.rows, k=min(8, len(world.rows))):
        world.say(next_episode, row[1], row[2], row[3], row[4], NOW)
        next_episode += 1
    fact = max(world.valid_at) + 1
    for _ in range(10):
        item = rng.choice(sorted(world.kinds))
        when = NOW + timedelta(days=rng.uniform(-30, 10))
        world.say(next_episode, fact, item, "HAS_STATUS", rng.choice(STATUSES), when)
        next_episode, fact = next_episode + 1, fact + 1
    world.shown ^= {f for f in world.valid_at if rng.random() < 0.05}
    world.kinds.discard(rng.choice(sorted(world.kinds)))


@pytest.mark.parametrize("seed", range(12))
def test_incremental_detection_finds_what_full_detection_finds_on_a_changed_graph(
    seed: int,
) -> None:
    rng = random.Random(seed)
    world = random_world(rng)
    memo, _ = world.detect(NOW)
    as_of = NOW
    for _ in range(3):
        change(world, rng)
        as_of += timedelta(days=rng.choice((0.01, 1, 4, 9, 30)))

        incremental, examined = world.detect(as_of, memo)
        full, everything = world.detect(as_of)

        assert incremental == full
        assert examined <= everything
        memo = memo_from_bytes(memo_as_bytes(incremental))


@pytest.mark.parametrize("seed", range(12))
def test_detection_scanning_only_the_touched_items_finds_what_full_detection_finds(
    seed: int,
) -> None:
    rng = random.Random(seed)
    world = random_world(rng)
    memo, _ = world.detect(NOW)
    as_of = NOW
    for _ in range(4):
        before = world.copy()
        change(world, rng)
        as_of += timedelta(days=rng.choice((0.01, 1, 4, 9, 30)))

        incremental, _ = world.detect(as_of, memo, touched=world.touched_since(before))
        full, _ = world.detect(as_of)

        assert incremental == full
        memo = memo_from_bytes(memo_as_bytes(incremental))


def test_a_run_told_nothing_changed_keeps_every_digest_and_examines_nothing() -> None:
    world = small_world()
    first, _ = world.detect(NOW)

    again, examined = world.detect(NOW + timedelta(hours=1), first, touched=set())

    assert examined == 0
    assert again.digests == first.digests
    assert sorted(again.stalls) == [1, 2, 5]


def test_a_new_status_touches_its_item_only() -> None:
    world = small_world()
    before = world.copy()
    world.say(30, 130, 4, "HAS_STATUS", DONE, NOW)

    assert world.touched_since(before) == {4, DONE}


def test_a_fact_a_pattern_now_shows_touches_the_items_its_rows_name() -> None:
    world = small_world()
    before = world.copy()
    world.shown.add(101)

    assert world.touched_since(before) == {2, 3}
