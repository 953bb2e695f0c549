"""Who may see what. One helper per resource: each fetches the row scoped to a graph the user is a
member of and raises 404 otherwise — never 403, so a graph's existence is not revealed (DESIGN §5).
Views call these; templates only display what they return."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404

from dashboard.http import AuthenticatedHttpRequest
from memory.models import (
    Entity,
    Episode,
    Graph,
    Membership,
    MergeRecord,
    MergeSuggestion,
    Observation,
    PipelineRun,
)


@dataclass(frozen=True, slots=True)
class GraphAccess:
    """A graph and the requesting user's role in it."""

    graph: Graph
    role: str

    @property
    def can_edit(self) -> bool:
        return self.role in {Membership.Role.EDITOR, Membership.Role.OWNER}

    @property
    def is_owner(self) -> bool:
        return self.role == Membership.Role.OWNER

    def require_editor(self) -> None:
        """Writes need the editor or owner role. A viewer can see the graph, so a 404 would be a
        lie: they get 403, as from the API (``memory.api.access``)."""
        if not self.can_edit:
            raise PermissionDenied(
                f"You are a {self.role} of {self.graph.name}: this needs the editor or owner role."
            )


def graph_for_user(request: AuthenticatedHttpRequest, slug: str) -> GraphAccess:
    """The graph addressed by ``slug`` if the user is a member of it (one query)."""
    membership = (
        Membership.objects.select_related("graph")
        .filter(user=request.user, graph__slug=slug)
        .first()
    )
    if membership is None:
        raise Http404("No such graph.")
    return GraphAccess(graph=membership.graph, role=membership.role)


def in_graph[M: Model](rows: QuerySet[M], access: GraphAccess, missing: str, **lookup: object) -> M:
    """The one row of ``rows`` in the accessed graph matching ``lookup``; 404 (``missing``)
    when there is none — also when it exists in another graph."""
    row = rows.filter(graph=access.graph, **lookup).first()
    if row is None:
        raise Http404(missing)
    return row


def observation_for_user(
    request: AuthenticatedHttpRequest, slug: str, uuid: UUID
) -> tuple[Observation, GraphAccess]:
    """An observation of a graph the user is a member of, with what its detail page reads in
    the same row: the runs that created and retired it and the model call that wrote it
    (two queries)."""
    access = graph_for_user(request, slug)
    observation = in_graph(
        Observation.objects.select_related("created_by_run", "retired_by_run", "llm_call")
        .defer("llm_call__request", "llm_call__response"),
        access, "No such observation.", uuid=uuid,
    )
    return observation, access


def editable_graph_for_user(request: AuthenticatedHttpRequest, slug: str) -> GraphAccess:
    """The graph, for a write: 404 for a non-member, 403 for a viewer."""
    access = graph_for_user(request, slug)
    access.require_editor()
    return access


def entity_for_user(
    request: AuthenticatedHttpRequest, slug: str, uuid: UUID
) -> tuple[Entity, GraphAccess]:
    """An entity of a graph the user is a member of, with what it was merged into (two
    queries)."""
    access = graph_for_user(request, slug)
    entity = in_graph(Entity.objects.select_related("merged_into"), access, "No such entity.",
                      uuid=uuid)
    return entity, access


def episode_for_user(
    request: AuthenticatedHttpRequest, slug: str, uuid: UUID
) -> tuple[Episode, GraphAccess]:
    """An episode of a graph the user is a member of (two queries)."""
    access = graph_for_user(request, slug)
    return in_graph(Episode.objects.all(), access, "No such episode.", uuid=uuid), access


def run_for_user(
    request: AuthenticatedHttpRequest, slug: str, uuid: UUID
) -> tuple[PipelineRun, GraphAccess]:
    """A pipeline run of a graph the user is a member of, with who asked for it (two
    queries)."""
    access = graph_for_user(request, slug)
    run = in_graph(PipelineRun.objects.select_related("requested_by"), access, "No such run.",
                   uuid=uuid)
    return run, access


def suggestion_for_editor(
    request: AuthenticatedHttpRequest, slug: str, suggestion_id: int
) -> tuple[MergeSuggestion, GraphAccess]:
    """A merge suggestion of a graph the user may write to, with both of its entities."""
    access = editable_graph_for_user(request, slug)
    suggestion = in_graph(MergeSuggestion.objects.select_related("entity", "into"), access,
                          "No such merge suggestion.", pk=suggestion_id)
    return suggestion, access


def merge_for_editor(
    request: AuthenticatedHttpRequest, slug: str, merge_id: int
) -> tuple[MergeRecord, GraphAccess]:
    """A merge of a graph the user may write to, with both of its entities."""
    access = editable_graph_for_user(request, slug)
    record = in_graph(MergeRecord.objects.select_related("kept", "merged"), access,
                      "No such merge.", pk=merge_id)
    return record, access
