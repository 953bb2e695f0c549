"""Timelines drawn on the server (DESIGN §7): this module turns loaded rows into bars, ticks and
bands in SVG user units; the page templates write the SVG, so every label and title goes through
the template's escaping. No queries here.

What a timeline shows, top to bottom:

* an axis of days, weeks or months, with the *as of* line (what was known then);
* **updates**: one tick per episode at the time it was written (a bar per day when there are too
  many to tell apart), each a link to the episode;
* **observations**: one lane per lineage, a band per version from when it was published until it
  was retired (an end marker when its evidence ended), each a link to the version;
* **facts**: one row per entity, a bar per fact from when it became true to when it stopped —
  open-ended (an arrow) while it still holds, an end marker where something ended it, whose
  tooltip says what and which links to the update that did. A bar links to the update that first
  stated the fact. A row shows at most ``MAX_LANES`` lanes of bars and counts what it leaves out.

Facts and updates are placed in world time; observations in system time (when the product
published and retired them) — the legend says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from django.urls import reverse
from django.utils import timezone

from dashboard.diagrams import shorten
from dashboard.presenters import relation_phrase
from memory.models import Entity, Episode, Fact, Observation

WIDTH = 1120.0
"""The graph timeline's width in user units; the narrower detail pages use ``DETAIL_WIDTH``."""
DETAIL_WIDTH = 900.0
LABEL_W = 190.0
PAD = 14.0
AXIS_H = 40.0
LANE_H = 26.0
"""A lane: an 11px label above an 8px bar."""
BAR_H = 8.0
ROW_PAD = 8.0
TRACK_H = 36.0
MAX_LANES = 5
CHAR_W = 6.1
"""Rough width of one character of an 11px label, to keep labels from overlapping."""
LABEL_CHARS = 44
TICKS_DRAWN = 300
"""Beyond this many updates in range, the updates track draws a bar per day instead."""
LINEAGES_DRAWN = 12
ROWS_PER_PAGE = 25


# --- Geometry --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimeScale:
    start: datetime
    end: datetime
    width: float = WIDTH

    @property
    def x0(self) -> float:
        return LABEL_W + PAD * 2

    @property
    def x1(self) -> float:
        return self.width - PAD - 10

    def x(self, moment: datetime) -> float:
        span = (self.end - self.start).total_seconds() or 1.0
        share = (moment - self.start).total_seconds() / span
        return self.x0 + max(0.0, min(1.0, share)) * (self.x1 - self.x0)

    def inside(self, moment: datetime) -> bool:
        return self.start <= moment <= self.end


@dataclass(frozen=True, slots=True)
class EndMark:
    x: float
    y: float
    title: str
    href: str


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    kind: str
    """CSS modifiers: the relation or observation kind, ``ended``..."""
    title: str
    href: str
    label: str
    label_x: float
    label_y: float
    open_start: bool = False
    """It began before the range."""
    open_end: bool = False
    """It still holds (as of the chosen time): drawn with an arrow."""
    end: EndMark | None = None

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def mid_y(self) -> float:
        return self.y + BAR_H / 2


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    y: float
    width: float
    height: float
    title: str
    href: str


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    sublabel: str
    href: str
    y: float
    height: float
    kind: str = "entity"

    @property
    def label_y(self) -> float:
        return self.y + 17

    @property
    def sublabel_y(self) -> float:
        return self.y + 31


@dataclass(frozen=True, slots=True)
class AxisTick:
    x: float
    label: str
    label_x: float
    """Beside its line, kept inside the picture."""


@dataclass
class Timeline:
    scale: TimeScale
    height: float = 0.0
    rows: list[Row] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    ticks: list[Tick] = field(default_factory=list)
    axis: list[AxisTick] = field(default_factory=list)
    as_of: datetime | None = None
    notes: list[str] = field(default_factory=list)
    """What was left out, in words (under the picture)."""

    @property
    def width(self) -> float:
        return self.scale.width

    @property
    def view_box(self) -> str:
        return f"0 0 {self.width:.0f} {self.height:.0f}"

    @property
    def as_of_x(self) -> float | None:
        if self.as_of is None or not self.scale.inside(self.as_of):
            return None
        return self.scale.x(self.as_of)

    @property
    def plot_x0(self) -> float:
        return self.scale.x0

    @property
    def plot_x1(self) -> float:
        return self.scale.x1

    @property
    def body_top(self) -> float:
        return AXIS_H

    @property
    def is_empty(self) -> bool:
        return not self.bars and not self.ticks


def axis_ticks(scale: TimeScale) -> list[AxisTick]:
    """Days for a range up to three weeks (every other day when they would crowd), Mondays up to
    four months, first days of months beyond."""
    first = timezone.localtime(scale.start).date()
    days = (scale.end - scale.start).days
    per_day = (scale.x1 - scale.x0) / max(days, 1)
    if days <= 21:
        step = 1 if per_day >= 52 else 2 if per_day >= 26 else 3
        dates = [first + timedelta(days=i) for i in range(0, days + 2, step)]
        fmt = "%a %-d"
    elif days <= 120:
        monday = first + timedelta(days=(7 - first.weekday()) % 7)
        dates = [monday + timedelta(weeks=i) for i in range(days // 7 + 2)]
        fmt = "%-d %b"
    else:
        month = date(first.year, first.month, 1)
        dates = []
        while month <= timezone.localtime(scale.end).date():
            dates.append(month)
            month = date(month.year + month.month // 12, month.month % 12 + 1, 1)
        fmt = "%b %Y"
    ticks = []
    for day in dates:
        moment = timezone.make_aware(datetime.combine(day, datetime.min.time()))
        if scale.start <= moment <= scale.end:
            x, label = scale.x(moment), f"{day:{fmt}}"
            ticks.append(AxisTick(x=x, label=label,
                                  label_x=min(x + 3, scale.width - 4 - len(label) * CHAR_W)))
    return ticks


class _Lanes:
    """Greedy lane packing: a bar goes into the first lane where it (and its label) fits."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.ends: list[float] = []

    def place(self, start: float, end: float) -> int | None:
        for lane, taken in enumerate(self.ends):
            if taken + 6 <= start:
                self.ends[lane] = end
                return lane
        if len(self.ends) < self.limit:
            self.ends.append(end)
            return len(self.ends) - 1
        return None


# --- Facts -----------------------------------------------------------------------------------


def fact_end(fact: Fact, as_of: datetime) -> datetime | None:
    """When the fact stopped holding, as known at ``as_of`` (``None``: still open then). An end
    recorded after ``as_of`` was not known yet."""
    if fact.invalid_at is None:
        return None
    if fact.expired_at is not None and fact.expired_at > as_of:
        return None
    return fact.invalid_at


def ended_by(fact: Fact) -> str:
    """What ended a fact, in words, for its end marker's tooltip."""
    parts = [fact.get_close_reason_display() if fact.close_reason else "Ended"]
    episode = fact.closed_by_episode
    if episode is not None:
        text = shorten(" ".join(episode.text.split()), 120) if episode.text else "an update"
        when = _local(episode.reference_time)
        parts.append(f"{episode.author or 'Unknown'}, {when:%-d %b}: “{text}”")
    return " — ".join(parts)


def _fact_bar(fact: Fact, scale: TimeScale, as_of: datetime, slug: str) -> tuple[Bar, float]:
    """A fact's bar at the top of a lane (``y`` = 0; ``_shifted`` moves it down) and the x its
    label runs to. Rows are the facts' sources, so the label names the relation and target."""
    end = fact_end(fact, as_of)
    x = scale.x(fact.valid_at)
    right = max(scale.x(end if end is not None else as_of), x + 3)
    phrase = relation_phrase(fact.relation)
    label = shorten(f"{phrase} {fact.target.name}", LABEL_CHARS)
    label_x = _label_x(x, label, scale)
    when = f"{_day(fact.valid_at)}" + (f" – {_day(end)}" if end else ", still holds")
    title = f"{fact.source.name} {phrase} {fact.target.name} ({when}). “{fact.sentence}”"
    episode = getattr(fact, "first_episode", None)
    href = (reverse("episode", args=[slug, episode]) + f"#fact-{fact.uuid}" if episode
            else reverse("entity", args=[slug, fact.source.uuid]))
    mark = None
    if end is not None and scale.inside(end):
        closer = fact.closed_by_episode
        mark = EndMark(
            x=scale.x(end), y=11 + BAR_H / 2, title=f"Ended {_day(end)}: {ended_by(fact)}",
            href=reverse("episode", args=[slug, closer.uuid]) if closer else href,
        )
    bar = Bar(
        x=x, y=11, width=right - x,
        kind=f"rel-{fact.relation.lower()}" + (" ended" if end is not None else ""),
        title=title, href=href, label=label, label_x=label_x, label_y=8,
        open_start=fact.valid_at < scale.start, open_end=end is None or end > scale.end, end=mark,
    )
    return bar, max(right, label_x + len(label) * CHAR_W)


def _label_x(x: float, label: str, scale: TimeScale) -> float:
    """Labels start above their bar, moved left when they would run off the picture."""
    return max(scale.x0, min(x, scale.x1 - len(label) * CHAR_W))


def _shifted(bar: Bar, dy: float) -> Bar:
    end = replace(bar.end, y=bar.end.y + dy) if bar.end else None
    return replace(bar, y=bar.y + dy, label_y=bar.label_y + dy, end=end)


def _words(episode: Episode) -> str:
    """The start of what an episode said (its ``excerpt`` when the query cut it short)."""
    if episode.type == Episode.Type.JSON:
        return "JSON payload"
    text = getattr(episode, "excerpt", None) or episode.content
    return shorten(" ".join(text.split()), 100)


def _local(moment: datetime) -> datetime:
    return timezone.localtime(moment)


def _day(moment: datetime) -> str:
    return f"{_local(moment):%-d %b %Y}"


@dataclass(frozen=True, slots=True)
class FactRow:
    """One row of facts: an entity and the facts it is the source of."""

    entity: Entity
    facts: Sequence[Fact]
    sublabel: str = ""


def _draw_fact_rows(timeline: Timeline, rows: Iterable[FactRow], y: float, slug: str) -> float:
    as_of = timeline.as_of or timezone.now()
    hidden = 0
    for index, row in enumerate(rows):
        lanes = _Lanes(MAX_LANES)
        placed: list[tuple[int, Bar]] = []
        row_hidden = 0
        for fact in sorted(row.facts, key=lambda f: (f.valid_at, f.relation, f.pk)):
            bar, label_end = _fact_bar(fact, timeline.scale, as_of, slug)
            lane = lanes.place(min(bar.x, bar.label_x), label_end)
            if lane is None:
                row_hidden += 1
            else:
                placed.append((lane, bar))
        height = max(1, len(lanes.ends)) * LANE_H + ROW_PAD * 2
        sublabel = row.sublabel or row.entity.type
        if row_hidden:
            sublabel += f" · {row_hidden} more"
            hidden += row_hidden
        timeline.rows.append(Row(
            label=shorten(row.entity.name, 28), sublabel=sublabel,
            href=reverse("entity", args=[slug, row.entity.uuid]), y=y, height=height,
            kind="entity entity--alt" if index % 2 else "entity",
        ))
        timeline.bars.extend(_shifted(bar, y + ROW_PAD + lane * LANE_H) for lane, bar in placed)
        y += height
    if hidden:
        timeline.notes.append(f"{hidden} overlapping facts are not drawn: each row's entity page "
                              "lists them all.")
    return y


# --- Updates and observations ------------------------------------------------------------------


def _draw_updates(timeline: Timeline, episodes: Sequence[Episode],
                  day_counts: Mapping[date, int], y: float, slug: str) -> float:
    total = sum(day_counts.values()) if day_counts else len(episodes)
    timeline.rows.append(Row(label="Updates", sublabel=f"{total} in range", href="", y=y,
                             height=TRACK_H, kind="track"))
    scale = timeline.scale
    if len(episodes) <= TICKS_DRAWN:
        for episode in episodes:
            text = _words(episode)
            timeline.ticks.append(Tick(
                x=scale.x(episode.reference_time) - 1.5, y=y + 7, width=3, height=TRACK_H - 14,
                title=f"{episode.author or 'Unknown'}, "
                      f"{_local(episode.reference_time):%a %-d %b %H:%M}: {text}",
                href=reverse("episode", args=[slug, episode.uuid]),
            ))
        return y + TRACK_H
    # Too many to tell apart: one bar per day, as tall as its share of the busiest day.
    busiest = max(day_counts.values())
    for day, count in sorted(day_counts.items()):
        start = timezone.make_aware(datetime.combine(day, datetime.min.time()))
        x0, x1 = scale.x(start), scale.x(start + timedelta(days=1))
        height = max(2.0, (TRACK_H - 10) * count / busiest)
        timeline.ticks.append(Tick(
            x=x0 + 0.5, y=y + TRACK_H - 5 - height, width=max(1.0, x1 - x0 - 1), height=height,
            title=f"{count} update{'' if count == 1 else 's'} on {day:%a %-d %b}",
            href=reverse("episodes", args=[slug]) + f"?since={day:%Y-%m-%d}&until={day:%Y-%m-%d}",
        ))
    timeline.notes.append(f"{total} updates: drawn as a bar per day.")
    return y + TRACK_H


def _draw_lineages(timeline: Timeline, versions: Sequence[Observation], y: float, slug: str,
                   *, capped: bool = False, label: str = "Observations") -> float:
    lineages: dict[Any, list[Observation]] = {}
    for version in sorted(versions, key=lambda o: (o.created_at, o.version, o.pk)):
        lineages.setdefault(version.lineage, []).append(version)
    shown = list(lineages.values())[:LINEAGES_DRAWN]
    if not shown:
        return y
    scale = timeline.scale
    as_of = timeline.as_of or timezone.now()
    height = len(shown) * LANE_H + ROW_PAD * 2
    patterns = f"{len(lineages)} pattern{'' if len(lineages) == 1 else 's'}"
    timeline.rows.append(Row(label=label, sublabel=patterns, href="", y=y, height=height,
                             kind="track"))
    for lane, chain in enumerate(shown):
        top = y + ROW_PAD + lane * LANE_H
        for position, version in enumerate(chain):
            retired = version.retired_at if (version.retired_at and version.retired_at <= as_of)\
                else None
            x = scale.x(version.created_at)
            right = max(scale.x(min(retired or as_of, scale.end)), x + 3)
            href = reverse("observation", args=[slug, version.uuid])
            when = f"published {_local(version.created_at):%-d %b %H:%M}" + (
                f", retired {_local(retired):%-d %b %H:%M} "
                f"({version.get_retired_reason_display().lower()})"
                if retired else ", active")
            mark = None
            if retired and version.retired_reason != Observation.RetiredReason.SUPERSEDED \
                    and scale.inside(retired):
                mark = EndMark(x=scale.x(retired), y=top + 11 + BAR_H / 2, href=href,
                               title=f"Retired {_local(retired):%-d %b}: "
                                     f"{(version.retirement or {}).get('note', '')}")
            label = shorten(chain[-1].name, LABEL_CHARS) if position == 0 else ""
            timeline.bars.append(Bar(
                x=x, y=top + 11, width=right - x,
                kind=f"obs obs-{version.kind}" + (" ended" if retired else ""),
                title=f"v{version.version} · {version.name} — {when}", href=href,
                label=label, label_x=_label_x(x, label, scale), label_y=top + 8,
                open_start=version.created_at < scale.start,
                open_end=retired is None, end=mark,
            ))
    hidden = len(lineages) - len(shown)
    if hidden or capped:
        timeline.notes.append("More observations were active in this range than are drawn: the "
                              "board and the retired history list them all.")
    return y + height


def _finish(timeline: Timeline, y: float) -> Timeline:
    timeline.axis = axis_ticks(timeline.scale)
    timeline.height = y + PAD
    return timeline


# --- The three timelines -----------------------------------------------------------------------


def graph_timeline(
    *, slug: str, scale: TimeScale, as_of: datetime, rows: Sequence[FactRow],
    episodes: Sequence[Episode], day_counts: Mapping[date, int],
    observations: Sequence[Observation], observations_capped: bool,
) -> Timeline:
    """The graph's timeline: updates, observations, then a row of facts per entity."""
    timeline = Timeline(scale=scale, as_of=as_of)
    y = _draw_updates(timeline, episodes, day_counts, AXIS_H, slug)
    y = _draw_lineages(timeline, observations, y, slug, capped=observations_capped)
    y = _draw_fact_rows(timeline, rows, y, slug)
    return _finish(timeline, y)


def entity_timeline(entity: Entity, facts: Sequence[Fact], episodes: Sequence[Episode], *,
                    slug: str, now: datetime) -> Timeline | None:
    """One entity's timeline: its own facts on the first row, then a row for each entity whose
    facts point at it; the updates that mention it as ticks. The range covers its facts (at most
    half a year back)."""
    if not facts:
        return None
    earliest = max(min(f.valid_at for f in facts), now - timedelta(days=183))
    start = min(earliest, now - timedelta(days=14)) - timedelta(days=1)
    scale = TimeScale(start=start, end=now + timedelta(days=1), width=DETAIL_WIDTH)
    timeline = Timeline(scale=scale, as_of=now)
    rows = [FactRow(entity, [f for f in facts if f.source_id == entity.pk], "its own facts")]
    pointing: dict[int, list[Fact]] = {}
    for fact in facts:
        if fact.target_id == entity.pk:
            pointing.setdefault(fact.source_id, []).append(fact)
    rows += [FactRow(group[0].source, group, f"{group[0].source.type} → this")
             for group in sorted(pointing.values(), key=lambda g: g[0].source.name)]
    rows = [row for row in rows if row.facts][:ROWS_PER_PAGE]
    y = _draw_updates(timeline, episodes, {}, AXIS_H, slug)
    y = _draw_fact_rows(timeline, rows, y, slug)
    return _finish(timeline, y)


def lifecycle_timeline(observation: Observation, versions: Sequence[Observation],
                       episodes: Sequence[Episode], *, slug: str, now: datetime) -> Timeline:
    """An observation's life: each version of its lineage from publication to retirement, and
    the updates of this version as ticks at the time they were written."""
    moments = [observation.window_start, *(v.created_at for v in versions)]
    moments += [v.retired_at for v in versions if v.retired_at]
    start = min(moments) - timedelta(days=1)
    end = max([*moments, min(now, max(moments) + timedelta(days=7))]) + timedelta(days=1)
    timeline = Timeline(scale=TimeScale(start=start, end=end, width=DETAIL_WIDTH), as_of=now)
    y = _draw_updates(timeline, episodes, {}, AXIS_H, slug)
    y = _draw_lineages(timeline, versions, y, slug, label="Versions")
    return _finish(timeline, y)
