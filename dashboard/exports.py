"""The weekly review as files: Markdown ready to paste into a status channel or a wiki, and CSV for
a spreadsheet. Both are rendered from the same ``WeeklyReview`` as the page, with absolute links,
and hold nothing that depends on when they were made: the export of a past week's review, as
known, is the same file every time."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from datetime import datetime

from django.urls import reverse
from django.utils import timezone

from dashboard.weekly import StalledRow, WeeklyReview
from memory.engine.template_summary import duration
from memory.models import Graph, Observation

CSV_COLUMNS = ("section", "item", "detail", "owner", "reach_people", "reach_work_items",
               "age_days", "date", "difference", "link")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
FLAG = "⚑"

Link = Callable[[str], str]
"""Makes a path absolute (``request.build_absolute_uri``)."""


def filename(graph: Graph, review: WeeklyReview, extension: str) -> str:
    view = "-hindsight" if review.hindsight else ""
    return f"{graph.slug}-weekly-{review.week}{view}.{extension}"


def md(text: str) -> str:
    """Text that Markdown shows as written (no accidental emphasis, links or headings)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _day(moment: datetime) -> str:
    return f"{timezone.localtime(moment):%a %-d %b}"


def _date(moment: datetime | None) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d}" if moment else ""


def _observation(graph: Graph, observation: Observation, link: Link) -> str:
    url = link(reverse("observation", args=[graph.slug, observation.uuid]))
    return f"[{md(observation.name)}]({url})"


def _flag(difference: str) -> str:
    return f" {FLAG} {md(difference)}" if difference else ""


def _stall_words(row: StalledRow) -> str:
    """ "blocked since Mon 16 Nov 2026 (5 weeks)", "in status NEW since Sun 20 Jul 2008 (over 18
    years)" (the summaries' words), "on the agenda in 4 of the last 4 weeks"."""
    stall = row.stall
    if stall.agenda:
        return f"on the agenda {stall.agenda}"
    words = (f"{stall.state} since {timezone.localtime(stall.since):%a %-d %b %Y} "
             f"({duration(stall.weeks)})")
    if row.held:  # the pattern holds it: its row links that pattern
        words += "; held by its pattern"
    return words


def _plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def markdown(review: WeeklyReview, *, graph: Graph, link: Link) -> str:
    week = review.week
    lines = [f"# {md(graph.name)} — weekly review {week} ({week.label})", ""]
    last_day = f"{week.sunday:%a %-d %b %Y}"
    if review.hindsight:
        lines.append(f"With hindsight: today's knowledge of that week. {FLAG} marks what differs "
                     f"from what was known at its end ({review.differences}).")
    elif review.cut < week.end:
        lines.append("As known so far: the week is not over.")
    else:
        lines.append(f"As known at the end of the week ({last_day}).")
    lines += ["", f"**{len(review.new)} new · {len(review.updated)} updated · "
                  f"{len(review.retired)} retired · {_plural(len(review.blockers), 'root blocker')}"
                  f" · {_plural(review.fact_changes, 'fact change')} · "
                  f"{_plural(review.updates, 'update')}**"]

    def section(title: str, items: list[str]) -> None:
        lines.extend(["", f"## {title}", ""])
        lines.extend(items or ["_None._"])

    section("Root blockers by unblock reach", [
        f"{n}. **{md(b.name)}**" + (f" — owner {md(b.owners)}" if b.owners else "")
        + f" · clears {_plural(b.reach_people, 'person', 'people')}, "
        f"{_plural(b.reach_work_items, 'work item')}"
        + (f" · blocking for {_plural(b.age_days, 'day')}" if b.age_days is not None else "")
        + f" · {_observation(graph, b.observation, link)}{_flag(b.difference)}"
        for n, b in enumerate(review.blockers, start=1)
    ])
    section("Stalled", [
        *(f"- {md(g.text)}" for g in review.stalled_groups),
        *(f"- **{md(r.stall.item.name)}**"
          + (f" ({md(r.stall.marks_text)})" if r.stall.marks_text else "")
          + f" — {md(_stall_words(r))} · {_observation(graph, r.observation, link)}"
          for r in review.stalled),
    ])
    section("New this week", [
        f"- {_observation(graph, c.observation, link)} — "
        f"{c.observation.get_kind_display().lower()}, "
        f"{_plural(c.observation.episode_count, 'update')}, "
        f"{_plural(c.observation.fact_count, 'fact')}"
        for c in review.new
    ])
    section("Updated this week", [
        f"- {_observation(graph, c.observation, link)} (v{c.observation.version}) — "
        + "; ".join(md(change) for change in c.changes)
        + "".join(f"\n  - {md(line)}" for line in c.ended_by)
        for c in review.updated
    ])
    section("Retired this week", [
        f"- {_observation(graph, r.observation, link)} — {md(r.reason.lower())}"
        + (": " + "; ".join(md(e) for e in r.ended_by) if r.ended_by else "")
        for r in review.retired
    ])
    if review.hindsight:
        section("Found later", [
            f"- {_observation(graph, c.observation, link)}{_flag(c.difference)}"
            for c in review.found_later
        ])
    changes: list[str] = []
    for group in review.fact_groups:
        if changes:
            changes.append("")
        url = link(reverse("entity", args=[graph.slug, group.entity]))
        changes.append(f"### [{md(group.name)}]({url})")
        changes.append("")
        for c in group.changes:
            detail = f" ({md(c.detail)})" if c.detail else ""
            changes.append(f"- {_day(c.at)}: {c.change} — {md(c.text)}{detail}"
                           f"{_flag(c.difference)}")
    section("What changed", changes)
    section("Updates per author", [
        f"- {md(a.author)}: {a.updates}{_flag(a.difference)}" for a in review.authors
    ])
    section("Workstreams with no update for two weeks", [
        f"- [{md(q.name)}]({link(reverse('entity', args=[graph.slug, q.entity]))}) — "
        + (f"last update {_day(q.last_update)} ({_plural(q.days or 0, 'day')} before)"
           if q.last_update else "no update")
        + _flag(q.difference)
        for q in review.quiet
    ])
    return "\n".join(lines) + "\n"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A CSV cell no spreadsheet runs as a formula: text that starts like one (names, authors
    and sentences come from whoever writes updates) gets a leading apostrophe, which
    spreadsheets show as text (OWASP's advice against CSV injection). Numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(review: WeeklyReview, *, graph: Graph, link: Link) -> str:
    """One row per item, the section in the first column. Starts with a byte-order mark so that
    spreadsheet programs read it as UTF-8."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)

    def row(section: str, item: str, *, detail: str = "", owner: str = "",
            people: int | str = "", items: int | str = "", age: int | str | None = "",
            when: datetime | None = None, difference: str = "", url: str = "") -> None:
        writer.writerow([cell(value) for value in (
            section, item, detail, owner, people, items, "" if age is None else age, _date(when),
            difference, url)])

    def obs_url(observation: Observation) -> str:
        return link(reverse("observation", args=[graph.slug, observation.uuid]))

    for b in review.blockers:
        row("root_blocker", b.name, detail=b.observation.name, owner=b.owners,
            people=b.reach_people, items=b.reach_work_items, age=b.age_days, when=b.since,
            difference=b.difference, url=obs_url(b.observation))
    for r in review.stalled:
        row("stalled", r.stall.item.name, detail=_stall_words(r),
            age=(review.cut - r.stall.since).days, when=r.stall.since,
            url=obs_url(r.observation))
    for c in review.new:
        o = c.observation
        row("new", o.name, detail=f"{o.get_kind_display().lower()}; "
            f"{_plural(o.episode_count, 'update')}; {_plural(o.fact_count, 'fact')}",
            people=o.reach_people, items=o.reach_work_items, when=o.created_at, url=obs_url(o))
    for c in review.updated:
        o = c.observation
        row("updated", o.name, detail="; ".join([*c.changes, *c.ended_by]),
            people=o.reach_people,
            items=o.reach_work_items, when=o.created_at, url=obs_url(o))
    for gone in review.retired:
        row("retired", gone.observation.name,
            detail="; ".join([gone.reason.lower(), *gone.ended_by]),
            when=gone.observation.retired_at, url=obs_url(gone.observation))
    for c in review.found_later:
        row("found_later", c.observation.name, when=c.observation.created_at,
            difference=c.difference, url=obs_url(c.observation))
    for group in review.fact_groups:
        for f in group.changes:
            episode = getattr(f.fact, "first_episode", None)
            url = link(reverse("episode", args=[graph.slug, episode]) if episode
                       else reverse("entity", args=[graph.slug, group.entity]))
            row(f"fact_{f.change}", group.name, detail=f.text + (f" ({f.detail})" if f.detail
                                                                  else ""),
                when=f.at, difference=f.difference, url=url)
    for a in review.authors:
        row("author", a.author, detail=str(a.updates), difference=a.difference)
    for q in review.quiet:
        row("quiet_workstream", q.name, age=q.days, when=q.last_update, difference=q.difference,
            url=link(reverse("entity", args=[graph.slug, q.entity])))
    return "\ufeff" + out.getvalue()
