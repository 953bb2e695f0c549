"""Episodes over the native API: one at a time (stored / duplicate / rejected naming the field),
in bulk with a result per item, listed with cursors in a fixed number of queries."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Episode, Graph
from tests.api.conftest import ClientFor, error_of
from tests.factories import EpisodeFactory
from tests.poisons import POISONS
from tests.scenarios import SEED

pytestmark = pytest.mark.django_db


def url(graph: Graph, suffix: str = "") -> str:
    return f"/api/v1/graphs/{graph.slug}/episodes{suffix}"


def test_an_editor_adds_an_episode_which_is_processed(
    api: ClientFor, editor, graph: Graph, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = api(editor).post(url(graph), SEED[0], format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "stored"
    assert (body["episode"]["external_id"], body["episode"]["author"]) == ("alice", "Alice")
    episode = Episode.objects.get(uuid=body["episode"]["uuid"])
    assert episode.status == Episode.Status.PROCESSED and episode.facts.exists()


def test_the_same_episode_again_is_a_duplicate_pointing_at_the_first(
    api: ClientFor, owner, graph: Graph
) -> None:
    client = api(owner)
    first = client.post(url(graph), SEED[0], format="json").json()
    without_id = {k: v for k, v in SEED[1].items() if k != "external_id"}
    client.post(url(graph), without_id, format="json")

    again = client.post(url(graph), SEED[0], format="json")
    same_content = client.post(url(graph), without_id, format="json")

    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    assert again.json()["episode"]["uuid"] == first["episode"]["uuid"]
    assert same_content.json()["status"] == "duplicate"
    assert Episode.objects.filter(graph=graph).count() == 2


def test_an_agents_episode_is_added_with_its_role_and_an_unknown_role_is_a_400(
    api: ClientFor, editor, graph: Graph
) -> None:
    # warp-8399-alokedesai-2026-01-09 (Warp staff)
    record = {"author": "alokedesai", "author_role": "agent", "source": "support:warpdotdev/warp",
              "content": "Would you mind sending your warp logs so we can debug further?",
              "url": "https://github.com/warpdotdev/warp/issues/8399#issuecomment-1",
              "reference_time": "2026-01-09T00:00:00+00:00"}
    client = api(editor)

    added = client.post(url(graph), record, format="json")
    unknown = client.post(url(graph), {**record, "author_role": "boss"}, format="json")

    assert added.status_code == 201
    assert (added.json()["episode"]["author"], added.json()["episode"]["author_role"]) == (
        "alokedesai", "agent")
    assert unknown.status_code == 400 and error_of(unknown)["param"] == "author_role"


@pytest.mark.parametrize(("record", "param"), [
    ({"content": "no time"}, "reference_time"),
    ({"content": "x", "reference_time": "2026-11-23T09:00:00"}, "reference_time"),
    ({"content": "x", "reference_time": "monday"}, "reference_time"),
    ({"reference_time": "2026-11-23T09:00:00+00:00"}, "content"),
    ({"content": 3, "reference_time": "2026-11-23T09:00:00+00:00"}, "content"),
    ({"content": "x", "type": "video", "reference_time": "2026-11-23T09:00:00+00:00"}, "type"),
    ({"content": "x", "reference_time": "2026-11-23T09:00:00+00:00",
      "facts": [{"source": "A", "relation": "LOVES", "target": "B"}]}, "facts[0].relation"),
    ({"content": "x" * 70_000, "reference_time": "2026-11-23T09:00:00+00:00"}, "content"),
])
def test_a_bad_episode_is_a_400_naming_the_field_and_stores_nothing(
    api: ClientFor, owner, graph: Graph, record: dict[str, Any], param: str
) -> None:
    response = api(owner).post(url(graph), record, format="json")

    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["param"]) == ("invalid_episode", param)
    assert error["message"].startswith(param)
    assert not Episode.objects.exists()


@pytest.mark.parametrize(("case", "poisoned", "field", "reason"), POISONS,
                         ids=[p[0] for p in POISONS])
def test_a_poisoned_episode_is_a_400_naming_its_field(
    api: ClientFor, owner, graph: Graph, case: str, poisoned: str, field: str, reason: str
) -> None:
    response = api(owner).post(url(graph), poisoned, content_type="application/json")

    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["param"]) == ("invalid_episode", field)
    assert error["details"]["reason"].startswith(reason)
    assert not Episode.objects.exists()


@pytest.mark.parametrize(("case", "poisoned", "field", "reason"), POISONS,
                         ids=[p[0] for p in POISONS])
def test_one_poisoned_record_of_a_bulk_spoils_only_itself(
    api: ClientFor, owner, graph: Graph, case: str, poisoned: str, field: str, reason: str
) -> None:
    import json

    body = f'{{"episodes": [{json.dumps(SEED[0])}, {poisoned}, {json.dumps(SEED[1])}]}}'

    response = api(owner).post(url(graph, "/bulk"), body, content_type="application/json")

    assert response.status_code == 200
    result = response.json()
    assert (result["stored"], result["rejected"]) == (2, 1)
    assert (result["results"][1]["field"], result["results"][1]["status"]) == (field, "rejected")
    assert result["results"][1]["reason"].startswith(reason)
    assert Episode.objects.count() == 2


ZEP_POISONS = [
    ("NUL in data", r'{"type": "text", "data": "blocked\u0000"}', "data",
     "contains a NUL character"),
    ("lone surrogate in data", r'{"type": "message", "data": "Mal: \ud800"}', "data",
     "contains an unpaired surrogate"),
    ("100k-deep JSON data", r'{"type": "json", "data": "{\"a\": ' + "[" * 100_000
     + "]" * 100_000 + '}"}', "data", "is nested more than"),
    ("100k-deep body", '{"type": "text", "data": "fine", "metadata": ' + "[" * 100_000
     + "]" * 100_000 + "}", "metadata", "must be an object"),
    ("NUL in source_description", r'{"type": "text", "data": "fine", '
     r'"source_description": "x\u0000"}', "source_description", "contains a NUL character"),
]


@pytest.mark.parametrize(("case", "body", "field", "reason"), ZEP_POISONS,
                         ids=[p[0] for p in ZEP_POISONS])
def test_a_poisoned_zep_episode_is_a_400_naming_its_field(
    api: ClientFor, owner, graph: Graph, case: str, body: str, field: str, reason: str
) -> None:
    response = api(owner).post(f"/api/v4/graphs/{graph.uuid}/episodes", body,
                               content_type="application/json")

    assert response.status_code == 400, response.content[:300]
    error = error_of(response)
    assert error["param"] == field
    assert reason in error["message"]
    assert not Episode.objects.exists()


def test_a_viewer_cannot_add_episodes_403(api: ClientFor, member, graph: Graph) -> None:
    response = api(member).post(url(graph), SEED[0], format="json")

    assert response.status_code == 403
    assert "viewer" in error_of(response)["message"]
    assert not Episode.objects.exists()


def test_an_outsider_cannot_add_episodes_404(api: ClientFor, outsider, graph: Graph) -> None:
    response = api(outsider).post(url(graph), SEED[0], format="json")

    assert response.status_code == 404 and not Episode.objects.exists()


def test_bulk_reports_each_item_in_order(api: ClientFor, owner, graph: Graph) -> None:
    records = [SEED[0], {"content": "no time"}, SEED[0], SEED[1]]

    response = api(owner).post(url(graph, "/bulk"), {"episodes": records}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert (body["stored"], body["duplicates"], body["rejected"]) == (2, 1, 1)
    assert [(r["index"], r["status"]) for r in body["results"]] == [
        (0, "stored"), (1, "rejected"), (2, "duplicate"), (3, "stored")]
    assert body["results"][1]["field"] == "reference_time"
    stored = {r["episode_uuid"] for r in body["results"] if r["status"] == "stored"}
    assert stored == {str(u) for u in Episode.objects.values_list("uuid", flat=True)}


def test_bulk_needs_a_list_and_has_a_size_limit(api: ClientFor, owner, graph: Graph,
                                                settings: Any) -> None:
    settings.API_MAX_BULK_EPISODES = 2
    client = api(owner)

    not_a_list = client.post(url(graph, "/bulk"), {"episodes": "x"}, format="json")
    too_many = client.post(url(graph, "/bulk"), {"episodes": SEED}, format="json")

    assert not_a_list.status_code == 400 and error_of(not_a_list)["param"] == "episodes"
    assert too_many.status_code == 413 and error_of(too_many)["param"] == "episodes"


def test_a_viewer_cannot_bulk_add_403(api: ClientFor, member, graph: Graph) -> None:
    response = api(member).post(url(graph, "/bulk"), {"episodes": SEED}, format="json")

    assert response.status_code == 403 and not Episode.objects.exists()


def test_an_episode_is_read_by_members_and_hidden_from_outsiders(
    api: ClientFor, member, outsider, graph: Graph
) -> None:
    episode = EpisodeFactory(graph=graph)

    assert api(member).get(url(graph, f"/{episode.uuid}")).json()["uuid"] == str(episode.uuid)
    assert api(outsider).get(url(graph, f"/{episode.uuid}")).status_code == 404


def test_listing_costs_the_same_queries_whatever_the_page_size(
    api: ClientFor, member, graph: Graph, django_assert_num_queries: Any
) -> None:
    EpisodeFactory.create_batch(30, graph=graph)
    client = api(member)
    # 1 API key (with its user) · 2 its last-use stamp · 3 the graph with the caller's role ·
    # 4 the page of episodes
    for size in (1, 10, 30):
        with django_assert_num_queries(4):
            body = client.get(url(graph), {"page_size": size}).json()
        assert len(body["items"]) == size


def test_listing_pages_through_every_episode_once_newest_first(
    api: ClientFor, member, graph: Graph
) -> None:
    EpisodeFactory.create_batch(7, graph=graph)
    client = api(member)
    seen, cursor = [], None
    while True:
        params = {"page_size": 3, **({"cursor": cursor} if cursor else {})}
        body = client.get(url(graph), params).json()
        seen += [e["reference_time"] for e in body["items"]]
        cursor = body["next_cursor"]
        if not cursor:
            break

    assert len(seen) == 7 and seen == sorted(seen, reverse=True)


def test_a_cursor_from_another_list_is_refused(api: ClientFor, owner, graph: Graph) -> None:
    EpisodeFactory.create_batch(3, graph=graph)
    client = api(owner)
    cursor = client.get(url(graph), {"page_size": 1}).json()["next_cursor"]

    response = client.get(f"/api/v1/graphs/{graph.slug}/facts", {"cursor": cursor})

    assert response.status_code == 400 and error_of(response)["code"] == "invalid_cursor"


def test_listing_filters_by_status_and_author(api: ClientFor, member, graph: Graph) -> None:
    EpisodeFactory(graph=graph, author="Alice")
    EpisodeFactory(graph=graph, author="Bob", status=Episode.Status.FAILED, error="boom")
    client = api(member)

    failed = client.get(url(graph), {"status": "failed"}).json()["items"]
    alice = client.get(url(graph), {"author": "alice"}).json()["items"]

    assert [(e["author"], e["error"]) for e in failed] == [("Bob", "boom")]
    assert [e["author"] for e in alice] == ["Alice"]
