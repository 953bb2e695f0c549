"""An entity's page (``/g/<graph>/e/<uuid>``): the summary of its current facts, its timeline, the
facts that hold and those that ended, the episodes that mention it, the observations that involve
it, its aliases and the open merge suggestions about it.

A merged entity's address leads to the entity it was merged into (the merge can be undone on the
merges page). The summary is rewritten, lazily, only when the entity's facts changed
(``memory.entity_summaries``)."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.access import entity_for_user
from dashboard.http import AuthenticatedHttpRequest
from dashboard.selectors import (
    ENTITY_EPISODES_SHOWN,
    entity_fact_rows,
    entity_observations,
    entity_suggestions,
    episodes_mentioning,
    switcher_graphs,
)
from dashboard.timeline import entity_timeline
from dashboard.views.common import login_required, render_page
from memory.entity_summaries import summary_for_page
from memory.selectors import split_ended


@login_required
@require_GET
def entity_detail(request: AuthenticatedHttpRequest, slug: str, uuid: UUID) -> HttpResponse:
    entity, access = entity_for_user(request, slug, uuid)
    if entity.merged_into is not None:
        messages.info(request, f"{entity.name} was merged into {entity.merged_into.name}.")
        return redirect("entity", slug=slug, uuid=entity.merged_into.uuid)
    now = timezone.now()
    facts = entity_fact_rows(entity)
    current, ended = split_ended(facts, now)
    episodes = episodes_mentioning(facts)
    context = {
        "access": access,
        "graph": access.graph,
        "section": "timeline",
        "entity": entity,
        "summary": summary_for_page(entity, current),
        "current": current,
        "ended": sorted(ended, key=lambda f: (f.invalid_at or f.expired_at or now), reverse=True),
        "episodes": episodes[:ENTITY_EPISODES_SHOWN],
        "more_episodes": len(episodes) > ENTITY_EPISODES_SHOWN,
        "observations": entity_observations(entity),
        "aliases": list(entity.aliases.order_by("name")),
        "suggestions": entity_suggestions(entity),
        "timeline": entity_timeline(entity, facts, episodes, slug=access.graph.slug, now=now),
        "graphs": switcher_graphs(request.user),
    }
    return render_page(request, "dashboard/entity.html", context)
