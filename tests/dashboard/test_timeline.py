"""The graph timeline: facts as bars on their entity's row (open while they hold, an end marker
saying what ended them), updates as ticks, observations as bands; range, as-of and rows in the URL;
readable at large sizes; drawn on the server with every label escaped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.timeline import LINEAGES_DRAWN, MAX_LANES, TICKS_DRAWN, TimeScale, axis_ticks
from memory.models import Entity, Episode, Fact, FactEvidence, Graph, Observation
from tests.dashboard.conftest import BACKFILL, BACKFILL_ARRIVES, htmx, replay, signed_in
from tests.factories import (
    EntityFactory,
    EpisodeFactory,
    FactFactory,
    ObservationFactory,
    PipelineRunFactory,
)
from tests.scenarios import SHIPPED

pytestmark = pytest.mark.django_db

SEED_RANGE = "start=2026-11-01&end=2026-11-14"


def timeline_url(graph: Graph, query: str = "") -> str:
    return reverse("timeline", args=[graph.slug]) + (f"?{query}" if query else "")


def bars_of(response, row: str) -> list:  # type: ignore[no-untyped-def,type-arg]
    """The bars drawn on the row labelled ``row``."""
    timeline = response.context["timeline"]
    (found,) = [r for r in timeline.rows if r.label == row]
    return [b for b in timeline.bars if found.y <= b.y < found.y + found.height]


# --- Who may see it ----------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
def test_members_see_the_timeline(client: Client, request, seed_week: Graph, persona: str):
    response = signed_in(client, request.getfixturevalue(persona)).get(
        timeline_url(seed_week, SEED_RANGE))

    assert response.status_code == 200
    assert '<svg class="tl-chart"' in response.content.decode()


def test_an_outsider_gets_404(client: Client, seed_week: Graph, outsider) -> None:
    response = signed_in(client, outsider).get(timeline_url(seed_week))

    assert response.status_code == 404
    assert b"API Migration" not in response.content


# --- What it draws -----------------------------------------------------------------------------


def test_each_fact_is_a_bar_on_its_entitys_row_linking_to_its_episode(
    client: Client, seed_week: Graph, owner
) -> None:
    response = signed_in(client, owner).get(timeline_url(seed_week, SEED_RANGE))

    timeline = response.context["timeline"]
    labels = [row.label for row in timeline.rows]
    assert labels[:2] == ["Updates", "Observations"]
    # Work items first, then teams, then people; each kind by its first fact.
    assert labels[2:] == ["API Migration", "Payments Integration", "Checkout Flow",
                          "Backend Team", "Alice", "Bob", "Clara"]
    (waits,) = [b for b in bars_of(response, "API Migration") if "rel-depends_on" in b.kind]
    alice = Episode.objects.get(graph=seed_week, external_id="alice")
    fact = Fact.objects.get(graph=seed_week, source__name="API Migration", relation="DEPENDS_ON")
    assert waits.href == f"{reverse('episode', args=[seed_week.slug, alice.uuid])}#fact-{fact.uuid}"
    assert waits.open_end and waits.end is None  # it still holds
    assert waits.label == "waits on Auth Service Refactor"
    assert waits.title.startswith("API Migration waits on Auth Service Refactor (2 Nov 2026, "
                                  "still holds).")
    html = response.content.decode()
    assert f'<a class="tl-bar rel-depends_on" href="{waits.href}">' in html
    assert f"<title>{waits.title.replace(chr(39), '&#x27;')}</title>" in html


def test_updates_are_ticks_and_observations_bands(client: Client, seed_week: Graph, owner):
    response = signed_in(client, owner).get(timeline_url(seed_week, SEED_RANGE))

    timeline = response.context["timeline"]
    assert [t.title.split(":")[0] for t in timeline.ticks] == [
        "Alice, Mon 2 Nov 09", "Bob, Wed 4 Nov 09", "Clara, Fri 6 Nov 09"]
    bands = [b for b in timeline.bars if "obs" in b.kind]
    assert [b.title.split(" — ")[0] for b in bands] == [
        "v1 · Auth Service Refactor blocking 2 workstreams",
        "v2 · Auth Service Refactor blocking 3 workstreams"]
    assert "ended" in bands[0].kind and bands[1].open_end
    # Two versions of one lineage: "1 pattern", never "1 patterns".
    assert [r.sublabel for r in timeline.rows if r.label == "Observations"] == ["1 pattern"]


def test_an_ended_fact_stops_at_a_marker_that_says_what_ended_it(
    client: Client, seed_week: Graph, owner
) -> None:
    replay(seed_week, [{**SHIPPED, "reference_time": "2026-11-11T10:00:00+00:00"}])

    response = signed_in(client, owner).get(timeline_url(seed_week, SEED_RANGE))

    (waits,) = [b for b in bars_of(response, "API Migration") if "rel-depends_on" in b.kind]
    assert "ended" in waits.kind and not waits.open_end
    ship = Episode.objects.get(graph=seed_week, external_id="ship")
    assert waits.end.href == reverse("episode", args=[seed_week.slug, ship.uuid])
    assert waits.end.title == ("Ended 11 Nov 2026: Resolution rule — Dana, 11 Nov: “The backend "
                               "team shipped the auth service refactor.”")
    assert '<a class="tl-end"' in response.content.decode()


def test_as_of_shows_what_was_known_that_day(client: Client, seed_week: Graph, owner) -> None:
    replay(seed_week, [BACKFILL], arrived=BACKFILL_ARRIVES)
    signed_in(client, owner)

    then = client.get(timeline_url(seed_week, SEED_RANGE + "&as_of=2026-11-08"))
    now = client.get(timeline_url(seed_week, SEED_RANGE))

    assert "Mobile App Release" not in [r.label for r in then.context["timeline"].rows]
    assert "Mobile App Release" in [r.label for r in now.context["timeline"].rows]
    assert len(then.context["timeline"].ticks) == 3 and len(now.context["timeline"].ticks) == 4
    assert then.context["timeline"].as_of == datetime(2026, 11, 9, tzinfo=UTC)
    assert "as known on 8 Nov 2026" in then.content.decode()


def test_rows_can_be_restricted_to_one_kind_of_entity(
    client: Client, seed_week: Graph, owner
) -> None:
    response = signed_in(client, owner).get(timeline_url(seed_week, SEED_RANGE + "&type=Person"))

    rows = [r for r in response.context["timeline"].rows if r.kind != "track"]
    assert [r.label for r in rows] == ["Alice", "Bob", "Clara"]
    assert {r.sublabel for r in rows} == {"Person"}


def test_the_range_defaults_to_four_weeks_and_moves_by_its_length(
    client: Client, graph: Graph, owner
) -> None:
    response = signed_in(client, owner).get(timeline_url(graph, "end=2026-11-28"))

    assert (response.context["first"].isoformat(), response.context["last"].isoformat()) == (
        "2026-11-01", "2026-11-28")
    shift = response.context["shift"]
    assert shift["earlier"] == "start=2026-10-04&end=2026-10-31"
    assert shift["later"] == "start=2026-11-29&end=2026-12-26"
    assert "Nothing in this range" in response.content.decode()


def test_a_bad_range_is_ignored_and_said_so(client: Client, graph: Graph, owner) -> None:
    response = signed_in(client, owner).get(
        timeline_url(graph, "start=2026-11-20&end=2026-11-01&as_of=soon&type=Planet"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "To: The end date is before the start date. (ignored)" in html
    assert "Known as of: Enter a valid date." in html
    assert "Rows: Select a valid choice." in html


def test_htmx_gets_the_chart_and_the_canonical_url(client: Client, seed_week: Graph, owner):
    response = signed_in(client, owner).get(
        timeline_url(seed_week, SEED_RANGE + "&as_of=&type="), **htmx("timeline-chart"))

    assert response.content.decode().lstrip().startswith('<section id="timeline-chart"')
    assert response["HX-Push-Url"] == timeline_url(seed_week, SEED_RANGE)
    assert "HX-Request" in response["Vary"]


def test_labels_and_titles_are_escaped(client: Client, graph: Graph, owner) -> None:
    evil = EntityFactory(graph=graph, name="<script>alert(1)</script>")
    FactFactory(graph=graph, source=evil, valid_at=datetime(2026, 11, 3, tzinfo=UTC),
                sentence='"><script>alert(2)</script>')

    html = signed_in(client, owner).get(timeline_url(graph, SEED_RANGE)).content.decode()

    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


# --- Readable at large sizes -------------------------------------------------------------------


def many(graph: Graph, entities: int, facts_each: int, episodes: int, lineages: int) -> None:
    """A crowded month: ``entities`` work items with ``facts_each`` facts each, ``episodes``
    updates, ``lineages`` observations."""
    start = datetime(2026, 11, 2, tzinfo=UTC)
    rows = Entity.objects.bulk_create(
        EntityFactory.build(graph=graph, name=f"Item {i:04d}") for i in range(entities))
    targets = Entity.objects.bulk_create(
        EntityFactory.build(graph=graph, name=f"Target {i}") for i in range(facts_each))
    stored = Episode.objects.bulk_create(
        EpisodeFactory.build(graph=graph, reference_time=start + timedelta(minutes=17 * i))
        for i in range(episodes))
    facts = Fact.objects.bulk_create(
        Fact(graph=graph, source=row, target=target, relation="DEPENDS_ON", sentence="waits",
             valid_at=start + timedelta(hours=i), created_at=start + timedelta(hours=i),
             extractor="structured@1")
        for row in rows for i, target in enumerate(targets))
    FactEvidence.objects.bulk_create(
        FactEvidence(fact=f, episode=stored[i % len(stored)], sentence="waits",
                     extractor="structured@1", created_at=start)
        for i, f in enumerate(facts))
    run = PipelineRunFactory(graph=graph)
    Observation.objects.bulk_create(
        ObservationFactory.build(graph=graph, created_by_run=run,
                                 created_at=start + timedelta(hours=i))
        for i in range(lineages))


def test_a_crowded_month_says_what_it_leaves_out(client: Client, graph: Graph, owner) -> None:
    many(graph, entities=30, facts_each=MAX_LANES + 2, episodes=TICKS_DRAWN + 20,
         lineages=LINEAGES_DRAWN + 3)

    response = signed_in(client, owner).get(timeline_url(graph, "start=2026-11-01&end=2026-11-28"))

    timeline = response.context["timeline"]
    assert len([r for r in timeline.rows if r.kind != "track"]) == 25
    assert response.context["page"].paginator.count == 30
    assert any("overlapping facts are not drawn" in note for note in timeline.notes)
    assert any("drawn as a bar per day" in note for note in timeline.notes)
    assert any("More observations were active" in note for note in timeline.notes)
    html = response.content.decode()
    assert "Rows 1–25 of 30 entities" in html and "Page 1 of 2" in html
    assert "Item 0000" in html and " more</text>" in html


@pytest.mark.parametrize("size", ["small", "large"])
def test_the_timeline_takes_the_same_ten_queries_whatever_the_size(
    client: Client, graph: Graph, owner, size: str, django_assert_num_queries
) -> None:
    if size == "small":
        many(graph, entities=3, facts_each=2, episodes=5, lineages=2)
    else:
        many(graph, entities=200, facts_each=8, episodes=TICKS_DRAWN + 100, lineages=250)
    signed_in(client, owner)
    url = timeline_url(graph, "start=2026-11-01&end=2026-11-28")

    # 1 session, 2 user, 3 membership + graph, 4 count of the rows, 5 one page of rows, 6 their
    # facts (with what ended each and where it was first said), 7 the observations, 8 the
    # updates to tick (capped), 9 updates per day, 10 the switcher.
    with django_assert_num_queries(10):
        client.get(url)


# --- Geometry ------------------------------------------------------------------------------------


def test_the_axis_labels_days_weeks_or_months_by_the_span() -> None:
    start = datetime(2026, 11, 2, tzinfo=UTC)

    days = axis_ticks(TimeScale(start, start + timedelta(days=7)))
    weeks = axis_ticks(TimeScale(start, start + timedelta(days=60)))
    months = axis_ticks(TimeScale(start, start + timedelta(days=200)))

    assert [t.label for t in days][:3] == ["Mon 2", "Tue 3", "Wed 4"]
    assert [t.label for t in weeks][:3] == ["2 Nov", "9 Nov", "16 Nov"]
    assert [t.label for t in months][:3] == ["Dec 2026", "Jan 2027", "Feb 2027"]
    assert all(t.label_x + len(t.label) * 6.1 <= 1120 for t in days + weeks + months)
