"""Who reaches which graph, in one query.

* A user (or their API key) reads the graphs they are a member of; everything else is 404, never
  403 (DESIGN §5).
* Writing needs the editor or owner role; a viewer who tries gets **403** — they can see the
  graph, so a 404 would be a lie — with a message naming their role.
* Superusers read every graph (audit) but write only where they are members with a writing role.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from rest_framework import status

from memory.api.errors import ApiError
from memory.models import Graph, Membership

WRITE_ROLES = {Membership.Role.EDITOR, Membership.Role.OWNER}


def readable_graphs(user: Any) -> QuerySet[Graph]:
    """The graphs ``user`` may read, each annotated with ``role`` (their membership role or
    ``None`` for a superuser's audit access)."""
    if not user or not user.is_authenticated:
        return Graph.objects.none()
    role = Membership.objects.filter(graph=OuterRef("pk"), user=user).values("role")[:1]
    graphs = Graph.objects.annotate(role=Subquery(role))
    if not user.is_superuser:
        graphs = graphs.filter(memberships__user=user)
    return graphs


def graph_not_found(identifier: object) -> ApiError:
    return ApiError(status.HTTP_404_NOT_FOUND, "not_found", f"No graph {identifier!s}.",
                    param="graph")


def get_graph(user: Any, identifier: str, *, write: bool = False, own: bool = False) -> Graph:
    """The graph named by slug or uuid if ``user`` may read it (404 otherwise); with ``write``
    the user must be an editor or owner, with ``own`` its owner (403 otherwise)."""
    graphs = readable_graphs(user)
    try:
        graph = graphs.filter(uuid=uuid.UUID(identifier)).first()
    except ValueError:
        graph = graphs.filter(slug=identifier).first()
    if graph is None:
        raise graph_not_found(identifier)
    role = getattr(graph, "role", None)
    if own and role != Membership.Role.OWNER:
        raise _forbidden(graph, role, "only its owner may do this")
    if write and role not in WRITE_ROLES:
        raise _forbidden(graph, role, "writing needs the editor or owner role")
    return graph


def _forbidden(graph: Graph, role: str | None, why: str) -> ApiError:
    held = f"your role is {role}" if role else "you are not a member (audit access only)"
    return ApiError(
        status.HTTP_403_FORBIDDEN, "permission_denied", f"On graph {graph.slug} {held}: {why}.",
        param="graph", details={"role": role},
    )
