"""Facts and entities over the native API: current by default, as of a time, as known at a time,
ended ones on request; entities with their current facts. Fixed query counts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from memory.models import Fact, Graph
from tests.api.conftest import ClientFor
from tests.factories import MONDAY, EntityFactory, FactFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(graph: Graph) -> dict[str, Fact]:
    """A plan that changed: Acme was on Basic (ended Wednesday), is on Pro since Wednesday; and a
    fact learned only on Friday about Monday."""
    acme = EntityFactory(graph=graph, name="Acme", type="Customer")
    basic = EntityFactory(graph=graph, name="Basic", type="Plan")
    pro = EntityFactory(graph=graph, name="Pro", type="Plan")
    wednesday, friday = MONDAY + timedelta(days=2), MONDAY + timedelta(days=4)
    return {
        "basic": FactFactory(graph=graph, source=acme, target=basic, relation="ON_PLAN",
                             valid_at=MONDAY, invalid_at=wednesday, expired_at=wednesday),
        "pro": FactFactory(graph=graph, source=acme, target=pro, relation="ON_PLAN",
                           valid_at=wednesday, created_at=wednesday),
        "late": FactFactory(graph=graph, relation="DEPENDS_ON", valid_at=MONDAY,
                            created_at=friday),
    }


def listed(client: Any, graph: Graph, **params: Any) -> set[str]:
    body = client.get(f"/api/v1/graphs/{graph.slug}/facts", params).json()
    return {f["uuid"] for f in body["items"]}


def ids(*facts: Fact) -> set[str]:
    return {str(f.uuid) for f in facts}


def test_facts_are_current_by_default(api: ClientFor, member, graph: Graph,
                                      history: dict[str, Fact]) -> None:
    assert listed(api(member), graph) == ids(history["pro"], history["late"])


def test_as_of_shows_what_held_then(api: ClientFor, member, graph: Graph,
                                    history: dict[str, Fact]) -> None:
    tuesday = (MONDAY + timedelta(days=1)).isoformat()

    assert listed(api(member), graph, as_of=tuesday) == ids(history["basic"], history["late"])


def test_known_at_shows_what_was_believed_then(api: ClientFor, member, graph: Graph,
                                               history: dict[str, Fact]) -> None:
    thursday = (MONDAY + timedelta(days=3)).isoformat()

    assert listed(api(member), graph, known_at=thursday) == ids(history["pro"])


def test_include_ended_shows_every_fact_with_its_four_timestamps(
    api: ClientFor, member, graph: Graph, history: dict[str, Fact]
) -> None:
    body = api(member).get(f"/api/v1/graphs/{graph.slug}/facts",
                           {"include_ended": "true"}).json()

    basic = next(f for f in body["items"] if f["uuid"] == str(history["basic"].uuid))
    assert len(body["items"]) == 3
    assert basic["current"] is False and basic["invalid_at"] and basic["expired_at"]
    assert basic["valid_at"] and basic["created_at"] and len(basic["episodes"]) == 1


def test_facts_filter_by_relation_and_entity(api: ClientFor, member, graph: Graph,
                                             history: dict[str, Fact]) -> None:
    client = api(member)
    acme = history["pro"].source

    assert listed(client, graph, relation="depends_on") == ids(history["late"])
    assert listed(client, graph, entity=str(acme.uuid)) == ids(history["pro"])


def test_a_fact_is_hidden_from_outsiders(api: ClientFor, outsider, member, graph: Graph,
                                         history: dict[str, Fact]) -> None:
    path = f"/api/v1/graphs/{graph.slug}/facts/{history['pro'].uuid}"

    assert api(member).get(path).json()["relation"] == "ON_PLAN"
    assert api(outsider).get(path).status_code == 404
    assert api(outsider).get(f"/api/v1/graphs/{graph.slug}/facts").status_code == 404


def test_fact_lists_cost_the_same_queries_whatever_the_page_size(
    api: ClientFor, member, graph: Graph, django_assert_num_queries: Any
) -> None:
    for _ in range(25):
        FactFactory(graph=graph, valid_at=timezone.now() - timedelta(days=1))
    client = api(member)
    # key · last-use stamp · graph and role · the page of facts with their entities ·
    # their episodes
    for size in (1, 25):
        with django_assert_num_queries(5):
            body = client.get(f"/api/v1/graphs/{graph.slug}/facts", {"page_size": size}).json()
        assert len(body["items"]) == size


def test_entities_list_with_aliases_in_fixed_queries(
    api: ClientFor, member, graph: Graph, django_assert_num_queries: Any
) -> None:
    EntityFactory.create_batch(12, graph=graph)
    client = api(member)
    # key · last-use stamp · graph and role · the page of entities · their aliases
    for size in (2, 12):
        with django_assert_num_queries(5):
            body = client.get(f"/api/v1/graphs/{graph.slug}/entities",
                              {"page_size": size}).json()
        assert len(body["items"]) == size


def test_an_entity_comes_with_its_current_and_ended_facts(
    api: ClientFor, member, outsider, graph: Graph, history: dict[str, Fact]
) -> None:
    acme = history["pro"].source
    path = f"/api/v1/graphs/{graph.slug}/entities/{acme.uuid}"

    body = api(member).get(path).json()

    assert body["name"] == "Acme"
    assert [f["target"]["name"] for f in body["current_facts"]] == ["Pro"]
    assert [f["target"]["name"] for f in body["ended_facts"]] == ["Basic"]
    assert api(outsider).get(path).status_code == 404
