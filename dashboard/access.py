"""Who may see what. One helper per resource: each fetches the row scoped to a graph the user is a
member of and raises 404 otherwise — never 403, so a graph's existence is not revealed (DESIGN §5).
Views call these; templates only display what they return."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.http import Http404

from dashboard.http import AuthenticatedHttpRequest
from memory.models import Graph, Membership, Observation


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


def observation_for_user(
    request: AuthenticatedHttpRequest, slug: str, uuid: UUID
) -> tuple[Observation, GraphAccess]:
    """An observation of a graph the user is a member of, with what its detail page reads in
    the same row: the runs that created and retired it and the model call that wrote it
    (two queries)."""
    access = graph_for_user(request, slug)
    observation = (
        Observation.objects.select_related("created_by_run", "retired_by_run", "llm_call")
        .defer("llm_call__request", "llm_call__response")
        .filter(graph=access.graph, uuid=uuid)
        .first()
    )
    if observation is None:
        raise Http404("No such observation.")
    return observation, access
