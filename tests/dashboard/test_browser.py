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
    # No pattern of the seed has ended: the page says where the older version lives.
    page.get_by_role("link", name="Show superseded versions").click()
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


# --- The weekly review, the timeline, a run ------------------------------------------------------


def test_a_pm_reviews_the_week_exports_it_and_follows_a_timeline_bar_to_its_update(
    browser, live_server, demo: User
) -> None:
    session = Session(browser, live_server.url, viewport=DESKTOP, scheme="light",
                      label="desktop-light")
    page = session.page
    session.sign_in()

    # The weekly review of the demo project opens on this week; the week before is one click away.
    session.go("/g/atlas/")
    page.locator(".graph-nav").get_by_role("link", name="Weekly review").click()
    page.wait_for_url(re.compile(r"/g/atlas/weekly/\d{4}-W\d{2}$"))
    this_week = page.url.rsplit("/", 1)[1]
    session.shot("10-weekly-this-week")
    page.get_by_role("link", name=re.compile(r"← Week \d+")).click()
    page.wait_for_url(re.compile(r"/weekly/\d{4}-W\d{2}$"))
    last_week = page.url.rsplit("/", 1)[1]
    assert last_week != this_week
    assert page.locator("#blockers-title").is_visible()
    assert page.locator(".review-table tbody tr").count() >= 1
    session.shot("11-weekly-last-week")

    # With hindsight, then the exports of that view.
    page.locator(".segmented").get_by_role("link", name="With hindsight").click()
    page.wait_for_url(re.compile(r"view=hindsight"))
    with page.expect_download() as markdown:
        page.get_by_role("link", name="Markdown").click()
    assert markdown.value.suggested_filename == f"atlas-weekly-{last_week}-hindsight.md"
    text = Path(markdown.value.path()).read_text()
    assert text.startswith(f"# Project Atlas — weekly review {last_week}")
    assert "## Root blockers by unblock reach" in text
    with page.expect_download() as csv:
        page.get_by_role("link", name="CSV").click()
    assert csv.value.suggested_filename == f"atlas-weekly-{last_week}-hindsight.csv"
    assert Path(csv.value.path()).read_text().lstrip("\ufeff").startswith("section,item,detail")
    session.shot("12-weekly-hindsight")

    # The timeline: hover a dependency, click it, land on the update that said it.
    page.locator(".graph-nav").get_by_role("link", name="Timeline").click()
    page.wait_for_load_state("networkidle")
    bar = page.locator("svg.tl-chart a.tl-bar.rel-depends_on").first
    title = bar.locator("title").text_content()
    assert " waits on " in title
    session.shot("13-timeline")
    bar.locator("rect").click()
    page.wait_for_url(re.compile(r"/g/atlas/ep/[0-9a-f-]+#fact-[0-9a-f-]+$"))
    fact = page.locator(".fact:target")
    assert fact.is_visible()
    assert "waits on" in fact.inner_text()
    session.shot("14-episode-from-the-timeline")

    # The entity behind the bar has its own page and timeline.
    fact.locator("a.entity-link").last.click()
    page.wait_for_url(re.compile(r"/g/atlas/e/[0-9a-f-]+$"))
    assert page.locator("svg.tl-chart").is_visible()
    session.shot("15-entity")

    assert session.errors == []
    session.close()


@pytest.fixture
def release(demo: User):  # type: ignore[no-untyped-def]
    """A graph with eight fresh dependency patterns waiting for their first run."""
    from memory.ingestion import ingest_records
    from memory.models import Graph, Membership
    from memory.processing import process_episode

    graph = Graph.objects.create(slug="release", name="Release train")
    Membership.objects.create(graph=graph, user=demo, role=Membership.Role.OWNER)
    records = []
    for i, component in enumerate(["Billing API", "Search Index", "Audit Log", "Feature Flags",
                                   "Mail Relay", "Image CDN", "Rate Limiter", "Job Queue"]):
        for j, (who, item) in enumerate([("Ann", "Web App"), ("Ben", "Mobile App")]):
            records.append({
                "author": f"{who} {i}", "reference_time": f"2026-11-0{2 + j}T09:{i:02d}:00+00:00",
                "content": f"The {item} {i} is blocked. I'm waiting on the {component}.",
            })
    report = ingest_records(graph, list(enumerate(records, start=1)), process=False)
    for episode_id in report.stored_ids:
        process_episode(episode_id)
    return graph


def start_a_run(session: Session) -> None:
    session.sign_in()
    session.go("/g/release/runs")
    session.page.get_by_role("button", name="Start a run").click()
    session.page.wait_for_url(re.compile(r"/g/release/runs/[0-9a-f-]+$"))


def test_in_the_embedded_default_a_started_run_runs_in_process_and_opens_done(
    browser, live_server, release
) -> None:
    """No broker: the start button's request runs the pipeline itself (template summaries) and
    the run's page opens on the finished run."""
    session = Session(browser, live_server.url, viewport=DESKTOP, scheme="light",
                      label="desktop-light")
    page = session.page

    start_a_run(session)

    assert page.locator("#run-progress strong").first.inner_text() == "Done"
    assert page.locator("#run-progress .run-progress__percent").inner_text() == "100%"
    assert page.locator(".stage-row--done").count() == 6
    assert "8 new" in page.locator("#run-progress .notice--ok").inner_text()
    assert page.locator("#run-status .badge").first.inner_text() == "Succeeded"
    assert session.errors == []
    session.close()


@pytest.mark.worker
def test_a_run_started_for_a_worker_shows_its_progress_until_done(
    browser, live_server, release, fake_openai
) -> None:
    """Production: the start button enqueues the run on Redis, a Celery worker (another process)
    runs it with a model that takes a moment per summary, and the page follows its progress."""
    from dataclasses import replace

    from tests.fake_openai import FAKE_MODEL, default_responder
    from tests.worker import Worker, broker_mode, new_queue, require_worker_services, worker_env

    redis = require_worker_services()
    queue = new_queue()
    fake_openai.responder = lambda request: replace(default_responder(request), delay=0.4)
    # One cluster per summary call, so the run takes a few seconds and its progress is seen.
    worker = Worker(queue=queue, name="browser-run", env=worker_env(
        redis, queue, OPENAI_API_KEY="sk-fake", OPENAI_BASE_URL=fake_openai.base_url,
        LLM_MODEL=FAKE_MODEL, LLM_EXTRACTION="0", LLM_TIMEOUT_SECONDS="20",
        LLM_SUMMARY_BATCH_SIZE="1",
    )).start()
    session = Session(browser, live_server.url, viewport=DESKTOP, scheme="light",
                      label="desktop-light")
    page = session.page
    try:
        with broker_mode(redis, queue):
            start_a_run(session)
            seen: set[str] = set()
            percent = page.locator("#run-progress .run-progress__percent")
            for _ in range(240):
                seen.add(percent.inner_text())
                if page.locator("#run-progress .notice--ok").count():
                    break
                if len(seen) == 2:
                    session.shot("16-run-in-progress")
                page.wait_for_timeout(250)
            assert page.locator("#run-progress strong").first.inner_text() == "Done"
            assert percent.inner_text() == "100%"
            assert page.locator("#run-progress progress").get_attribute("value") == "100"
            assert page.locator(".stage-row--done").count() == 6
            assert any(value not in {"0%", "100%"} for value in seen), seen  # seen moving
            assert "8 new" in page.locator("#run-progress .notice--ok").inner_text()
            # Polling stopped: no more requests for the run's page.
            polls: list[str] = []
            page.on("request", lambda r: polls.append(r.url) if "/runs/" in r.url else None)
            page.wait_for_timeout(2500)
            assert polls == []
            page.wait_for_load_state("networkidle")
    finally:
        worker.stop()
    # The badges and the summary reloaded when the run finished.
    assert page.locator("#run-status .badge").first.inner_text() == "Succeeded"
    assert "Written by this run" in page.content()
    session.shot("17-run-done")
    assert len(fake_openai.completions()) == 8  # the worker's summaries, by the model

    assert session.errors == []
    session.close()


@pytest.mark.parametrize(("scheme", "viewport", "label"), [
    ("dark", DESKTOP, "desktop-dark"),
    ("light", PHONE, "phone-light"),
    ("dark", PHONE, "phone-dark"),
])
def test_the_new_pages_render_cleanly_in_dark_mode_and_at_phone_width(
    browser, live_server, demo: User, scheme: str, viewport: dict, label: str
) -> None:
    from memory.models import Entity, Episode, PipelineRun

    entity = Entity.objects.get(graph__slug="seed", name="Auth Service Refactor")
    episode = Episode.objects.get(graph__slug="seed", external_id="seed-alice")
    run = PipelineRun.objects.filter(graph__slug="atlas").latest("created_at")
    session = Session(browser, live_server.url, viewport=viewport, scheme=scheme, label=label)
    session.sign_in()

    for path, name in [
        ("/g/atlas/weekly/", "10-weekly-this-week"),
        ("/g/atlas/timeline", "13-timeline"),
        (f"/g/seed/e/{entity.uuid}", "15-entity"),
        ("/g/atlas/episodes", "18-episodes"),
        (f"/g/seed/ep/{episode.uuid}", "19-episode"),
        ("/g/atlas/runs", "20-runs"),
        (f"/g/atlas/runs/{run.uuid}", "21-run"),
        ("/g/support/merges", "22-merges"),
    ]:
        session.go(path)
        session.shot(name)
        # Nothing may stick out sideways: wide pictures and tables scroll inside their frames.
        width = session.page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], (path, width)

    assert session.errors == []
    session.close()
