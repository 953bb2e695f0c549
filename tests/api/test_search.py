"""Search: ranked, paginated, over observations, facts, episodes and entities — full-text on
PostgreSQL, the portable fallback on SQLite; the same expectations hold on both."""

from __future__ import annotations

from typing import Any

import pytest

from memory import search
from memory.models import Alias, Entity, Graph, Observation
from tests.api.conftest import ClientFor

pytestmark = pytest.mark.django_db


def found(client: Any, graph: Graph, q: str, **params: Any) -> list[dict[str, Any]]:
    response = client.get(f"/api/v1/graphs/{graph.slug}/search", {"q": q, **params})
    assert response.status_code == 200, response.content
    return response.json()["items"]


def test_blocked_workstreams_finds_the_seed_observation_first(
    api: ClientFor, member, seed_observation: Observation
) -> None:
    hits = found(api(member), seed_observation.graph, "blocked workstreams")

    assert (hits[0]["kind"], hits[0]["uuid"]) == ("observation", str(seed_observation.uuid))
    assert hits[0]["score"] > 0


def test_each_kind_is_searchable(api: ClientFor, member, seeded: Graph) -> None:
    client = api(member)

    facts = found(client, seeded, "auth service refactor", types="fact")
    episodes = found(client, seeded, "checkout", types="episode")
    entities = found(client, seeded, "payments integration", types="entity")

    assert facts and all(h["kind"] == "fact" for h in facts)
    assert [h["title"] for h in episodes] == ["Clara"]
    assert entities[0]["title"] == "Payments Integration"


def test_an_entity_is_found_by_an_alias(api: ClientFor, member, seeded: Graph) -> None:
    entity = Entity.objects.get(graph=seeded, name="Auth Service Refactor")
    Alias.objects.create(graph=seeded, entity=entity, name="Project Gatekeeper",
                         normalized_name="project gatekeeper")

    hits = found(api(member), seeded, "gatekeeper", types="entity")

    assert [h["uuid"] for h in hits] == [str(entity.uuid)]


def test_results_page_with_a_cursor_and_nothing_repeats(api: ClientFor, member,
                                                        seeded: Graph) -> None:
    client = api(member)
    everything = found(client, seeded, "payments", page_size=100)
    first = client.get(f"/api/v1/graphs/{seeded.slug}/search", {"q": "payments",
                                                                 "page_size": 2}).json()
    second = client.get(f"/api/v1/graphs/{seeded.slug}/search",
                        {"q": "payments", "page_size": 2, "cursor": first["next_cursor"]}).json()

    assert len(everything) > 2
    assert [h["uuid"] for h in first["items"] + second["items"]] == [
        h["uuid"] for h in everything[:4]]


def test_nothing_matches_nonsense(api: ClientFor, member, seeded: Graph) -> None:
    assert found(api(member), seeded, "zebra quantum") == []


def test_outsiders_cannot_search_404(api: ClientFor, outsider, seeded: Graph) -> None:
    response = api(outsider).get(f"/api/v1/graphs/{seeded.slug}/search", {"q": "blocked"})

    assert response.status_code == 404


def test_the_fallback_stems_words_crudely() -> None:
    assert {search.stem(w) for w in ("blocked", "blocker", "blocking", "blocks")} == {"block"}
    assert search.terms("The blocked workstreams") == ["block", "workstream"]


def test_any_word_mode_is_more_forgiving(seed_observation: Observation) -> None:
    graph = seed_observation.graph

    strict, _ = search.search(graph, "blocked kubernetes", kinds=["observation"])
    loose, _ = search.search(graph, "blocked kubernetes", kinds=["observation"], any_word=True)

    assert strict == [] and [h.item for h in loose] == [seed_observation]
