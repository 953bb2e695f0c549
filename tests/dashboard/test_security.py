"""Security settings the pages rely on: the exact CSP (with a fresh nonce per response) and
security headers, HSTS and secure cookies in production and its ``check --deploy``, no inline
code, htmx told not to inject styles or evaluate code."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from tests.dashboard.conftest import signed_in

ROOT = Path(__file__).resolve().parents[2]


def test_the_production_settings_pass_check_deploy() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_ENV": "production",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "observations.example.com",
        "DEBUG": "",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.django_db
def test_pages_carry_no_inline_code_and_every_script_has_the_csp_nonce(
    client: Client, graph, owner, seeded
) -> None:
    signed_in(client, owner)
    urls = [
        reverse("board", args=[graph.slug]),
        reverse("observation", args=[graph.slug, seeded.uuid]) + "?claim=0",
        reverse("retired", args=[graph.slug]),
        reverse("weekly", args=[graph.slug, "2026-W48"]),
        reverse("timeline", args=[graph.slug]),
        reverse("episodes", args=[graph.slug]),
        reverse("episode", args=[graph.slug, seeded.episodes.first().uuid]),
        reverse("entity", args=[graph.slug, seeded.entities.first().uuid]),
        reverse("merges", args=[graph.slug]),
        reverse("runs", args=[graph.slug]),
        reverse("run", args=[graph.slug, seeded.created_by_run.uuid]),
    ]
    for url in urls:
        response = client.get(url)
        html = response.content.decode()
        nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"]).group(1)
        scripts = re.findall(r"<script[^>]*>", html)
        assert scripts, url
        assert all(f'nonce="{nonce}"' in tag and "src=" in tag for tag in scripts), url
        assert not re.search(r"\son[a-z]+=", html), url  # no inline event handlers
        assert not re.search(r"\sstyle=", html), url  # no inline styles (CSP style-src 'self')
        assert '"includeIndicatorStyles": false' in html


@pytest.mark.django_db
def test_the_login_page_has_the_same_protections(client: Client) -> None:
    response = client.get(reverse("login"))

    assert "'nonce-" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert not re.search(r"\sstyle=", response.content.decode())


@pytest.mark.django_db
def test_no_page_repeats_an_element_id(client: Client, graph, editor, seeded) -> None:
    # Labels, fragments and anchors all find their element by id.
    signed_in(client, editor)
    for url in [
        reverse("board", args=[graph.slug]),
        reverse("observation", args=[graph.slug, seeded.uuid]) + "?claim=0",
        reverse("weekly", args=[graph.slug, "2026-W48"]) + "?view=hindsight",
        reverse("timeline", args=[graph.slug]),
        reverse("episodes", args=[graph.slug]),
        reverse("episode", args=[graph.slug, seeded.episodes.first().uuid]),
        reverse("entity", args=[graph.slug, seeded.entities.first().uuid]),
        reverse("merges", args=[graph.slug]),
        reverse("runs", args=[graph.slug]),
    ]:
        ids = re.findall(r'\sid="([^"]+)"', client.get(url).content.decode())
        assert len(ids) == len(set(ids)), (url, sorted(i for i in ids if ids.count(i) > 1))


# --- The headers' exact values ------------------------------------------------------------------

STRICT_POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'", "'nonce-*'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
"""The Content-Security-Policy of every page: nothing from elsewhere, scripts only from this site
and with this response's nonce, no inline style, no plugins, no framing."""
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def policy_of(header: str) -> tuple[dict[str, list[str]], str | None]:
    """The policy as directive → sources (the nonce written ``'nonce-*'``), and the nonce."""
    directives: dict[str, list[str]] = {}
    nonce = None
    for directive in header.split(";"):
        name, *sources = directive.split()
        for i, source in enumerate(sources):
            if source.startswith("'nonce-"):
                nonce, sources[i] = source[len("'nonce-"):-1], "'nonce-*'"
        directives[name] = sources
    return directives, nonce


@pytest.mark.django_db
def test_pages_send_exactly_the_strict_policy_with_a_fresh_nonce_each_time(
    client: Client, graph, owner
) -> None:
    signed_in(client, owner)
    first, second = (client.get(reverse("board", args=[graph.slug])) for _ in range(2))

    policies = [policy_of(r["Content-Security-Policy"]) for r in (first, second)]
    assert [p for p, _ in policies] == [STRICT_POLICY, STRICT_POLICY]
    nonces = [n for _, n in policies]
    assert all(n and len(n) >= 16 for n in nonces) and nonces[0] != nonces[1]
    for name, value in HEADERS.items():
        assert first[name] == value, name


@pytest.mark.django_db
def test_api_answers_carry_the_same_headers_without_a_nonce(client: Client) -> None:
    response = client.get("/api/v1/graphs")

    policy, nonce = policy_of(response["Content-Security-Policy"])
    assert policy == {**STRICT_POLICY, "script-src": ["'self'"]} and nonce is None
    assert {name: response[name] for name in HEADERS} == HEADERS


PRODUCTION_HEADERS = """
import json
import django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="observations.example.com")
page = client.get("/login/", secure=True)
plain = client.get("/login/")
print(json.dumps({
    "hsts": page["Strict-Transport-Security"],
    "csrf_cookie_secure": bool(page.cookies["csrftoken"]["secure"]),
    "session_cookie_secure": django.conf.settings.SESSION_COOKIE_SECURE,
    "plain": [plain.status_code, plain["Location"]],
}))
"""


def test_production_adds_hsts_for_a_year_with_subdomains_and_preload_and_redirects_http() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_ENV": "production",
        "DJANGO_SETTINGS_MODULE": "dashboard.settings",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "observations.example.com",
        "DEBUG": "",
    }
    result = subprocess.run([sys.executable, "-c", PRODUCTION_HEADERS], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)

    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen == {
        "hsts": "max-age=31536000; includeSubDomains; preload",
        "csrf_cookie_secure": True,
        "session_cookie_secure": True,
        "plain": [301, "https://observations.example.com/login/"],
    }
