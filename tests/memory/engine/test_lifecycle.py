"""Reconciliation: untouched, new versions, splits, merges, ended evidence — and why."""

from __future__ import annotations

import json
from uuid import UUID

from memory.engine.clustering import cluster_episodes
from memory.engine.lifecycle import (
    EVIDENCE_ENDED,
    MERGED,
    SPLIT,
    SUPERSEDED,
    ActiveObservation,
    Created,
    NewCluster,
    Reconciliation,
    Restated,
    Retired,
    Untouched,
    reconcile,
    reconcile_views,
)
from memory.engine.structure import analyse_cluster
from memory.engine.template_summary import summarize_with_template
from memory.engine.types import evidence_fingerprint
from tests.memory.engine.stories import LINKING, Story, seed_story

EVERYTHING = frozenset(range(10_000))


def lineage(n: int) -> UUID:
    return UUID(int=n)


def old(
    id_: int, episodes: range | tuple[int, ...], facts: tuple[int, ...] | None = None,
    version: int = 1,
) -> ActiveObservation:
    facts = facts if facts is not None else tuple(e + 100 for e in episodes)
    return ActiveObservation(
        id=id_, lineage=lineage(id_), version=version, episode_ids=tuple(episodes),
        fact_ids=facts, fingerprint=evidence_fingerprint(episodes, facts),
    )


def new(key: int, episodes: range | tuple[int, ...], facts: tuple[int, ...] | None = None
        ) -> NewCluster:
    facts = facts if facts is not None else tuple(e + 100 for e in episodes)
    return NewCluster(key=key, episode_ids=tuple(episodes), fact_ids=facts)


def decide(
    clusters: list[NewCluster], active: list[ActiveObservation],
    current: frozenset[int] = EVERYTHING, window: frozenset[int] = EVERYTHING,
    settled: dict[int, int] | None = None,
) -> Reconciliation:
    return reconcile(clusters, active, current, window, settled)


def test_the_same_evidence_leaves_the_observation_untouched() -> None:
    result = decide([new(1, range(1, 4))], [old(10, range(1, 4), version=3)])
    assert result.untouched == (Untouched(observation_id=10, cluster_key=1),)
    assert (result.created, result.retired) == ((), ())


def test_grown_evidence_is_a_new_version_in_the_same_lineage() -> None:
    result = decide([new(1, range(1, 5))], [old(10, range(1, 4), version=3)])
    assert result.created == (Created(1, lineage(10), 4, (10,)),)
    (retired,) = result.retired
    assert (retired.observation_id, retired.reason, retired.successor_keys) == (
        10, SUPERSEDED, (1,))


def test_new_updates_restating_the_same_facts_keep_the_version_and_update_it_in_place() -> None:
    facts = (101, 102, 103)
    result = decide([new(1, range(1, 6), facts)], [old(10, range(1, 4), facts, version=2)])

    assert result.restated == (Restated(observation_id=10, cluster_key=1,
                                        added_episode_ids=(4, 5), removed_episode_ids=()),)
    assert (result.created, result.retired, result.untouched) == ((), (), ())


def test_a_restatement_joined_by_one_new_fact_is_a_new_version() -> None:
    result = decide([new(1, range(1, 6), (101, 102, 103, 104))],
                    [old(10, range(1, 4), (101, 102, 103))])

    assert result.restated == ()
    assert [c.version for c in result.created] == [2]
    assert [r.reason for r in result.retired] == [SUPERSEDED]


def test_the_same_facts_split_between_two_clusters_are_no_restatement() -> None:
    result = decide([new(1, (1, 2), (101, 102)), new(3, (3, 4), (101, 102))],
                    [old(10, range(1, 5), (101, 102))])

    assert result.restated == ()
    assert [r.reason for r in result.retired] == [SPLIT]


def test_dependencies_settled_by_a_completion_retire_it_citing_the_completing_fact() -> None:
    # The refactor's status says done, but a stale "still blocked on the refactor" keeps the
    # dependency on record: it holds nothing up, and the chain ends, citing the status.
    result = decide([], [old(10, (1, 2), (101, 102))], current=frozenset({102}),
                    settled={101: 900})

    (retired,) = result.retired
    assert retired.reason == EVIDENCE_ENDED
    assert (retired.closed_fact_ids, retired.settled_fact_ids) == ((), (101,))
    assert retired.completing_fact_ids == (900,)
    assert "1 dependency on finished work" in retired.note


def test_changed_facts_on_the_same_episodes_are_a_new_version_naming_the_closed_facts() -> None:
    current = EVERYTHING - {102}
    result = decide([new(1, range(1, 4), (101, 103))], [old(10, range(1, 4))], current=current)
    assert result.created == (Created(1, lineage(10), 2, (10,)),)
    assert result.retired[0].closed_fact_ids == (102,)
    assert result.retired[0].dropped_episode_ids == ()


def test_one_observation_becoming_several_is_a_split() -> None:
    result = decide([new(1, range(1, 5)), new(5, range(5, 7))], [old(10, range(1, 7))])
    assert result.created == (
        Created(1, lineage(10), 2, (10,)),  # the largest part carries the lineage on
        Created(5, None, 1, (10,)),  # the others start their own, linked back
    )
    (retired,) = result.retired
    assert (retired.reason, retired.successor_keys) == (SPLIT, (1, 5))


def test_several_observations_becoming_one_is_a_merge() -> None:
    result = decide([new(1, range(1, 6))], [old(10, range(1, 3)), old(11, range(3, 6))])
    assert result.created == (Created(1, lineage(11), 2, (10, 11)),)
    assert [(r.observation_id, r.reason, r.successor_keys) for r in result.retired] == [
        (10, MERGED, (1,)), (11, MERGED, (1,))]


def test_a_merge_of_equal_overlaps_continues_the_lowest_observation_id() -> None:
    result = decide([new(1, range(1, 5))], [old(11, range(3, 5)), old(10, range(1, 3))])
    assert result.created[0].lineage == lineage(10)


def test_a_tangle_of_overlaps_is_decided_old_by_old() -> None:
    result = decide(
        [new(1, range(1, 6)), new(6, range(6, 11))],
        [old(20, range(1, 7)), old(21, range(7, 11), version=4)],
    )
    assert result.created == (
        Created(1, lineage(20), 2, (20,)),
        Created(6, lineage(21), 5, (20, 21)),
    )
    assert [(r.observation_id, r.reason, r.successor_keys) for r in result.retired] == [
        (20, SPLIT, (1, 6)), (21, MERGED, (6,))]


def test_evidence_that_ended_retires_the_observation_and_names_why() -> None:
    current = EVERYTHING - {101, 102}
    window = EVERYTHING - {3}
    result = decide([new(7, range(7, 9))], [old(10, range(1, 4))], current, window)
    (retired,) = result.retired
    assert retired.reason == EVIDENCE_ENDED
    assert retired.successor_keys == ()
    assert retired.closed_fact_ids == (101, 102)
    assert retired.dropped_episode_ids == (1, 2, 3)
    assert retired.out_of_window_episode_ids == (3,)
    assert retired.note == (
        "evidence_ended: 2 facts closed; 3 episodes no longer clustered (1 outside the window)"
    )
    assert result.created == (Created(7, None, 1, ()),)


def test_a_new_cluster_with_no_past_starts_a_lineage() -> None:
    result = decide([new(1, range(1, 3))], [])
    assert result.created == (Created(1, None, 1, ()),)


def test_the_decisions_do_not_depend_on_input_order() -> None:
    clusters = [new(1, range(1, 6)), new(6, range(6, 11)), new(20, range(20, 22))]
    active = [old(20, range(1, 7)), old(21, range(7, 11)), old(22, range(30, 33))]
    forward = decide(clusters, active)
    assert decide(clusters[::-1], active[::-1]) == forward


def test_the_retirement_is_stored_as_plain_json() -> None:
    result = decide([], [old(10, range(1, 3))], current=EVERYTHING - {101})
    stored = json.loads(json.dumps(result.as_dict()))
    assert stored["retired"][0]["closed_facts"] == [101]
    assert stored["retired"][0]["reason"] == EVIDENCE_ENDED


# -- the seed, after the backend team ships the refactor --------------------------------------


def seed_observation(story: Story) -> tuple[ActiveObservation, tuple[int, ...]]:
    (cluster,) = cluster_episodes(story.rows, LINKING, story.authors).clusters
    observation = ActiveObservation(
        id=1, lineage=lineage(1), version=1, episode_ids=cluster.episode_ids,
        fact_ids=cluster.fact_ids, fingerprint=cluster.fingerprint,
    )
    return observation, cluster.fact_ids


def test_shipping_the_refactor_retires_the_seed_observation_naming_the_closed_facts() -> None:
    story = seed_story()
    observation, _ = seed_observation(story)
    # "The backend team shipped the auth service refactor": the resolution rule closes the
    # DEPENDS_ON facts that point at it; the pipeline then clusters the current facts only.
    story.declare("Status", "Shipped")
    story.episode("Dana", ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
                  ("Auth Service Refactor", "HAS_STATUS", "Shipped"), day=7)
    closed = {story.fact("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
              story.fact("Payments Integration", "DEPENDS_ON", "Auth Service Refactor")}
    current_rows = [row for row in story.rows if row[1] not in closed]
    clusters = cluster_episodes(current_rows, LINKING, story.authors).clusters
    current = frozenset(set(story.fact_ids.values()) - closed)

    result = reconcile(clusters, [observation], current, frozenset(story.episodes))

    (retired,) = result.retired
    assert isinstance(retired, Retired)
    assert retired.reason == SUPERSEDED
    assert retired.closed_fact_ids == tuple(sorted(closed))
    assert "2 facts closed" in retired.note
    (created,) = result.created
    assert (created.lineage, created.version, created.predecessor_ids) == (lineage(1), 2, (1,))

    # The pattern re-forms around what blocks work now: Bob's payments integration holds up
    # Clara's checkout flow.
    (cluster,) = clusters
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes)
    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)
    assert summary.name == "Payments Integration blocking 1 workstream"
    assert not set(closed) & {f for claim in summary.claims for f in claim.fact_ids}


def test_the_seed_observation_ends_when_its_updates_leave_the_window() -> None:
    story = seed_story()
    observation, fact_ids = seed_observation(story)
    result = reconcile([], [observation], frozenset(fact_ids), window_episode_ids=frozenset())
    (retired,) = result.retired
    assert retired.reason == EVIDENCE_ENDED
    assert retired.out_of_window_episode_ids == (1, 2, 3)
    assert retired.closed_fact_ids == ()


def test_a_few_changes_among_thousands_of_unchanged_clusters_are_decided_in_any_order() -> None:
    unchanged = range(100, 3_100)
    clusters = [new(10 * k, (10 * k, 10 * k + 1)) for k in unchanged]
    active = [old(k, (10 * k, 10 * k + 1)) for k in unchanged]
    clusters += [new(1, range(1, 5)), new(5, (5, 6)), new(7, (7, 8))]  # grown, unchanged, new
    active += [old(1, range(1, 4)), old(2, range(5, 7))]
    shuffled_clusters, shuffled_active = clusters[::-1], active[1::2] + active[::2]

    result = decide(shuffled_clusters, shuffled_active)

    assert result == decide(clusters, active)
    assert len(result.untouched) == 3_000 + 1  # old 2 and new 5 hold the same evidence
    assert [(c.cluster_key, c.lineage, c.version) for c in result.created] == [
        (1, lineage(1), 2), (7, None, 1)]
    assert [(r.observation_id, r.reason) for r in result.retired] == [(1, SUPERSEDED)]


# --- A chain whose every dependency ended (issue #13) -----------------------------------------


def chain(id_: int, episodes: range, dependencies: tuple[int, ...]) -> ActiveObservation:
    facts = tuple(e + 100 for e in episodes)
    return ActiveObservation(
        id=id_, lineage=lineage(id_), version=1, episode_ids=tuple(episodes), fact_ids=facts,
        fingerprint=evidence_fingerprint(episodes, facts), kind="dependency_chain",
        dependency_fact_ids=dependencies,
    )


def test_a_chain_whose_dependencies_all_ended_retires_as_evidence_ended_citing_the_completions(
) -> None:
    # Episodes 1–4 still share their owners' facts, but both dependencies (101, 102) ended: a
    # resolution rule closed them when their roots were done (facts 900 and 901).
    before = chain(1, range(1, 5), dependencies=(101, 102))
    regrouped = new(10, range(1, 5), facts=(103, 104))

    decisions = reconcile([regrouped], [before], EVERYTHING - {101, 102}, EVERYTHING,
                          completed={101: 900, 102: 901})

    (retired,) = decisions.retired
    assert (retired.reason, retired.successor_keys) == (EVIDENCE_ENDED, ())
    assert retired.closed_fact_ids == (101, 102)
    assert retired.completing_fact_ids == (900, 901)
    assert retired.note == "evidence_ended: 2 facts closed; ended by 2 completions"
    # What the updates still share is another pattern: its own lineage, no predecessor.
    assert decisions.created == (Created(cluster_key=10, lineage=None, version=1,
                                         predecessor_ids=()),)


def test_a_chain_with_one_dependency_still_holding_is_superseded_by_its_next_version() -> None:
    before = chain(1, range(1, 5), dependencies=(101, 102))

    decisions = reconcile([new(10, range(1, 5), facts=(102, 103, 104))], [before],
                          EVERYTHING - {101}, EVERYTHING, completed={101: 900})

    (retired,) = decisions.retired
    assert retired.reason == SUPERSEDED
    assert retired.completing_fact_ids == (900,)
    (created,) = decisions.created
    assert (created.lineage, created.version) == (before.lineage, 2)


# --- What the run's audit and the retired observation store (mutation testing, issue #18) ----


def test_the_run_audit_records_every_decision_as_plain_json() -> None:
    # PipelineRun.audit["decisions"] and Observation.retirement are these dicts: the dashboard
    # and the API read the closed facts, the dropped episodes and the note back by these keys.
    result = decide(
        [new(1, (1, 2, 3)), new(4, (4, 5, 6), (104, 105)), new(8, (8, 9, 10)), new(20, (20, 21))],
        [old(10, (1, 2, 3)), old(11, (4, 5), (104, 105)), old(12, (8, 9), version=2),
         old(13, (30, 31))],
        current=EVERYTHING - {130}, window=EVERYTHING - {31},
    )

    assert json.loads(json.dumps(result.as_dict())) == {
        "untouched": [{"observation": 10, "cluster": 1}],
        "restated": [{"observation": 11, "cluster": 4, "added_episodes": [6],
                      "removed_episodes": []}],
        "created": [
            {"cluster": 8, "lineage": str(lineage(12)), "version": 3, "predecessors": [12]},
            {"cluster": 20, "lineage": None, "version": 1, "predecessors": []},
        ],
        "retired": [
            {"observation": 12, "reason": SUPERSEDED, "successors": [8], "closed_facts": [],
             "dropped_episodes": [], "out_of_window_episodes": [], "settled_facts": [],
             "completing_facts": [], "note": "superseded: 1 successor"},
            {"observation": 13, "reason": EVIDENCE_ENDED, "successors": [], "closed_facts": [130],
             "dropped_episodes": [30, 31], "out_of_window_episodes": [31], "settled_facts": [],
             "completing_facts": [],
             "note": "evidence_ended: 1 fact closed; 2 episodes no longer clustered "
                     "(1 outside the window)"},
        ],
    }


def test_a_restatement_beside_other_changes_is_still_a_restatement_and_they_are_decided_too(
) -> None:
    result = decide([new(1, (1, 2, 3), (101, 102)), new(5, (5, 6, 7))],
                    [old(10, (1, 2), (101, 102)), old(11, (5, 6))])

    assert [r.observation_id for r in result.restated] == [10]
    assert [(c.cluster_key, c.lineage, c.version) for c in result.created] == [
        (5, lineage(11), 2)]
    assert [(r.observation_id, r.reason) for r in result.retired] == [(11, SUPERSEDED)]


def test_several_restatements_are_listed_by_observation() -> None:
    result = decide([new(1, (1, 2, 3), (101, 102)), new(5, (5, 6, 7), (105, 106))],
                    [old(11, (1, 2), (101, 102)), old(10, (5, 6), (105, 106))])

    assert [(r.observation_id, r.cluster_key) for r in result.restated] == [(10, 5), (11, 1)]


# --- Views of one item (a stalled item): reconciled item by item --------------------------------


def view(item: int, episodes: tuple[int, ...]) -> NewCluster:
    """A stalled item's view: its key is minus the item's entity id (``Cluster.key``)."""
    return NewCluster(key=-item, episode_ids=episodes, fact_ids=tuple(e + 100 for e in episodes))


def decide_views(
    views: list[NewCluster], active: list[ActiveObservation], item_of: dict[int, int],
    current: frozenset[int] = EVERYTHING, settled: dict[int, int] | None = None,
) -> Reconciliation:
    return reconcile_views(views, {v.key: -v.key for v in views}, active, item_of, current,
                           EVERYTHING, settled)


def test_views_of_several_items_are_listed_like_any_decisions_by_observation_and_cluster(
) -> None:
    # Items are taken in the order of their entity ids; their observations' ids run the other
    # way, and the decisions still come by observation id (by cluster key for the created).
    views = [view(501, (1, 2)), view(502, (3, 4)),  # unchanged
             view(503, (5, 6, 7)), view(504, (8, 9, 10)),  # restated: one more update each
             view(505, (11,)), view(506, (12,))]  # items stalling for the first time
    active = [old(20, (1, 2)), old(10, (3, 4)),
              old(40, (5, 6), (105, 106, 107)), old(30, (8, 9), (108, 109, 110)),
              old(60, (13,)), old(50, (14,)),  # items no longer stalled
              old(70, (15,))]  # an observation without an item
    item_of = {20: 501, 10: 502, 40: 503, 30: 504, 60: 507, 50: 508}

    result = decide_views(views, active, item_of)

    assert [(u.observation_id, u.cluster_key) for u in result.untouched] == [
        (10, -502), (20, -501)]
    assert [(r.observation_id, r.cluster_key) for r in result.restated] == [
        (30, -504), (40, -503)]
    assert [(c.cluster_key, c.lineage) for c in result.created] == [(-506, None), (-505, None)]
    assert [(r.observation_id, r.reason) for r in result.retired] == [
        (50, EVIDENCE_ENDED), (60, EVIDENCE_ENDED), (70, EVIDENCE_ENDED)]


def test_an_item_no_longer_stalled_because_its_dependency_was_settled_cites_the_completion(
) -> None:
    result = decide_views([], [old(10, (1, 2), (101, 102))], {10: 501},
                          current=EVERYTHING - {101}, settled={101: 900})

    (retired,) = result.retired
    assert (retired.closed_fact_ids, retired.settled_fact_ids) == ((), (101,))
    assert retired.completing_fact_ids == (900,)
