"""Health endpoints: liveness with no dependency, readiness of the database and Redis, both
answering whatever the Host and without HTTPS — as docker-compose's healthcheck calls them."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from django.test import Client

from dashboard.settings import redis_cache
from tests.redis_server import RedisServer
from tests.worker import ROOT


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.close()


def test_liveness_answers_without_touching_the_database(client: Client) -> None:
    # No django_db mark: any query would raise here.
    response = client.get("/healthz")

    assert response.status_code == 200 and response.json() == {"status": "alive"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readiness_checks_the_database(client: Client, settings: Any) -> None:
    settings.REDIS_URL = ""

    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"database": "ok"}}


@pytest.mark.django_db
def test_readiness_names_redis_when_it_is_configured_and_down(
    client: Client, settings: Any, redis_server: RedisServer
) -> None:
    settings.REDIS_URL = settings.CELERY_BROKER_URL = redis_server.url(0)
    settings.CACHES = {"default": redis_cache(redis_server.url(1))}
    assert client.get("/readyz").json()["checks"] == {
        "database": "ok", "redis": "ok", "redis_cache": "ok"}

    redis_server.stop()
    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "checks": {
        "database": "ok", "redis": "error: ConnectionError",
        "redis_cache": "error: ConnectionError"}}


@pytest.mark.django_db
def test_both_answer_a_healthcheck_inside_a_production_container(
    client: Client, settings: Any
) -> None:
    """Production sets its public host and redirects to HTTPS; the healthcheck calls
    http://127.0.0.1:8000 from inside the container."""
    settings.ALLOWED_HOSTS = ["observations.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    settings.REDIS_URL = ""

    for path in ("/healthz", "/readyz"):
        assert client.get(path, HTTP_HOST="127.0.0.1:8000").status_code == 200
    assert client.get("/login/", HTTP_HOST="127.0.0.1:8000").status_code == 400


@pytest.mark.django_db
def test_the_compose_web_healthcheck_calls_an_endpoint_that_answers(
    client: Client, settings: Any
) -> None:
    settings.REDIS_URL = ""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    command = " ".join(shlex.quote(part) for part in compose["services"]["web"]["healthcheck"]
                       ["test"])
    (path,) = re.findall(r"http://127\.0\.0\.1:8000(/[a-z]+)", command)

    assert client.get(path, HTTP_HOST="127.0.0.1:8000").status_code == 200


def test_only_reading_methods_are_answered(client: Client) -> None:
    assert client.post("/healthz").status_code == 405
