"""Health endpoints for whatever runs the web process (docker-compose's healthcheck, a load
balancer, an orchestrator):

* ``/healthz`` — liveness: the process answers. Touches nothing else.
* ``/readyz`` — readiness: the database answers, and Redis (broker and cache) when configured.
  200 when every check passes, 503 naming the ones that fail.

Both are answered by a middleware placed first, before host validation and the HTTPS redirect:
a healthcheck calls ``http://127.0.0.1:8000/healthz`` from inside the container, which a
production ``ALLOWED_HOSTS`` and ``SECURE_SSL_REDIRECT`` would otherwise refuse or redirect.
Neither needs a session, and neither says more than which check failed and its error's type.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

PATHS = frozenset({"/healthz", "/readyz"})
TIMEOUT_SECONDS = 2


def middleware(get_response: Callable[[HttpRequest], HttpResponse]
               ) -> Callable[[HttpRequest], HttpResponse]:
    def answer(request: HttpRequest) -> HttpResponse:
        if request.path not in PATHS:
            return get_response(request)
        if request.method not in {"GET", "HEAD"}:
            return JsonResponse({"error": "use GET"}, status=405, headers={"Allow": "GET, HEAD"})
        if request.path == "/healthz":
            return _no_store(JsonResponse({"status": "alive"}))
        checks = readiness()
        ready = all(result == "ok" for result in checks.values())
        return _no_store(JsonResponse({"status": "ready" if ready else "unavailable",
                                       "checks": checks}, status=200 if ready else 503))

    return answer


def readiness() -> dict[str, str]:
    """Each dependency's state: ``ok`` or the type of the error that reaching it raised."""
    checks = {"database": _check(_database)}
    for name, url in _redis_urls().items():
        checks[name] = _check(lambda url=url: _redis(url))  # type: ignore[misc]
    return checks


def _check(probe: Callable[[], object]) -> str:
    try:
        probe()
    except Exception as exc:  # any failure means not ready; its type says which
        return f"error: {type(exc).__name__}"
    return "ok"


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _redis_urls() -> dict[str, str]:
    """The broker's and the cache's Redis (one check when they are the same server)."""
    if not getattr(settings, "REDIS_URL", ""):
        return {}
    urls = {"redis": settings.CELERY_BROKER_URL}
    cache = settings.CACHES["default"]
    if "Redis" in cache["BACKEND"] and cache["LOCATION"] != settings.CELERY_BROKER_URL:
        urls["redis_cache"] = cache["LOCATION"]
    return urls


def _redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=TIMEOUT_SECONDS,
                                  socket_timeout=TIMEOUT_SECONDS)
    try:
        client.ping()
    finally:
        client.close()


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response
