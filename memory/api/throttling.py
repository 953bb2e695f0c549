"""Throttling per API key (or per user for browser sessions, per address otherwise). Rates are
read from ``settings.API_THROTTLE_RATES`` at request time, by each view's ``throttle_scope``
(``api`` for reads, ``ingest`` for writes), so they can be tuned without a restart of the code.
State lives in the Django cache (Redis in production). A refused request gets 429 with
``Retry-After``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle

from memory.models import ApiKey


class ApiKeyRateThrottle(ScopedRateThrottle):
    def get_rate(self) -> str | None:
        return getattr(settings, "API_THROTTLE_RATES", {}).get(self.scope)

    def get_cache_key(self, request: Request, view: Any) -> str:
        if isinstance(request.auth, ApiKey):
            ident = f"key-{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:
            ident = f"ip-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
