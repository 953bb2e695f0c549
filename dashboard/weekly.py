"""The weekly status review (DESIGN §1 use 2): one page per ISO week — observations new, updated and
retired that week, the root blockers ranked by unblock reach with owner and age, the facts that
began or ended grouped by work item or customer, updates per author and the workstreams nobody
updated for two weeks.

Two views of the same week, both reproducible from the URL:

* **as known** (the default): what the graph knew at the end of that week about the world up to
  then — system time and world time both cut at the week's end. Facts learned later, updates
  that arrived later (a backfill), ends recorded later and observations written later are left
  out, so a later backfill never rewrites an old review. Observation rows carry when they were
  written and retired (a run replayed ``--as-of`` a past moment is dated at that moment).
* **with hindsight**: today's knowledge of that week — facts valid in it by what we know now,
  every update written in it, and each pattern described by the latest version written from
  evidence up to the week's end, even if written later. What differs from the first view is
  marked.

``load_week`` reads the rows in a fixed number of queries (the view tests pin them); ``build``
turns them into a ``WeeklyReview`` without touching the database; the page, the Markdown and the
CSV exports (``dashboard.exports``) all render that one object.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any, Literal, TypedDict
from uuid import UUID

from django.db.models import Count, Max, Q
from django.utils import timezone

from dashboard.diagrams import shorten
from dashboard.presenters import StallSummary, held_stalls, relation_phrase, stall_summary
from dashboard.selectors import first_episode_uuid
from memory.graph_settings import ontology_for
from memory.models import Episode, Fact, Graph, Observation
from memory.selectors import facts_known_at, facts_valid_at

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

View = Literal["known", "hindsight"]
KNOWN: View = "known"
HINDSIGHT: View = "hindsight"

QUOTE_CHARS = 160
"""An update quoted in the review is cut after this many characters."""
QUIET_DAYS = 14
"""A workstream with no update for this long is listed as quiet."""
GROUP_TYPES = ("WorkItem", "Customer")
"""Changed facts are grouped under the work item or customer they are about."""
DEPENDS_ON = "DEPENDS_ON"
HAS_STATUS = "HAS_STATUS"


# --- The week --------------------------------------------------------------------------------


FIRST_YEAR, LAST_YEAR = 2, 9998
"""The years a weekly review may be asked for (``dashboard.forms.DayField`` keeps the same)."""


@dataclass(frozen=True, slots=True, order=True)
class IsoWeek:
    year: int
    week: int

    @classmethod
    def parse(cls, text: str) -> IsoWeek | None:
        """``2026-W48`` → the week; ``None`` for a week that does not exist (``2026-W54``) or
        lies in Python's first or last year (its review reaches past them)."""
        try:
            year, week = text.split("-W")
            date.fromisocalendar(int(year), int(week), 1)
        except ValueError:
            return None
        if not FIRST_YEAR <= int(year) <= LAST_YEAR:
            return None
        return cls(int(year), int(week))

    @classmethod
    def of(cls, moment: datetime) -> IsoWeek:
        year, week, _ = timezone.localtime(moment).isocalendar()
        return cls(year, week)

    def __str__(self) -> str:
        return f"{self.year}-W{self.week:02d}"

    @property
    def monday(self) -> date:
        return date.fromisocalendar(self.year, self.week, 1)

    @property
    def sunday(self) -> date:
        return self.monday + timedelta(days=6)

    @property
    def start(self) -> datetime:
        """Monday 00:00 in the site's time zone."""
        return timezone.make_aware(datetime.combine(self.monday, time.min))

    @property
    def end(self) -> datetime:
        """The next Monday 00:00: the week is ``[start, end)``."""
        return self.start + timedelta(days=7)

    @property
    def last_moment(self) -> datetime:
        """The last instant of the week, for the selectors that cut at an instant inclusively."""
        return self.end - timedelta(microseconds=1)

    def shifted(self, weeks: int) -> IsoWeek:
        return IsoWeek.of(self.start + timedelta(weeks=weeks, days=3))

    @property
    def label(self) -> str:
        """"23–29 Nov 2026", "30 Nov – 6 Dec 2026", "28 Dec 2026 – 3 Jan 2027"."""
        first, last = self.monday, self.sunday
        if first.year != last.year:
            return f"{first:%-d %b %Y} – {last:%-d %b %Y}"
        if first.month != last.month:
            return f"{first:%-d %b} – {last:%-d %b %Y}"
        return f"{first:%-d}–{last:%-d %b %Y}"


# --- Loading ---------------------------------------------------------------------------------

OBSERVATION_FIELDS = (
    "pk", "uuid", "graph_id", "lineage", "version", "status", "kind", "name", "structure",
    "window_start", "window_end", "episode_count", "fact_count", "people_count",
    "reach_people", "reach_work_items", "created_at", "retired_at", "retired_reason",
    "retirement",
)


class LastUpdates(TypedDict):
    """A work item fact's last update before the week's end: as known then, as known now."""

    last_known: datetime | None
    last_now: datetime | None


@dataclass
class WeekRows:
    """Everything the review reads, for both views."""

    week: IsoWeek
    cut: datetime
    """The week's end, or now while the week is still running: ages are counted up to it."""
    observations: list[Observation]
    closing_facts: dict[int, Fact]
    blocker_facts_known: list[Fact]
    blocker_facts_now: list[Fact]
    changed_facts: Sequence[Fact]
    authors: Sequence[Mapping[str, Any]]
    workstream_facts: Sequence[WithAnnotations[Fact, LastUpdates]]
    completion: Any
    """``str -> bool``: whether a status name means the work is finished (the ontology's)."""


def load_week(graph: Graph, week: IsoWeek, *, now: datetime) -> WeekRows:
    """The week's rows in seven queries (one fewer when nothing retired this week because facts
    ended, two fewer when no observation had a root blocker): the observations; the facts whose
    end retired versions this week; the dependencies on root blockers as known at the week's end
    and as valid then by today's knowledge (their age, through ``memory.selectors``); the facts
    that began or ended in the week; updates per author; the facts about work items that may
    hold at the week's end."""
    start, end = week.start, week.end
    observations = list(
        Observation.objects.filter(graph=graph)
        .filter(Q(retired_at__isnull=True) | Q(retired_at__gte=start))
        .filter(Q(created_at__lt=end) | Q(window_end__lt=end))
        .only(*OBSERVATION_FIELDS)
        .order_by("created_at", "pk")
    )
    closed_ids = {
        fact_id for o in observations if o.retired_at and start <= o.retired_at < end
        for fact_id in (o.retirement or {}).get("closed_facts", [])
    }
    closing = {
        f.pk: f for f in Fact.objects.filter(graph=graph, pk__in=closed_ids)
        .select_related("source", "target", "closed_by_episode", "closed_by_fact")
    } if closed_ids else {}
    blockers = {m for o in observations for root in _roots(o) for m in root["members"]}
    waiting_known: list[Fact] = []
    waiting_now: list[Fact] = []
    if blockers:
        waiting_known = list(facts_known_at(graph, week.last_moment)
                             .filter(relation=DEPENDS_ON, target_id__in=blockers))
        waiting_now = list(facts_valid_at(graph, week.last_moment)
                           .filter(relation=DEPENDS_ON, target_id__in=blockers))
    in_week = Q(valid_at__gte=start, valid_at__lt=end) | Q(invalid_at__gte=start,
                                                          invalid_at__lt=end)
    changed = list(
        Fact.objects.filter(in_week, graph=graph)
        .select_related("source", "target", "closed_by_episode")
        .annotate(first_episode=first_episode_uuid())
        .order_by("valid_at", "pk")
    )
    authors = list(
        Episode.objects.filter(graph=graph, reference_time__gte=start, reference_time__lt=end)
        .values("author")
        .annotate(total=Count("pk"), on_time=Count("pk", filter=Q(ingested_at__lt=end)))
        .order_by("-total", "author")
    )
    # Facts about work items that may hold at the week's end (as known then or as valid now),
    # with the last update about each — as it had arrived by then, and as it stands now.
    written = Q(evidence__episode__reference_time__lt=end)
    workstreams = list(
        Fact.objects.filter(graph=graph, valid_at__lt=end)
        .filter(Q(source__type="WorkItem") | Q(target__type="WorkItem"))
        .filter(Q(invalid_at__isnull=True) | Q(invalid_at__gte=end) | Q(expired_at__gte=end))
        .select_related("source", "target")
        .annotate(
            last_known=Max("evidence__episode__reference_time",
                           filter=written & Q(evidence__episode__ingested_at__lt=end)),
            last_now=Max("evidence__episode__reference_time", filter=written),
        )
        .order_by("pk")
    )
    return WeekRows(
        week=week, cut=min(end, now), observations=observations, closing_facts=closing,
        blocker_facts_known=waiting_known, blocker_facts_now=waiting_now, changed_facts=changed,
        authors=authors, workstream_facts=workstreams,
        completion=ontology_for(graph).is_completion_status,
    )


def _roots(observation: Observation) -> list[dict[str, Any]]:
    return ((observation.structure or {}).get("dependency") or {}).get("root_blockers") or []


# --- The review ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ObservationChange:
    observation: Observation
    changes: list[str] = field(default_factory=list)
    """For an update: what changed since the version before, in words."""
    ended_by: list[str] = field(default_factory=list)
    """For an update: the facts whose end made the versions before it retire, and by what."""
    difference: str = ""


@dataclass(frozen=True, slots=True)
class RetiredItem:
    observation: Observation
    reason: str
    ended_by: list[str]
    """The facts whose end retired it and what ended each, in words."""


@dataclass(frozen=True, slots=True)
class BlockerRow:
    name: str
    entity: UUID | None
    owners: str
    reach_people: int
    reach_work_items: int
    since: datetime | None
    """When the earliest dependency on it still open at the week's end began."""
    age_days: int | None
    observation: Observation
    difference: str = ""

    @property
    def reach_total(self) -> int:
        return self.reach_people + self.reach_work_items


@dataclass(frozen=True, slots=True)
class StalledRow:
    """An item that stayed in one state, as the week's end saw it."""

    stall: StallSummary
    """Its weeks counted up to the week's end."""
    observation: Observation
    """Its own observation, or the pattern holding it (``held``)."""
    held: bool = False
    """A quiet stall a pattern holds (no observation of its own: nobody restated it)."""


@dataclass(frozen=True, slots=True)
class FactChange:
    fact: Fact
    change: Literal["began", "ended", "changed"]
    at: datetime
    text: str
    detail: str = ""
    difference: str = ""


@dataclass(frozen=True, slots=True)
class FactGroup:
    name: str
    entity_type: str
    entity: UUID
    changes: list[FactChange]


@dataclass(frozen=True, slots=True)
class AuthorRow:
    author: str
    updates: int
    difference: str = ""


@dataclass(frozen=True, slots=True)
class QuietWorkstream:
    name: str
    entity: UUID
    last_update: datetime | None
    days: int | None
    difference: str = ""


@dataclass
class WeeklyReview:
    week: IsoWeek
    view: View
    cut: datetime
    """The week's end (now, while it runs): what is known and what held are read up to here."""
    new: list[ObservationChange] = field(default_factory=list)
    updated: list[ObservationChange] = field(default_factory=list)
    retired: list[RetiredItem] = field(default_factory=list)
    found_later: list[ObservationChange] = field(default_factory=list)
    blockers: list[BlockerRow] = field(default_factory=list)
    stalled: list[StalledRow] = field(default_factory=list)
    """By the tracker's priority, then longest first."""
    fact_groups: list[FactGroup] = field(default_factory=list)
    authors: list[AuthorRow] = field(default_factory=list)
    quiet: list[QuietWorkstream] = field(default_factory=list)

    @property
    def hindsight(self) -> bool:
        return self.view == HINDSIGHT

    @property
    def stalled_groups(self) -> list[StalledGroup]:
        """Stalls of one source in one state since the same week, summed up."""
        return stalled_groups(self.stalled)

    @property
    def fact_changes(self) -> int:
        return sum(len(g.changes) for g in self.fact_groups)

    @property
    def updates(self) -> int:
        return sum(a.updates for a in self.authors)

    @property
    def differences(self) -> int:
        """How many items the hindsight view marks as different from what was known."""
        items: Iterable[Any] = (*self.blockers, *self.authors, *self.quiet, *self.found_later,
                                *(c for g in self.fact_groups for c in g.changes))
        return sum(1 for item in items if item.difference)

    @property
    def is_empty(self) -> bool:
        return not (self.new or self.updated or self.retired or self.blockers or self.stalled
                    or self.fact_groups or self.authors or self.found_later)


def build(rows: WeekRows, view: View) -> WeeklyReview:
    week = rows.week
    review = WeeklyReview(week=week, view=view, cut=rows.cut)
    _observation_sections(review, rows)
    review.blockers = _blockers(rows, view)
    review.stalled = _stalled(rows, view)
    review.fact_groups = _fact_groups(rows, view)
    review.authors = _authors(rows, view)
    review.quiet = _quiet(rows, view)
    return review


# --- Observations ----------------------------------------------------------------------------


def _active_at(o: Observation, moment: datetime) -> bool:
    return o.created_at < moment and (o.retired_at is None or o.retired_at >= moment)


def _latest_by_lineage(observations: Iterable[Observation]) -> dict[UUID, Observation]:
    latest: dict[UUID, Observation] = {}
    for o in observations:
        if o.lineage not in latest or o.version > latest[o.lineage].version:
            latest[o.lineage] = o
    return latest


def known_at_end(rows: WeekRows) -> list[Observation]:
    """The observations active at the week's end, as written by then."""
    return [o for o in rows.observations if _active_at(o, rows.week.end)]


def described_with_hindsight(rows: WeekRows) -> list[Observation]:
    """For each pattern that held at the week's end, the latest version written from evidence up
    to then — possibly written later, after a backfill reached that week."""
    end = rows.week.end
    candidates = [o for o in rows.observations
                  if o.window_end < end and (o.retired_at is None or o.retired_at >= end)]
    return sorted(_latest_by_lineage(candidates).values(), key=lambda o: (o.created_at, o.pk))


def _observation_sections(review: WeeklyReview, rows: WeekRows) -> None:
    start, end = rows.week.start, rows.week.end
    written = [o for o in rows.observations if start <= o.created_at < end]
    by_lineage: dict[UUID, list[Observation]] = {}
    for o in rows.observations:
        by_lineage.setdefault(o.lineage, []).append(o)
    for lineage, latest in sorted(_latest_by_lineage(written).items(),
                                  key=lambda item: (-_reach(item[1]), item[1].name)):
        if not _active_at(latest, end):
            continue  # it ended within the week: listed under retired
        versions = sorted(by_lineage[lineage], key=lambda o: o.version)
        first_in_week = min(o.version for o in written if o.lineage == lineage)
        before = [o for o in versions if o.version < first_in_week]
        if first_in_week == 1:
            review.new.append(ObservationChange(latest))
            continue
        changes = version_changes(before[-1], latest) if before else ["a new version"]
        superseded = [o for o in versions if o.retired_at and start <= o.retired_at < end]
        review.updated.append(ObservationChange(
            latest, changes, ended_by=_ended_by(superseded, rows.closing_facts)))
    review.retired = [
        RetiredItem(o, o.get_retired_reason_display(), _ended_by([o], rows.closing_facts))
        for o in sorted(rows.observations, key=lambda o: (o.retired_at or end, o.pk))
        if o.retired_at and start <= o.retired_at < end
        and o.retired_reason != Observation.RetiredReason.SUPERSEDED
        and o.created_at < end
    ]
    if review.hindsight:
        review.found_later = [
            ObservationChange(o, difference=f"written {_day(o.created_at)} from this week's "
                                            "evidence")
            for o in described_with_hindsight(rows)
            if o.created_at >= end and not any(
                _active_at(k, end) for k in by_lineage.get(o.lineage, []))
        ]


def _reach(o: Observation) -> int:
    return o.reach_people + o.reach_work_items


def version_changes(before: Observation, after: Observation) -> list[str]:
    """What changed between two versions of a pattern, in a few words each."""
    changes = []
    if after.name != before.name:
        changes.append(f"was “{before.name}”")
    episodes = after.episode_count - before.episode_count
    if episodes:
        changes.append(f"{episodes:+d} update{'s' if abs(episodes) != 1 else ''}")
    facts = after.fact_count - before.fact_count
    if facts:
        changes.append(f"{facts:+d} fact{'s' if abs(facts) != 1 else ''}")
    old_root, new_root = _top_root_name(before), _top_root_name(after)
    if new_root and old_root and new_root != old_root:
        changes.append(f"root blocker now {new_root} (was {old_root})")
    if (after.reach_people, after.reach_work_items) != (before.reach_people,
                                                        before.reach_work_items):
        changes.append(f"clears {_people(after.reach_people)}, "
                       f"{_items(after.reach_work_items)} (was {before.reach_people}, "
                       f"{before.reach_work_items})")
    joined = sorted(involved(after) - involved(before))
    if joined:
        shown = joined[:3] + ([f"{len(joined) - 3} more"] if len(joined) > 3 else [])
        changes.append("now involves " + ", ".join(shown))
    for words, names in (("stalled inside now", held_names(after) - held_names(before)),
                         ("no longer stalled inside", held_names(before) - held_names(after))):
        if names:
            listed = sorted(names)
            changes.append(f"{words}: " + ", ".join(
                listed[:3] + ([f"{len(listed) - 3} more"] if len(listed) > 3 else [])))
    return changes or ["evidence regrouped"]


def held_names(o: Observation) -> set[str]:
    """The items of the quiet stalls a pattern holds."""
    structure = o.structure or {}
    names = structure.get("names") or {}
    return {names.get(str(stall["item"]), f"entity {stall['item']}")
            for stall in structure.get("held_stalls") or []}


def involved(o: Observation) -> set[str]:
    """The names a pattern is about: blockers, what waits on them and their owners, the people
    waiting; issues, their reporters and what they affect (not statuses or events)."""
    structure = o.structure or {}
    names = structure.get("names") or {}
    ids: set[int] = set()
    for root in _roots(o):
        ids.update(root["members"])
        for item in (*root.get("direct", []), *root.get("downstream", []),
                     *root.get("people", []), *root.get("owners", [])):
            ids.add(item["entity"])
    for issue in (structure.get("recurring") or {}).get("issues") or []:
        ids.add(issue["issue"])
        ids.update(r["reporter"] for r in issue.get("reports", []))
        ids.update(a["entity"] for a in issue.get("affected", []))
    return {names[str(i)] for i in ids if str(i) in names}


def _top_root_name(o: Observation) -> str:
    roots = _roots(o)
    if not roots:
        return ""
    names = (o.structure or {}).get("names") or {}
    return " + ".join(names.get(str(m), f"entity {m}") for m in roots[0]["members"])


def _ended_by(retired: Iterable[Observation], closing: Mapping[int, Fact]) -> list[str]:
    """The facts whose end retired these versions, one line per update that ended them, quoting
    the words that did: "Dana, 11 Nov 2026: “The backend team shipped…” — ended API Migration
    waits on …"."""
    by_episode: dict[int | None, tuple[Fact, list[str]]] = {}
    for observation in retired:
        for fact_id in (observation.retirement or {}).get("closed_facts", []):
            fact = closing.get(fact_id)
            if fact is None:
                continue
            text = f"{fact.source.name} {relation_phrase(fact.relation)} {fact.target.name}"
            entry = by_episode.setdefault(fact.closed_by_episode_id, (fact, []))
            if text not in entry[1]:
                entry[1].append(text)
    lines = []
    for fact, ended in by_episode.values():
        episode = fact.closed_by_episode
        if episode is None:
            lines.append("ended: " + "; ".join(ended))
            continue
        lines.append(f"{episode.author or 'an update'}, {_day(episode.reference_time)}: "
                     f"“{_words_that_ended(fact)}” — ended " + "; ".join(ended))
    return lines


def _words_that_ended(fact: Fact) -> str:
    """The sentence of the fact that replaced or resolved it, else the start of the update."""
    if fact.closed_by_fact is not None and fact.closed_by_fact.sentence:
        return " ".join(fact.closed_by_fact.sentence.split())
    text = " ".join(fact.closed_by_episode.text.split()) if fact.closed_by_episode else ""
    return shorten(text, QUOTE_CHARS) if text else "a JSON update"


# --- Root blockers ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Root:
    key: tuple[int, ...]
    name: str
    owners: str
    people: int
    work_items: int
    observation: Observation


def _root_rows(observations: Iterable[Observation]) -> dict[tuple[int, ...], _Root]:
    """Each root blocker once (the same blocker in two patterns keeps its widest reach)."""
    roots: dict[tuple[int, ...], _Root] = {}
    for o in observations:
        names = (o.structure or {}).get("names") or {}
        for root in _roots(o):
            key = tuple(sorted(root["members"]))
            row = _Root(
                key=key,
                name=" + ".join(names.get(str(m), f"entity {m}") for m in root["members"]),
                owners=", ".join(names.get(str(w["entity"]), "") for w in root.get("owners", [])),
                people=root["reach"]["people"], work_items=root["reach"]["work_items"],
                observation=o,
            )
            if key not in roots or _root_reach(row) > _root_reach(roots[key]):
                roots[key] = row
    return roots


def _root_reach(row: _Root) -> tuple[int, int]:
    return (row.people + row.work_items, row.people)


def _since(key: tuple[int, ...], facts: Iterable[Fact]) -> tuple[datetime | None, UUID | None]:
    """When the earliest dependency on the blocker began, and the blocker's uuid."""
    waiting = [f for f in facts if f.target_id in key]
    if not waiting:
        return None, None
    first = min(waiting, key=lambda f: (f.valid_at, f.pk))
    return first.valid_at, first.target.uuid


def _blockers(rows: WeekRows, view: View) -> list[BlockerRow]:
    known = _root_rows(known_at_end(rows))
    if view == KNOWN:
        chosen, facts = known, rows.blocker_facts_known
    else:
        chosen, facts = _root_rows(described_with_hindsight(rows)), rows.blocker_facts_now
    result = []
    for key in [*chosen, *(k for k in known if k not in chosen and view == HINDSIGHT)]:
        row = chosen.get(key) or known[key]
        since, entity = _since(key, facts)
        if entity is None:
            entity = _since(key, [*rows.blocker_facts_known, *rows.blocker_facts_now])[1]
        age = (rows.cut - since).days if since else None
        difference = ""
        if view == HINDSIGHT and key not in chosen:
            difference = "no longer a root blocker with hindsight"
        elif view == HINDSIGHT:
            difference = _blocker_difference(key, row, known, since, age, rows)
        result.append(BlockerRow(
            name=row.name, entity=entity, owners=row.owners, reach_people=row.people,
            reach_work_items=row.work_items, since=since, age_days=age,
            observation=row.observation, difference=difference,
        ))
    result.sort(key=lambda b: (-b.reach_total, -b.reach_people, b.name))
    return result


def _blocker_difference(key: tuple[int, ...], row: _Root, known: Mapping[tuple[int, ...], _Root],
                        since: datetime | None, age: int | None, rows: WeekRows) -> str:
    then = known.get(key)
    if then is None:
        return f"found later (written {_day(row.observation.created_at)})"
    if since is None:
        return "already unblocked by then, learned later"
    notes = []
    if (row.people, row.work_items) != (then.people, then.work_items):
        notes.append(f"known then: clears {_people(then.people)}, {_items(then.work_items)}")
    known_since, _ = _since(key, rows.blocker_facts_known)
    if known_since is not None and age is not None:
        known_age = (rows.cut - known_since).days
        if known_age != age:
            notes.append(f"known then: blocking for {_days(known_age)}")
    if then.observation.pk != row.observation.pk and not notes:
        return ""
    return "; ".join(notes)


# --- Stalled items ---------------------------------------------------------------------------


def _stalled(rows: WeekRows, view: View) -> list[StalledRow]:
    """The stalled items of the patterns that held at the week's end (as known then, or as
    described with hindsight), each counted in weeks up to the week's end, longest first: the
    stalled items' own observations, and the quiet stalls a pattern holds, with that pattern
    (an item that is both is listed once, by its own)."""
    chosen = known_at_end(rows) if view == KNOWN else described_with_hindsight(rows)
    found = []
    held = []
    for o in chosen:
        if o.kind != Observation.Kind.STALLED:
            held += [StalledRow(stall=stall, observation=o, held=True)
                     for stall in held_stalls(o, rows.cut) if stall.since < rows.cut]
            continue
        stall = stall_summary(o, rows.cut)
        if stall is not None:
            found.append(StalledRow(stall=stall, observation=o))
    own = {r.stall.item.name for r in found}
    found += [r for r in held if r.stall.item.name not in own]
    # The tracker's priority first (then severity), then the longest stalled: forty issues of
    # one week read apart by what their tracker says of them.
    found.sort(key=lambda r: (r.stall.urgency, r.stall.since, r.stall.item.name))
    return found


GROUPED_AT_LEAST = 3
"""Stalls of one source in one state since the same week are summed up in one line from this
many on."""


@dataclass(frozen=True, slots=True)
class StalledGroup:
    """Stalls of one source in one state since the same week: "40 webcompat/web-bugs items
    open since 17–18 Apr 2021: 2 critical, 6 important, 7 normal, 25 with no priority"."""

    source: str
    state: str
    rows: tuple[StalledRow, ...]

    @property
    def text(self) -> str:
        first = min(r.stall.since for r in self.rows)
        last = max(r.stall.since for r in self.rows)
        if first.date() == last.date():
            days = f"{first:%-d %b %Y}"
        elif (first.year, first.month) == (last.year, last.month):
            days = f"{first:%-d}–{last:%-d %b %Y}"
        else:
            days = f"{first:%-d %b} – {last:%-d %b %Y}"
        counts: dict[str, int] = {}
        for row in sorted(self.rows, key=lambda r: r.stall.urgency):
            word = row.stall.priority_word or "with no priority"
            counts[word] = counts.get(word, 0) + 1
        parts = ", ".join(f"{n} {word}" for word, n in counts.items())
        noun = "bugs" if self.source == "Bug" else f"{self.source} items"
        return f"{len(self.rows)} {noun} {self.state} since {days}: {parts}"


def stall_source(name: str) -> str:
    """The tracker a stalled item's key names: "webcompat/web-bugs" for
    "webcompat/web-bugs#71058", "Bug" for "Bug 447581", "ATL" for "ATL-12"; "" for an item
    named in words (never grouped)."""
    if (found := _KEY.fullmatch(name.strip())) is None:
        return ""
    return next(group for group in found.groups() if group)


_KEY = re.compile(r"([\w.-]+/[\w.-]+)#\d+|(Bug) \d+|([A-Z][A-Z0-9]+)-\d+")


def stalled_groups(rows: Iterable[StalledRow]) -> list[StalledGroup]:
    """The stalls of one source in one state whose states began in the same week (Monday to
    Sunday), ``GROUPED_AT_LEAST`` or more of them: largest first."""
    groups: dict[tuple[str, str, tuple[int, int]], list[StalledRow]] = {}
    for row in rows:
        if row.held or row.stall.agenda:
            continue
        if not (source := stall_source(row.stall.item.name)):
            continue
        week = row.stall.since.isocalendar()[:2]
        groups.setdefault((source, row.stall.state, week), []).append(row)
    found = [StalledGroup(source, state, tuple(found))
             for (source, state, _), found in groups.items() if len(found) >= GROUPED_AT_LEAST]
    return sorted(found, key=lambda g: (-len(g.rows), g.source, g.state))


# --- Facts that began or ended ----------------------------------------------------------------


def began_as_known(fact: Fact, start: datetime, end: datetime) -> bool:
    """Known by the week's end to have begun in it (and not retracted by then)."""
    retracted = fact.expired_at is not None and fact.invalid_at is None and fact.expired_at < end
    return start <= fact.valid_at < end and fact.created_at < end and not retracted


def ended_as_known(fact: Fact, start: datetime, end: datetime) -> bool:
    """Known by the week's end to have ended in it: the end was recorded by then."""
    if fact.invalid_at is None or not start <= fact.invalid_at < end:
        return False
    recorded = fact.expired_at if fact.expired_at is not None else fact.created_at
    return recorded < end


def began_with_hindsight(fact: Fact, start: datetime, end: datetime) -> bool:
    believed = fact.expired_at is None or fact.invalid_at is not None
    return start <= fact.valid_at < end and believed


def ended_with_hindsight(fact: Fact, start: datetime, end: datetime) -> bool:
    return fact.invalid_at is not None and start <= fact.invalid_at < end


def _fact_groups(rows: WeekRows, view: View) -> list[FactGroup]:
    start, end = rows.week.start, rows.week.end
    groups: dict[int, tuple[Any, list[FactChange]]] = {}
    for fact in rows.changed_facts:
        for change, at, known, now in (
            ("began", fact.valid_at, began_as_known(fact, start, end),
             began_with_hindsight(fact, start, end)),
            ("ended", fact.invalid_at, ended_as_known(fact, start, end),
             ended_with_hindsight(fact, start, end)),
        ):
            shown = known if view == KNOWN else (known or now)
            if not shown or at is None:
                continue
            difference = ""
            if view == HINDSIGHT and now and not known:
                learned = fact.created_at if change == "began" else (
                    fact.expired_at or fact.created_at)
                difference = f"learned {_day(learned)}"
            elif view == HINDSIGHT and known and not now:
                difference = "no longer believed"
            subject = _subject(fact)
            groups.setdefault(subject.pk, (subject, []))[1].append(FactChange(
                fact=fact, change=change, at=at,  # type: ignore[arg-type]
                text=f"{fact.source.name} {relation_phrase(fact.relation)} {fact.target.name}",
                detail=_end_detail(fact) if change == "ended" else "",
                difference=difference,
            ))
    for _, changes in groups.values():
        _combine_status_changes(changes)
    ordered = sorted(groups.values(), key=lambda g: (
        GROUP_TYPES.index(g[0].type) if g[0].type in GROUP_TYPES else len(GROUP_TYPES),
        g[0].name.lower(), g[0].pk))
    return [
        FactGroup(name=entity.name, entity_type=entity.type, entity=entity.uuid,
                  changes=sorted(changes, key=lambda c: (c.at, c.change, c.fact.pk)))
        for entity, changes in ordered
    ]


def _combine_status_changes(changes: list[FactChange]) -> None:
    """A status replaced by another reads as one change: "status Blocked → On Track"."""
    began = {c.fact.pk: c for c in changes if c.change == "began" and c.fact.relation == HAS_STATUS}
    for ended in [c for c in changes if c.change == "ended" and c.fact.relation == HAS_STATUS]:
        new = began.get(ended.fact.closed_by_fact_id or 0)
        if new is None or new.difference != ended.difference:
            continue
        changes.remove(ended)
        changes[changes.index(new)] = FactChange(
            fact=new.fact, change="changed", at=new.at,
            text=f"{new.fact.source.name} status {ended.fact.target.name} → "
                 f"{new.fact.target.name}",
            detail=ended.detail.removeprefix(f"{CLOSE_WORDS[Fact.CloseReason.SINGLE_VALUED]}, "),
            difference=new.difference,
        )


def _subject(fact: Fact) -> Any:
    """The work item or customer a fact is about (else its source)."""
    for side in (fact.source, fact.target):
        if side.type in GROUP_TYPES:
            return side
    return fact.source


CLOSE_WORDS: dict[str, str] = {
    Fact.CloseReason.SINGLE_VALUED: "replaced",
    Fact.CloseReason.RESOLUTION: "resolved",
    Fact.CloseReason.EXPLICIT: "said to have ended",
    Fact.CloseReason.GIVEN: "end given",
    Fact.CloseReason.REVISED: "revised",
    Fact.CloseReason.REREAD: "withdrawn (the model read it otherwise)",
}


def _end_detail(fact: Fact) -> str:
    reason = CLOSE_WORDS.get(fact.close_reason, "")
    episode = fact.closed_by_episode
    if episode is None:
        return reason
    by = f"by {episode.author or 'an update'}, {_day(episode.reference_time)}"
    return f"{reason}, {by}" if reason else by


# --- Updates per author and quiet workstreams --------------------------------------------------


def _authors(rows: WeekRows, view: View) -> list[AuthorRow]:
    result = []
    for row in rows.authors:
        count = row["on_time"] if view == KNOWN else row["total"]
        if not count:
            continue
        later = row["total"] - row["on_time"]
        difference = f"{later} arrived later" if view == HINDSIGHT and later else ""
        result.append(AuthorRow(author=row["author"] or "Unknown", updates=count,
                                difference=difference))
    result.sort(key=lambda a: (-a.updates, a.author.lower()))
    return result


def holds_as_known(fact: Fact, end: datetime) -> bool:
    """Believed at the week's end to hold then."""
    if fact.created_at >= end:
        return False
    if fact.expired_at is not None and fact.expired_at < end:
        return False
    return fact.invalid_at is None or fact.invalid_at >= end or fact.expired_at is not None


def holds_with_hindsight(fact: Fact, end: datetime) -> bool:
    believed = fact.expired_at is None or fact.invalid_at is not None
    return believed and (fact.invalid_at is None or fact.invalid_at >= end)


@dataclass
class _Workstream:
    entity: Any
    active: bool = False
    done: bool = False
    last: datetime | None = None


def _workstreams(rows: WeekRows, known: bool) -> dict[int, _Workstream]:
    end = rows.week.end
    streams: dict[int, _Workstream] = {}
    for fact in rows.workstream_facts:
        if not (holds_as_known(fact, end) if known else holds_with_hindsight(fact, end)):
            continue
        last = fact.last_known if known else fact.last_now
        for side in (fact.source, fact.target):
            if side.type != "WorkItem" or side.merged_into_id is not None:
                continue
            stream = streams.setdefault(side.pk, _Workstream(side))
            if fact.relation == HAS_STATUS and side.pk == fact.source_id:
                stream.done = stream.done or rows.completion(fact.target.name)
            else:
                stream.active = True
            if last is not None and (stream.last is None or last > stream.last):
                stream.last = last
    return streams


def _quiet_set(rows: WeekRows, known: bool) -> dict[int, _Workstream]:
    threshold = rows.cut - timedelta(days=QUIET_DAYS)
    return {
        pk: s for pk, s in _workstreams(rows, known).items()
        if s.active and not s.done and (s.last is None or s.last < threshold)
    }


def _quiet(rows: WeekRows, view: View) -> list[QuietWorkstream]:
    known = _quiet_set(rows, known=True)
    chosen = known if view == KNOWN else _quiet_set(rows, known=False)
    result = []
    for pk, stream in chosen.items():
        difference = "" if view == KNOWN or pk in known else "quiet by what we know now"
        result.append(_quiet_row(stream, rows.cut, difference))
    if view == HINDSIGHT:
        now = _workstreams(rows, known=False)
        for pk, stream in known.items():
            if pk not in chosen:
                latest = now[pk].last if pk in now else None
                newer = latest is not None and (stream.last is None or latest > stream.last)
                note = (f"not quiet: an update of {_day(latest)} arrived later"
                        if newer and latest else "not quiet with hindsight")
                result.append(_quiet_row(stream, rows.cut, note))
    result.sort(key=lambda q: (q.last_update or rows.week.start, q.name.lower()))
    return result


def _quiet_row(stream: _Workstream, end: datetime, difference: str) -> QuietWorkstream:
    days = (end - stream.last).days if stream.last else None
    return QuietWorkstream(name=stream.entity.name, entity=stream.entity.uuid,
                           last_update=stream.last, days=days, difference=difference)


# --- Words -----------------------------------------------------------------------------------


def _day(moment: datetime) -> str:
    return f"{timezone.localtime(moment):%-d %b %Y}"


def _people(n: int) -> str:
    return "1 person" if n == 1 else f"{n} people"


def _items(n: int) -> str:
    return f"{n} work item" + ("" if n == 1 else "s")


def _days(n: int) -> str:
    return f"{n} day" + ("" if n == 1 else "s")


def week_days(week: IsoWeek) -> Sequence[date]:
    return [week.monday + timedelta(days=i) for i in range(7)]
