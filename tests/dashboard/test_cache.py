"""The failover cache on a Redis server of the test's own: Redis while it answers, this process's
memory while it does not, one warning each way."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from dashboard.cache import FailoverRedisCache
from dashboard.settings import redis_cache
from tests.redis_server import RedisServer


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.close()


def cache_on(server: RedisServer) -> FailoverRedisCache:
    params = {**redis_cache(server.url(2), "cache-test"), "FAILOVER_RETRY_SECONDS": 0}
    return FailoverRedisCache(params.pop("LOCATION"), params)  # type: ignore[arg-type]


def test_values_live_in_redis_while_it_answers(redis_server: RedisServer) -> None:
    cache = cache_on(redis_server)

    cache.set("answer", 42)

    assert cache.get("answer") == 42
    assert cache.local.get("answer") is None
    assert not cache.redis_down


def test_while_redis_is_down_every_call_is_answered_from_memory_and_logged_once(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    cache = cache_on(redis_server)
    redis_server.stop()
    caplog.set_level(logging.WARNING, logger="dashboard.cache")

    assert cache.add("failures", 1, timeout=60)
    assert cache.incr("failures") == 2
    cache.set_many({"a": 1, "b": 2})
    assert cache.get_many(["failures", "a", "b"]) == {"failures": 2, "a": 1, "b": 2}
    assert cache.has_key("a") and cache.touch("a", 30)
    cache.delete_many(["a"])
    assert cache.delete("b") and cache.get("a") is None

    assert cache.redis_down
    assert [r.getMessage()[:23] for r in caplog.records] == ["Redis cache unreachable"]


def test_once_redis_answers_again_it_is_used_again_and_that_is_logged(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    cache = cache_on(redis_server)
    redis_server.stop()
    cache.set("during", "the outage")
    redis_server.start()
    caplog.clear()

    cache.set("after", "the outage")

    assert not cache.redis_down
    assert cache.local.get("after") is None and cache.get("after") == "the outage"
    assert [r.getMessage() for r in caplog.records] == [
        "Redis cache reachable again: throttles and locks are shared again"]


def test_while_an_outage_is_recent_redis_is_not_asked_again(redis_server: RedisServer) -> None:
    params = {**redis_cache(redis_server.url(2), "cache-test"), "FAILOVER_RETRY_SECONDS": 3600}
    cache = FailoverRedisCache(params.pop("LOCATION"), params)  # type: ignore[arg-type]
    redis_server.stop()
    cache.set("during", "the outage")
    redis_server.start()

    cache.set("soon-after", "the outage")

    assert cache.redis_down and cache.local.get("soon-after") == "the outage"
