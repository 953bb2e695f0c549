"""The dashboard in a real browser: Playwright drives Debian's Chromium against the live server
with the demo graphs loaded. A journey through the board, an observation's evidence trail, its
history, the retired page and the admin audit — with no console error and no CSP violation on the
way. Screenshots (desktop and phone, light and dark) go to ``test-artifacts/screenshots/``."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from tests.conftest import require

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--headless"]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PASSWORD = "demo-browser-password"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# Report CSP violations on the console, where the test collects every error.
REPORT_CSP = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def browser() -> Iterator[object]:
    require(os.path.exists(CHROMIUM), f"browser tests need Chromium at {CHROMIUM}")
    from django.db import connections
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; Django refuses ORM calls from a
    # thread with a running loop unless told it is safe (it is: the loop only drives Chromium).
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            yield chromium
            chromium.close()
            # While the loop runs, Django keys its connections by the loop's context: the ORM
            # calls made meanwhile (loading the demo, the test's own look-ups) used connections of
            # their own, which would stay open and block the test database's teardown.
            connections.close_all()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def demo(transactional_db: None) -> User:
    call_command("demo", "--quiet", stdout=open(os.devnull, "w"))  # noqa: SIM115
    user = User.objects.get(username="demo")
    user.set_password(PASSWORD)
    user.save()
    return user


class Session:
    """One browser context: a page, the errors it logged, screenshots named after the step."""

    def __init__(self, browser, base: str, *, viewport: dict, scheme: str, label: str):  # type: ignore[no-untyped-def]
        self.context = browser.new_context(viewport=viewport, color_scheme=scheme)
        self.context.add_init_script(REPORT_CSP)
        self.page = self.context.new_page()
        self.base = base
        self.label = label
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", lambda r: self.errors.append(f"{r.status} {r.url}")
                     if r.status >= 400 else None)

    def go(self, path: str) -> None:
        self.page.goto(self.base + path)
        self.page.wait_for_load_state("networkidle")

    def sign_in(self) -> None:
        self.go("/login/")
        self.page.fill("#id_username", "demo")
        self.page.fill("#id_password", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_load_state("networkidle")

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=SHOTS / f"{name}-{self.label}.png", full_page=True)

    def close(self) -> None:
        self.context.close()


def test_a_pm_walks_from_the_board_to_claras_words_history_retired_and_the_admin(
    browser, live_server, demo: User
) -> None:
    session = Session(browser, live_server.url, viewport=DESKTOP, scheme="light",
                      label="desktop-light")
    page = session.page

    session.sign_in()
    assert page.get_by_role("heading", name="Your graphs").is_visible()
    session.shot("01-graphs")

    # The demo project's board: filter in place, the URL follows.
    page.get_by_role("link", name="Project Atlas").click()
    page.wait_for_load_state("networkidle")
    assert page.locator(".obs-card").count() >= 2
    session.shot("02-board")
    page.select_option("#id_sort", "latest")
    page.wait_for_url(re.compile(r"sort=latest"))
    page.fill("#id_q", "notification")
    page.wait_for_url(re.compile(r"q=notification"))
    page.wait_for_load_state("networkidle")
    titles = page.locator(".obs-card__title").all_inner_texts()
    assert titles and all("Notification" in t or "notification" in t.lower() for t in titles)
    session.shot("03-board-filtered")

    # The seed graph, through the switcher; its observation; a citation opens Clara's words.
    page.locator(".switcher summary").click()
    page.get_by_role("link", name="Seed example").click()
    page.wait_for_load_state("networkidle")
    page.get_by_role("link", name=re.compile("Auth Service Refactor blocking")).click()
    page.wait_for_load_state("networkidle")
    root = page.locator("svg.chain .node--root text").first
    assert root.text_content() == "Auth Service Refactor"
    claim = page.locator(".claim", has_text="Clara's Checkout Flow")
    claim.locator("a.chip").first.click()
    trail = page.locator(".trail")
    trail.wait_for()
    page.wait_for_url(re.compile(r"\?claim=\d+"))
    assert "checkout flow can't move forward" in trail.locator("mark").first.inner_text().lower()
    assert "Clara" in trail.inner_text()
    session.shot("04-evidence-trail")

    # History: the lineage, back to the retired first version and its banner.
    page.locator(".section-nav a", has_text="History").click()
    assert page.locator("#history .timeline__item").count() >= 2
    page.locator("#history .timeline__item a").first.click()
    page.wait_for_load_state("networkidle")
    assert page.locator(".banner--retired").is_visible()
    session.shot("05-retired-version")

    # The retired page.
    page.locator(".graph-nav").get_by_role("link", name="Retired").click()
    page.wait_for_load_state("networkidle")
    assert page.locator(".obs-card").count() >= 1
    session.shot("06-retired")

    # The admin audit of an observation: claims → facts → episodes.
    session.go("/admin/memory/observation/?status__exact=active")
    page.locator("#result_list tbody a").first.click()
    page.wait_for_load_state("networkidle")
    assert page.locator("text=facts → episodes").first.is_visible()
    session.shot("07-admin-audit")

    assert session.errors == []
    session.close()


@pytest.mark.parametrize(("scheme", "viewport", "label"), [
    ("dark", DESKTOP, "desktop-dark"),
    ("light", PHONE, "phone-light"),
    ("dark", PHONE, "phone-dark"),
])
def test_the_pages_render_cleanly_in_dark_mode_and_at_phone_width(
    browser, live_server, demo: User, scheme: str, viewport: dict, label: str
) -> None:
    from memory.models import Observation

    seed = Observation.objects.get(graph__slug="seed", status=Observation.Status.ACTIVE)
    session = Session(browser, live_server.url, viewport=viewport, scheme=scheme, label=label)
    session.sign_in()

    session.go("/g/atlas/")
    session.shot("02-board")
    session.go(f"/g/seed/o/{seed.uuid}?claim=2")
    assert session.page.locator(".trail mark").count() >= 1
    session.shot("04-evidence-trail")
    # Nothing may stick out sideways at phone width.
    width = session.page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"]

    assert session.errors == []
    session.close()
