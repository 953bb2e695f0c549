"""Graphs: a key sees its user's graphs only; a graph created through the API is owned by its
creator; superusers read every graph (audit) and write only where they are members."""

from __future__ import annotations

import pytest

from memory.models import Graph, Membership
from tests.api.conftest import ClientFor, error_of
from tests.factories import GraphFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_member_lists_only_their_graphs_with_their_role(
    api: ClientFor, member, graph: Graph
) -> None:
    GraphFactory(slug="someone-elses")

    body = api(member).get("/api/v1/graphs").json()

    assert [(g["slug"], g["role"]) for g in body["items"]] == [("project-atlas", "viewer")]
    assert body["next_cursor"] is None


def test_an_outsider_gets_404_for_a_graph_that_exists(api: ClientFor, outsider,
                                                      graph: Graph) -> None:
    for identifier in (graph.slug, str(graph.uuid)):
        response = api(outsider).get(f"/api/v1/graphs/{identifier}")
        assert response.status_code == 404
        assert error_of(response)["code"] == "not_found"


def test_the_owner_reads_a_graph_by_slug_or_uuid(api: ClientFor, owner, graph: Graph) -> None:
    client = api(owner)
    for identifier in (graph.slug, str(graph.uuid)):
        body = client.get(f"/api/v1/graphs/{identifier}").json()
        assert (body["uuid"], body["role"]) == (str(graph.uuid), "owner")


def test_a_graph_created_through_the_api_is_owned_by_its_creator(api: ClientFor,
                                                                 outsider) -> None:
    response = api(outsider).post("/api/v1/graphs", {"name": "Support Queue"}, format="json")

    assert response.status_code == 201
    assert response.json()["slug"] == "support-queue"
    graph = Graph.objects.get(slug="support-queue")
    assert Membership.objects.get(graph=graph).role == Membership.Role.OWNER
    assert Membership.objects.get(graph=graph).user == outsider


def test_a_second_graph_with_the_same_name_gets_a_numbered_slug(api: ClientFor, owner,
                                                                graph: Graph) -> None:
    response = api(owner).post("/api/v1/graphs", {"name": "Project Atlas"}, format="json")

    assert response.json()["slug"] == "project-atlas-2"


def test_a_taken_slug_is_a_400_naming_slug(api: ClientFor, owner, graph: Graph) -> None:
    response = api(owner).post("/api/v1/graphs", {"name": "X", "slug": graph.slug},
                               format="json")

    assert response.status_code == 400 and error_of(response)["param"] == "slug"


def test_creating_a_graph_without_a_name_is_a_400_naming_name(api: ClientFor, owner) -> None:
    response = api(owner).post("/api/v1/graphs", {"description": "x"}, format="json")

    assert response.status_code == 400 and error_of(response)["param"] == "name"


def test_a_superuser_reads_every_graph_but_cannot_write_where_not_a_member(
    api: ClientFor, graph: Graph
) -> None:
    auditor = UserFactory(username="auditor", is_superuser=True, is_staff=True)
    client = api(auditor)

    assert [g["slug"] for g in client.get("/api/v1/graphs").json()["items"]] == [graph.slug]
    assert client.get(f"/api/v1/graphs/{graph.slug}").json()["role"] is None
    response = client.post(f"/api/v1/graphs/{graph.slug}/runs")
    assert response.status_code == 403
    assert "audit access only" in error_of(response)["message"]


def test_graph_pages_follow_the_cursor(api: ClientFor, owner) -> None:
    for n in range(5):
        Membership.objects.create(graph=GraphFactory(slug=f"g{n}"), user=owner, role="owner")
    client = api(owner)

    pages, cursor = [], None
    while True:
        body = client.get("/api/v1/graphs", {"page_size": 2, **({"cursor": cursor} if cursor
                                                                  else {})}).json()
        pages.append([g["slug"] for g in body["items"]])
        cursor = body["next_cursor"]
        if cursor is None:
            break

    assert pages == [["g0", "g1"], ["g2", "g3"], ["g4", "project-atlas"]]
