"""What a project manager reads after importing the real samples (issue #13, "prose that reads"):
each sample imported, one pipeline run, and the board's observations read as written — items by
their titles, keys without "the", what a tracker tracks counted as the updates say, and no
observation that is only one item's own history."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.exports import observation_as_dict
from memory.models import Graph, Observation
from memory.pipeline import run_pipeline
from tests.dashboard.conftest import signed_in
from tests.memory.importers.conftest import ImportFn, fixture_bytes

pytestmark = pytest.mark.stalled  # the samples' stalled items: dates years old


def board(graph: Graph) -> dict[str, str]:
    """Active pattern (every kind but stalled items) name → summary."""
    run = run_pipeline(graph)
    assert run is not None and run.status == "succeeded"
    return dict(Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE)
                .exclude(kind=Observation.Kind.STALLED).values_list("name", "summary"))


def undated(text: str) -> str:
    """How long, as of the run ("(over 18 years by 5 Dec 2026)"), read as "(…)": it grows."""
    return re.sub(r"\((?:over )?\d+ (?:weeks?|years?) by [^)]*\)", "(…)", text)


def stalled(graph: Graph) -> dict[str, str]:
    """Active stalled item name → summary (after ``board``'s run)."""
    return dict(Observation.objects.filter(graph=graph, status=Observation.Status.ACTIVE,
                                           kind=Observation.Kind.STALLED)
                .values_list("name", "summary"))


@pytest.fixture
def bugzilla_board(graph: Graph, run_import: ImportFn) -> dict[str, str]:
    run_import(graph, "bugzilla", fixture_bytes("bugzilla-bugs.jsonl"),
               options={"base_url": "https://bugzilla.mozilla.org"})
    return board(graph)


def test_the_bugzilla_sample_reads_as_four_patterns_written_for_a_person(
    bugzilla_board: dict[str, str],
) -> None:
    assert {name: undated(summary) for name, summary in bugzilla_board.items()} == {
        "Bug 1556846 “[meta] Control any media without interacting directly with…” tracking "
        "54 items":
            "Bug 1556846 “[meta] Control any media without interacting directly with pages "
            "where media are” tracks 54 items, none of them with a status in these updates. "
            "Bug 1572869, with the same title, tracks the same 54 items as Bug 1556846. "
            "Bug 1556846 and Bug 1572869 have been in status NEW since 9 Aug 2019 (…).",
        "Bug 447581 “startup performance tracking bug [meta]” tracking 102 items":
            "Bug 447581 “startup performance tracking bug [meta]” tracks 102 items, none of "
            "them with a status in these updates. Bug 487832 tracks Bug 447581, which is open.",
        "Bug 446261 “Clear Private Data should also reset last directory saved to” blocking "
        "Bug 1102808":
            "Bug 1102808 waits on Bug 446261 “Clear Private Data should also reset last "
            "directory saved to”, with no owner named in these updates, since 9 Dec 2019. "
            "Bug 446261 has been in status NEW since 20 Jul 2008 (…).",
        "Bug 370886 blocking Bug 528988 “Larry should be completely updated with all ssl info "
        "when…”":
            "Bug 528988 “Larry should be completely updated with all ssl info when an https "
            "page requires http…” waits on Bug 370886, with no owner named in these updates, "
            "since 11 Feb 2010.",
    }


def test_the_bugzilla_samples_open_bugs_are_stalled_cards_unless_a_pattern_holds_them(
    graph: Graph, bugzilla_board: dict[str, str],
) -> None:
    # The export's nine bugs still NEW (opened 2008-2019, nothing changed their status since):
    # four are stalled cards in status NEW since they were filed. Three are quiet stalls held
    # by a pattern on the board, every fact of theirs its evidence and nobody restating them:
    # Bug 446261 is the root blocker of a chain, the [meta] Bugs 1556846 and 1572869 track the
    # same 54 items; the pattern says how long they have been NEW (above). A quiet stall
    # inside a pattern is the pattern's to show (memory.engine.stalled.stalls_to_show). So is
    # the [meta] Bug 447581's, NEW by design: its tracker card holds it (its status, said when
    # it was filed, is not that card's evidence, so the card lists it under "Stalled inside"
    # rather than saying it in the summary), no card of its own repeating the tracker's. Bug
    # 528988 waits on Bug 370886 ("… since 11 Feb 2010"): waiting in a chain, it is the
    # chain's to show, not stalled. The 49 resolved or verified bugs are not stalled.
    found = stalled(graph)
    assert sorted(found) == [
        "Bug 1320195 “Performance issue vs Google Chrome computing union or…” in status NEW "
        "since 24 Nov 2016",
        "Bug 1531080 “Implement RTCPeerConnection.getDefaultIceServers interface” in status NEW "
        "since 27 Feb 2019",
        "Bug 1586096 “No need to compose transform animation on the compositor…” in status NEW "
        "since 3 Oct 2019",
        "Bug 452258 “Ask whether to make Firefox the default browser on…” in status NEW since "
        "26 Aug 2008",
    ]
    summary = found["Bug 1586096 “No need to compose transform animation on the compositor…” "
                    "in status NEW since 3 Oct 2019"]
    assert summary.startswith(
        "Bug 1586096 “No need to compose transform animation on the compositor thread if we "
        "have animations on…” has been in status NEW since 3 Oct 2019 (over 7 years by ")
    held = [name for name in bugzilla_board
            if name.startswith(("Bug 446261", "Bug 1556846", "Bug 370886"))]
    assert len(held) == 3
    tracker = Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE,
                                      name__startswith="Bug 447581")
    assert [(tracker.structure["names"][str(s["item"])], s["state"]) for s in
            tracker.structure["held_stalls"]] == [("Bug 447581", "status")]
    assert not [name for name in found
                if any(key in name for key in ("446261", "1556846", "1572869", "528988"))]


def test_the_chain_card_says_how_long_its_root_blocker_has_been_new(
    client: Client, graph: Graph, owner, bugzilla_board: dict[str, str],  # type: ignore[no-untyped-def]
) -> None:
    # Bug 446261 gave up its own card to its chain (a quiet stall inside a pattern): the chain
    # says, on its card and its page, that it has been NEW since it was filed, counted to today.
    signed_in(client, owner)
    response = client.get(reverse("board", args=[graph.slug]))
    (card,) = [c for c in response.context["cards"]
               if c.observation.name.startswith("Bug 446261")]
    chain = card.observation

    (held,) = card.held
    assert held.item.name == "Bug 446261"
    assert re.fullmatch(r"in status NEW since 20 Jul 2008 · over 1\d years", held.text)
    assert held.last_said is not None and held.last_said.year == 2008
    html = response.content.decode()
    assert "Stalled inside" in html and held.text in html
    assert re.search(r"Bug 446261 has been in status NEW since 20 Jul 2008 \(over 1\d years "
                     r"by \d+ \w+ 20\d\d\)\.$", chain.summary)
    page = client.get(reverse("observation", args=[graph.slug, chain.uuid])).content.decode()
    assert "Stalled inside this pattern" in page
    assert f"{held.text} · last said 20 Jul 2008" in page


def test_the_bugzilla_export_carries_the_held_stalls_as_machine_fields(
    graph: Graph, bugzilla_board: dict[str, str],
) -> None:
    chain = Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE,
                                     name__startswith="Bug 446261")

    (held,) = observation_as_dict(chain)["held_stalls"]

    assert held["item"] == "Bug 446261"
    assert (held["state"], held["status"]) == ("status", "NEW")
    assert held["since"].startswith("2008-07-20T") and held["last_said"] == held["since"]
    assert held["item_uuid"] == str(chain.entities.get(name="Bug 446261").uuid)
    assert held["weeks"] >= 958 and len(held["episodes"]) == 1


def test_the_bugzilla_export_links_each_pattern_to_its_bugs_once(
    graph: Graph, bugzilla_board: dict[str, str],
) -> None:
    chain = Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE,
                                     name__startswith="Bug 446261")

    exported = observation_as_dict(chain)

    assert exported["links"] == ["https://bugzilla.mozilla.org/show_bug.cgi?id=446261"]
    assert len(exported["episodes"]) == 3


def test_no_observation_of_the_bugzilla_sample_is_one_bugs_own_history(
    graph: Graph, bugzilla_board: dict[str, str],
) -> None:
    # Bug 1586096's three changes on 3 Oct (opened, assigned, its status) were "3 updates about
    # Bug 1586096" before: what its tracker shows, not a pattern. It is stalled (NEW since then),
    # which is a view of the bug, not a pattern.
    assert not [name for name in bugzilla_board if "1586096" in name]
    assert [name for name in stalled(graph) if "1586096" in name] == [
        "Bug 1586096 “No need to compose transform animation on the compositor…” in status NEW "
        "since 3 Oct 2019"]
    assert not [text for text in bugzilla_board.values() if "The Bug" in text or "the Bug" in text]


def test_an_old_chain_reads_without_zero_people_on_its_page(
    client: Client, graph: Graph, owner, bugzilla_board: dict[str, str],  # type: ignore[no-untyped-def]
) -> None:
    observation = Observation.objects.get(graph=graph, name__startswith="Bug 370886")
    html = signed_in(client, owner).get(
        reverse("observation", args=[graph.slug, observation.uuid])).content.decode()

    assert "0 people" not in html
    assert "Unblocking it clears <strong>1 work item</strong>." in html


def test_the_github_sample_has_no_observation_because_no_fact_joins_two_issues(
    graph: Graph, run_import: ImportFn,
) -> None:
    # 100 webcompat issues: statuses and reporters are facts; labels, milestones (needstriage,
    # needsdiagnosis) and sites are words, and no issue links another (the duplicates' originals
    # are not in the export). Each issue's own history is no pattern.
    run_import(graph, "github", fixture_bytes("github-webcompat-issues.jsonl"))

    assert board(graph) == {}


def test_the_github_samples_issues_open_since_2021_are_stalled_and_the_closed_ones_are_not(
    graph: Graph, run_import: ImportFn,
) -> None:
    # The export holds 100 issues opened on 17-18 Apr 2021; 60 of them were closed since, and
    # nothing moved the 40 others.
    run_import(graph, "github", fixture_bytes("github-webcompat-issues.jsonl"))
    board(graph)

    found = stalled(graph)
    assert len(found) == 40
    assert all(re.search(r" open since 1[78] Apr 2021$", name) for name in found)
    assert ("webcompat/web-bugs#71058 “www.zssk.sk - site is not usable” open since 18 Apr 2021"
            in found)


@pytest.mark.parametrize(("fmt", "sample", "options"), [
    ("jira", "jira-search-changelog.json", {}),
    ("jira-csv", "jira-export.csv", {"timezone": "Europe/Berlin"}),
    ("linear", "linear-export.csv", {"base_url": "https://linear.app/acme"}),
])
def test_an_epic_reads_with_both_titles_and_its_own_history_is_no_observation(
    graph: Graph, run_import: ImportFn, fmt: str, sample: str, options: dict[str, str],
) -> None:
    run_import(graph, fmt, fixture_bytes(sample), options=options)

    (name, summary), = board(graph).items()
    key = "ENG" if fmt == "linear" else "ATL"
    assert name == f"{key}-1 “Checkout redesign” tracking {key}-2 “Payments integration”"
    # Its item has been in progress since early Nov 2026 and nobody has said so since: stalled
    # three weeks on (by 2 Dec in every sample), a quiet stall the epic holds and says how long.
    assert re.fullmatch(
        rf"{key}-1 “Checkout redesign” tracks {key}-2 “Payments integration”, which is open\."
        rf"( ({key}-1 and {key}-2 have|{key}-2 has) been in progress since \d+ Nov( 2026)? "
        r"\((over )?\d+ (weeks?|years?) by [^)]+\)\.)?", summary), summary
    if timezone.now() >= datetime(2026, 12, 2, tzinfo=UTC):
        # The epic's own stall too, when it has gone quiet as long: its card holds it.
        assert re.search(rf"{key}-2 ha(s|ve) been in progress since ", summary), summary


def test_the_github_samples_stalled_issues_carry_their_labels_to_tell_them_apart(
    graph: Graph, run_import: ImportFn,
) -> None:
    # Forty issues open since 17-18 Apr 2021 read alike; what their tracker says of them (the
    # priority-critical label of #71048, the needstriage milestone) is kept as the item's
    # metadata, never a fact, and the stalled item carries it to its card, review and export.
    run_import(graph, "github", fixture_bytes("github-webcompat-issues.jsonl"))
    board(graph)

    critical = Observation.objects.get(graph=graph, status=Observation.Status.ACTIVE,
                                       name__startswith="webcompat/web-bugs#71048 ")
    exported = observation_as_dict(critical)["stalled"]

    assert exported["labels"] == ["browser-firefox", "engine-gecko", "priority-critical",
                                  "milestone needstriage"]
    assert not critical.facts.filter(target__name__icontains="critical").exists()
