"""Structure analysis: kinds, root blockers and unblock reach, recurring issues."""

from __future__ import annotations

import json

from memory.engine.clustering import cluster_episodes
from memory.engine.structure import (
    DEPENDENCY_CHAIN,
    RECURRING_ISSUE,
    SHARED_CONTEXT,
    Structure,
    analyse_cluster,
)
from memory.engine.types import Cluster
from tests.memory.engine.stories import LINKING, MONDAY, Story, seed_story


def only_cluster(story: Story) -> Cluster:
    clusters = cluster_episodes(story.rows, LINKING, story.authors).clusters
    assert len(clusters) == 1, [c.episode_ids for c in clusters]
    return clusters[0]


def analyse(story: Story) -> Structure:
    return analyse_cluster(only_cluster(story), story.facts, story.entities, story.episodes)


def names(story: Story, entity_ids: object) -> list[str]:
    by_id = {v: k for k, v in story.entity_ids.items()}
    return [by_id[e] for e in entity_ids]  # type: ignore[attr-defined]


# -- the seed ---------------------------------------------------------------------------------


def test_the_seed_is_a_dependency_chain_rooted_at_the_auth_service_refactor() -> None:
    story = seed_story()
    structure = analyse(story)
    assert structure.kind == DEPENDENCY_CHAIN
    (root,) = structure.dependency.root_blockers  # type: ignore[union-attr]
    assert names(story, root.members) == ["Auth Service Refactor"]
    assert [names(story, [o.entity_id]) for o in root.owners] == [["Backend Team"]]
    assert root.owners[0].fact_ids == (
        story.fact("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),)


def test_the_seed_blocker_holds_up_two_items_directly_and_one_downstream() -> None:
    story = seed_story()
    root = analyse(story).top_blocker
    assert root is not None
    assert names(story, [d.entity_id for d in root.direct]) == [
        "API Migration", "Payments Integration"]
    assert names(story, [d.entity_id for d in root.downstream]) == ["Checkout Flow"]
    checkout = root.downstream[0]
    assert names(story, checkout.via) == ["Payments Integration"]
    assert checkout.fact_ids == (story.fact("Checkout Flow", "DEPENDS_ON", "Payments Integration"),)
    assert names(story, [o.entity_id for o in checkout.owners]) == ["Clara"]


def test_unblocking_the_seed_blocker_reaches_three_people_and_three_work_items() -> None:
    story = seed_story()
    structure = analyse(story)
    root = structure.top_blocker
    assert root is not None
    assert (root.reach_people, root.reach_work_items, root.reach) == (3, 3, 6)
    assert names(story, [p.entity_id for p in root.people]) == ["Alice", "Bob", "Clara"]
    assert root.people[1].fact_ids == (
        story.fact("Bob", "RESPONSIBLE_FOR", "Payments Integration"),)
    assert (structure.reach_people, structure.reach_work_items) == (3, 3)


def test_every_fact_a_blocker_cites_belongs_to_the_cluster() -> None:
    story = seed_story()
    structure = analyse(story)
    root = structure.top_blocker
    assert root is not None
    assert set(root.fact_ids) <= set(structure.fact_ids)
    waits = {story.fact("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
             story.fact("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
             story.fact("Checkout Flow", "DEPENDS_ON", "Payments Integration")}
    assert set(root.chain_fact_ids) == waits


def test_the_seed_structure_knows_its_people_episodes_and_window() -> None:
    story = seed_story()
    structure = analyse(story)
    assert names(story, structure.people) == ["Alice", "Bob", "Clara"]
    assert structure.episode_ids == (1, 2, 3)
    assert structure.window_start == MONDAY
    assert (structure.window_end - structure.window_start).days == 4
    assert len(structure.entity_ids) == 10


def test_the_structure_is_stored_as_plain_json() -> None:
    data = analyse(seed_story()).as_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["kind"] == "dependency_chain"
    assert data["reach"] == {"people": 3, "work_items": 3}
    assert data["dependency"]["root_blockers"][0]["reach"]["total"] == 6


# -- harder chains ----------------------------------------------------------------------------


def test_a_cycle_with_nothing_else_to_wait_on_is_a_root_blocker_of_its_own() -> None:
    story = Story()
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"),
                  ("Search", "DEPENDS_ON", "Index"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Index"), ("Index", "DEPENDS_ON", "Search"),
                  ("Search", "DEPENDS_ON", "Index"))
    story.episode("Clara", ("Clara", "RESPONSIBLE_FOR", "Reports"),
                  ("Reports", "DEPENDS_ON", "Search"), ("Bob", "RESPONSIBLE_FOR", "Index"))
    dependency = analyse(story).dependency
    assert dependency is not None
    assert [names(story, c) for c in dependency.cycles] == [["Search", "Index"]]
    (root,) = dependency.root_blockers
    assert root.is_cycle
    assert names(story, root.members) == ["Index", "Search"]
    assert names(story, [d.entity_id for d in root.direct]) == ["Reports"]
    assert names(story, [o.entity_id for o in root.owners]) == ["Alice", "Bob"]
    assert root.cycle_fact_ids == tuple(sorted([
        story.fact("Search", "DEPENDS_ON", "Index"), story.fact("Index", "DEPENDS_ON", "Search")]))


def test_a_cycle_that_waits_on_something_else_is_reported_but_is_not_the_root() -> None:
    story = Story()
    story.episode("Alice", ("Search", "DEPENDS_ON", "Index"), ("Index", "DEPENDS_ON", "Search"))
    story.episode("Bob", ("Index", "DEPENDS_ON", "Search"), ("Index", "DEPENDS_ON", "Storage"))
    dependency = analyse(story).dependency
    assert dependency is not None
    assert [names(story, c) for c in dependency.cycles] == [["Search", "Index"]]
    (root,) = dependency.root_blockers
    assert names(story, root.members) == ["Storage"]
    assert names(story, [d.entity_id for d in root.direct]) == ["Index"]
    assert names(story, [d.entity_id for d in root.downstream]) == ["Search"]


def test_several_root_blockers_are_ranked_by_reach_then_name() -> None:
    story = Story()
    for i, blocker in enumerate(["Zeta API", "Zeta API", "Alpha DB", "Beta Queue"]):
        story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"),
                      (f"Item {i}", "DEPENDS_ON", blocker), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    dependency = analyse(story).dependency
    assert dependency is not None
    assert [names(story, r.members)[0] for r in dependency.root_blockers] == [
        "Zeta API", "Alpha DB", "Beta Queue"]
    assert [r.reach for r in dependency.root_blockers] == [4, 2, 2]


def test_a_chain_without_owners_still_counts_its_work_items() -> None:
    story = Story()
    story.episode("", ("Search", "DEPENDS_ON", "Index"))
    story.episode("", ("Reports", "DEPENDS_ON", "Index"), ("Export", "DEPENDS_ON", "Reports"))
    root = analyse(story).top_blocker
    assert root is not None
    assert root.owners == ()
    assert (root.reach_work_items, root.reach_people) == (3, 0)


def test_teams_own_work_but_only_people_count_as_people_waiting() -> None:
    story = Story().declare("Team", "Data Team")
    story.episode("Alice", ("Data Team", "RESPONSIBLE_FOR", "Search"),
                  ("Search", "DEPENDS_ON", "Index"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Reports"), ("Reports", "DEPENDS_ON", "Index"))
    root = analyse(story).top_blocker
    assert root is not None
    assert names(story, [p.entity_id for p in root.people]) == ["Bob"]
    assert names(story, [o.entity_id for o in root.direct[1].owners]) == ["Data Team"]


# -- recurring issues and shared context ------------------------------------------------------


def login_timeouts() -> Story:
    story = Story().declare("Customer", "Acme", "Globex", "Initech")
    story.declare("Issue", "Login Timeout").declare("Event", "Release 4.2", "Maintenance")
    story.declare("Product", "Checkout")
    story.episode("Support", ("Acme", "REPORTED", "Login Timeout"),
                  ("Login Timeout", "PRECEDED_BY", "Release 4.2"), day=0)
    story.episode("Support", ("Globex", "REPORTED", "Login Timeout"),
                  ("Login Timeout", "AFFECTS", "Checkout"),
                  ("Login Timeout", "PRECEDED_BY", "Release 4.2"), day=1)
    story.episode("Support", ("Initech", "REPORTED", "Login Timeout"),
                  ("Login Timeout", "PRECEDED_BY", "Maintenance"), day=3)
    return story


def test_reports_from_several_customers_make_a_recurring_issue() -> None:
    story = login_timeouts()
    structure = analyse(story)
    assert structure.kind == RECURRING_ISSUE
    (issue,) = structure.recurring.issues  # type: ignore[union-attr]
    assert names(story, [issue.issue_id]) == ["Login Timeout"]
    assert names(story, [r.reporter_id for r in issue.reports]) == ["Acme", "Globex", "Initech"]
    assert [r.first_reported.day for r in issue.reports] == [2, 3, 5]
    assert names(story, [a.entity_id for a in issue.affected]) == ["Checkout"]


def test_an_event_preceding_the_issue_in_two_updates_recurs() -> None:
    story = login_timeouts()
    issue = analyse(story).recurring.issues[0]  # type: ignore[union-attr]
    release, maintenance = issue.preceded_by
    assert names(story, [release.event_id, maintenance.event_id]) == ["Release 4.2", "Maintenance"]
    assert (release.episode_ids, release.recurring) == ((1, 2), True)
    assert maintenance.recurring is False
    recurring = analyse(story).recurring.recurring_events  # type: ignore[union-attr]
    assert names(story, [e.event_id for e in recurring]) == ["Release 4.2"]


def test_one_reporter_and_no_recurring_pattern_is_shared_context() -> None:
    story = Story().declare("Customer", "Acme").declare("Issue", "Login Timeout")
    story.episode("Support", ("Acme", "REPORTED", "Login Timeout"), day=0)
    story.episode("Support", ("Acme", "REPORTED", "Login Timeout"), day=1)
    assert analyse(story).kind == SHARED_CONTEXT


def test_an_issue_affecting_the_same_product_in_two_updates_recurs() -> None:
    story = Story().declare("Issue", "Slow Search").declare("Product", "Search")
    story.episode("Support", ("Slow Search", "AFFECTS", "Search"), day=0)
    story.episode("Support", ("Slow Search", "AFFECTS", "Search"), day=1)
    assert analyse(story).kind == RECURRING_ISSUE


def test_ownership_alone_is_shared_context() -> None:
    story = Story()
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"))
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"), day=7)
    structure = analyse(story)
    assert structure.kind == SHARED_CONTEXT
    assert (structure.dependency, structure.recurring) == (None, None)
    assert structure.reach_people == 0
