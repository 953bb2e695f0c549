"""Pipeline runs (``/g/<graph>/runs``): every run with its counts, timings, model calls and
tokens; one run's page (``/g/<graph>/runs/<uuid>``) with its stages, settings, errors and the
observations it wrote and retired. Editors and owners start a run.

While a run is active its ``run-progress`` fragment (on both pages) polls the run's page every
second and stops when the run ends: the last answer is HTTP 286 and fires ``runFinished``, on
which the list, the run's badges and its summary reload themselves.

Fragments: ``run-list`` (the table), ``run-progress`` (stage by stage), ``run-status`` (the
badges) and ``run-summary``."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling, trigger_client_event

from dashboard.access import editable_graph_for_user, graph_for_user, run_for_user
from dashboard.forms import RunListForm
from dashboard.http import AuthenticatedHttpRequest
from dashboard.presenters import run_stages
from dashboard.selectors import active_run, graph_runs, run_observations, switcher_graphs
from dashboard.views.common import login_required, render_page, wants_fragment
from memory import pipeline, tasks
from memory.models import PipelineRun
from memory.spend import model_status, spend_by_day, spend_by_run

PAGE_SIZE = 25
POLL_SECONDS = 1
LIST_FRAGMENTS = frozenset({"run-list"})
RUN_FRAGMENTS = frozenset({"run-progress", "run-status", "run-summary"})
FINISHED = "runFinished"


@login_required
@require_GET
def runs(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    access = graph_for_user(request, slug)
    values = RunListForm(request.GET).values()
    page = Paginator(graph_runs(access.graph), PAGE_SIZE).get_page(values["page"])
    spend = spend_by_run(list(page.object_list))
    context: dict[str, Any] = {
        "access": access, "graph": access.graph, "section": "runs", "page": page,
        "page_query": "", "poll_seconds": POLL_SECONDS,
        "rows": [(run, spend[run.pk]) for run in page.object_list],
    }
    if not wants_fragment(request, LIST_FRAGMENTS):
        run = active_run(access.graph)
        status = model_status(access.graph, pending=True)
        context.update(graphs=switcher_graphs(request.user), run=run,
                       stages=run_stages(run.progress, run.timings) if run else [],
                       model=status, days=spend_by_day(access.graph, days=14)
                       if status.configured else [])
    return render_page(request, "dashboard/runs.html", context, fragments=LIST_FRAGMENTS)


@login_required
@require_GET
def run_detail(request: AuthenticatedHttpRequest, slug: str, uuid: UUID) -> HttpResponse:
    run, access = run_for_user(request, slug, uuid)
    context: dict[str, Any] = {
        "access": access, "graph": access.graph, "section": "runs", "run": run,
        "stages": run_stages(run.progress, run.timings), "poll_seconds": POLL_SECONDS,
    }
    if request.htmx and request.htmx.target == "run-progress":
        return _progress(request, context, run)
    created, retired = run_observations(run)
    context.update(created=created, retired=retired, spend=spend_by_run([run])[run.pk])
    if not wants_fragment(request, RUN_FRAGMENTS):
        context["graphs"] = switcher_graphs(request.user)
    return render_page(request, "dashboard/run.html", context, fragments=RUN_FRAGMENTS)


def _progress(
    request: AuthenticatedHttpRequest, context: dict[str, Any], run: PipelineRun
) -> HttpResponse:
    """The polled fragment. Once the run has ended: HTTP 286, which stops htmx's polling, with
    the final state, and ``runFinished`` for the panels that show its results."""
    page = TemplateResponse(request, "dashboard/run.html#run-progress", context)
    if run.is_active:
        patch_vary_headers(page, ["HX-Request"])
        return page
    page.render()
    response = HttpResponseStopPolling(page.content)
    trigger_client_event(response, FINISHED, {"run": str(run.uuid)}, after="settle")
    patch_vary_headers(response, ["HX-Request"])
    return response


@login_required
@require_POST
def start(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """Queue a run (an already queued one is reused) and hand it to a worker after commit — in
    the embedded default it runs in-process, so the answer comes once it has finished. Then the
    run's page, which follows its progress."""
    access = editable_graph_for_user(request, slug)
    run = pipeline.request_run(access.graph, trigger=PipelineRun.Trigger.MANUAL,
                               user=request.user)
    tasks.start_run(run)
    return redirect("run", slug=slug, uuid=run.uuid)
