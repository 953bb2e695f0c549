"""The login throttle at its documented defaults — five failed sign-ins for one username, or
thirty from one address, within fifteen minutes (README, "Using the dashboard") — with no limit
changed by the test."""

from __future__ import annotations

import time
import uuid

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import Client, RequestFactory
from django.urls import reverse

from dashboard import throttle
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # the factories' password
FIFTEEN_MINUTES = 15 * 60


def from_new_address() -> Client:
    """A client from an address no other test uses, so no count carries over."""
    n = uuid.uuid4().int
    return Client(REMOTE_ADDR=f"10.{n % 250}.{n // 250 % 250}.{n // 62500 % 250 + 1}")


@pytest.fixture
def dana(db: None) -> User:
    return UserFactory(username=f"dana-{uuid.uuid4().hex[:8]}")


def sign_in(client: Client, username: str, password: str) -> int:
    return client.post(reverse("login"), {"username": username, "password": password}).status_code


def seconds_left(key: str) -> float:
    """How long the cache keeps ``key``, as its backend says (Redis' TTL, or the in-process
    cache's expiry time)."""
    backend = caches["default"]
    stored = backend.make_and_validate_key(key)
    if isinstance(backend, RedisCache):
        return backend._cache.get_client(stored).ttl(stored)
    return backend._expire_info[stored] - time.time()


def test_five_failures_lock_a_username(dana: User) -> None:
    client = from_new_address()

    # Each of the five wrong passwords is an ordinary refusal, none of them throttled yet...
    assert [sign_in(client, dana.username, "wrong") for _ in range(5)] == [200] * 5
    # ...and after the fifth even the right password, from anywhere, is refused.
    assert sign_in(from_new_address(), dana.username, PASSWORD) == 429


def test_four_failures_leave_the_right_password_working(dana: User) -> None:
    client = from_new_address()
    for _ in range(4):
        sign_in(client, dana.username, "wrong")

    assert sign_in(client, dana.username, PASSWORD) == 302


def test_thirty_failures_from_one_address_lock_it_for_every_username(dana: User) -> None:
    client = from_new_address()

    assert [sign_in(client, f"guess-{n}", "wrong") for n in range(30)] == [200] * 30
    assert sign_in(client, dana.username, PASSWORD) == 429
    assert sign_in(from_new_address(), dana.username, PASSWORD) == 302


def test_twenty_nine_failures_from_one_address_do_not(dana: User) -> None:
    client = from_new_address()
    for n in range(29):
        sign_in(client, f"guess-{n}", "wrong")

    assert sign_in(client, dana.username, PASSWORD) == 302


def test_failures_are_forgotten_fifteen_minutes_after_the_first_one(dana: User) -> None:
    client = from_new_address()
    request = RequestFactory().post(reverse("login"), REMOTE_ADDR=client.defaults["REMOTE_ADDR"])
    keys = throttle._keys(request, dana.username)

    sign_in(client, dana.username, "wrong")
    first = [seconds_left(key) for key in keys]
    sign_in(client, dana.username, "wrong")
    later = [seconds_left(key) for key in keys]

    assert all(FIFTEEN_MINUTES - 5 < left <= FIFTEEN_MINUTES for left in first), first
    # A later failure counts within the same window; it does not start a new one.
    assert all(b <= a for a, b in zip(first, later, strict=True)), (first, later)
