"""The observation board (``/g/<graph>/``): the graph's observations as cards, filtered and
sorted by the query string, and the progress of a pipeline run while one is active.

Fragments: ``board-results`` (the cards, swapped in place when the filters change) and
``run-progress`` (polled while a run is active)."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET
from django_htmx.http import push_url, trigger_client_event

from dashboard.access import graph_for_user
from dashboard.forms import BoardFilterForm, RunProgressForm
from dashboard.http import AuthenticatedHttpRequest
from dashboard.presenters import card, card_entity_ids
from dashboard.selectors import (
    BoardFilters,
    active_run,
    board_observations,
    entity_choices,
    graph_has_episodes,
    switcher_graphs,
    with_card_entities,
)
from dashboard.support_queue import queue_summaries
from dashboard.views.common import login_required, render_page, wants_fragment
from memory.models import PipelineRun
from memory.spend import model_status

PAGE_SIZE = 24
BADGE_DAYS = 7
"""Without a chosen date, "new" and "updated" are relative to this many days ago."""
POLL_SECONDS = 2
FRAGMENTS = frozenset({"board-results", "run-progress"})


@login_required
@require_GET
def board(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    access = graph_for_user(request, slug)
    graph = access.graph
    form = BoardFilterForm(request.GET)
    values = form.values()
    filters = BoardFilters(
        status=values["status"], kind=values.get("kind", ""), entity=values.get("entity"),
        q=values.get("q", ""), since=form.since_moment(), sort=values["sort"],
    )
    page = Paginator(board_observations(graph, filters), PAGE_SIZE).get_page(values["page"])
    observations = list(page.object_list)
    with_card_entities(observations, (i for o in observations for i in card_entity_ids(o)))
    badge_since = filters.since or timezone.now() - timedelta(days=BADGE_DAYS)
    queues = queue_summaries(graph, observations)
    context = {
        "access": access,
        "graph": graph,
        "section": "board",
        "form": form,
        "filters": filters,
        "filtered": form.canonical_query(page=1) != "",
        "page": page,
        "cards": [card(o, badge_since, queues.get(o.pk)) for o in observations],
        "badge_since": badge_since,
        "query": form.canonical_query(),
        "page_query": form.canonical_query(page=None),
        # Called by the template only when the board is empty, to say which empty it is.
        "graph_has_episodes": partial(graph_has_episodes, graph),
    }
    fragment = wants_fragment(request, FRAGMENTS)
    if not fragment:
        # Only the full page shows these: the switcher, the entity filter, the run's progress.
        context["graphs"] = switcher_graphs(request.user)
        context["entity_options"] = entity_choices(graph, filters.entity)
        context["run"] = active_run(graph)
        # Why the model is not writing for this graph (no query without a model).
        context["model"] = model_status(graph)
    response = render_page(request, "dashboard/board.html", context, fragments=FRAGMENTS)
    if fragment:
        # The address bar shows the canonical URL of what is on screen, so it can be shared.
        query = context["query"]
        push_url(response, reverse("board", args=[graph.slug]) + (f"?{query}" if query else ""))
    return response


@login_required
@require_GET
def run_progress(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The ``run-progress`` fragment, polled while a run is active. When the watched run ends it
    answers 286 (htmx stops polling) and, if it published, fires ``runPublished`` so the board
    reloads its cards."""
    access = graph_for_user(request, slug)
    if not request.htmx:
        back = redirect("board", slug=slug)
        patch_vary_headers(back, ["HX-Request"])
        return back
    watched = RunProgressForm(request.GET).values().get("run")
    run = None
    if watched:
        run = PipelineRun.objects.filter(graph=access.graph, uuid=watched).first()
    if run is None or not run.is_active:
        run = active_run(access.graph) or run
    context = {"access": access, "graph": access.graph, "run": run,
               "poll_seconds": POLL_SECONDS, "finished": run is not None and not run.is_active}
    response = TemplateResponse(request, "dashboard/board.html#run-progress", context)
    patch_vary_headers(response, ["HX-Request"])
    if run is None or not run.is_active:
        response.status_code = 286  # stop polling
        if run is not None and run.status == PipelineRun.Status.SUCCEEDED:
            trigger_client_event(response, "runPublished", after="settle")
    return response
