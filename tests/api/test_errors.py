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
