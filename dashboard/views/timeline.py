"""The graph's timeline (``/g/<graph>/timeline``): each fact's validity as a bar on its entity's
row, updates as ticks, observation lifecycles as bands — drawn on the server
(``dashboard.timeline``). The range, the as-of day, the kind of rows and the page of rows are in
the URL.

Fragment: ``timeline-chart`` (the picture and its pager, swapped when the form changes)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET
from django_htmx.http import push_url

from dashboard.access import graph_for_user
from dashboard.forms import TimelineForm, end_of_day, start_of_day
from dashboard.http import AuthenticatedHttpRequest
from dashboard.selectors import (
    TIMELINE_OBSERVATIONS,
    TimelineWindow,
    switcher_graphs,
    timeline_day_counts,
    timeline_episodes,
    timeline_facts,
    timeline_observations,
    timeline_rows,
)
from dashboard.timeline import ROWS_PER_PAGE, TICKS_DRAWN, FactRow, TimeScale, graph_timeline
from dashboard.views.common import login_required, render_page, wants_fragment
from memory.models import Entity

FRAGMENTS = frozenset({"timeline-chart"})
SPANS = [("2 weeks", 14), ("4 weeks", 28), ("12 weeks", 84)]


@login_required
@require_GET
def timeline(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    access = graph_for_user(request, slug)
    graph = access.graph
    now = timezone.now()
    form = TimelineForm(request.GET)
    first, last, as_of_day = form.window(timezone.localdate(now))
    known_at = min(end_of_day(as_of_day), now) if as_of_day else now
    window = TimelineWindow(start=start_of_day(first), end=end_of_day(last), known_at=known_at,
                            entity_type=form.values().get("type", ""))
    page = Paginator(timeline_rows(graph, window), ROWS_PER_PAGE).get_page(form.values()["page"])
    facts = timeline_facts(graph, window, [row["source_id"] for row in page.object_list])
    observations = timeline_observations(graph, window)
    chart = graph_timeline(
        slug=graph.slug, scale=TimeScale(start=window.start, end=window.end), as_of=known_at,
        rows=_fact_rows(page.object_list, facts),
        episodes=timeline_episodes(graph, window, TICKS_DRAWN + 1),
        day_counts=timeline_day_counts(graph, window),
        observations=observations[:TIMELINE_OBSERVATIONS],
        observations_capped=len(observations) > TIMELINE_OBSERVATIONS,
    )
    query = form.canonical_query()
    context: dict[str, Any] = {
        "access": access, "graph": graph, "section": "timeline", "form": form,
        "timeline": chart, "page": page, "window": window, "first": first, "last": last,
        "as_of_day": as_of_day, "query": query, "page_query": form.canonical_query(page=None),
        "shift": _shifts(form, first, last),
    }
    fragment = wants_fragment(request, FRAGMENTS)
    if not fragment:
        context["graphs"] = switcher_graphs(request.user)
    response = render_page(request, "dashboard/timeline.html", context, fragments=FRAGMENTS)
    if fragment:
        push_url(response, reverse("timeline", args=[graph.slug]) + (f"?{query}" if query else ""))
    return response


def _fact_rows(rows: Any, facts: list[Any]) -> list[FactRow]:
    """The page's rows in order, each with its facts (the row query gave the entity's fields)."""
    by_source: dict[int, list[Any]] = {}
    for fact in facts:
        by_source.setdefault(fact.source_id, []).append(fact)
    result = []
    for row in rows:
        group = by_source.get(row["source_id"], [])
        entity = group[0].source if group else Entity(
            pk=row["source_id"], name=row["source__name"], type=row["source__type"],
            uuid=row["source__uuid"])
        result.append(FactRow(entity=entity, facts=group))
    return result


def _shifts(form: TimelineForm, first: date, last: date) -> dict[str, Any]:
    """Query strings of the same view one range earlier or later, and over the usual spans up to
    the same last day."""
    step = timedelta(days=(last - first).days + 1)
    return {
        "earlier": form.canonical_query(start=first - step, end=last - step, page=None),
        "later": form.canonical_query(start=first + step, end=last + step, page=None),
        "spans": [
            (label, form.canonical_query(start=last - timedelta(days=days - 1), end=last,
                                         page=None), (last - first).days + 1 == days)
            for label, days in SPANS
        ],
    }
