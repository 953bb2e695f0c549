"""Retired history (``/g/<graph>/retired``): the observations that ended (evidence ended, split,
merged), most recently retired first, filterable by reason and date — superseded versions only
when asked for; each opens the same observation page.

Fragment: ``retired-results``."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET
from django_htmx.http import push_url

from dashboard.access import graph_for_user
from dashboard.forms import RetiredFilterForm, end_of_day, start_of_day
from dashboard.http import AuthenticatedHttpRequest
from dashboard.presenters import card, card_entity_ids
from dashboard.selectors import retired_observations, switcher_graphs, with_card_entities
from dashboard.views.common import login_required, render_page, wants_fragment
from memory.models import Observation

PAGE_SIZE = 24
FRAGMENTS = frozenset({"retired-results"})


@login_required
@require_GET
def retired(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    access = graph_for_user(request, slug)
    form = RetiredFilterForm(request.GET)
    values = form.values()
    observations = retired_observations(
        access.graph,
        reason=values.get("reason", ""),
        since=start_of_day(values["since"]) if values.get("since") else None,
        until=end_of_day(values["until"]) if values.get("until") else None,
    )
    page = Paginator(observations, PAGE_SIZE).get_page(values["page"])
    shown = list(page.object_list)
    with_card_entities(shown, (i for o in shown for i in card_entity_ids(o)))
    context = {
        "access": access,
        "graph": access.graph,
        "section": "retired",
        "form": form,
        "filtered": form.canonical_query(page=1) != "",
        "page": page,
        "cards": [card(o, None) for o in shown],
        "query": form.canonical_query(),
        "page_query": form.canonical_query(page=None),
    }
    if not shown and not context["filtered"]:
        # Nothing has ended: say where the older versions are rather than "nothing retired".
        context["superseded"] = retired_observations(
            access.graph, reason=Observation.RetiredReason.SUPERSEDED).count()
    fragment = wants_fragment(request, FRAGMENTS)
    if not fragment:
        context["graphs"] = switcher_graphs(request.user)
    response = render_page(request, "dashboard/retired.html", context, fragments=FRAGMENTS)
    if fragment:
        query = context["query"]
        push_url(response, reverse("retired", args=[access.graph.slug])
                 + (f"?{query}" if query else ""))
    return response
