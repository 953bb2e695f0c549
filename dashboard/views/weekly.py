"""The weekly status review (``/g/<graph>/weekly/<ISO week>``, ``/weekly/`` for this week): what a
PM reads in five minutes on Monday — see ``dashboard.weekly`` for what each section holds and the
two views (``?view=hindsight``). Previous and next week, Markdown and CSV downloads beside the
page (``2026-W48.md``, ``2026-W48.csv``), a print stylesheet."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard import exports
from dashboard.access import GraphAccess, graph_for_user
from dashboard.forms import WeeklyViewForm
from dashboard.http import AuthenticatedHttpRequest
from dashboard.selectors import switcher_graphs
from dashboard.views.common import login_required, render_page
from dashboard.weekly import IsoWeek, WeeklyReview, build, load_week
from memory.graph_settings import graph_settings

SHOWN = 25
"""The page lists at most this many items per section; the exports list them all."""


@login_required
@require_GET
def current_week(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    graph_for_user(request, slug)
    return redirect("weekly", slug=slug, week=str(IsoWeek.of(timezone.now())))


def _review(request: AuthenticatedHttpRequest, slug: str,
            week_text: str) -> tuple[WeeklyReview, GraphAccess, WeeklyViewForm]:
    access = graph_for_user(request, slug)
    week = IsoWeek.parse(week_text)
    if week is None:
        raise Http404("No such week.")
    form = WeeklyViewForm(request.GET)
    rows = load_week(access.graph, week, now=timezone.now())
    return build(rows, form.values()["view"]), access, form


@login_required
@require_GET
def weekly_review(request: AuthenticatedHttpRequest, slug: str, week: str) -> HttpResponse:
    review, access, form = _review(request, slug, week)
    this_week = IsoWeek.of(timezone.now())
    query = form.canonical_query()
    context: dict[str, Any] = {
        "access": access, "graph": access.graph, "section": "weekly", "review": review,
        "form": form, "query": f"?{query}" if query else "", "shown": SHOWN,
        "previous": review.week.shifted(-1),
        "next": review.week.shifted(1) if review.week < this_week else None,
        # "This week" unless it is this week or the next one (which the page links already).
        "this_week": this_week if review.week not in (this_week, this_week.shifted(-1)) else None,
        "graphs": switcher_graphs(request.user),
        "stalled_after_weeks": graph_settings(access.graph)["stalled_after_weeks"],
    }
    return render_page(request, "dashboard/weekly.html", context)


@login_required
@require_GET
def markdown_export(request: AuthenticatedHttpRequest, slug: str, week: str) -> HttpResponse:
    review, access, _ = _review(request, slug, week)
    text = exports.markdown(review, graph=access.graph, link=request.build_absolute_uri)
    return _download(text, "text/markdown", exports.filename(access.graph, review, "md"))


@login_required
@require_GET
def csv_export(request: AuthenticatedHttpRequest, slug: str, week: str) -> HttpResponse:
    review, access, _ = _review(request, slug, week)
    text = exports.csv_text(review, graph=access.graph, link=request.build_absolute_uri)
    return _download(text, "text/csv", exports.filename(access.graph, review, "csv"))


def _download(text: str, content_type: str, name: str) -> HttpResponse:
    response = HttpResponse(text.encode(), content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
