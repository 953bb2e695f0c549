"""The API's documentation pages in a real browser, under the site's own CSP: Swagger UI and
Redoc render the schema, nothing is blocked, and nothing is loaded from another host."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.dashboard.test_browser import REPORT_CSP, SHOTS, browser  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def open_page(browser, url: str):  # type: ignore[no-untyped-def]  # noqa: F811
    context = browser.new_context()
    context.add_init_script(REPORT_CSP)
    page = context.new_page()
    errors: list[str] = []
    hosts: set[str] = set()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    # Requests that reached a server (a request the CSP blocks fails before it leaves).
    page.on("requestfinished", lambda r: hosts.add(urlsplit(r.url).netloc)
            if r.url.startswith("http") else None)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return context, page, errors, hosts


@pytest.mark.parametrize(("path", "shows"), [
    ("/api/v1/docs", "#operations-episodes-episodes_bulk"),
    ("/api/v1/redoc", "#operation\\/episodes_bulk"),
])
def test_the_api_docs_render_under_our_csp_from_our_own_host(
    browser, live_server, path: str, shows: str  # noqa: F811
) -> None:
    context, page, errors, hosts = open_page(browser, live_server.url + path)
    try:
        page.wait_for_selector(shows, state="attached", timeout=15_000)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SHOTS / f"api{path.replace('/', '-')}.png")
    finally:
        context.close()

    # Redoc's attribution logo is an image on cdn.redoc.ly: blocked, never fetched, then hidden.
    attribution = "https://cdn.redoc.ly/redoc/logo-mini.svg"
    assert [e for e in errors if attribution not in e] == [], "\n".join(errors)
    assert hosts == {urlsplit(live_server.url).netloc}
