"""Every filter the Zep-compatible lists support changes what they return — exactly to the items
the filter describes (judged from the items' own wire fields), a non-empty part of the unfiltered
list and never all of it — so a filter silently ignored fails here. (Unsupported filters are
refused with 400; see tests/api/test_zep_sdk.py.)

The graph: three support tickets, the seed's three updates, then the backend team shipping the
refactor — current and ended facts, people, work items and customers, an active recurring issue,
a second version of the dependency chain and its retired first version."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from rest_framework.test import APIClient

from memory.models import Entity, Episode, Graph
from tests.api.conftest import ClientFor
from tests.conftest import IngestFn
from tests.scenarios import SEED, SHIPPED, TICKETS

pytestmark = pytest.mark.django_db

Item = dict[str, Any]
Case = tuple[dict[str, Any], Callable[[Item], bool]]


@pytest.fixture
def story(graph: Graph, ingest: IngestFn) -> Graph:
    ingest(graph, TICKETS, now=datetime.fromisoformat("2026-11-20T12:00:00+00:00"))
    ingest(graph, SEED, now=datetime.fromisoformat("2026-11-28T12:00:00+00:00"))
    ingest(graph, [SHIPPED], now=datetime.fromisoformat("2026-12-02T10:05:00+00:00"))
    return graph


def listed(client: APIClient, graph: Graph, what: str, filters: dict[str, Any] | None = None
           ) -> list[Item]:
    body = {"filters": filters} if filters is not None else {}
    response = client.post(f"/api/v4/graphs/{graph.uuid}/{what}/list?page_size=100", body,
                           format="json")
    assert response.status_code == 200, response.content[:300]
    assert "next_cursor" not in response.json()
    return response.json()["items"]


def when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def one_date(field: str, operator: str, value: str | None = None) -> dict[str, Any]:
    condition = {"field": field, "operator": operator}
    if value is not None:
        condition["value"] = value
    return {"date_filters": {"any_of": [{"all_of": [condition]}]}}


def check(client: APIClient, graph: Graph, what: str, baseline: list[Item],
          cases: dict[str, Case]) -> None:
    """Each case's filter returns exactly the baseline's items its predicate holds for, and
    those are neither none nor all of them."""
    def uuids(items: list[Item]) -> list[str]:
        return sorted(i["uuid"] for i in items)

    wrong = {}
    for name, (filters, holds) in cases.items():
        expected = [item for item in baseline if holds(item)]
        if not 0 < len(expected) < len(baseline):
            wrong[name] = f"a poor case: it selects {len(expected)} of {len(baseline)}"
            continue
        got = listed(client, graph, what, filters)
        if uuids(got) != uuids(expected):
            wrong[name] = f"returned {len(got)} items, expected {len(expected)}"
    assert not wrong, wrong


def test_each_edge_filter_narrows_the_current_facts_to_what_it_names(
    api: ClientFor, owner, story: Graph
) -> None:
    client = api(owner)
    current = listed(client, story, "edges")
    payments = str(Entity.objects.get(graph=story, name="Payments Integration").uuid)
    errors = str(Entity.objects.get(graph=story, name="Timeout Errors").uuid)
    alice = str(Episode.objects.get(graph=story, external_id="alice").uuid)
    some = [current[0]["uuid"], current[-1]["uuid"]]

    check(client, story, "edges", current, {
        "edge_types": ({"edge_types": ["DEPENDS_ON", "AFFECTS"]},
                       lambda e: e["name"] in {"DEPENDS_ON", "AFFECTS"}),
        "exclude_edge_types": ({"exclude_edge_types": ["HAS_STATUS", "REPORTED"]},
                               lambda e: e["name"] not in {"HAS_STATUS", "REPORTED"}),
        "edge_uuids": ({"edge_uuids": some}, lambda e: e["uuid"] in some),
        "episode_uuids": ({"episode_uuids": [alice]}, lambda e: alice in e["episode_uuids"]),
        "source_node_uuids": ({"source_node_uuids": [payments]},
                              lambda e: e["source_node_uuid"] == payments),
        "target_node_uuids": ({"target_node_uuids": [payments, errors]},
                              lambda e: e["target_node_uuid"] in {payments, errors}),
        "connected_node_uuids": ({"connected_node_uuids": [payments]},
                                 lambda e: payments in {e["source_node_uuid"],
                                                        e["target_node_uuid"]}),
    })


def test_each_date_filter_operator_and_field_selects_from_every_fact_ended_ones_included(
    api: ClientFor, owner, story: Graph
) -> None:
    client = api(owner)
    every = listed(client, story, "edges", one_date("created_at", "is_not_null"))
    wednesday, shipped_day = "2026-11-25T09:00:00+00:00", "2026-12-01T00:00:00+00:00"
    at = datetime.fromisoformat(wednesday)
    assert len(every) > len(listed(client, story, "edges"))  # ended facts come back

    check(client, story, "edges", every, {
        "valid_at eq": (one_date("valid_at", "eq", wednesday),
                        lambda e: when(e["valid_at"]) == at),
        "valid_at ne": (one_date("valid_at", "ne", wednesday),
                        lambda e: when(e["valid_at"]) != at),
        "valid_at gt": (one_date("valid_at", "gt", wednesday),
                        lambda e: when(e["valid_at"]) > at),
        "valid_at gte": (one_date("valid_at", "gte", wednesday),
                         lambda e: when(e["valid_at"]) >= at),
        "valid_at lt": (one_date("valid_at", "lt", wednesday),
                        lambda e: when(e["valid_at"]) < at),
        "valid_at lte": (one_date("valid_at", "lte", wednesday),
                         lambda e: when(e["valid_at"]) <= at),
        "invalid_at is_not_null": (one_date("invalid_at", "is_not_null"),
                                   lambda e: e["invalid_at"] is not None),
        "invalid_at is_null": (one_date("invalid_at", "is_null"),
                               lambda e: e["invalid_at"] is None),
        "expired_at is_not_null": (one_date("expired_at", "is_not_null"),
                                   lambda e: e["expired_at"] is not None),
        "created_at gte": (one_date("created_at", "gte", shipped_day),
                           lambda e: when(e["created_at"]) >= when(shipped_day)),
        "any_of is an or": (
            {"date_filters": {"any_of": [
                {"all_of": [{"field": "invalid_at", "operator": "is_not_null"}]},
                {"all_of": [{"field": "created_at", "operator": "gte", "value": shipped_day}]},
            ]}},
            lambda e: e["invalid_at"] is not None or when(e["created_at"]) >= when(shipped_day)),
        "all_of is an and": (
            {"date_filters": {"any_of": [{"all_of": [
                {"field": "valid_at", "operator": "lte", "value": wednesday},
                {"field": "invalid_at", "operator": "is_null"},
            ]}]}},
            lambda e: when(e["valid_at"]) <= at and e["invalid_at"] is None),
    })


def test_node_label_filters_keep_and_drop_entity_types(api: ClientFor, owner, story: Graph
                                                       ) -> None:
    client = api(owner)
    nodes = listed(client, story, "nodes")

    check(client, story, "nodes", nodes, {
        "node_labels": ({"node_labels": ["Person", "Team"]},
                        lambda n: n["labels"][0] in {"Person", "Team"}),
        "exclude_node_labels": ({"exclude_node_labels": ["Status", "Customer"]},
                                lambda n: n["labels"][0] not in {"Status", "Customer"}),
    })


def test_mentioned_node_uuids_keep_the_episodes_whose_facts_name_the_node(
    api: ClientFor, owner, story: Graph
) -> None:
    client = api(owner)
    episodes = listed(client, story, "episodes")
    refactor = Entity.objects.get(graph=story, name="Auth Service Refactor")
    mentioning = {str(u) for u in Episode.objects.filter(
        graph=story, external_id__in=["alice", "bob", "ship"]).values_list("uuid", flat=True)}

    check(client, story, "episodes", episodes, {
        "mentioned_node_uuids": ({"mentioned_node_uuids": [str(refactor.uuid)]},
                                 lambda e: e["uuid"] in mentioning),
    })


def test_observation_property_and_date_filters(api: ClientFor, owner, story: Graph) -> None:
    client = api(owner)
    active = listed(client, story, "observations")
    every = listed(client, story, "observations", {"property_filters": [
        {"property_name": "status", "operator": "in", "value": ["active", "retired"]}]})
    assert len(active) < len(every)  # the status filter lets retired ones in
    assert all(o["attributes"]["status"] == "active" for o in active)
    middle = sorted(o["created_at"] for o in every)[1]

    def prop(name: str, operator: str, value: Any) -> dict[str, Any]:
        return {"property_filters": [{"property_name": name, "operator": operator,
                                      "value": value}]}

    check(client, story, "observations", every, {
        "status eq": (prop("status", "eq", "retired"),
                      lambda o: o["attributes"]["status"] == "retired"),
        "status ne": (prop("status", "ne", "active"),
                      lambda o: o["attributes"]["status"] != "active"),
    })
    check(client, story, "observations", active, {
        "kind eq": (prop("kind", "eq", "recurring_issue"),
                    lambda o: o["labels"] == ["recurring_issue"]),
        "kind in": (prop("kind", "in", ["dependency_chain"]),
                    lambda o: o["labels"] == ["dependency_chain"]),
        "version eq": (prop("version", "eq", 2), lambda o: o["attributes"]["version"] == 2),
        "version ne": (prop("version", "ne", 2), lambda o: o["attributes"]["version"] != 2),
    })
    check(client, story, "observations", every, {
        "created_at gte, with every status": (
            {**one_date("created_at", "gte", middle), **every_status()},
            lambda o: when(o["created_at"]) >= when(middle)),
        "created_at lt, with every status": (
            {**one_date("created_at", "lt", middle), **every_status()},
            lambda o: when(o["created_at"]) < when(middle)),
    })


def every_status() -> dict[str, Any]:
    return {"property_filters": [
        {"property_name": "status", "operator": "in", "value": ["active", "retired"]}]}
