"""The server-drawn pictures and the display helpers: deterministic layouts, escaping."""

from __future__ import annotations

from datetime import UTC, datetime

from dashboard.diagrams import dependency_diagram, episode_graph_diagram, initials, shorten
from dashboard.presenters import change_since, signature_text
from dashboard.templatetags.dashboard import highlight, window
from memory.models import Episode, Observation
from tests.factories import chain_structure


def seed_like_structure() -> dict:
    structure = chain_structure(blocker=4, waiting=2, owner=5, names={
        4: "Auth Service Refactor", 2: "API Migration", 5: "Backend Team"})
    dependency = structure["dependency"]
    dependency["edges"] += [{"waiting": 7, "waited_on": 4, "facts": []},
                            {"waiting": 10, "waited_on": 7, "facts": []}]
    dependency["root_blockers"][0]["direct"].append(
        {"entity": 7, "via": [4], "facts": [], "owners": []})
    structure["names"].update({"7": "Payments Integration", "10": "Checkout Flow"})
    return structure


def test_the_chain_reads_left_to_right_with_the_root_blocker_last() -> None:
    diagram = dependency_diagram(seed_like_structure())

    assert diagram is not None
    x = {node.label: node.x for node in diagram.nodes}
    assert x["Checkout Flow"] < x["Payments Integration"] < x["Auth Service Refactor"]
    assert x["API Migration"] == x["Payments Integration"]  # both wait on it directly
    kinds = {node.label: node.kind for node in diagram.nodes}
    assert kinds["Auth Service Refactor"] == "root"
    assert kinds["API Migration"] == kinds["Payments Integration"] == "direct"
    assert kinds["Checkout Flow"] == "waiting"
    assert len(diagram.edges) == 3


def test_the_same_structure_always_draws_the_same_chain() -> None:
    assert dependency_diagram(seed_like_structure()) == dependency_diagram(seed_like_structure())


def test_a_cycle_is_drawn_too() -> None:
    structure = seed_like_structure()
    structure["dependency"]["edges"].append({"waiting": 4, "waited_on": 10, "facts": []})

    diagram = dependency_diagram(structure)

    assert diagram is not None and len(diagram.edges) == 4


def test_no_dependency_no_chain() -> None:
    assert dependency_diagram({"dependency": None}) is None


def test_the_episode_graph_joins_episodes_to_the_signatures_they_share() -> None:
    when = datetime(2026, 11, 23, 9, tzinfo=UTC)
    episodes = [Episode(pk=i, author=name, reference_time=when, content="...")
                for i, name in enumerate(["Alice Smith", "Bob", "Clara"], start=1)]
    links = [{"signature": {"source": None, "relation": "DEPENDS_ON", "target": 4},
              "episodes": [1, 2]},
             {"signature": {"source": 6, "relation": "RESPONSIBLE_FOR", "target": 7},
              "episodes": [2, 3]}]

    diagram = episode_graph_diagram(episodes, links, ["… waits on Auth", "Bob owns Payments"])

    assert diagram is not None
    assert [n.label for n in diagram.nodes if n.kind == "episode"] == ["AS", "B", "C"]
    assert [n.label for n in diagram.nodes if n.kind == "signature"] == [
        "… waits on Auth", "Bob owns Payments"]
    assert len(diagram.edges) == 4
    ys = [n.y for n in diagram.nodes if n.kind == "episode"]
    assert ys == sorted(ys)  # in time order, top to bottom


def test_the_episode_graph_dates_updates_of_several_years_with_their_years() -> None:
    # Bug 446261: opened on 20 Jul 2008, said to block Bug 1102808 on 9 Dec 2019.
    episodes = [Episode(pk=1, author="Mladen Mihajlovic", content="Bug 446261: Clear Private Data",
                        reference_time=datetime(2008, 7, 20, 8, 12, tzinfo=UTC)),
                Episode(pk=2, author="Johann Hofmann", content="Bug 446261 blocks Bug 1102808",
                        reference_time=datetime(2019, 12, 9, 10, tzinfo=UTC))]
    links = [{"signature": {"source": None, "relation": "REPORTED", "target": 4},
              "episodes": [1, 2]}]

    diagram = episode_graph_diagram(episodes, links, ["… reported Bug 446261"])

    assert diagram is not None
    titles = [n.title for n in diagram.nodes if n.kind == "episode"]
    assert titles[0].startswith("Mladen Mihajlovic, Sun 20 Jul 2008:")
    assert titles[1].startswith("Johann Hofmann, Mon 9 Dec 2019:")


def test_labels_are_shortened_and_initials_taken() -> None:
    assert shorten("Partner Webhooks Integration Programme", 20) == "Partner Webhooks In…"
    assert initials("") == "?" and initials("dana") == "D"


def test_a_target_signature_reads_as_what_they_all_point_at() -> None:
    names = {"4": "Auth Service Refactor", "6": "Bob", "7": "Payments"}

    assert signature_text({"source": None, "relation": "DEPENDS_ON", "target": 4}, names) == (
        "… waits on Auth Service Refactor")
    assert signature_text({"source": 6, "relation": "RESPONSIBLE_FOR", "target": 7}, names) == (
        "Bob is responsible for Payments")


def test_highlight_marks_the_sentence_and_escapes_everything_else() -> None:
    text = "Note <b>this</b>. The payments  integration isn't ready. Done."

    html = highlight(text, ["The payments integration isn't ready."])

    assert html == ("Note &lt;b&gt;this&lt;/b&gt;. <mark>The payments  integration isn&#x27;t "
                    "ready.</mark> Done.")


def test_highlight_without_a_match_only_escapes() -> None:
    assert highlight("<i>x</i>", ["absent"]) == "&lt;i&gt;x&lt;/i&gt;"


def test_window_shows_one_date_for_one_day() -> None:
    day = datetime(2026, 11, 23, 9, tzinfo=UTC)

    assert window(day, day) == "23 Nov 2026"
    assert window(day, datetime(2027, 1, 2, tzinfo=UTC)) == "23 Nov 2026 – 2 Jan 2027"


def test_new_and_updated_are_relative_to_the_lineages_first_version() -> None:
    since = datetime(2026, 11, 20, tzinfo=UTC)
    before, after = datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 25, tzinfo=UTC)

    def observation(version: int, created: datetime, started: datetime) -> Observation:
        row = Observation(version=version, created_at=created)
        row.lineage_started_at = started  # type: ignore[attr-defined]
        return row

    assert change_since(observation(1, after, after), since) == "new"
    assert change_since(observation(3, after, after), since) == "new"
    assert change_since(observation(3, after, before), since) == "updated"
    assert change_since(observation(3, before, before), since) == ""
    assert change_since(observation(1, after, after), None) == ""
