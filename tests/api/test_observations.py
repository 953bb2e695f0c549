"""Observations over the native API: the board's filters, the detail with claims, cited facts
and their episodes, structure and lineage; retired ones with their reason. Read-only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from memory.models import Graph, Observation
from tests.api.conftest import ClientFor
from tests.conftest import IngestFn
from tests.scenarios import SHIPPED

pytestmark = pytest.mark.django_db


def path(graph: Graph, suffix: str = "") -> str:
    return f"/api/v1/graphs/{graph.slug}/observations{suffix}"


def test_the_seed_observation_is_listed_for_members(
    api: ClientFor, member, seed_observation: Observation
) -> None:
    body = api(member).get(path(seed_observation.graph)).json()

    (item,) = body["items"]
    assert item["uuid"] == str(seed_observation.uuid)
    assert item["root_blockers"] == [{"entity": "Auth Service Refactor", "owner": "Backend Team",
                                      "reach_people": 3, "reach_work_items": 3}]
    assert len(item["episodes"]) == 3 and item["status"] == "active"


def test_outsiders_get_404_for_the_list_and_the_detail(
    api: ClientFor, outsider, seed_observation: Observation
) -> None:
    graph = seed_observation.graph
    client = api(outsider)

    assert client.get(path(graph)).status_code == 404
    assert client.get(path(graph, f"/{seed_observation.uuid}")).status_code == 404
    assert client.get(path(graph, "/retired")).status_code == 404


def test_filters_by_kind_entity_text_and_since(
    api: ClientFor, member, seed_observation: Observation
) -> None:
    graph = seed_observation.graph
    client = api(member)
    refactor = seed_observation.entities.get(name="Auth Service Refactor")

    def found(**params: Any) -> int:
        return len(client.get(path(graph), params).json()["items"])

    assert found(kind="dependency_chain") == 1 and found(kind="recurring_issue") == 0
    assert found(entity=str(refactor.uuid)) == 1
    assert found(q="auth refactor") == 1 and found(q="kubernetes") == 0
    assert found(since="2000-01-01T00:00:00Z") == 1 and found(since="2999-01-01T00:00:00Z") == 0
    assert found(sort="reach") == found(sort="newest") == 1


def test_the_detail_walks_from_claims_to_facts_to_episodes(
    api: ClientFor, member, seed_observation: Observation
) -> None:
    body = api(member).get(path(seed_observation.graph, f"/{seed_observation.uuid}")).json()

    assert body["summary"] == " ".join(c["text"] for c in body["claims"])
    cluster_facts = {str(u) for u in seed_observation.facts.values_list("uuid", flat=True)}
    for claim in body["claims"]:
        assert claim["facts"]
        for fact in claim["facts"]:
            assert fact["uuid"] in cluster_facts
            assert fact["episodes"] and all(e["sentence"] for e in fact["episodes"])
    assert {e["external_id"] for e in body["episodes"]} == {"alice", "bob", "clara"}
    names = body["structure"]["names"]
    root = body["structure"]["dependency"]["root_blockers"][0]
    assert [names[m] for m in root["members"]] == ["Auth Service Refactor"]
    assert body["structure"]["reach"] == {"people": 3, "work_items": 3}
    assert body["history"]["versions"][0]["uuid"] == str(seed_observation.uuid)


def test_the_detail_costs_a_fixed_number_of_queries(
    api: ClientFor, member, seed_observation: Observation, django_assert_num_queries: Any
) -> None:
    client = api(member)
    detail = path(seed_observation.graph, f"/{seed_observation.uuid}")
    # key · last-use stamp · graph and role · the observation with its runs · claims · cited
    # facts · their evidence and episodes · the cluster's episodes · facts · entities ·
    # predecessors · successors · the lineage's versions
    with django_assert_num_queries(13):
        assert client.get(detail).status_code == 200


def test_lists_cost_the_same_queries_whatever_the_page_size(
    api: ClientFor, member, seed_observation: Observation, django_assert_num_queries: Any
) -> None:
    graph = seed_observation.graph
    for n in range(6):
        Observation.objects.create(
            graph=graph, lineage=seed_observation.lineage, version=n + 2, kind="shared_context",
            name=f"o{n}", summary="s", window_start=seed_observation.window_start,
            window_end=seed_observation.window_end, evidence_fingerprint="f",
            generator="template", created_by_run=seed_observation.created_by_run,
        )
    client = api(member)
    # key · last-use stamp · graph and role · the page · its episodes
    for size in (1, 7):
        with django_assert_num_queries(5):
            body = client.get(path(graph), {"page_size": size}).json()
        assert len(body["items"]) == size


def test_a_retired_observation_keeps_its_reason_and_successors(
    api: ClientFor, member, seed_observation: Observation, ingest: IngestFn
) -> None:
    graph = seed_observation.graph
    ingest(graph, [SHIPPED], now=datetime.fromisoformat("2026-12-02T10:05:00+00:00"))
    client = api(member)

    retired = client.get(path(graph, "/retired")).json()["items"]
    detail = client.get(path(graph, f"/{seed_observation.uuid}")).json()
    active = client.get(path(graph)).json()["items"]

    assert [o["uuid"] for o in retired] == [str(seed_observation.uuid)]
    assert retired[0]["retired_reason"] == "superseded"
    assert detail["status"] == "retired" and detail["retirement"]["closed_facts"]
    (successor,) = active
    assert successor["name"] == "Payments Integration blocking 1 workstream"
    assert detail["history"]["successors"] == [successor["uuid"]]
    assert str(seed_observation.uuid) not in {o["uuid"] for o in active}
    assert len(client.get(path(graph), {"status": "all"}).json()["items"]) == len(active) + 1
