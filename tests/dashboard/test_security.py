"""Security settings the pages rely on: CSP with nonces and no inline code, the production
``check --deploy``, htmx told not to inject styles or evaluate code."""

from __future__ import annotations

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
