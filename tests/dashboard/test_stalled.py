"""Stalled items where a PM reads them: a board card that says how long, counted to today; the
kind filter; the weekly review's own section, counted to the week's end, in the page, the
Markdown and the CSV (ISO dates); and the JSON export's machine fields."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.models import Graph, Observation
from tests.dashboard.conftest import signed_in
from tests.factories import ObservationFactory, stalled_structure

pytestmark = [pytest.mark.django_db, pytest.mark.stalled]

SINCE = datetime(2026, 10, 5, 9, tzinfo=UTC)
"""Four weeks before the reviewed week's Monday: 34 days and 15 hours before its end."""
WEEK = "2026-W45"  # 2-8 Nov 2026
FOUND = datetime(2026, 11, 2, 9, tzinfo=UTC)
"""When the run found it: the reviewed week's Monday."""
NAMES = {1: "Audit Report", 2: "In Review"}


@pytest.fixture
def stalled(graph: Graph) -> Observation:
    return ObservationFactory(
        graph=graph, kind=Observation.Kind.STALLED,
        name="Audit Report in review since 5 Oct",
        summary="Audit Report has been in review since 5 Oct (4 weeks by 2 Nov).",
        structure=stalled_structure(since=SINCE, as_of=FOUND, names=NAMES),
        window_start=SINCE, window_end=SINCE, created_at=FOUND, reach_people=0,
        reach_work_items=0,
    )


@pytest.fixture
def chain(graph: Graph) -> Observation:
    return ObservationFactory(graph=graph, name="Auth Refactor blocking 1 workstream",
                              created_at=FOUND)


def test_the_board_card_says_the_item_and_how_long_it_has_been_stuck_counted_to_today(
    client: Client, graph: Graph, owner, stalled: Observation, chain: Observation,  # type: ignore[no-untyped-def]
) -> None:
    weeks = (timezone.now() - SINCE) // timedelta(weeks=1)

    response = signed_in(client, owner).get(reverse("board", args=[graph.slug]))

    (card,) = [c for c in response.context["cards"] if c.observation == stalled]
    assert card.stall.item.name == "Audit Report"
    assert card.stall.text == f"in review since 5 Oct 2026 · {weeks} weeks"
    html = response.content.decode()
    assert '<span class="badge badge--stalled">Stalled</span>' in html
    assert f"in review since 5 Oct 2026 · {weeks} weeks" in html


def test_the_kind_filter_keeps_only_stalled_items(
    client: Client, graph: Graph, owner, stalled: Observation, chain: Observation,  # type: ignore[no-untyped-def]
) -> None:
    response = signed_in(client, owner).get(reverse("board", args=[graph.slug]) + "?kind=stalled")

    assert [c.observation.name for c in response.context["cards"]] == [stalled.name]


def test_the_weekly_review_lists_it_in_its_own_section_counted_to_the_weeks_end(
    client: Client, graph: Graph, owner, stalled: Observation, chain: Observation,  # type: ignore[no-untyped-def]
) -> None:
    response = signed_in(client, owner).get(reverse("weekly", args=[graph.slug, WEEK]))

    (row,) = response.context["review"].stalled
    assert (row.stall.item.name, row.stall.state, row.stall.weeks) == ("Audit Report",
                                                                        "in review", 4)
    assert row.observation == stalled
    html = response.content.decode()
    assert 'id="stalled-title">Stalled' in html
    assert "Items in one state for 3 weeks or more at the end of the week" in html


def test_the_weekly_markdown_and_csv_carry_the_stalled_item_with_iso_dates_in_the_csv(
    client: Client, graph: Graph, owner, stalled: Observation,  # type: ignore[no-untyped-def]
) -> None:
    signed_in(client, owner)
    url = f"http://testserver/g/{graph.slug}/o/{stalled.uuid}"

    markdown = client.get(reverse("weekly-markdown", args=[graph.slug, WEEK])).content.decode()
    csv = client.get(reverse("weekly-csv", args=[graph.slug, WEEK])).content.decode()

    assert ("- **Audit Report** — in review since Mon 5 Oct 2026 (4 weeks) · "
            f"[Audit Report in review since 5 Oct]({url})") in markdown.splitlines()
    assert ("stalled,Audit Report,in review since Mon 5 Oct 2026 (4 weeks),,,,34,2026-10-05,,"
            f"{url}") in csv.splitlines()


def test_the_json_export_gives_the_state_since_and_weeks_as_machine_fields(
    graph: Graph, stalled: Observation,
) -> None:
    out = io.StringIO()

    call_command("export_observations", "--graph", graph.slug, stdout=out)

    (item,) = json.loads(out.getvalue())
    assert item["kind"] == "stalled"
    assert item["stalled"] == {
        "item": "Audit Report", "state": "status", "status": "In Review", "waits_on": [],
        "since": "2026-10-05T09:00:00+00:00", "as_of": "2026-11-02T09:00:00+00:00", "weeks": 4,
        "weeks_mentioned": None, "weeks_counted": None,
    }


def test_its_page_reads_like_any_observation(
    client: Client, graph: Graph, owner, stalled: Observation,  # type: ignore[no-untyped-def]
) -> None:
    response = signed_in(client, owner).get(reverse("observation", args=[graph.slug,
                                                                         stalled.uuid]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Audit Report in review since 5 Oct" in html
    assert '<span class="badge badge--stalled">Stalled</span>' in html
