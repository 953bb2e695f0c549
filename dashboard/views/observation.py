"""An observation's page (``/g/<graph>/o/<uuid>``): its claims with citation chips and, in place,
the evidence trail of one claim; its structure; why its episodes belong together; its history;
the audit of how it was made. Its history is also drawn as a lifecycle timeline.

Fragment: ``claims`` (re-rendered when a chip opens or closes an evidence trail; the open trail
is ``?claim=<position>`` in the URL)."""

from __future__ import annotations

from uuid import UUID

from django.http import Http404, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.access import observation_for_user
from dashboard.diagrams import dependency_diagram, episode_graph_diagram
from dashboard.forms import ObservationStateForm
from dashboard.http import AuthenticatedHttpRequest
from dashboard.presenters import (
    held_stalls,
    number_citations,
    page_refs,
    recurring_issues,
    root_blockers,
    shared_signatures,
    version_history,
)
from dashboard.selectors import (
    CLUSTER_EPISODES_SHOWN,
    cluster_episodes,
    entity_pages,
    fact_evidence,
    lineage_versions,
    observation_claims,
    related_observations,
    retirement_evidence,
    switcher_graphs,
)
from dashboard.support_queue import queue_summaries, tickets_csv
from dashboard.timeline import lifecycle_timeline
from dashboard.views.common import login_required, render_page, wants_fragment
from memory.models import Observation

FRAGMENTS = frozenset({"claims"})


@login_required
@require_GET
def observation_detail(request: AuthenticatedHttpRequest, slug: str, uuid: UUID) -> HttpResponse:
    observation, access = observation_for_user(request, slug, uuid)
    state = ObservationStateForm(request.GET).values()
    claims = number_citations(observation_claims(observation))
    expanded = next((c for c in claims if c.claim.position == state.get("claim")), None)
    if expanded:
        evidence = fact_evidence(c.fact.pk for c in expanded.citations)
        for citation in expanded.citations:
            citation.evidence = evidence.get(citation.fact.pk, [])
    context = {
        "access": access,
        "graph": access.graph,
        # The graph's tab the page belongs under: a retired version lives in the history.
        "section": "retired" if observation.status == Observation.Status.RETIRED else "board",
        "observation": observation,
        "claims": claims,
        "expanded": expanded,
    }
    if not wants_fragment(request, FRAGMENTS):
        structure = observation.structure or {}
        episodes = cluster_episodes(observation)
        signatures = shared_signatures(structure, episodes)
        run = observation.created_by_run
        versions = lineage_versions(observation)
        related = related_observations(observation)
        pages = entity_pages(observation)
        context.update(
            graphs=switcher_graphs(request.user),
            run=run,
            clustering=((run.audit or {}).get("clustering") or {}).get("settings") or run.settings,
            blockers=root_blockers(structure, pages),
            issues=recurring_issues(structure),
            held=held_stalls(observation, timezone.now(), page_refs(structure, pages)),
            queue=queue_summaries(access.graph, [observation]).get(observation.pk),
            chain=dependency_diagram(structure),
            episodes=episodes,
            episodes_capped=observation.episode_count > CLUSTER_EPISODES_SHOWN,
            signatures=signatures,
            episode_graph=episode_graph_diagram(
                episodes, structure.get("links", []), [s.text for s in signatures]
            ),
            history=version_history(versions),
            lifecycle=lifecycle_timeline(observation, versions, episodes,
                                         slug=access.graph.slug, now=timezone.now()),
            related=related,
            successors=[v for v in versions if v.version == observation.version + 1]
            + [r for r in related if r.is_successor],
            retirement=retirement_evidence(observation),
        )
    return render_page(request, "dashboard/observation.html", context, fragments=FRAGMENTS)


@login_required
@require_GET
def observation_tickets_csv(request: AuthenticatedHttpRequest, slug: str,
                            uuid: UUID) -> HttpResponse:
    """A recurring issue's tickets and customers as CSV (404 for an observation without any)."""
    observation, access = observation_for_user(request, slug, uuid)
    summary = queue_summaries(access.graph, [observation]).get(observation.pk)
    if summary is None:
        raise Http404("This observation has no customers or tickets.")
    response = HttpResponse(tickets_csv(summary), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{access.graph.slug}-{observation.uuid}-tickets.csv"')
    return response
