"""API keys: stored hashed, shown once, accepted as Api-Key or Bearer, revocable; the command
and the page that create them."""

from __future__ import annotations

import hashlib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from memory.api.keys import authenticate_key, create_api_key, revoke_api_key
from memory.models import ApiKey, Graph
from tests.api.conftest import ClientFor, error_of

pytestmark = pytest.mark.django_db


def test_a_key_is_stored_only_as_its_hash_with_a_visible_prefix(owner) -> None:
    key, raw = create_api_key(owner, "standup bot")

    assert raw.startswith(key.prefix + "_") and len(raw) > 50
    assert key.hashed_key == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in {getattr(key, f.name) for f in ApiKey._meta.fields}


def test_both_authorization_schemes_are_accepted(api: ClientFor, owner, graph: Graph) -> None:
    for scheme in ("Api-Key", "Bearer", "api-key"):
        response = api(owner, scheme=scheme).get("/api/v1/graphs")
        assert response.status_code == 200
        assert [g["slug"] for g in response.json()["items"]] == [graph.slug]


def test_no_key_is_a_401_naming_the_header(api: ClientFor) -> None:
    response = api().get("/api/v1/graphs")

    assert response.status_code == 401
    assert error_of(response)["param"] == "Authorization"
    assert response["WWW-Authenticate"].startswith("Api-Key")


def test_an_unknown_or_revoked_key_is_refused(api: ClientFor, owner) -> None:
    key, raw = create_api_key(owner, "old")
    revoke_api_key(key)
    client = api()

    for credentials in (f"Api-Key {raw}", "Api-Key obs_nope_nope", "Bearer a b"):
        client.credentials(HTTP_AUTHORIZATION=credentials)
        response = client.get("/api/v1/graphs")
        assert response.status_code == 401, credentials
        assert error_of(response)["code"] == "unauthorized"


def test_using_a_key_records_when_it_was_last_used(owner) -> None:
    key, raw = create_api_key(owner, "bot")
    assert key.last_used_at is None

    assert authenticate_key(raw) is not None

    key.refresh_from_db()
    assert key.last_used_at is not None


def test_a_key_of_an_inactive_user_stops_working(owner) -> None:
    _, raw = create_api_key(owner, "bot")
    owner.is_active = False
    owner.save()

    assert authenticate_key(raw) is None


def test_the_command_prints_a_working_key_once(owner) -> None:
    out, err = StringIO(), StringIO()

    call_command("create_api_key", "alice", "--name", "ci", stdout=out, stderr=err)

    raw = out.getvalue().strip()
    key = authenticate_key(raw)
    assert key is not None and key.user == owner and key.name == "ci"
    assert raw not in err.getvalue() and key.prefix in err.getvalue()


def test_the_command_names_an_unknown_user(db: None) -> None:
    with pytest.raises(CommandError, match="no user 'nobody'"):
        call_command("create_api_key", "nobody")


# --- The page ------------------------------------------------------------------------------------


def test_the_page_creates_a_key_and_shows_it_once(owner) -> None:
    client = Client()
    client.force_login(owner)

    created = client.post("/settings/api-keys", {"name": "standup bot"})

    assert created.status_code == 200 and created["Cache-Control"] == "no-store"
    raw = created.context["created"]["raw"]
    assert raw in created.content.decode()
    assert authenticate_key(raw).user == owner
    listed = client.get("/settings/api-keys").content.decode()
    assert "standup bot" in listed and raw not in listed


def test_the_page_refuses_a_key_without_a_name(owner) -> None:
    client = Client()
    client.force_login(owner)

    response = client.post("/settings/api-keys", {"name": "  "})

    assert response.status_code == 400 and not ApiKey.objects.exists()


def test_the_page_revokes_only_your_own_keys(owner, outsider) -> None:
    key, raw = create_api_key(owner, "bot")
    client = Client()
    client.force_login(outsider)
    assert client.post(f"/settings/api-keys/{key.pk}/revoke").status_code == 404

    client.force_login(owner)
    assert client.post(f"/settings/api-keys/{key.pk}/revoke").status_code == 302
    assert authenticate_key(raw) is None


def test_the_page_sends_visitors_to_log_in(db: None) -> None:
    response = Client().get("/settings/api-keys")

    assert response.status_code == 302 and "login" in response["Location"]
