"""Stalled items where a PM reads them: a board card that says how long, counted to today; the
kind filter; the weekly review's own section, counted to the week's end, in the page, the
Markdown and the CSV (ISO dates); and the JSON export's machine fields. A quiet stall a pattern
holds (no card of its own) is shown by that pattern in each of them."""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.models import Graph, Observation
from tests.dashboard.conftest import signed_in
from tests.factories import ObservationFactory, chain_structure, stalled_structure

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
        "weeks_mentioned": None, "weeks_counted": None, "priority": None, "labels": [],
        "reports": [],
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


HELD_SINCE = datetime(2026, 9, 28, 9, tzinfo=UTC)
"""A week before ``SINCE``: the held stall is the older of the two."""


@pytest.fixture
def holding(graph: Graph) -> Observation:
    """A chain holding a quiet stall: the Search Rewrite, in review since 28 Sep and not
    restated since."""
    structure = chain_structure(names={1: "Auth Refactor", 2: "API Migration", 3: "Dana"})
    structure["held_stalls"] = [{
        "item": 4, "state": "status", "since": HELD_SINCE.isoformat(),
        "as_of": FOUND.isoformat(), "weeks": 5, "facts": [40], "episodes": [41],
        "others": [5], "weeks_mentioned": 0, "weeks_counted": 0,
        "last_said": HELD_SINCE.isoformat(),
    }]
    structure["names"] |= {"4": "Search Rewrite", "5": "In Review"}  # type: ignore[operator]
    return ObservationFactory(graph=graph, name="Auth Refactor blocking 1 workstream",
                              structure=structure, created_at=FOUND)


def test_a_patterns_card_and_page_show_the_quiet_stall_it_holds_counted_to_today(
    client: Client, graph: Graph, owner, holding: Observation,  # type: ignore[no-untyped-def]
) -> None:
    weeks = (timezone.now() - HELD_SINCE) // timedelta(weeks=1)
    signed_in(client, owner)

    response = client.get(reverse("board", args=[graph.slug]))
    page = client.get(reverse("observation", args=[graph.slug, holding.uuid])).content.decode()

    (card,) = response.context["cards"]
    assert [(s.item.name, s.text) for s in card.held] == [
        ("Search Rewrite", f"in review since 28 Sep 2026 · {weeks} weeks")]
    assert card.held_more == 0
    html = response.content.decode()
    assert "Stalled inside" in html
    assert f"in review since 28 Sep 2026 · {weeks} weeks" in html
    assert "Stalled inside this pattern" in page
    assert (f"in review since 28 Sep 2026 · {weeks} weeks · last said 28 Sep 2026") in page


def test_a_card_names_the_three_oldest_held_stalls_and_counts_the_others(
    client: Client, graph: Graph, owner, holding: Observation,  # type: ignore[no-untyped-def]
) -> None:
    (held,) = holding.structure["held_stalls"]
    holding.structure["held_stalls"] = [held] * 5
    holding.save()

    response = signed_in(client, owner).get(reverse("board", args=[graph.slug]))

    (card,) = response.context["cards"]
    assert (len(card.held_named), card.held_more) == (3, 2)
    assert "; and 2 more" in response.content.decode()


def test_the_weekly_review_lists_a_held_stall_with_its_pattern_longest_first(
    client: Client, graph: Graph, owner, stalled: Observation, holding: Observation,  # type: ignore[no-untyped-def]
) -> None:
    response = signed_in(client, owner).get(reverse("weekly", args=[graph.slug, WEEK]))

    rows = response.context["review"].stalled
    assert [(r.stall.item.name, r.stall.weeks, r.observation, r.held) for r in rows] == [
        ("Search Rewrite", 5, holding, True), ("Audit Report", 4, stalled, False)]
    assert "held here, last said 28 Sep 2026" in response.content.decode()


def test_the_weekly_review_says_an_old_stall_lasted_years_not_hundreds_of_weeks(
    client: Client, graph: Graph, owner,  # type: ignore[no-untyped-def]
) -> None:
    # docker/for-mac#5231, reported on 11 Jan 2021 and open since: "over 5 years".
    reported = datetime(2021, 1, 11, 9, tzinfo=UTC)
    ObservationFactory(
        graph=graph, kind=Observation.Kind.STALLED,
        name="docker/for-mac#5231 reported and open since 11 Jan 2021",
        summary="docker/for-mac#5231 has been reported and open since 11 Jan 2021.",
        structure=stalled_structure(since=reported, as_of=FOUND,
                                    names={1: "docker/for-mac#5231", 2: "In Review"}),
        window_start=reported, window_end=reported, created_at=FOUND, reach_people=0,
        reach_work_items=0,
    )

    html = signed_in(client, owner).get(reverse("weekly", args=[graph.slug, WEEK])
                                        ).content.decode()

    assert "<td>over 5 years</td>" in html
    assert not re.search(r"<td>\d{3} weeks</td>", html)


def test_the_weekly_markdown_and_csv_say_a_held_stall_is_held_by_its_pattern(
    client: Client, graph: Graph, owner, holding: Observation,  # type: ignore[no-untyped-def]
) -> None:
    signed_in(client, owner)
    url = f"http://testserver/g/{graph.slug}/o/{holding.uuid}"

    markdown = client.get(reverse("weekly-markdown", args=[graph.slug, WEEK])).content.decode()
    csv = client.get(reverse("weekly-csv", args=[graph.slug, WEEK])).content.decode()

    assert ("- **Search Rewrite** — in review since Mon 28 Sep 2026 (5 weeks); held by its "
            f"pattern · [Auth Refactor blocking 1 workstream]({url})") in markdown.splitlines()
    assert ("stalled,Search Rewrite,in review since Mon 28 Sep 2026 (5 weeks); held by its "
            f"pattern,,,,41,2026-09-28,,{url}") in csv.splitlines()


def test_the_json_export_carries_the_held_stalls_with_machine_fields_apart_from_the_prose(
    graph: Graph, holding: Observation,
) -> None:
    out = io.StringIO()

    call_command("export_observations", "--graph", graph.slug, stdout=out)

    (item,) = json.loads(out.getvalue())
    assert item["stalled"] is None
    assert item["held_stalls"] == [{
        "item": "Search Rewrite", "item_uuid": None, "state": "status", "status": "In Review",
        "waits_on": [], "since": "2026-09-28T09:00:00+00:00",
        "as_of": "2026-11-02T09:00:00+00:00", "weeks": 5, "weeks_mentioned": None,
        "weeks_counted": None, "last_said": "2026-09-28T09:00:00+00:00", "episodes": [],
        "priority": None, "labels": [], "reports": [],
    }]


def test_a_pattern_written_again_for_a_stall_gone_quiet_inside_says_so(
    client: Client, graph: Graph, owner, holding: Observation,  # type: ignore[no-untyped-def]
) -> None:
    # Its first version, a week before, held nothing; the evidence is the same.
    Observation.objects.filter(pk=holding.pk).update(version=2)
    ObservationFactory(
        graph=graph, lineage=holding.lineage, version=1, name=holding.name,
        evidence_fingerprint=holding.evidence_fingerprint,
        structure={**holding.structure, "held_stalls": []}, status=Observation.Status.RETIRED,
        retired_reason=Observation.RetiredReason.SUPERSEDED, retired_at=FOUND,
        created_at=FOUND - timedelta(weeks=1))
    signed_in(client, owner)

    review = client.get(reverse("weekly", args=[graph.slug, WEEK])).context["review"]
    page = client.get(reverse("observation", args=[graph.slug, holding.uuid]))

    (updated,) = review.updated
    assert (updated.observation, updated.changes) == (holding,
                                                      ["stalled inside now: Search Rewrite"])
    assert [line.change for line in page.context["history"]] == [
        "first seen", "the same evidence, written again"]


# --- Many stalls of one shape: what tells them apart --------------------------------------------


def issue_stalled(graph: Graph, number: int, since: datetime,
                  labels: list[str]) -> Observation:
    """A webcompat issue open since ``since`` with the labels its importer kept."""
    key = f"webcompat/web-bugs#{number}"
    structure = stalled_structure(item=number, status=2, since=since, as_of=FOUND,
                                  names={number: key, 2: "open"}, labels=labels)
    return ObservationFactory(
        graph=graph, kind=Observation.Kind.STALLED, name=f"{key} open since {since:%-d %b}",
        structure=structure, window_start=since, window_end=since, created_at=FOUND,
        reach_people=0, reach_work_items=0,
    )


@pytest.fixture
def forty_of_one_week(graph: Graph) -> list[Observation]:
    monday = datetime(2026, 9, 28, 9, tzinfo=UTC)
    return [
        issue_stalled(graph, 10, monday + timedelta(days=1), ["engine-gecko"]),
        issue_stalled(graph, 11, monday, ["browser-fenix", "milestone needsdiagnosis"]),
        issue_stalled(graph, 12, monday + timedelta(days=1),
                      ["priority-critical", "milestone needstriage"]),
        issue_stalled(graph, 13, monday + timedelta(days=2), ["priority-normal"]),
    ]


def test_the_weekly_review_lists_stalls_by_their_trackers_priority_then_longest_first(
    client: Client, graph: Graph, owner, forty_of_one_week: list[Observation],  # type: ignore[no-untyped-def]
) -> None:
    response = signed_in(client, owner).get(reverse("weekly", args=[graph.slug, WEEK]))

    rows = response.context["review"].stalled
    assert [r.stall.item.name.rsplit("#")[1] for r in rows] == ["12", "13", "11", "10"]
    assert rows[0].stall.marks_text == "priority-critical · milestone needstriage"
    html = response.content.decode()
    assert "priority-critical · milestone needstriage" in html


def test_the_board_lists_stalled_cards_by_their_trackers_priority_then_longest_first(
    client: Client, graph: Graph, owner, forty_of_one_week: list[Observation],  # type: ignore[no-untyped-def]
    chain: Observation,
) -> None:
    # Stalled cards have no reach: after the chain, in the weekly review's order, not by their
    # latest update.
    response = signed_in(client, owner).get(reverse("board", args=[graph.slug]))

    names = [c.observation.name.split(" open since")[0] for c in response.context["cards"]]
    assert names == ["Auth Refactor blocking 1 workstream", "webcompat/web-bugs#12",
                     "webcompat/web-bugs#13", "webcompat/web-bugs#11", "webcompat/web-bugs#10"]


def test_the_weekly_review_sums_up_the_stalls_of_one_source_since_one_week_in_one_line(
    client: Client, graph: Graph, owner, forty_of_one_week: list[Observation],  # type: ignore[no-untyped-def]
) -> None:
    signed_in(client, owner)
    response = client.get(reverse("weekly", args=[graph.slug, WEEK]))

    (group,) = response.context["review"].stalled_groups
    line = ("4 webcompat/web-bugs items open since 28–30 Sep 2026: 1 critical, "
            "1 normal, 2 with no priority")
    assert group.text == line
    assert line in response.content.decode()
    markdown = client.get(reverse("weekly-markdown", args=[graph.slug, WEEK])).content.decode()
    assert f"- {line}" in markdown.splitlines()


def test_the_board_card_shows_what_its_tracker_says_of_the_stalled_item(
    client: Client, graph: Graph, owner, forty_of_one_week: list[Observation],  # type: ignore[no-untyped-def]
) -> None:
    response = signed_in(client, owner).get(reverse("board", args=[graph.slug]))

    html = response.content.decode()
    assert "priority-critical · milestone needstriage" in html
    assert "browser-fenix · milestone needsdiagnosis" in html
