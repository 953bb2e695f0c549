"""The start page: straight to the board of the user's only graph, else the list of their
graphs (with what to do when there is none)."""

from __future__ import annotations

from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET

from dashboard.http import AuthenticatedHttpRequest
from dashboard.views.common import login_required, render_page
from memory.models import Observation
from memory.selectors import graphs_for_user


@login_required
@require_GET
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    # One query: the user's graphs with their active observations counted.
    graphs = list(
        graphs_for_user(request.user).annotate(
            active_count=Count(
                "observations", filter=Q(observations__status=Observation.Status.ACTIVE)
            )
        )
    )
    if len(graphs) == 1:
        return redirect("board", slug=graphs[0].slug)
    return render_page(request, "dashboard/home.html", {"graphs": graphs, "section": "home"})
