"""Structure analysis: kinds, root blockers and unblock reach, recurring issues."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

from memory.engine.clustering import cluster_episodes
from memory.engine.context import EndedReport, build_context, extend_clusters, settle_dependencies
from memory.engine.structure import (
    DEPENDENCY_CHAIN,
    RECURRING_ISSUE,
    SHARED_CONTEXT,
    Structure,
    analyse_cluster,
)
from memory.engine.types import Cluster, FactInfo
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


# -- what Observation.structure stores, and how its lists are ranked (mutation testing, #18) --


def party(story: Story, name: str, *facts: tuple[str, str, str]) -> dict[str, object]:
    return {"entity": story.id(name), "facts": sorted(story.fact(*f) for f in facts)}


def test_a_dependency_chain_is_stored_with_every_figure_the_pages_read() -> None:
    story = Story().declare("Team", "Backend Team")
    owns_api = ("Alice", "RESPONSIBLE_FOR", "API Migration")
    api_waits = ("API Migration", "DEPENDS_ON", "Auth Refactor")
    backend_owns = ("Backend Team", "RESPONSIBLE_FOR", "Auth Refactor")
    checkout_waits = ("Checkout", "DEPENDS_ON", "API Migration")
    owns_checkout = ("Bob", "RESPONSIBLE_FOR", "Checkout")
    tracks = ("Epic", "TRACKS", "Auth Refactor")
    owns_epic = ("Dana", "RESPONSIBLE_FOR", "Epic")
    story.episode("Alice", owns_api, api_waits, backend_owns, day=0)
    story.episode("Bob", checkout_waits, owns_checkout, day=1)
    story.episode("Dana", tracks, owns_epic, day=2)
    cluster = only_cluster(story)
    fact = story.fact

    stored = json.loads(json.dumps(analyse(story).as_dict()))

    every_fact = sorted(fact(*f) for f in (owns_api, api_waits, backend_owns, checkout_waits,
                                           owns_checkout, tracks, owns_epic))
    assert stored == {
        "kind": DEPENDENCY_CHAIN,
        "entities": sorted(story.entity_ids.values()),
        "people": sorted(story.id(p) for p in ("Alice", "Bob", "Dana")),
        "episodes": [1, 2, 3],
        "facts": every_fact,
        "window": {"start": "2026-03-02T09:00:00+00:00", "end": "2026-03-04T09:00:00+00:00"},
        "links": [link.as_dict() for link in cluster.links],
        "reach": {"people": 2, "work_items": 2},
        "dependency": {
            "edges": sorted(
                [{"waiting": story.id("API Migration"), "waited_on": story.id("Auth Refactor"),
                  "facts": [fact(*api_waits)]},
                 {"waiting": story.id("Checkout"), "waited_on": story.id("API Migration"),
                  "facts": [fact(*checkout_waits)]}],
                key=lambda e: (e["waiting"], e["waited_on"])),
            "root_blockers": [{
                "members": [story.id("Auth Refactor")],
                "cycle": False,
                "owners": [party(story, "Backend Team", backend_owns)],
                "direct": [{"entity": story.id("API Migration"),
                            "via": [story.id("Auth Refactor")], "facts": [fact(*api_waits)],
                            "owners": [party(story, "Alice", owns_api)]}],
                "downstream": [{"entity": story.id("Checkout"),
                                "via": [story.id("API Migration")],
                                "facts": [fact(*checkout_waits)],
                                "owners": [party(story, "Bob", owns_checkout)]}],
                "people": [party(story, "Alice", owns_api), party(story, "Bob", owns_checkout)],
                "reach": {"work_items": 2, "people": 2, "total": 4},
                "facts": sorted(fact(*f) for f in (owns_api, api_waits, backend_owns,
                                                   checkout_waits, owns_checkout)),
            }],
            "cycles": [],
        },
        "recurring": None,
        "trackers": [{
            "tracker": story.id("Epic"),
            "tracked": 1,
            "open": 1,
            "items": [{"entity": story.id("Auth Refactor"), "facts": [fact(*tracks)],
                       "open": True, "reach": 0, "state": "open"}],
            "owners": [party(story, "Dana", owns_epic)],
        }],
        "stalled": None,
        "held_stalls": [],
    }


def test_a_recurring_issue_is_stored_with_every_report_event_and_update() -> None:
    story = Story().declare("Customer", "Acme", "Globex").declare("Issue", "Login Timeout")
    story.declare("Event", "Release 4.2", "Maintenance").declare("Product", "Checkout")
    acme = ("Acme", "REPORTED", "Login Timeout")
    globex = ("Globex", "REPORTED", "Login Timeout")
    after_release = ("Login Timeout", "PRECEDED_BY", "Release 4.2")
    after_maintenance = ("Login Timeout", "PRECEDED_BY", "Maintenance")
    affects = ("Login Timeout", "AFFECTS", "Checkout")
    story.episode("Support", acme, after_release, day=0)
    story.episode("Support", globex, after_release, affects, day=1)
    story.episode("Support", acme, after_maintenance, day=3)
    cluster = only_cluster(story)
    # Globex said it is resolved for them on day 5 (the report ended; the issue goes on).
    ended = Cluster(cluster.episode_ids, cluster.fact_ids, cluster.links,
                    ended_fact_ids=(story.fact(*globex),))
    context = build_context(story.rows, ended_reports=[EndedReport(
        story.fact(*globex), story.id("Globex"), story.id("Login Timeout"), (2,), MONDAY,
        MONDAY + timedelta(days=5), None)])
    fact = story.fact

    structure = analyse_cluster(ended, story.facts, story.entities, story.episodes, context)
    stored = json.loads(json.dumps(structure.as_dict()))

    release = {"event": story.id("Release 4.2"), "facts": [fact(*after_release)],
               "episodes": [1, 2], "recurring": True}
    assert stored["kind"] == RECURRING_ISSUE
    assert stored["dependency"] is None
    assert stored["reach"] == {"people": 0, "work_items": 0}
    assert stored["recurring"] == {
        "issues": [{
            "issue": story.id("Login Timeout"),
            "reporters": 2,
            "resolved_reporters": 1,
            "reports": [
                {"reporter": story.id("Acme"), "facts": [fact(*acme)], "episodes": [1, 3],
                 "first_reported": "2026-03-02T09:00:00+00:00", "resolved_at": None},
                {"reporter": story.id("Globex"), "facts": [fact(*globex)], "episodes": [2],
                 "first_reported": "2026-03-03T09:00:00+00:00",
                 "resolved_at": "2026-03-07T09:00:00+00:00"},
            ],
            "affected": [party(story, "Checkout", affects)],
            "preceded_by": [
                release,
                {"event": story.id("Maintenance"), "facts": [fact(*after_maintenance)],
                 "episodes": [3], "recurring": False},
            ],
            "episodes": [1, 2, 3],
        }],
        "recurring_events": [release],
    }


def test_each_reporter_is_dated_by_their_first_update_when_facts_carry_no_date() -> None:
    # The pipeline's facts carry no valid_at: a report's first date is its first update's.
    story = login_timeouts()
    facts = {i: f._replace(valid_at=None) for i, f in story.facts.items()}

    structure = analyse_cluster(only_cluster(story), facts, story.entities, story.episodes)

    (issue,) = structure.recurring.issues  # type: ignore[union-attr]
    assert [r.first_reported for r in issue.reports] == [
        MONDAY, MONDAY + timedelta(days=1), MONDAY + timedelta(days=3)]


def test_a_customer_who_reported_again_after_saying_resolved_is_not_resolved() -> None:
    # Acme's first report ended ("fixed for us"), then Acme reported the issue anew: a second
    # REPORTED fact, still current. Only when all of a reporter's reports ended are they resolved.
    story = login_timeouts()
    first = story.fact("Acme", "REPORTED", "Login Timeout")
    again = FactInfo(9_000, story.id("Acme"), "REPORTED", story.id("Login Timeout"), (3,))
    facts = {**story.facts, again.id: again}
    cluster = only_cluster(story)
    cluster = Cluster(cluster.episode_ids, (*cluster.fact_ids, again.id), cluster.links,
                      ended_fact_ids=(first,))
    context = build_context(story.rows, ended_reports=[EndedReport(
        first, story.id("Acme"), story.id("Login Timeout"), (1,), MONDAY,
        MONDAY + timedelta(days=2), None)])

    structure = analyse_cluster(cluster, facts, story.entities, story.episodes, context)

    acme = structure.recurring.issues[0].reports[0]  # type: ignore[union-attr]
    assert (acme.reporter_id, acme.fact_ids, acme.resolved) == (
        story.id("Acme"), (first, again.id), False)


def test_a_cluster_with_an_ended_report_can_be_analysed_without_the_graph_around_it() -> None:
    story = login_timeouts()
    cluster = only_cluster(story)
    ended = Cluster(cluster.episode_ids, cluster.fact_ids, cluster.links,
                    ended_fact_ids=(story.fact("Acme", "REPORTED", "Login Timeout"),))

    structure = analyse_cluster(ended, story.facts, story.entities, story.episodes)

    assert not any(r.resolved for r in structure.recurring.issues[0].reports)  # type: ignore[union-attr]


def test_an_issue_known_only_by_what_it_affects_is_listed_with_those_updates() -> None:
    story = Story().declare("Issue", "Slow Search", "Broken Export")
    story.declare("Product", "Search", "Reports")
    story.episode("Support", ("Slow Search", "AFFECTS", "Search"), day=0)
    story.episode("Support", ("Slow Search", "AFFECTS", "Search"),
                  ("Broken Export", "AFFECTS", "Search"), day=1)
    story.episode("Support", ("Broken Export", "AFFECTS", "Reports"),
                  ("Broken Export", "AFFECTS", "Search"), day=2)

    structure = analyse(story)

    assert structure.kind == RECURRING_ISSUE
    issues = {names(story, [i.issue_id])[0]: i.episode_ids
              for i in structure.recurring.issues}  # type: ignore[union-attr]
    assert issues == {"Slow Search": (1, 2), "Broken Export": (2, 3)}


def test_the_updates_an_issue_affects_count_beside_those_reporting_it() -> None:
    story = login_timeouts()
    story.declare("Issue", "Slow Search").declare("Product", "Search")
    story.episode("Support", ("Login Timeout", "AFFECTS", "Checkout"),
                  ("Slow Search", "AFFECTS", "Checkout"), day=4)
    story.episode("Support", ("Slow Search", "AFFECTS", "Search"),
                  ("Slow Search", "AFFECTS", "Checkout"), day=5)

    structure = analyse(story)

    login = next(i for i in structure.recurring.issues  # type: ignore[union-attr]
                 if i.issue_id == story.id("Login Timeout"))
    assert login.episode_ids == (1, 2, 3, 4)


def test_issues_with_as_many_reporters_are_ranked_by_updates_then_by_name() -> None:
    story = Story().declare("Customer", "Acme", "Globex")
    story.declare("Issue", "Zero Results", "Slow Search", "Login Timeout")
    for day, issue in enumerate(["Zero Results", "Slow Search", "Login Timeout"]):
        story.episode("Support", ("Acme", "REPORTED", issue), ("Globex", "REPORTED", issue),
                      ("Acme", "REPORTED", "Login Timeout"), day=day)
    story.episode("Support", ("Globex", "REPORTED", "Login Timeout"), day=4)

    issues = analyse(story).recurring.issues  # type: ignore[union-attr]

    assert names(story, [i.issue_id for i in issues]) == [
        "Login Timeout", "Slow Search", "Zero Results"]
    assert [len(i.episode_ids) for i in issues] == [4, 1, 1]


def test_events_before_an_issue_are_ranked_by_updates_then_by_name() -> None:
    story = Story().declare("Customer", "Acme", "Globex").declare("Issue", "Login Timeout")
    story.declare("Event", "Restart", "Release", "Deploy", "Backup")
    for day, events in enumerate([("Restart", "Deploy", "Backup"), ("Restart", "Deploy"),
                                  ("Release", "Backup"), ("Release", "Deploy")]):
        story.episode("Support", ("Acme", "REPORTED", "Login Timeout"),
                      ("Globex", "REPORTED", "Login Timeout"),
                      *(("Login Timeout", "PRECEDED_BY", e) for e in events), day=day)

    recurring = analyse(story).recurring
    assert recurring is not None

    order = ["Deploy", "Backup", "Release", "Restart"]  # 3 updates, then 2 each by name
    assert names(story, [e.event_id for e in recurring.issues[0].preceded_by]) == order
    assert names(story, [e.event_id for e in recurring.recurring_events]) == order


def test_a_product_affected_in_one_update_of_two_is_shared_context() -> None:
    story = Story().declare("Issue", "Slow Search").declare("Product", "Search")
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"),
                  ("Slow Search", "AFFECTS", "Search"), day=0)
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"), day=1)

    assert analyse(story).kind == SHARED_CONTEXT


def test_blockers_reaching_as_far_are_ranked_by_name_whatever_was_said_first() -> None:
    story = Story()
    story.episode("Ann", ("Export", "DEPENDS_ON", "Queue"), ("Ann", "RESPONSIBLE_FOR", "Export"),
                  ("Ann", "RESPONSIBLE_FOR", "Search"))
    story.episode("Ann", ("Search", "DEPENDS_ON", "Database"), ("Ann", "RESPONSIBLE_FOR", "Search"))

    roots = analyse(story).dependency.root_blockers  # type: ignore[union-attr]

    assert [names(story, r.members) for r in roots] == [["Database"], ["Queue"]]


def test_downstream_work_and_owners_are_listed_people_first_then_by_name() -> None:
    story = Story().declare("Team", "Core Team")
    story.episode("Zed", ("Core Team", "RESPONSIBLE_FOR", "Index"),
                  ("Zed", "RESPONSIBLE_FOR", "Index"), ("Search", "DEPENDS_ON", "Index"),
                  ("Reports", "DEPENDS_ON", "Search"))
    story.episode("Amy", ("Amy", "RESPONSIBLE_FOR", "Index"), ("Alerts", "DEPENDS_ON", "Search"))

    root = analyse(story).top_blocker
    assert root is not None

    assert names(story, [o.entity_id for o in root.owners]) == ["Amy", "Zed", "Core Team"]
    assert names(story, [d.entity_id for d in root.downstream]) == ["Alerts", "Reports"]


# -- trackers ---------------------------------------------------------------------------------


def test_without_the_graph_around_it_every_tracked_item_counts_open() -> None:
    story = Story()
    story.episode("Dana", ("Epic", "TRACKS", "Bug 2"), ("Epic", "TRACKS", "Bug 1"))
    story.episode("Dana", ("Release", "DEPENDS_ON", "Bug 1"))

    (tracker,) = analyse(story).trackers

    assert [(names(story, [i.entity_id])[0], i.open, i.state, i.reach) for i in tracker.items] == [
        ("Bug 1", True, "open", 0), ("Bug 2", True, "open", 0)]


def test_trackers_are_ranked_by_items_then_by_name_and_owned_by_who_is_responsible() -> None:
    story = Story()
    story.episode("Dana", ("Zeta Epic", "TRACKS", "Bug 1"), ("Meta Bug", "TRACKS", "Bug 1"),
                  ("Alpha Epic", "TRACKS", "Bug 1"), ("Alpha Epic", "TRACKS", "Bug 2"))
    story.episode("Dana", ("Dana", "RESPONSIBLE_FOR", "Meta Bug"),
                  ("Release", "DEPENDS_ON", "Meta Bug"))

    trackers = analyse(story).trackers

    assert names(story, [t.tracker_id for t in trackers]) == ["Alpha Epic", "Meta Bug",
                                                               "Zeta Epic"]
    meta = trackers[1]
    assert names(story, [o.entity_id for o in meta.owners]) == ["Dana"]


def test_a_tracker_whose_items_are_all_done_holds_nothing_up() -> None:
    story = Story().declare("Status", "Fixed")
    story.episode("Triage", ("Meta Bug", "TRACKS", "Bug 1"))
    story.episode("Dev", ("Bug 1", "HAS_STATUS", "Fixed"), ("Meta Bug", "TRACKS", "Bug 1"))
    story.episode("Ann", ("Release", "DEPENDS_ON", "Meta Bug"))
    settled = settle_dependencies(story.rows, {story.id("Fixed")})
    context = build_context(settled.rows, done=settled.done)
    (cluster,) = extend_clusters(
        cluster_episodes(settled.rows, LINKING, story.authors).clusters, context)

    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)

    assert structure.kind == DEPENDENCY_CHAIN
    assert structure.dependency.root_blockers == ()  # type: ignore[union-attr]


def test_a_cycle_is_stored_with_its_members() -> None:
    story = Story()
    story.episode("Alice", ("Search", "DEPENDS_ON", "Index"), ("Index", "DEPENDS_ON", "Search"))
    story.episode("Bob", ("Reports", "DEPENDS_ON", "Search"))

    stored = analyse(story).as_dict()

    assert stored["dependency"]["cycles"] == [sorted([story.id("Search"), story.id("Index")])]


def test_a_stalled_items_structure_stores_its_stall() -> None:
    class Stall:  # what memory.engine.stalled gives: anything that stores itself as a dict
        def as_dict(self) -> dict[str, object]:
            return {"item": 7, "state": "blocked", "weeks": 3}

    structure = replace(analyse(seed_story()), stalled=Stall())

    assert structure.as_dict()["stalled"] == {"item": 7, "state": "blocked", "weeks": 3}
