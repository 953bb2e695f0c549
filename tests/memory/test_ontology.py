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
        "ON_PLAN": "pair", "USES": "none", "TRACKS": "chain", "RELATES_TO": "none",
    }
    assert {n for n, r in ontology.relations.items() if r.single_valued} == {"HAS_STATUS",
                                                                             "ON_PLAN"}


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
