"""The default cache: Redis, and while Redis cannot be reached, this process's own memory.

The cache holds throttle counts (API, sign-in), the pipeline's "a settle check is waiting" marks
and short locks: state that is worth sharing between processes but not worth failing a request
for. Django's Redis backend raises on every call while Redis is down, which turned a Redis outage
into a 500 on every API request, on sign-in and after an upload had stored its episodes. Here a
call that cannot reach Redis is answered from a local cache instead; the outage is logged once
when it starts and once when Redis answers again, and Redis is not asked again for
``RETRY_SECONDS`` (``FAILOVER_RETRY_SECONDS`` in the cache's settings) so that an outage does not
cost every request a connection attempt.

While it lasts, each process throttles on its own counts (a client spread over several web
processes gets a little more), and what was written locally is not in Redis when it returns —
both of which are acceptable for throttles and marks that expire within minutes anyway.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

UNREACHABLE = (RedisConnectionError, RedisTimeoutError)
"""Redis is down, restarting (loading its data) or too slow: fall back. Anything else (a wrong
type, a bad command) is a bug and still raises."""

RETRY_SECONDS = 5.0


class FailoverRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = {"socket_connect_timeout": 1, "socket_timeout": 1,
                   **params.get("OPTIONS", {})}
        super().__init__(server, {**params, "OPTIONS": options})
        self.local = LocMemCache(
            f"failover-{id(self)}",
            {key: value for key, value in params.items()
             if key not in {"OPTIONS", "FAILOVER_RETRY_SECONDS"}},
        )
        self.retry_seconds = float(params.get("FAILOVER_RETRY_SECONDS", RETRY_SECONDS))
        self._retry_at = 0.0
        self._down = False
        self._state = threading.Lock()

    @property
    def redis_down(self) -> bool:
        """True from the first call that could not reach Redis until one that could."""
        return self._down

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self._down and time.monotonic() < self._retry_at:
            return getattr(self.local, name)(*args, **kwargs)
        redis_call: Callable[..., Any] = getattr(super(), name)
        try:
            result = redis_call(*args, **kwargs)
        except UNREACHABLE as exc:
            self._went_down(exc)
            return getattr(self.local, name)(*args, **kwargs)
        if self._down:
            self._came_back()
        return result

    def _went_down(self, exc: Exception) -> None:
        with self._state:
            self._retry_at = time.monotonic() + self.retry_seconds
            if self._down:
                return
            self._down = True
        logger.warning(
            "Redis cache unreachable (%s: %s): throttles and locks use this process's memory "
            "until it answers again", type(exc).__name__, exc,
        )

    def _came_back(self) -> None:
        with self._state:
            if not self._down:
                return
            self._down = False
        logger.warning("Redis cache reachable again: throttles and locks are shared again")

    def add(self, *args: Any, **kwargs: Any) -> bool:
        return self._call("add", *args, **kwargs)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("get", *args, **kwargs)

    def set(self, *args: Any, **kwargs: Any) -> None:
        self._call("set", *args, **kwargs)

    def touch(self, *args: Any, **kwargs: Any) -> bool:
        return self._call("touch", *args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> bool:
        return self._call("delete", *args, **kwargs)

    def get_many(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self._call("get_many", *args, **kwargs)

    def has_key(self, *args: Any, **kwargs: Any) -> bool:
        return self._call("has_key", *args, **kwargs)

    def incr(self, *args: Any, **kwargs: Any) -> int:
        return self._call("incr", *args, **kwargs)

    def set_many(self, *args: Any, **kwargs: Any) -> list[str]:
        return self._call("set_many", *args, **kwargs)

    def delete_many(self, *args: Any, **kwargs: Any) -> None:
        self._call("delete_many", *args, **kwargs)

    def clear(self) -> None:
        self._call("clear")
