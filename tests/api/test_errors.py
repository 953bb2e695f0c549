"""Errors are JSON with the right 4xx — never an HTML page, never a 500 for bad input."""

from __future__ import annotations

import pytest
from django.test import override_settings

from memory.models import Graph, Observation
from tests.api.conftest import ClientFor, error_of

pytestmark = pytest.mark.django_db


def test_an_unknown_api_path_is_a_json_404(api: ClientFor, owner) -> None:
    for path in ("/api/v1/nothing", "/api/v1/graphs/", "/api/v4/graphs/x/what"):
        response = api(owner).get(path)
        assert response.status_code == 404, path
        assert error_of(response)["code"] == "not_found"


def test_an_unknown_page_outside_the_api_is_still_html(client) -> None:
    response = client.get("/no-such-page")

    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")


def test_malformed_json_is_a_400(api: ClientFor, owner, graph: Graph) -> None:
    response = api(owner).post(f"/api/v1/graphs/{graph.slug}/episodes", "{not json",
                               content_type="application/json")

    assert response.status_code == 400
    assert error_of(response)["code"] == "malformed_request"


def test_a_body_that_is_not_an_object_is_a_400_naming_body(api: ClientFor, owner,
                                                           graph: Graph) -> None:
    response = api(owner).post(f"/api/v1/graphs/{graph.slug}/episodes", [1, 2], format="json")

    assert response.status_code == 400 and error_of(response)["param"] == "body"


def test_a_form_body_is_a_415(api: ClientFor, owner, graph: Graph) -> None:
    response = api(owner).post(f"/api/v1/graphs/{graph.slug}/episodes", {"a": "b"})

    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_an_oversized_body_is_a_413(api: ClientFor, owner, graph: Graph) -> None:
    records = [{"reference_time": "2026-11-23T09:00:00+00:00", "content": "x" * 100}] * 30

    response = api(owner).post(f"/api/v1/graphs/{graph.slug}/episodes/bulk",
                               {"episodes": records}, format="json",
                               HTTP_IDEMPOTENCY_KEY="big")

    assert response.status_code == 413
    assert error_of(response)["code"] == "payload_too_large"


def test_observations_are_read_only_every_write_is_a_405(
    api: ClientFor, owner, seed_observation: Observation
) -> None:
    client = api(owner)
    graph = seed_observation.graph.slug
    paths = [f"/api/v1/graphs/{graph}/observations",
             f"/api/v1/graphs/{graph}/observations/{seed_observation.uuid}",
             f"/api/v1/graphs/{graph}/observations/retired"]
    for path in paths:
        for method in ("post", "put", "patch", "delete"):
            response = getattr(client, method)(path, {}, format="json")
            assert response.status_code == 405, (method, path)
            assert error_of(response)["code"] == "method_not_allowed"
    seed_observation.refresh_from_db()
    assert seed_observation.status == Observation.Status.ACTIVE


def test_a_bad_query_parameter_is_a_400_naming_it(api: ClientFor, owner, graph: Graph) -> None:
    client = api(owner)
    cases = {
        f"/api/v1/graphs/{graph.slug}/facts?as_of=yesterday": "as_of",
        f"/api/v1/graphs/{graph.slug}/facts?page_size=1000": "page_size",
        f"/api/v1/graphs/{graph.slug}/observations?status=gone": "status",
        f"/api/v1/graphs/{graph.slug}/observations?entity=not-a-uuid": "entity",
        f"/api/v1/graphs/{graph.slug}/facts?cursor=forged": "cursor",
        f"/api/v1/graphs/{graph.slug}/search": "q",
    }
    for path, param in cases.items():
        response = client.get(path)
        assert response.status_code == 400, path
        assert error_of(response)["param"] == param, path


TYPE_CONFUSED_FILTERS = [
    ("observations", {"property_filters": [
        {"property_name": "version", "operator": "eq", "value": "abc"}]},
     "filters.property_filters[0].value"),
    ("observations", {"property_filters": [
        {"property_name": "status", "operator": "eq", "value": {"a": 1}}]},
     "filters.property_filters[0].value"),
    ("observations", {"property_filters": [
        {"property_name": "version", "operator": "in", "value": [1, "two"]}]},
     "filters.property_filters[0].value"),
    ("observations", {"property_filters": [
        {"property_name": ["status"], "operator": "eq", "value": "active"}]},
     "filters.property_filters[0].property_name"),
    ("observations", {"date_filters": {"any_of": [{"all_of": [
        {"field": {"x": 1}, "operator": "eq", "value": "2026-11-23T00:00:00Z"}]}]}},
     "filters.date_filters.any_of[0].all_of[0].field"),
    ("edges", {"date_filters": {"any_of": [{"all_of": [
        {"field": ["valid_at"], "operator": "gt", "value": "2026-11-23T00:00:00Z"}]}]}},
     "filters.date_filters.any_of[0].all_of[0].field"),
    ("edges", {"date_filters": {"any_of": [{"all_of": [
        {"field": "valid_at", "operator": {"gt": 1}, "value": "2026-11-23T00:00:00Z"}]}]}},
     "filters.date_filters.any_of[0].all_of[0].operator"),
]


@pytest.mark.parametrize(("kind", "filters", "param"), TYPE_CONFUSED_FILTERS)
def test_a_zep_filter_of_the_wrong_type_is_a_400_naming_it(
    api: ClientFor, owner, graph: Graph, kind: str, filters: dict, param: str
) -> None:
    response = api(owner).post(f"/api/v4/graphs/{graph.uuid}/{kind}/list",
                               {"filters": filters}, format="json")

    assert response.status_code == 400, response.content[:300]
    assert error_of(response)["param"] == param


@pytest.mark.parametrize(("method", "path"), [
    ("get", "/api/v4/graphs/%00"),
    ("post", "/api/v4/graphs/x%00y/edges/list"),
    ("get", "/api/v1/graphs/%00/episodes"),
])
def test_a_nul_in_an_api_path_is_a_json_400(
    api: ClientFor, owner, graph: Graph, method: str, path: str
) -> None:
    client = api(owner)

    response = client.post(path, {}, format="json") if method == "post" else client.get(path)

    assert response.status_code == 400
    assert error_of(response)["param"] == "path"


def test_a_nul_in_a_page_path_is_a_400(client, owner) -> None:
    client.force_login(owner)

    assert client.get("/g/%00/").status_code == 400


@pytest.mark.parametrize("path", [
    "/api/v1/graphs/project-atlas/facts?relation=%00",
    "/api/v1/graphs/project-atlas/search?q=%00",
    "/g/project-atlas/episodes?author=%00",
])
def test_a_nul_in_a_query_is_a_field_error_not_a_500(
    api: ClientFor, owner, graph: Graph, path: str
) -> None:
    client = api(owner)
    client.force_login(owner)

    assert client.get(path).status_code in {200, 400}
