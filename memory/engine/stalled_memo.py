"""Incremental stalled-item detection (issue #13 item 5, within issue #3's incremental target).
Pure: plain data in, plain data out, no ORM.

Finding the stalled items from every item's state costs a pass over the graph's states and a
query of when each state began, every run (1–2.6 s at 100,000 updates on a shared machine). A
run that follows another needs neither for most items: an item's stall is a function of its own
inputs (its state facts, the updates stating or mentioning it, which of its facts a pattern
shows) and of time, and time changes it only at known moments — when one of its facts begins,
when a fact has lasted ``after_weeks`` weeks, and (for "on the agenda") when one of its mentions
moves into the next week back. So each run leaves a ``StallMemo``: every item's digest of its
inputs (times aside), the stalls, and for each item the first moment at which time alone could
change it (``until``). The next run examines again only the items whose digest changed (new,
restated, closed or moved facts; a pattern now showing their dependency; boilerplate now
suppressed; a status now final) or whose moment came, and takes the others' stalls as they were
(with the run's own ``as_of``). The result is the one a full detection gives on the same input
(``tests/memory/engine/test_stalled_memo.py`` compares them on a graph changed between runs).

What a digest does not see: a fact's start (``valid_at``) and an update's reference time. Both are
written once — a fact's start moves only when an update states it again, which adds an evidence
row and so changes the digest — so an unchanged digest means unchanged times.

Contract
--------
``detect_stalls(rows, kinds, as_of, after_weeks, unstuck_status_ids, shown, memo, load_valid_at,
load_reference_times, touched=None) -> (StallMemo, examined)``
    The stalled items at ``as_of`` as this run's memo, examining only what ``memo`` (the last
    run's) cannot answer; without a usable memo (none, another threshold, a later time) every
    item: the full detection. The loaders are the database's, asked only for examined items.
    With ``touched`` (``touched_items``: every item whose rows, kind or flags may have changed
    since ``memo``'s run), only the rows naming those items and the items whose moment came are
    scanned; the other items keep the memo's digests. Same result, a pass proportional to what
    changed instead of one over every row.
``scan_items(rows, kinds, shown, unstuck_status_ids) -> ItemScan``
    One pass over the run's rows (boilerplate already left out): each item's digest, the state
    facts of the items that may be stalled, the updates mentioning each item with no state.
``memo_as_bytes(memo) -> bytes`` / ``memo_from_bytes(data) -> StallMemo | None``
    What is kept between runs (``None``: another format — the next run examines every item).
"""

from __future__ import annotations

import json
import sys
from array import array
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from memory.engine.stalled import WEEK, ItemState, Stall, find_stall, item_states, weeks_between
from memory.engine.structure import DEPENDS_ON, HAS_STATUS, REPORTED
from memory.engine.types import Row

_STATE_RELATIONS = frozenset({HAS_STATUS, DEPENDS_ON, REPORTED})
# Relations enter the digests as numbers: Python salts the hashes of strings per process, and a
# memo is read by another process than the one that wrote it. Tuples of ints hash alike in
# every process (of one Python version; another version only makes the next run examine all).
_STATUS, _WAITS, _REPORTS, _MENTION = 1, 2, 3, 4
MASK = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class StallMemo:
    as_of: datetime
    after_weeks: int
    digests: Mapping[int, int] = field(default_factory=dict)
    """Every item the rows named → the digest of what detection read about it."""
    until: Mapping[int, datetime] = field(default_factory=dict)
    """Item → the first moment after ``as_of`` at which time alone may change its stall (an
    item absent: never, while its inputs stay as they are)."""
    stalls: Mapping[int, Stall] = field(default_factory=dict)
    """The stalled items at ``as_of``, by item id (ascending)."""


@dataclass(slots=True)
class ItemScan:
    digests: dict[int, int]
    state_facts: dict[int, list[int]]
    """Items with a state fact that may be stalled → those facts (what ``valid_at`` is asked
    for). Items done, on track or waiting in a shown chain are not here: never stalled."""
    mentioned: dict[int, set[int]]
    """Items with no state fact → the updates mentioning them (the "on the agenda" candidates
    are those mentioned by ``after_weeks`` of them or more)."""


def scan_items(
    rows: Sequence[Row], kinds: Set[int], shown: Set[int], unstuck_status_ids: Set[int]
) -> ItemScan:
    digests: dict[int, int] = {}
    state_facts: dict[int, list[int]] = {}
    excluded: set[int] = set()
    get = digests.get
    # This runs over every row of the graph on every run (~540,000 at 100,000 updates): one set
    # test per row, indexing rather than unpacking; the digest work only on the state rows.
    for row in rows:
        relation = row[3]
        if relation not in _STATE_RELATIONS:
            continue
        if relation == HAS_STATUS:
            item, other, code = row[2], row[4], _STATUS
            if item not in kinds:
                continue
            flag = other in unstuck_status_ids  # done or on track: never stalled
        elif relation == DEPENDS_ON:
            item, other, code = row[2], row[4], _WAITS
            if item not in kinds:
                continue
            flag = row[1] in shown  # waiting in a chain a pattern shows: the chain's to show
        else:
            item, other, code = row[4], row[2], _REPORTS
            if item not in kinds:
                continue
            flag = row[1] in shown  # reports a pattern shows: not "reported and open"
        digests[item] = get(item, 0) + hash((code, row[1], other, row[0], flag))
        if flag and code != _REPORTS:
            excluded.add(item)
        facts = state_facts.get(item)
        if facts is None:
            state_facts[item] = [row[1]]
        else:
            facts.append(row[1])
    # Only an item with no state is judged by its mentions (an item with a state is judged by
    # it: an update naming it in passing changes nothing), so only theirs are read.
    loose = kinds - state_facts.keys()
    pairs: dict[int, set[tuple[int, int]]] = {}
    if loose:
        for row in rows:
            if row[2] in loose:
                pairs.setdefault(row[2], set()).add((row[0], row[1]))
            if row[4] in loose:
                pairs.setdefault(row[4], set()).add((row[0], row[1]))
    mentioned: dict[int, set[int]] = {}
    for item, found in pairs.items():
        mentioned[item] = {episode for episode, _ in found}
        digests[item] = sum(hash((_MENTION, *pair)) for pair in found)
    for item in excluded:
        del state_facts[item]
    # A sum over an item's distinct rows (the evidence holds a fact once per update), kept to 64
    # bits for the memo.
    return ItemScan(digests={item: d & MASK for item, d in digests.items()},
                    state_facts=state_facts, mentioned=mentioned)


def touched_items(
    changed: Iterable[Row], rows: Sequence[Row], *, facts: Set[int] = frozenset(),
    targets: Set[int] = frozenset(), items: Iterable[int] = (),
) -> set[int]:
    """The items whose digest may differ from the last run's: those the ``changed`` rows (added
    or removed since) name; those named by a row of ``facts`` (whose place in ``shown`` or among
    the boilerplate changed) or whose target is one of ``targets`` (a status now unstuck, or no
    longer); and ``items`` (no longer, or newly, of a kind that stalls). A digest reads only the
    rows naming its item, so no other item's can have changed."""
    touched = set(items)
    for row in changed:
        touched.add(row[2])
        touched.add(row[4])
    if facts or targets:
        for row in [row for row in rows if row[1] in facts or row[4] in targets]:
            touched.add(row[2])
            touched.add(row[4])
    return touched


def _next_week_boundary(moment: datetime, after: datetime) -> datetime:
    """The first moment after ``after`` at which ``weeks_between(moment, ·)`` changes."""
    if moment > after:
        return moment
    return moment + (weeks_between(moment, after) + 1) * WEEK


def _candidates(
    scan: ItemScan, items: Iterable[int], valid_at: Mapping[int, datetime], as_of: datetime,
    after_weeks: int,
) -> tuple[set[int], set[int]]:
    """Of ``items``, those that may be stalled now and are built to be judged: with a state fact
    begun ``after_weeks`` weeks before ``as_of`` or earlier; with no state, mentioned by
    ``after_weeks`` updates or more (the agenda candidates). No other can be."""
    lasted = as_of - max(int(after_weeks), 1) * WEEK
    stated: set[int] = set()
    agenda: set[int] = set()
    for item in items:
        facts = scan.state_facts.get(item)
        if facts is not None:
            if any((began := valid_at.get(f)) is not None and began <= lasted for f in facts):
                stated.add(item)
        elif len(scan.mentioned.get(item, ())) >= after_weeks:
            agenda.add(item)
    return stated, agenda


def _until(
    item: int, scan: ItemScan, state: ItemState | None, as_of: datetime,
    valid_at: Mapping[int, datetime], span: timedelta,
) -> datetime | None:
    """When time alone may first change the item's stall after ``as_of``: one of its facts
    begins, or has lasted the threshold; for an agenda candidate, one of its mentions moves to
    the next week back (the 52nd week's boundary, where it stops counting, is one of them)."""
    facts = scan.state_facts.get(item)
    until: datetime | None = None
    if facts is not None:
        for fact in facts:
            began = valid_at.get(fact)
            if began is None:
                continue
            moment = began if began > as_of else began + span
            if moment > as_of and (until is None or moment < until):
                until = moment
    elif state is not None:
        until = min((_next_week_boundary(m.reference_time, as_of) for m in state.mentions),
                    default=None)
    return until


def detect_stalls(
    rows: Sequence[Row],
    kinds: Set[int],
    *,
    as_of: datetime,
    after_weeks: int,
    unstuck_status_ids: Set[int],
    shown: Set[int],
    memo: StallMemo | None,
    load_valid_at: Callable[[set[int]], Mapping[int, datetime]],
    load_reference_times: Callable[[set[int]], Mapping[int, datetime]],
    touched: Set[int] | None = None,
) -> tuple[StallMemo, int]:
    usable = memo is not None and memo.after_weeks == after_weeks and as_of >= memo.as_of
    items: Collection[int]
    digests: Mapping[int, int]
    if memo is not None and usable and touched is not None:
        # Only the items the changed rows name, and those whose moment came, are scanned: the
        # others' rows are the memo's, so are their digests (``touched_items``).
        scope = set(touched)
        scope.update(item for item, moment in memo.until.items() if moment <= as_of)
        rows = [row for row in rows if row[2] in scope or row[4] in scope]
        scan = scan_items(rows, kinds & scope, shown, unstuck_status_ids)
        digests = dict(memo.digests)
        for item in scope:
            digest = scan.digests.get(item)
            if digest is None:
                digests.pop(item, None)
            else:
                digests[item] = digest
    else:
        scan = scan_items(rows, kinds, shown, unstuck_status_ids)
        digests = scan.digests
    if memo is not None and usable:
        before, moments = memo.digests, memo.until
        items = {item for item, digest in scan.digests.items()
                 if before.get(item) != digest
                 or ((moment := moments.get(item)) is not None and moment <= as_of)}
    else:
        items = scan.digests.keys()
    valid_at = load_valid_at({f for item in items for f in scan.state_facts.get(item, ())})
    stated, agenda = _candidates(scan, items, valid_at, as_of, after_weeks)
    states: dict[int, ItemState] = {}
    if stated or agenda:
        # Their rows first, not every row of the graph twice.
        building = stated | agenda
        own = [row for row in rows if row[2] in building or row[4] in building]
        states.update((s.item_id, s) for s in item_states(own, valid_at, stated))
        if agenda:
            times = load_reference_times({e for item in agenda for e in scan.mentioned[item]})
            states.update((s.item_id, s) for s in item_states(own, valid_at, agenda, times))

    span = max(int(after_weeks), 1) * WEEK
    until: dict[int, datetime] = {}
    stalls: dict[int, Stall] = {}
    if memo is not None and usable:
        # The others as they were, found again at this run's time.
        for item, moment in memo.until.items():
            if item not in items and item in digests:
                until[item] = moment
        for item, s in memo.stalls.items():
            if item not in items and item in digests:
                stalls[item] = Stall(s.item_id, s.state, s.since, as_of, s.fact_ids,
                                     s.episode_ids, s.other_ids, s.weeks_mentioned,
                                     s.weeks_counted, s.last_said)
    found = [stall for item in items if (state := states.get(item)) is not None
             and (stall := find_stall(state, as_of, after_weeks, unstuck_status_ids, shown))
             is not None]
    if found:
        # When each was last stated: whether it has gone quiet (``stalls_to_show``).
        said = load_reference_times({e for stall in found for e in stall.episode_ids})
        for stall in found:
            last = max((said[e] for e in stall.episode_ids if e in said), default=None)
            stalls[stall.item_id] = replace(stall, last_said=last)
    for item in items:
        state = states.get(item)
        if item in scan.state_facts or state is not None:
            moment = _until(item, scan, state, as_of, valid_at, span)
            if moment is not None:
                until[item] = moment
    return StallMemo(as_of=as_of, after_weeks=after_weeks, digests=digests, until=until,
                     stalls=dict(sorted(stalls.items()))), len(items)


# --- Kept between runs ---------------------------------------------------------------------------

MEMO_FORMAT = b"stalled-items-memo 2\n"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // _MICRO


def _moment(micros: int) -> datetime:
    return _EPOCH + micros * _MICRO


def _packed(code: str, values: Iterable[int]) -> bytes:
    packed = array(code, values)
    if sys.byteorder != "little":  # pragma: no cover - the memo is little-endian everywhere
        packed.byteswap()
    return packed.tobytes()


def _unpacked(code: str, data: bytes) -> array[int]:
    values = array(code)
    values.frombytes(data)
    if sys.byteorder != "little":  # pragma: no cover
        values.byteswap()
    return values


def memo_as_bytes(memo: StallMemo) -> bytes:
    """A JSON header (times in whole microseconds: exact, whatever the time zone) with the
    stalls, then the digests and moments as packed 64-bit arrays: ~45,000 items read back in
    milliseconds, where JSON lists of them took a tenth of a second each way."""
    items = sorted(memo.digests)
    timed = sorted(memo.until)
    header = {
        "as_of": _micros(memo.as_of),
        "after_weeks": memo.after_weeks,
        "items": len(items),
        "timed": len(timed),
        "stalls": [[s.item_id, s.state, _micros(s.since), s.fact_ids, s.episode_ids,
                    s.other_ids, s.weeks_mentioned, s.weeks_counted,
                    None if s.last_said is None else _micros(s.last_said)]
                   for s in memo.stalls.values()],
    }
    return b"".join([
        MEMO_FORMAT, json.dumps(header, separators=(",", ":")).encode(), b"\n",
        _packed("q", items), _packed("Q", (memo.digests[i] for i in items)),
        _packed("q", timed), _packed("q", (_micros(memo.until[i]) for i in timed)),
    ])


def memo_from_bytes(data: bytes) -> StallMemo | None:
    if not data.startswith(MEMO_FORMAT):
        return None
    line_end = data.index(b"\n", len(MEMO_FORMAT))
    header = json.loads(data[len(MEMO_FORMAT):line_end])
    body = memoryview(data)[line_end + 1:]
    count, timed = header["items"], header["timed"]
    sizes = (count * 8, count * 8, timed * 8, timed * 8)
    parts, start = [], 0
    for size in sizes:
        parts.append(bytes(body[start:start + size]))
        start += size
    items, digests = _unpacked("q", parts[0]), _unpacked("Q", parts[1])
    timed_items, moments = _unpacked("q", parts[2]), _unpacked("q", parts[3])
    as_of = _moment(header["as_of"])
    return StallMemo(
        as_of=as_of,
        after_weeks=int(header["after_weeks"]),
        digests=dict(zip(items, digests, strict=True)),
        until={item: _moment(m) for item, m in zip(timed_items, moments, strict=True)},
        stalls={item: Stall(item, state, _moment(since), as_of, tuple(facts), tuple(episodes),
                            tuple(others), mentioned, counted,
                            None if said is None else _moment(said))
                for item, state, since, facts, episodes, others, mentioned, counted, said
                in header["stalls"]},
    )
