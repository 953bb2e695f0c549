"""Throttling per API key: past the rate a key gets 429 with Retry-After, other keys do not."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from tests.api.conftest import ClientFor, error_of

pytestmark = pytest.mark.django_db


def test_a_key_past_its_rate_gets_429_and_another_key_does_not(
    api: ClientFor, owner, member, settings: Any
) -> None:
    cache.clear()
    settings.API_THROTTLE_RATES = {"api": "3/min", "ingest": "3/min"}
    busy, other = api(owner), api(member)

    statuses = [busy.get("/api/v1/graphs").status_code for _ in range(4)]
    refused = busy.get("/api/v1/graphs")

    assert statuses == [200, 200, 200, 429]
    assert error_of(refused)["code"] == "throttled" and int(refused["Retry-After"]) > 0
    assert other.get("/api/v1/graphs").status_code == 200
