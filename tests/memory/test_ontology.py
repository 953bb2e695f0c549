"""The ontology: canonical relations, directions, and what a graph may override."""

from __future__ import annotations

import pytest

from memory.ontology import ResolutionRule, build_ontology, default_ontology


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("DEPENDS_ON", ("DEPENDS_ON", False)),
        ("depends on", ("DEPENDS_ON", False)),
        ("blocked by", ("DEPENDS_ON", False)),
        ("waiting on", ("DEPENDS_ON", False)),
        ("BLOCKS", ("DEPENDS_ON", True)),
        ("blocks", ("DEPENDS_ON", True)),
        ("belongs to", ("RESPONSIBLE_FOR", True)),
        ("BELONGS_TO", ("RESPONSIBLE_FOR", True)),
        ("owns", ("RESPONSIBLE_FOR", False)),
        ("reported by", ("REPORTED", True)),
        ("ADMIRES", None),
    ],
)
def test_relations_are_normalized_to_their_canonical_name_and_direction(
    written: str, expected: tuple[str, bool] | None
) -> None:
    assert default_ontology().normalize_relation(written) == expected


def test_each_relation_declares_how_it_links_episodes() -> None:
    ontology = default_ontology()

    assert {name: r.linking for name, r in ontology.relations.items()} == {
        "RESPONSIBLE_FOR": "pair", "MEMBER_OF": "pair", "DEPENDS_ON": "chain",
        "HAS_STATUS": "none", "REPORTED": "target", "AFFECTS": "target", "PRECEDED_BY": "target",
        "ON_PLAN": "pair", "USES": "none", "RELATES_TO": "none", "TRACKS": "chain",
        "DUPLICATE_OF": "pair", "REPLACES": "pair", "ANSWERED": "target",
        "RESEMBLES": "target",
    }
    assert {n for n, r in ontology.relations.items() if r.single_valued} == {"HAS_STATUS",
                                                                             "ON_PLAN",
                                                                             "DUPLICATE_OF"}


def test_an_agents_answer_links_with_the_threads_reports_without_being_one() -> None:
    ontology = default_ontology()

    answered = ontology.relation("ANSWERED")
    assert answered is not None and answered.links_as == "REPORTED"
    assert answered.source_types == ("Person", "Team")
    linking = ontology.linking()
    assert (linking["ANSWERED"], linking["REPORTED"]) == ("target:REPORTED", "target")
    # a thread closed ends its agents' answers as it ends its reports
    assert ResolutionRule("ANSWERED", "target") in ontology.resolution_rules


def test_a_message_resembling_an_issue_links_with_its_reports_without_being_one() -> None:
    ontology = default_ontology()

    resembles = ontology.relation("RESEMBLES")
    assert resembles is not None and resembles.links_as == "REPORTED"
    assert (resembles.source_types, resembles.target_types) == (("Customer",),
                                                                ("Issue", "WorkItem"))
    assert ontology.linking()["RESEMBLES"] == "target:REPORTED"
    # an issue resolved ends what resembles it as it ends its reports
    assert ResolutionRule("RESEMBLES", "target") in ontology.resolution_rules


def test_a_graph_can_make_a_relation_link_as_another() -> None:
    ontology = build_ontology({"relations": {"COMMENTED_ON": {
        "linking": "target", "links_as": "reported", "source_types": ["Person"],
        "target_types": ["WorkItem"]}}})

    assert ontology.linking()["COMMENTED_ON"] == "target:REPORTED"


def test_a_tracking_item_tracks_its_items_and_tracked_by_is_the_same_link_reversed() -> None:
    ontology = default_ontology()

    tracks = ontology.relation("TRACKS")
    assert tracks is not None
    assert (tracks.source_types, tracks.target_types) == (("WorkItem", "Issue"),
                                                          ("WorkItem", "Issue"))
    assert ontology.normalize_relation("tracked by") == ("TRACKS", True)
    assert ontology.normalize_relation("tracks") == ("TRACKS", False)


def test_a_graph_can_add_types_and_relations_and_change_a_linking_mode() -> None:
    ontology = build_ontology({
        "entity_types": ["Vendor"],
        "relations": {"SUPPLIES": {"linking": "target", "source_types": ["Vendor"],
                                   "target_types": ["Product"], "phrasings": ["Supplies"]},
                      "USES": {"linking": "pair"}},
        "completion_statuses": ["Deployed"],
        "allow_relates_to": True,
    })

    assert "Vendor" in ontology.entity_types
    assert ontology.normalize_relation("supplies") == ("SUPPLIES", False)
    assert ontology.linking_mode("SUPPLIES") == "target"
    assert ontology.linking_mode("USES") == "pair"
    assert ontology.is_completion_status("deployed") and ontology.is_completion_status("shipped")
    assert ontology.allow_relates_to


def test_a_graph_can_replace_the_resolution_rules() -> None:
    ontology = build_ontology({"resolution_rules": [{"relation": "depends_on", "side": "target"}]})

    assert ontology.resolution_rules == (ResolutionRule("DEPENDS_ON", "target"),)


@pytest.mark.parametrize(
    "overrides",
    [
        {"relations": {"USES": {"linking": "sometimes"}}},
        {"relations": {"USES": {"cardinality": "few"}}},
        {"resolution_rules": [{"relation": "DEPENDS_ON", "side": "middle"}]},
    ],
)
def test_a_bad_override_is_refused(overrides: dict) -> None:
    with pytest.raises(ValueError):
        build_ontology(overrides)


def test_the_common_trackers_completion_statuses_are_done_by_default() -> None:
    ontology = default_ontology()
    for status in ("closed", "Done", "RESOLVED", "VERIFIED", "fixed", "merged", "released",
                   "shipped"):
        assert ontology.is_completion_status(status), status
        assert ontology.is_final_status(status), status


def test_wont_fix_duplicate_and_invalid_end_an_item_without_being_done() -> None:
    ontology = default_ontology()
    for status in ("won't fix", "WONTFIX", "DUPLICATE", "invalid", "INCOMPLETE", "Canceled",
                   "not planned"):
        assert ontology.is_ended_status(status), status
        assert ontology.is_final_status(status), status
        assert not ontology.is_completion_status(status), status
    assert not ontology.is_final_status("In Progress")


def test_a_graph_moves_a_status_between_done_and_ended() -> None:
    ontology = build_ontology({"completion_statuses": ["incomplete"],
                               "ended_statuses": ["closed", "non-compat"]})

    assert ontology.is_completion_status("incomplete")
    assert not ontology.is_ended_status("incomplete")
    assert ontology.is_ended_status("closed") and not ontology.is_completion_status("closed")
    assert ontology.is_ended_status("non-compat")


def test_tracker_links_have_their_relations_and_directions() -> None:
    ontology = default_ontology()
    assert ontology.normalize_relation("blocks") == ("DEPENDS_ON", True)
    assert ontology.normalize_relation("tracked by") == ("TRACKS", True)
    assert ontology.normalize_relation("TRACKS") == ("TRACKS", False)
    assert ontology.normalize_relation("duplicated by") == ("DUPLICATE_OF", True)
    assert ontology.normalize_relation("superseded by") == ("REPLACES", True)
    tracks = ontology.relations["TRACKS"]
    assert (tracks.source_types, tracks.target_types) == (("WorkItem", "Issue"),
                                                          ("WorkItem", "Issue"))
    # A parent links its items' chains (DESIGN §9): never a blocker, but one tree with them.
    assert tracks.linking == "chain"
    assert ontology.relations["DUPLICATE_OF"].linking == "pair"
    assert ontology.relations["REPLACES"].linking == "pair"
