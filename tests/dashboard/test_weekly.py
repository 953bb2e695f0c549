"""The weekly status review: what a PM reads on Monday, as known at the end of the week or with
hindsight, its Markdown and CSV exports line by line on the seed scenario, reproducibility after a
backfill, the persona checks and the pinned query counts."""

from __future__ import annotations

import csv
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dashboard.weekly import IsoWeek
from memory.models import Entity, Episode, Fact, FactEvidence, Graph, Observation
from tests.dashboard.conftest import (
    BACKFILL,
    BACKFILL_ARRIVES,
    SEED_WEEK,
    replay,
    signed_in,
)
from tests.factories import (
    EntityFactory,
    EpisodeFactory,
    FactFactory,
    ObservationFactory,
    PipelineRunFactory,
    chain_structure,
)
from tests.scenarios import SHIPPED

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 2, tzinfo=UTC)
"""Monday of the seed week, 2026-W45."""


def review_url(graph: Graph, week: str = SEED_WEEK, query: str = "", *,
               name: str = "weekly") -> str:
    return reverse(name, args=[graph.slug, week]) + (f"?{query}" if query else "")


def download(client: Client, graph: Graph, kind: str, query: str = "") -> str:
    response = client.get(review_url(graph, query=query, name=f"weekly-{kind}"))
    assert response.status_code == 200
    return response.content.decode()


def uuid_of(graph: Graph, name: str) -> str:
    return str(Entity.objects.get(graph=graph, name=name).uuid)


def episode_of(graph: Graph, external_id: str) -> str:
    return str(Episode.objects.get(graph=graph, external_id=external_id).uuid)


def seed_observation(graph: Graph) -> Observation:
    return Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE)


# --- Who may see it ----------------------------------------------------------------------------


def test_the_weekly_tab_opens_the_current_week(client: Client, graph: Graph, member) -> None:
    signed_in(client, member)
    this_week = str(IsoWeek.of(timezone.now()))

    for path in (f"/g/{graph.slug}/weekly", f"/g/{graph.slug}/weekly/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"] == reverse("weekly", args=[graph.slug, this_week])


@pytest.mark.parametrize("persona", ["owner", "editor", "member"])
def test_members_read_the_review_and_its_exports(
    client: Client, request, seed_week: Graph, persona: str
) -> None:
    signed_in(client, request.getfixturevalue(persona))

    for name in ("weekly", "weekly-markdown", "weekly-csv"):
        assert client.get(review_url(seed_week, name=name)).status_code == 200


def test_an_outsider_gets_404_for_the_review_and_its_exports(
    client: Client, seed_week: Graph, outsider
) -> None:
    signed_in(client, outsider)

    for name in ("weekly", "weekly-markdown", "weekly-csv"):
        response = client.get(review_url(seed_week, name=name))
        assert response.status_code == 404
        assert b"Auth Service Refactor" not in response.content
    assert client.get(f"/g/{seed_week.slug}/weekly").status_code == 404


def test_a_week_that_does_not_exist_is_404(client: Client, graph: Graph, owner) -> None:
    signed_in(client, owner)

    assert client.get(review_url(graph, "2026-W54")).status_code == 404
    assert client.get(f"/g/{graph.slug}/weekly/2026-48").status_code == 404


# --- What the review says ----------------------------------------------------------------------


def test_the_seed_week_shows_the_new_pattern_its_root_blocker_the_changes_and_the_authors(
    client: Client, seed_week: Graph, owner
) -> None:
    response = signed_in(client, owner).get(review_url(seed_week))

    review = response.context["review"]
    assert [c.observation.name for c in review.new] == [
        "Auth Service Refactor blocking 3 workstreams"]
    assert review.updated == [] and review.retired == []
    (blocker,) = review.blockers
    assert (blocker.name, blocker.owners, blocker.reach_people, blocker.reach_work_items,
            blocker.age_days) == ("Auth Service Refactor", "Backend Team", 3, 3, 6)
    assert [g.name for g in review.fact_groups] == [
        "API Migration", "Auth Service Refactor", "Checkout Flow", "Payments Integration"]
    assert [(a.author, a.updates) for a in review.authors] == [
        ("Alice", 1), ("Bob", 1), ("Clara", 1)]
    html = response.content.decode()
    assert "Week 45" in html and "2–8 Nov 2026" in html
    assert "As known at the end of the week" in html
    blocker_page = reverse("entity", args=[seed_week.slug, uuid_of(seed_week,
                                                                   "Auth Service Refactor")])
    assert f'href="{blocker_page}"' in html


def test_previous_and_next_week_keep_the_view(client: Client, seed_week: Graph, owner) -> None:
    response = signed_in(client, owner).get(review_url(seed_week, query="view=hindsight"))

    html = response.content.decode()

    assert f'href="{review_url(seed_week, "2026-W44")}?view=hindsight"' in html
    assert f'href="{review_url(seed_week, "2026-W46")}?view=hindsight"' in html


def test_the_current_week_has_no_next_week_and_says_it_is_not_over(
    client: Client, graph: Graph, owner
) -> None:
    this_week = IsoWeek.of(timezone.now())

    response = signed_in(client, owner).get(review_url(graph, str(this_week)))

    assert response.context["next"] is None
    assert "the week is not over" in response.content.decode()


def test_an_update_lists_what_changed_and_the_update_that_ended_the_old_version(
    client: Client, seed_week: Graph, owner
) -> None:
    replay(seed_week, [{**SHIPPED, "reference_time": "2026-11-11T10:00:00+00:00"}])

    review = signed_in(client, owner).get(review_url(seed_week, "2026-W46")).context["review"]

    (update,) = review.updated
    assert update.observation.name == "Payments Integration blocking 1 workstream"
    assert "root blocker now Payments Integration (was Auth Service Refactor)" in update.changes
    assert update.ended_by == [
        "Dana, 11 Nov 2026: “The backend team shipped the auth service refactor.” — ended "
        "API Migration waits on Auth Service Refactor; Payments Integration waits on Auth "
        "Service Refactor"]
    assert [b.name for b in review.blockers] == ["Payments Integration"]


def test_a_retired_pattern_says_why_and_what_ended_it(client: Client, graph: Graph, owner) -> None:
    run = PipelineRunFactory(graph=graph)
    closer = EpisodeFactory(graph=graph, author="Dana", content="The vendor contract is signed.",
                            reference_time=MONDAY + timedelta(days=2))
    fact = FactFactory(graph=graph, source__name="Payments Integration",
                       target__name="Vendor Contract", valid_at=MONDAY - timedelta(days=10),
                       invalid_at=MONDAY + timedelta(days=2), expired_at=MONDAY + timedelta(days=2),
                       close_reason=Fact.CloseReason.RESOLUTION, closed_by_episode=closer)
    ObservationFactory(
        graph=graph, created_by_run=run, name="Vendor Contract blocking 1 workstream",
        created_at=MONDAY - timedelta(days=9), status=Observation.Status.RETIRED,
        retired_at=MONDAY + timedelta(days=2, hours=12), retired_by_run=run,
        retired_reason=Observation.RetiredReason.EVIDENCE_ENDED,
        retirement={"closed_facts": [fact.pk], "note": "evidence_ended: 1 fact closed"},
    )

    response = signed_in(client, owner).get(review_url(graph))

    (retired,) = response.context["review"].retired
    assert retired.reason == "Evidence ended"
    assert retired.ended_by == ["Dana, 4 Nov 2026: “The vendor contract is signed.” — ended "
                                "Payments Integration waits on Vendor Contract"]
    assert "The vendor contract is signed." in response.content.decode()


def test_a_workstream_without_an_update_for_two_weeks_is_listed_as_quiet(
    client: Client, graph: Graph, owner
) -> None:
    alice = EntityFactory(graph=graph, name="Alice", type="Person")
    stale = EntityFactory(graph=graph, name="Load Testing")
    fresh = EntityFactory(graph=graph, name="Billing Migration")
    done = EntityFactory(graph=graph, name="Launch Checklist")
    shipped = EntityFactory(graph=graph, name="Done", type="Status")
    FactFactory(graph=graph, source=alice, relation="RESPONSIBLE_FOR", target=stale,
                valid_at=MONDAY - timedelta(days=20))
    FactFactory(graph=graph, source=alice, relation="RESPONSIBLE_FOR", target=fresh,
                valid_at=MONDAY + timedelta(days=1))
    FactFactory(graph=graph, source=alice, relation="RESPONSIBLE_FOR", target=done,
                valid_at=MONDAY - timedelta(days=30))
    FactFactory(graph=graph, source=done, relation="HAS_STATUS", target=shipped,
                valid_at=MONDAY - timedelta(days=30))

    review = signed_in(client, owner).get(review_url(graph)).context["review"]

    assert [(q.name, q.days) for q in review.quiet] == [("Load Testing", 27)]


# --- Reproducible: a backfill never rewrites an old review ----------------------------------------


def test_a_backfill_leaves_the_past_review_unchanged_and_shows_in_hindsight(
    client: Client, seed_week: Graph, owner
) -> None:
    signed_in(client, owner)
    before = {kind: download(client, seed_week, kind) for kind in ("markdown", "csv")}
    hindsight_before = download(client, seed_week, "markdown", "view=hindsight")
    page_before = client.get(review_url(seed_week)).context["review"]

    replay(seed_week, [BACKFILL], arrived=BACKFILL_ARRIVES)

    # As known at the end of the week: the same bytes.
    assert {kind: download(client, seed_week, kind) for kind in ("markdown", "csv")} == before
    page_after = client.get(review_url(seed_week)).context["review"]
    assert [b.reach_people for b in page_after.blockers] == [
        b.reach_people for b in page_before.blockers] == [3]
    # With hindsight: Dan's Tuesday update counts, and every difference is marked.
    hindsight = download(client, seed_week, "markdown", "view=hindsight")
    assert hindsight != hindsight_before
    review = client.get(review_url(seed_week, query="view=hindsight")).context["review"]
    (blocker,) = review.blockers
    assert (blocker.reach_people, blocker.reach_work_items) == (4, 4)
    assert blocker.difference == "known then: clears 3 people, 3 work items"
    assert ("Dan", 1, "1 arrived later") in [(a.author, a.updates, a.difference)
                                             for a in review.authors]
    learned = [c for g in review.fact_groups for c in g.changes if c.difference]
    assert {c.text for c in learned} == {
        "Dan is responsible for Mobile App Release", "Mobile App Release has status Blocked",
        "Mobile App Release waits on Auth Service Refactor"}
    assert {c.difference for c in learned} == {"learned 10 Nov 2026"}
    assert review.differences == 5


def test_hindsight_marks_a_blocker_found_only_later(client: Client, graph: Graph, owner) -> None:
    replay(graph, [
        {"external_id": "eve", "author": "Eve", "reference_time": "2026-11-03T09:00:00+00:00",
         "content": "The data export is blocked. I'm waiting on the storage upgrade."},
        {"external_id": "finn", "author": "Finn", "reference_time": "2026-11-05T09:00:00+00:00",
         "content": "The audit report is stalled. I'm also waiting on the storage upgrade."},
    ], arrived=BACKFILL_ARRIVES)
    signed_in(client, owner)

    known = client.get(review_url(graph)).context["review"]
    hindsight = client.get(review_url(graph, query="view=hindsight")).context["review"]

    assert known.blockers == [] and known.new == []
    assert [(b.name, b.difference) for b in hindsight.blockers] == [
        ("Storage Upgrade", "found later (written 10 Nov 2026)")]
    assert [c.observation.name for c in hindsight.found_later] == [
        "Storage Upgrade blocking 2 workstreams"]


# --- Exports, line by line --------------------------------------------------------------------


def test_the_markdown_export_of_the_seed_week(client: Client, seed_week: Graph, owner) -> None:
    signed_in(client, owner)
    o = f"http://testserver/g/{seed_week.slug}/o/{seed_observation(seed_week).uuid}"
    e = {name: f"http://testserver/g/{seed_week.slug}/e/{uuid_of(seed_week, name)}"
         for name in ("API Migration", "Auth Service Refactor", "Checkout Flow",
                      "Payments Integration")}

    response = client.get(review_url(seed_week, name="weekly-markdown"))

    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="project-atlas-weekly-2026-W45.md"')
    assert response.content.decode().splitlines() == [
        "# Project Atlas — weekly review 2026-W45 (2–8 Nov 2026)",
        "",
        "As known at the end of the week (Sun 8 Nov 2026).",
        "",
        "**1 new · 0 updated · 0 retired · 1 root blocker · 10 fact changes · 3 updates**",
        "",
        "## Root blockers by unblock reach",
        "",
        "1. **Auth Service Refactor** — owner Backend Team · clears 3 people, 3 work items · "
        f"blocking for 6 days · [Auth Service Refactor blocking 3 workstreams]({o})",
        "",
        "## Stalled",
        "",
        "_None._",
        "",
        "## New this week",
        "",
        f"- [Auth Service Refactor blocking 3 workstreams]({o}) — dependency chain, 3 updates, "
        "10 facts",
        "",
        "## Updated this week",
        "",
        "_None._",
        "",
        "## Retired this week",
        "",
        "_None._",
        "",
        "## What changed",
        "",
        f"### [API Migration]({e['API Migration']})",
        "",
        "- Mon 2 Nov: began — Alice is responsible for API Migration",
        "- Mon 2 Nov: began — API Migration has status Blocked",
        "- Mon 2 Nov: began — API Migration waits on Auth Service Refactor",
        "",
        f"### [Auth Service Refactor]({e['Auth Service Refactor']})",
        "",
        "- Mon 2 Nov: began — Backend Team is responsible for Auth Service Refactor",
        "",
        f"### [Checkout Flow]({e['Checkout Flow']})",
        "",
        "- Fri 6 Nov: began — Clara is responsible for Checkout Flow",
        "- Fri 6 Nov: began — Checkout Flow has status Blocked",
        "- Fri 6 Nov: began — Checkout Flow waits on Payments Integration",
        "",
        f"### [Payments Integration]({e['Payments Integration']})",
        "",
        "- Wed 4 Nov: began — Bob is responsible for Payments Integration",
        "- Wed 4 Nov: began — Payments Integration has status Stalled",
        "- Wed 4 Nov: began — Payments Integration waits on Auth Service Refactor",
        "",
        "## Updates per author",
        "",
        "- Alice: 1",
        "- Bob: 1",
        "- Clara: 1",
        "",
        "## Workstreams with no update for two weeks",
        "",
        "_None._",
    ]


def test_the_csv_export_of_the_seed_week(client: Client, seed_week: Graph, owner) -> None:
    signed_in(client, owner)
    o = f"http://testserver/g/{seed_week.slug}/o/{seed_observation(seed_week).uuid}"
    ep = {name: f"http://testserver/g/{seed_week.slug}/ep/{episode_of(seed_week, name)}"
          for name in ("alice", "bob", "clara")}

    response = client.get(review_url(seed_week, name="weekly-csv", query="view=hindsight"))

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="project-atlas-weekly-2026-W45-hindsight.csv"')
    text = response.content.decode()
    assert text.startswith("\ufeff")  # so that spreadsheets read it as UTF-8
    assert text[1:].splitlines() == [
        "section,item,detail,owner,reach_people,reach_work_items,age_days,date,difference,link",
        "root_blocker,Auth Service Refactor,Auth Service Refactor blocking 3 workstreams,"
        f"Backend Team,3,3,6,2026-11-02,,{o}",
        "new,Auth Service Refactor blocking 3 workstreams,dependency chain; 3 updates; 10 facts,"
        f",3,3,,2026-11-06,,{o}",
        f"fact_began,API Migration,Alice is responsible for API Migration,,,,,2026-11-02,,"
        f"{ep['alice']}",
        f"fact_began,API Migration,API Migration has status Blocked,,,,,2026-11-02,,{ep['alice']}",
        "fact_began,API Migration,API Migration waits on Auth Service Refactor,,,,,2026-11-02,,"
        f"{ep['alice']}",
        "fact_began,Auth Service Refactor,Backend Team is responsible for Auth Service Refactor,"
        f",,,,2026-11-02,,{ep['alice']}",
        f"fact_began,Checkout Flow,Clara is responsible for Checkout Flow,,,,,2026-11-06,,"
        f"{ep['clara']}",
        f"fact_began,Checkout Flow,Checkout Flow has status Blocked,,,,,2026-11-06,,{ep['clara']}",
        "fact_began,Checkout Flow,Checkout Flow waits on Payments Integration,,,,,2026-11-06,,"
        f"{ep['clara']}",
        "fact_began,Payments Integration,Bob is responsible for Payments Integration,,,,,"
        f"2026-11-04,,{ep['bob']}",
        "fact_began,Payments Integration,Payments Integration has status Stalled,,,,,2026-11-04,,"
        f"{ep['bob']}",
        "fact_began,Payments Integration,Payments Integration waits on Auth Service Refactor,,,,,"
        f"2026-11-04,,{ep['bob']}",
        "author,Alice,1,,,,,,,",
        "author,Bob,1,,,,,,,",
        "author,Clara,1,,,,,,,",
    ]


def test_markdown_escapes_what_would_turn_into_formatting(
    client: Client, graph: Graph, owner
) -> None:
    EpisodeFactory(graph=graph, author="*bold* [link](x)", reference_time=MONDAY)

    text = download(signed_in(client, owner), graph, "markdown")

    assert r"- \*bold\* \[link\](x): 1" in text


def test_the_page_prints_and_downloads(client: Client, seed_week: Graph, owner) -> None:
    html = signed_in(client, owner).get(review_url(seed_week)).content.decode()

    assert f'href="{review_url(seed_week, name="weekly-markdown")}" download' in html
    assert f'href="{review_url(seed_week, name="weekly-csv")}" download' in html
    assert "data-print" in html and "js/print.js" in html


def test_the_review_escapes_names(client: Client, graph: Graph, owner) -> None:
    EpisodeFactory(graph=graph, author="<script>alert(1)</script>", reference_time=MONDAY)

    html = signed_in(client, owner).get(review_url(graph)).content.decode()

    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


# --- Query counts ------------------------------------------------------------------------------


def busy_week(graph: Graph, size: int) -> None:
    """``size`` patterns, each with a root blocker, written during the seed week (one in five of
    them retired in it because a fact ended), ``size`` facts that began in it, ``size`` updates
    by ``size // 2 + 1`` authors."""
    run = PipelineRunFactory(graph=graph)
    blockers = Entity.objects.bulk_create(
        EntityFactory.build(graph=graph, name=f"Blocker {i}") for i in range(size))
    waiting = Entity.objects.bulk_create(
        EntityFactory.build(graph=graph, name=f"Waiting {i}") for i in range(size))
    episodes = Episode.objects.bulk_create(
        EpisodeFactory.build(graph=graph, author=f"Author {i % (size // 2 + 1)}",
                             reference_time=MONDAY + timedelta(hours=i % 150))
        for i in range(size))
    facts = Fact.objects.bulk_create(
        Fact(graph=graph, source=w, relation="DEPENDS_ON", target=b, sentence="waits",
             valid_at=MONDAY + timedelta(hours=i % 150),
             created_at=MONDAY + timedelta(hours=i % 150), extractor="structured@1")
        for i, (w, b) in enumerate(zip(waiting, blockers, strict=True)))
    FactEvidence.objects.bulk_create(
        FactEvidence(fact=f, episode=e, sentence="waits", extractor="structured@1",
                     created_at=e.reference_time) for f, e in zip(facts, episodes, strict=True))
    Observation.objects.bulk_create(
        ObservationFactory.build(
            graph=graph, created_by_run=run, created_at=MONDAY + timedelta(hours=i % 150),
            window_end=MONDAY + timedelta(hours=i % 150),
            structure=chain_structure(blocker=b.pk, waiting=w.pk, owner=w.pk),
            **({"status": Observation.Status.RETIRED, "retired_by_run": run,
                "retired_at": MONDAY + timedelta(days=6),
                "retired_reason": Observation.RetiredReason.EVIDENCE_ENDED,
                "retirement": {"closed_facts": [f.pk]}} if i % 5 == 0 else {}),
        )
        for i, (b, w, f) in enumerate(zip(blockers, waiting, facts, strict=True)))


@pytest.mark.parametrize("size", [5, 500])
@pytest.mark.parametrize("view", ["", "view=hindsight"])
def test_the_review_takes_the_same_eleven_queries_at_5_and_500_patterns(
    client: Client, graph: Graph, owner, size: int, view: str, django_assert_num_queries
) -> None:
    busy_week(graph, size)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 the observations alive in the week or describing
    # it, 5 the facts whose end retired some of them, 6 dependencies on their root blockers as
    # known at the week's end, 7 the same as valid then by today's knowledge, 8 the facts that
    # began or ended in the week (with the update each was first said in), 9 updates per author,
    # 10 facts about work items holding at the week's end (with their last updates), 11 the
    # switcher.
    with django_assert_num_queries(11):
        response = client.get(review_url(graph, query=view))

    review = response.context["review"]
    assert len(review.blockers) == size - size // 5
    assert review.fact_changes == size


def test_no_csv_cell_can_be_read_as_a_formula(client: Client, graph: Graph, owner) -> None:
    """Names and sentences come from whoever writes updates: a cell starting with =, +, -, @, a
    tab or a carriage return is a formula to a spreadsheet (CSV injection), so it is written
    with a leading apostrophe, which spreadsheets show as text."""
    replay(graph, [
        {"external_id": f"x{n}", "author": author, "reference_time": f"2026-11-0{n + 2}T09:00:00Z",
         "content": "A sentence the rules do not read.",
         "facts": [{"source": source, "relation": "DEPENDS_ON", "target": "@SUM(A1:A9)",
                    "fact": "+1 waits", "source_type": "WorkItem", "target_type": "WorkItem"}]}
        for n, (author, source) in enumerate([
            ('=HYPERLINK("http://evil.example","click")', "-2+3 Migration"),
            ("+Bob", "\tTabbed item"),
        ])
    ])
    signed_in(client, owner)

    rows = list(csv.reader(download(client, graph, "csv")[1:].splitlines()))

    cells = [cell for row in rows[1:] for cell in row]
    assert any(cell.startswith("'=HYPERLINK") for cell in cells)
    assert any(cell.startswith("'@SUM") for cell in cells)
    assert not [cell for cell in cells if cell[:1] in {"=", "+", "-", "@", "\t", "\r"}]


@pytest.mark.parametrize("size", [5, 500])
def test_an_export_takes_ten_queries_whatever_the_size(
    client: Client, graph: Graph, owner, size: int, django_assert_num_queries
) -> None:
    busy_week(graph, size)
    signed_in(client, owner)

    # As the page, without the switcher.
    with django_assert_num_queries(10):
        text = download(client, graph, "csv")

    assert text.count("\nroot_blocker,") == size - size // 5


def test_a_blocker_that_holds_up_only_work_items_names_no_people(
    client: Client, graph: Graph, owner
) -> None:
    """Tracker items wait on each other with no person in the updates: the reach is in work
    items alone, never "0 people"."""
    replay(graph, [
        {"external_id": f"bug-{n}", "author": "bugzilla", "content": f"Bug {n} depends on Bug 1.",
         "reference_time": f"2026-11-0{n}T09:00:00+00:00",
         "facts": [{"source": f"Bug {n}", "relation": "DEPENDS_ON", "target": "Bug 1"}]}
        for n in (3, 4)
    ])

    response = signed_in(client, owner).get(review_url(graph))

    (blocker,) = response.context["review"].blockers
    assert (blocker.name, blocker.reach_people, blocker.reach_work_items) == ("Bug 1", 0, 2)
    table = response.content.decode()
    assert "2 work items" in table and "0 people" not in table
