"""Bundled demo graphs, and loading them as if their updates had arrived over the past month.

Three graphs ship with the product (``python manage.py demo`` loads them):

* ``seed`` — the three updates of DESIGN §1, the first acceptance case;
* ``atlas`` — a month of a twelve-person project: dependency chains that form, grow, resolve and
  re-form, template boilerplate that must not chain everything together, distractors, backfills;
* ``support`` — a month of a support queue: customers reporting the same issues in their own
  words after recurring events, plan changes, one-off tickets.

The updates are data (``seed.py``, ``atlas.py``, ``support.py``) whose times are *relative*: week
0–3 and day 0–6 (Monday = 0) count from the Monday of the ISO week three weeks before the current
one, so the demo always shows the last four weeks, ending this week. The loader turns them into
absolute ``reference_time``\\ s; anything that would lie in the future is squeezed, in order, into
the minutes before now.

Loading replays history instead of dumping the month in at once: each update is ingested at the
moment it "arrived" (a few minutes after it was written; a backfilled one much later), and the
pipeline is replayed as of the end of every day that had arrivals. The observations therefore have
a real history — created, updated, retired across the weeks — exactly as a team using the product
for a month would have seen it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from itertools import groupby
from typing import Any, NotRequired, TypedDict

from django.db import transaction
from django.utils import timezone

from memory.ingestion import ingest_records
from memory.models import Entity, Episode, Fact, Graph, Observation, PipelineRun
from memory.pipeline import run_pipeline
from memory.processing import process_episode
from memory.resolution import forget_name_index

WEEKS = 4
"""The demo spans this many ISO weeks; the last one is the current week."""
ARRIVAL_DELAY = timedelta(minutes=3)
"""How long after it was written an update reaches the system (a webhook, an import)."""
FUTURE_MARGIN = timedelta(minutes=5)
"""Times later than ``now - FUTURE_MARGIN`` are squeezed into the minutes before that..."""
SQUEEZE_STEP = timedelta(minutes=1)
"""...at most this far apart."""

_DATE_PLACEHOLDER = re.compile(r"\{date:(\d+),(\d+)\}")


class RelativeTime(TypedDict):
    week: int
    day: int
    hour: int
    minute: NotRequired[int]


class DemoUpdate(TypedDict):
    """One update as the data files write it: an ingestion record with a relative time.

    ``content`` may name a day as ``{date:W,D}`` (week W, day D), rendered "May 12", so a customer
    can say when their plan changed without the data going stale."""

    external_id: str
    week: int
    day: int
    hour: int
    minute: NotRequired[int]
    author: str
    source: str
    content: str
    type: NotRequired[str]
    """``text`` (the default) or ``message`` (a chat line)."""
    arrives: NotRequired[RelativeTime]
    """For a backfilled update: when it reached the system (much later than it was written)."""


@dataclass(frozen=True)
class DemoGraph:
    slug: str
    name: str
    description: str
    updates: tuple[DemoUpdate, ...]


@dataclass(frozen=True)
class ScheduledUpdate:
    """A demo update placed in absolute time."""

    update: DemoUpdate
    reference_time: datetime
    arrival: datetime
    content: str

    @property
    def backfilled(self) -> bool:
        return "arrives" in self.update

    def record(self) -> dict[str, Any]:
        """The record ``ingest_records`` reads (see ``memory.ingestion``)."""
        return {
            "external_id": self.update["external_id"],
            "author": self.update["author"],
            "source": self.update["source"],
            "type": self.update.get("type", Episode.Type.TEXT),
            "content": self.content,
            "reference_time": self.reference_time.isoformat(),
        }


@dataclass
class LoadResult:
    """What loading one demo graph did."""

    graph: Graph
    stored: int = 0
    duplicates: int = 0
    failed: list[str] = field(default_factory=list)
    """External ids of episodes whose processing failed."""
    replays: int = 0
    final_run: PipelineRun | None = None


def demo_graphs() -> tuple[DemoGraph, ...]:
    from memory.demo import atlas, seed, support

    return (seed.GRAPH, atlas.GRAPH, support.GRAPH)


# --- Time ----------------------------------------------------------------------------------


def demo_origin(now: datetime) -> datetime:
    """Midnight (current time zone) of the Monday of the ISO week ``WEEKS - 1`` weeks before the
    one ``now`` is in: week 0, day 0 of the demo."""
    local = timezone.localtime(now)
    monday = local.date() - timedelta(days=local.weekday())
    return datetime.combine(monday - timedelta(weeks=WEEKS - 1), time.min, tzinfo=local.tzinfo)


def absolute(origin: datetime, week: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return origin + timedelta(weeks=week, days=day, hours=hour, minutes=minute)


def squeeze_future(moments: Sequence[datetime], limit: datetime) -> list[datetime]:
    """``moments`` with those after ``limit`` moved to just before it, keeping their order (and
    their order relative to every other moment): on a Monday morning the rest of the current
    week's updates still happen, and still in the order the story needs — a blocker is reported
    before it is resolved — only compressed into the last minutes before now (at most a minute
    apart, so they stay on today rather than spreading back over the weekend)."""
    order = sorted(range(len(moments)), key=lambda i: (moments[i], i))
    late = [i for i in order if moments[i] > limit]
    if not late:
        return list(moments)
    earlier = [moments[i] for i in order if moments[i] <= limit]
    floor = limit - SQUEEZE_STEP * (len(late) + 1)
    if earlier:
        floor = max(floor, max(earlier))
    step = (limit - floor) / (len(late) + 1)
    placed = list(moments)
    for rank, index in enumerate(late, start=1):
        placed[index] = floor + step * rank
    return placed


def schedule(demo: DemoGraph, now: datetime) -> list[ScheduledUpdate]:
    """The graph's updates in absolute time, in the order they reach the system."""
    origin = demo_origin(now)
    written = [
        absolute(origin, u["week"], u["day"], u["hour"], u.get("minute", 0))
        for u in demo.updates
    ]
    arriving = [
        absolute(origin, **u["arrives"]) if "arrives" in u else moment + ARRIVAL_DELAY
        for u, moment in zip(demo.updates, written, strict=True)
    ]
    # Squeezed together so that an update never arrives before it was written.
    placed = squeeze_future([*written, *arriving], now - FUTURE_MARGIN)
    count = len(demo.updates)
    scheduled = [
        ScheduledUpdate(
            update=update,
            reference_time=placed[i],
            arrival=placed[count + i],
            content=render(update["content"], origin, placed[i]),
        )
        for i, update in enumerate(demo.updates)
    ]
    return sorted(scheduled, key=lambda s: (s.arrival, s.reference_time))


def render(content: str, origin: datetime, reference_time: datetime) -> str:
    """Fill ``{date:W,D}`` placeholders ("May 12"). A day after the update was written would be
    read as last year's, so it is capped at the update's own day."""

    def day_name(match: re.Match[str]) -> str:
        when = absolute(origin, int(match[1]), int(match[2])).date()
        when = min(when, timezone.localtime(reference_time).date())
        return f"{when:%B} {when.day}"

    return _DATE_PLACEHOLDER.sub(day_name, content)


def end_of_day(day: date, tzinfo: Any) -> datetime:
    return datetime.combine(day, time(23, 59, 59), tzinfo=tzinfo)


# --- Loading -------------------------------------------------------------------------------


class DemoLoadError(RuntimeError):
    pass


def load_demo_graph(
    demo: DemoGraph,
    *,
    now: datetime | None = None,
    replay: bool = True,
    progress: Callable[[str], None] | None = None,
) -> LoadResult:
    """Create the graph (or find it) and ingest its updates in arrival order, each at its arrival
    time; replay the pipeline at the end of every past day that had arrivals; then run it once at
    the present.

    Idempotent: updates already stored are duplicates (by ``external_id``), and a graph that
    already has runs gets no replays (its history is written) — only a final run, and only when
    something new was stored. All of it happens in one transaction, so a failure leaves no
    half-loaded graph behind."""
    now = now or timezone.now()
    graph, _ = Graph.objects.get_or_create(
        slug=demo.slug, defaults={"name": demo.name, "description": demo.description}
    )
    try:
        with transaction.atomic():
            return _load(graph, demo, now=now, replay=replay, progress=progress)
    except BaseException:
        # The name index caches entity ids that the rollback just removed.
        forget_name_index(graph.pk)
        raise


def _load(
    graph: Graph,
    demo: DemoGraph,
    *,
    now: datetime,
    replay: bool,
    progress: Callable[[str], None] | None,
) -> LoadResult:
    result = LoadResult(graph=graph)
    had_runs = PipelineRun.objects.filter(graph=graph).exists()
    replay = replay and not had_runs
    local_tz = timezone.localtime(now).tzinfo
    updates = schedule(demo, now)

    def arrival_day(item: ScheduledUpdate) -> date:
        return timezone.localtime(item.arrival).date()

    for day, items in groupby(updates, key=arrival_day):
        _ingest(graph, items, result)
        as_of = end_of_day(day, local_tz)
        if replay and as_of < now:
            _run(graph, as_of=as_of)
            result.replays += 1
            if progress:
                progress(f"{demo.slug}: replayed {day:%a %Y-%m-%d}")

    # Episodes a crashed earlier load stored but never processed.
    leftovers = Episode.objects.filter(graph=graph, status=Episode.Status.PENDING)
    for episode_id, label in leftovers.values_list("pk", "external_id"):
        if process_episode(episode_id) == "failed":
            result.failed.append(label or str(episode_id))

    if not had_runs or result.stored:
        result.final_run = _run(graph, as_of=None)
    return result


def _ingest(graph: Graph, items: Iterable[ScheduledUpdate], result: LoadResult) -> None:
    for item in items:
        # One record at a time: each carries its own arrival time as the system's "now".
        # process=False: the eager tasks would also run the pipeline at the real present after
        # every record; the demo runs it itself, at the right moments of the past.
        report = ingest_records(graph, [(1, item.record())], now=item.arrival, process=False)
        if report.rejected:
            reason = report.results[0]
            raise DemoLoadError(
                f"{item.update['external_id']}: {reason.field}: {reason.reason}"
            )
        result.stored += report.stored
        result.duplicates += report.duplicates
        for episode_id in report.stored_ids:
            if process_episode(episode_id) == "failed":
                result.failed.append(item.update["external_id"])


def _run(graph: Graph, *, as_of: datetime | None) -> PipelineRun:
    run = run_pipeline(graph, trigger=PipelineRun.Trigger.COMMAND, as_of=as_of)
    if run is None:
        raise DemoLoadError(f"another pipeline run of {graph.slug} is running; try again later")
    if run.status != PipelineRun.Status.SUCCEEDED:
        first_line = (run.error or "no error recorded").splitlines()[0]
        raise DemoLoadError(f"pipeline run of {graph.slug} {run.status}: {first_line}")
    return run


# --- Reporting -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphReport:
    """What a graph holds after loading: what was extracted and what was built from it."""

    slug: str
    name: str
    episodes: int
    facts_current: int
    facts_ended: int
    entities: int
    runs: int
    active: tuple[Observation, ...]
    retired: int

    @property
    def facts(self) -> int:
        return self.facts_current + self.facts_ended


def graph_report(graph: Graph) -> GraphReport:
    facts = Fact.objects.filter(graph=graph)
    current = facts.filter(invalid_at__isnull=True, expired_at__isnull=True).count()
    observations = Observation.objects.filter(graph=graph)
    active = observations.filter(status=Observation.Status.ACTIVE).order_by(
        "-reach_people", "-reach_work_items", "name"
    )
    return GraphReport(
        slug=graph.slug,
        name=graph.name,
        episodes=Episode.objects.filter(graph=graph).count(),
        facts_current=current,
        facts_ended=facts.count() - current,
        entities=Entity.objects.filter(graph=graph, merged_into__isnull=True).count(),
        runs=PipelineRun.objects.filter(graph=graph).count(),
        active=tuple(active),
        retired=observations.filter(status=Observation.Status.RETIRED).count(),
    )
