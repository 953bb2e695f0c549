"""Signing in and out, and the login throttle (dashboard and admin alike)."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # the factories' password
_addresses = itertools.count(1)


@pytest.fixture
def client() -> Client:
    """Each test signs in from its own address, so throttle counts never carry over."""
    return Client(REMOTE_ADDR=f"10.9.{next(_addresses)}.1")


@pytest.fixture
def dana(db: None) -> User:
    return UserFactory(username=f"dana{next(_addresses)}")


def sign_in(client: Client, username: str, password: str, url: str | None = None):  # type: ignore[no-untyped-def]
    return client.post(url or reverse("login"), {"username": username, "password": password})


def test_the_sign_in_page_says_what_the_product_does(client: Client) -> None:
    html = client.get(reverse("login")).content.decode()

    assert "Sign in" in html and "make demo" in html
    assert 'autocomplete="current-password"' in html


def test_signing_in_goes_to_the_page_asked_for(client: Client, graph, member) -> None:
    board = reverse("board", args=[graph.slug])

    response = client.post(reverse("login"), {"username": "bob", "password": PASSWORD,
                                              "next": board})

    assert response.status_code == 302 and response["Location"] == board


def test_a_wrong_password_is_refused(client: Client, dana: User) -> None:
    response = sign_in(client, dana.username, "wrong")

    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


def test_too_many_failures_lock_the_username_even_with_the_right_password(
    client: Client, dana: User, settings
) -> None:
    settings.LOGIN_THROTTLE_PER_USERNAME = 3
    for _ in range(3):
        sign_in(client, dana.username, "wrong")

    response = sign_in(Client(REMOTE_ADDR="10.200.0.1"), dana.username, PASSWORD)

    assert response.status_code == 429
    assert b"Too many failed sign-ins" in response.content
    assert "_auth_user_id" not in client.session


def test_too_many_failures_from_one_address_lock_it_for_every_username(
    client: Client, dana: User, settings
) -> None:
    settings.LOGIN_THROTTLE_PER_ADDRESS = 4
    for n in range(4):
        sign_in(client, f"guess{n}", "wrong")

    assert sign_in(client, dana.username, PASSWORD).status_code == 429


def test_a_successful_sign_in_forgets_the_usernames_failures(
    client: Client, dana: User, settings
) -> None:
    settings.LOGIN_THROTTLE_PER_USERNAME = 3
    sign_in(client, dana.username, "wrong")
    sign_in(client, dana.username, "wrong")
    assert sign_in(client, dana.username, PASSWORD).status_code == 302
    client.logout()

    sign_in(client, dana.username, "wrong")
    assert sign_in(client, dana.username, PASSWORD).status_code == 302


def test_the_admin_sign_in_is_throttled_too(client: Client, settings) -> None:
    settings.LOGIN_THROTTLE_PER_USERNAME = 2
    admin = UserFactory(username=f"root{next(_addresses)}", is_staff=True, is_superuser=True)
    url = reverse("admin:login")
    for _ in range(2):
        client.post(url, {"username": admin.username, "password": "wrong"})

    response = client.post(url, {"username": admin.username, "password": PASSWORD})

    assert response.status_code == 429  # like the dashboard's: say so to scripts, too
    assert b"Too many failed sign-ins" in response.content
    assert "_auth_user_id" not in client.session


def test_signing_out_is_a_post(client: Client, member) -> None:
    client.force_login(member)

    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))

    assert response.status_code == 302 and response["Location"] == reverse("login")
    assert "_auth_user_id" not in client.session


def test_posts_need_the_csrf_token(member) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(member)

    assert client.post(reverse("logout")).status_code == 403
