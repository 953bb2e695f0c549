"""A graph's settings (``/g/<graph>/settings``): what the model does for it and what it costs —
calls and tokens for extraction, summaries and entity pages, per day and per run, with the model
and prompt version — its monthly token budget, how long new updates wait to share a model call
and after how many weeks in one state an item is stalled; then every setting its runs use.
Everyone in the graph reads it; owners change the budget, the wait and the weeks
(``memory.spend``, ``memory.processing.model_queue``, ``memory.engine.stalled``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_http_methods

from dashboard.access import graph_for_user
from dashboard.http import AuthenticatedHttpRequest
from dashboard.selectors import graph_runs, switcher_graphs
from dashboard.views.common import login_required, render_page
from memory.graph_settings import graph_settings
from memory.models import Graph
from memory.spend import model_status, spend_by_day, spend_by_run, totals

RECENT_RUNS = 10
DAYS = 30
MAX_WAIT_SECONDS = 7 * 86_400


class ModelSettingsForm(forms.Form):
    monthly_token_budget = forms.IntegerField(
        required=False, min_value=0, label="Monthly token budget",
        help_text="Tokens in and out per calendar month; empty for no limit. Once spent, the "
                  "rules extractor and the template write until the month turns.")
    model_wait_seconds = forms.IntegerField(
        min_value=0, max_value=MAX_WAIT_SECONDS, label="Wait for a model batch (seconds)",
        help_text="New updates are read by the rules and shown at once; the model reads them "
                  "later, with others to share its call, at the latest this long after they "
                  "arrived, and its reading replaces the rules'. Shorter: the model's reading "
                  "sooner, more calls per update.")
    stalled_after_weeks = forms.IntegerField(
        required=False, min_value=0, max_value=520, label="Stalled after (weeks)",
        help_text="An item in one state (blocked, one status, reported, on the agenda) this "
                  "long is shown as stalled; 0 shows none. Empty keeps it as it is.")


@login_required
@require_http_methods(["GET", "POST"])
def graph_settings_page(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    access = graph_for_user(request, slug)
    graph = access.graph
    effective = graph_settings(graph)
    initial = {"monthly_token_budget": effective.get("monthly_token_budget"),
               "model_wait_seconds": effective.get("model_wait_seconds"),
               "stalled_after_weeks": effective.get("stalled_after_weeks")}
    form = ModelSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST":
        if not access.is_owner:
            raise PermissionDenied(f"You are a {access.role} of {graph.name}: changing its "
                                   "settings needs the owner role.")
        if form.is_valid():
            save(graph, form.cleaned_data)
            return redirect("graph-settings", slug=slug)
    runs = list(graph_runs(graph)[:RECENT_RUNS])
    per_run = spend_by_run(runs)
    days = spend_by_day(graph, days=DAYS)
    context: dict[str, Any] = {
        "access": access, "graph": graph, "section": "settings", "form": form,
        "model": model_status(graph, pending=True), "days": days, "month": totals(days),
        "runs": [(run, per_run[run.pk]) for run in runs], "settings": sorted(effective.items()),
        "graphs": switcher_graphs(request.user),
    }
    return render_page(request, "dashboard/graph_settings.html", context,
                       status=422 if form.errors else 200)


def save(graph: Graph, values: dict[str, Any]) -> None:
    stored = dict(graph.settings or {})
    stored["model_wait_seconds"] = values["model_wait_seconds"]
    if values.get("stalled_after_weeks") is not None:
        stored["stalled_after_weeks"] = values["stalled_after_weeks"]
    if values.get("monthly_token_budget") is None:
        stored.pop("monthly_token_budget", None)
    else:
        stored["monthly_token_budget"] = values["monthly_token_budget"]
    Graph.objects.filter(pk=graph.pk).update(settings=stored)
