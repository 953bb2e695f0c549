"""A small login throttle on the cache: after too many failed sign-ins for one username, or from
one address, further attempts are refused for a while — whether the password is right or not, so
guessing gains nothing. Used by the dashboard's login and the admin's.

Counts live in the default cache (Redis in production, so every web process shares them). The
address is ``REMOTE_ADDR``: behind a proxy, configure it to set that from a header it controls,
since a client-sent ``X-Forwarded-For`` can be anything.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


@dataclass(frozen=True, slots=True)
class ThrottleRules:
    per_username: int
    per_address: int
    window_seconds: int


def rules() -> ThrottleRules:
    return ThrottleRules(
        per_username=getattr(settings, "LOGIN_THROTTLE_PER_USERNAME", 5),
        per_address=getattr(settings, "LOGIN_THROTTLE_PER_ADDRESS", 30),
        window_seconds=getattr(settings, "LOGIN_THROTTLE_WINDOW_SECONDS", 900),
    )


def _keys(request: HttpRequest | None, username: str) -> tuple[str, str]:
    # Hash the values: usernames and addresses are not kept in the cache in clear.
    name = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]
    address = request.META.get("REMOTE_ADDR", "") if request is not None else ""
    addr = hashlib.sha256(address.encode()).hexdigest()[:32]
    return f"login-fail:user:{name}", f"login-fail:addr:{addr}"


def is_throttled(request: HttpRequest | None, username: str) -> bool:
    limits = rules()
    user_key, addr_key = _keys(request, username)
    counts = cache.get_many([user_key, addr_key])
    return (
        counts.get(user_key, 0) >= limits.per_username
        or counts.get(addr_key, 0) >= limits.per_address
    )


def record_failure(request: HttpRequest | None, username: str) -> None:
    window = rules().window_seconds
    for key in _keys(request, username):
        # add() starts the window at the first failure; incr() keeps its expiry.
        if not cache.add(key, 1, timeout=window):
            try:
                cache.incr(key)
            except ValueError:  # expired between add() and incr()
                cache.add(key, 1, timeout=window)


def clear(request: HttpRequest | None, username: str) -> None:
    """A successful sign-in forgets the username's failures (not the address's)."""
    user_key, _ = _keys(request, username)
    cache.delete(user_key)
