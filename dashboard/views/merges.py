"""Merge review (``/g/<graph>/merges``): the entities that are probably the same, each suggestion
with both sides' facts, to merge or keep apart; and the journal of merges, each of which can be
undone. Everyone in the graph reads it; editors and owners decide (viewers get 403). Every
decision goes through ``memory.merges`` — the same journaled, reversible service the admin, the
API and entity resolution use.

After a decision a plain request is redirected back to the page (which says what happened);
htmx re-renders ``merge-review`` in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from dashboard.access import GraphAccess, graph_for_user, merge_for_editor, suggestion_for_editor
from dashboard.forms import MergeListForm
from dashboard.http import AuthenticatedHttpRequest
from dashboard.presenters import merge_sides
from dashboard.selectors import facts_by_entity, open_suggestions, recent_merges, switcher_graphs
from dashboard.views.common import login_required, render_page, wants_fragment
from memory.merges import MergeError, accept_suggestion, reject_suggestion, undo_merge

PAGE_SIZE = 10
FRAGMENTS = frozenset({"merge-review"})


@login_required
@require_GET
def merges(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    return _page(request, graph_for_user(request, slug), request.GET)


def _page(request: AuthenticatedHttpRequest, access: GraphAccess, query: Any) -> HttpResponse:
    form = MergeListForm(query)
    page = Paginator(open_suggestions(access.graph), PAGE_SIZE).get_page(form.values()["page"])
    suggestions = list(page.object_list)
    facts = facts_by_entity(e for s in suggestions for e in (s.entity_id, s.into_id))
    context: dict[str, Any] = {
        "access": access, "graph": access.graph, "section": "merges", "page": page,
        "page_query": "", "suggestions": [merge_sides(s, facts) for s in suggestions],
        "merges": recent_merges(access.graph),
    }
    if not wants_fragment(request, FRAGMENTS):
        context["graphs"] = switcher_graphs(request.user)
    return render_page(request, "dashboard/merges.html", context, fragments=FRAGMENTS)


def _decide(
    request: AuthenticatedHttpRequest, access: GraphAccess, decision: Callable[[], str]
) -> HttpResponse:
    """Apply a decision, say how it went, and show the page again: in place for htmx, by a
    redirect otherwise (the page number travels in the form)."""
    try:
        messages.success(request, decision())
    except MergeError as error:
        messages.error(request, f"Nothing changed: {error}.")
    if request.htmx:
        return _page(request, access, request.POST)
    page = MergeListForm(request.POST).canonical_query()
    return redirect(reverse("merges", args=[access.graph.slug]) + (f"?{page}" if page else ""))


@login_required
@require_POST
def accept(request: AuthenticatedHttpRequest, slug: str, suggestion_id: int) -> HttpResponse:
    suggestion, access = suggestion_for_editor(request, slug, suggestion_id)

    def merge() -> str:
        accept_suggestion(suggestion, user=request.user)
        return f"Merged {suggestion.entity.name} into {suggestion.into.name}."

    return _decide(request, access, merge)


@login_required
@require_POST
def reject(request: AuthenticatedHttpRequest, slug: str, suggestion_id: int) -> HttpResponse:
    suggestion, access = suggestion_for_editor(request, slug, suggestion_id)

    def keep_apart() -> str:
        reject_suggestion(suggestion, user=request.user)
        return f"Kept {suggestion.entity.name} and {suggestion.into.name} apart."

    return _decide(request, access, keep_apart)


@login_required
@require_POST
def undo(request: AuthenticatedHttpRequest, slug: str, merge_id: int) -> HttpResponse:
    record, access = merge_for_editor(request, slug, merge_id)

    def unmerge() -> str:
        undo_merge(record, user=request.user)
        return f"Undone: {record.merged.name} is its own entity again."

    return _decide(request, access, unmerge)
