"""The graph around the clusters: settled dependencies, chains followed beyond their updates,
trackers as parents, reports their customers ended."""

from __future__ import annotations

from datetime import timedelta

from memory.engine.clustering import cluster_episodes
from memory.engine.context import (
    EndedReport,
    build_context,
    extend_clusters,
    is_item_history,
    settle_dependencies,
)
from memory.engine.structure import analyse_cluster
from memory.engine.template_summary import summarize_with_template
from memory.engine.types import Cluster
from tests.memory.engine.stories import LINKING, MONDAY, Story, seed_story


def clusters_of(story: Story, rows: list | None = None) -> tuple[Cluster, ...]:
    return cluster_episodes(rows if rows is not None else story.rows, LINKING,
                            story.authors).clusters


def names(story: Story, ids: object) -> list[str]:
    by_id = {v: k for k, v in story.entity_ids.items()}
    return [by_id[i] for i in ids]  # type: ignore[attr-defined]


# -- work that is done -------------------------------------------------------------------------


def seed_with_a_stale_dependency() -> tuple[Story, int]:
    """The refactor is done, but Bob still writes that his work waits on it."""
    story = seed_story().declare("Status", "Done")
    story.episode("Dana", ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
                  ("Auth Service Refactor", "HAS_STATUS", "Done"), day=5)
    return story, story.fact("Auth Service Refactor", "HAS_STATUS", "Done")


def test_a_dependency_on_finished_work_is_settled_by_the_status_that_finished_it() -> None:
    story, done = seed_with_a_stale_dependency()

    settled = settle_dependencies(story.rows, {story.id("Done")})

    assert settled.done == {story.id("Auth Service Refactor"): done}
    assert settled.settled == {
        story.fact("API Migration", "DEPENDS_ON", "Auth Service Refactor"): done,
        story.fact("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"): done,
    }
    assert all(row[1] not in settled.settled for row in settled.rows)


def test_finished_work_is_never_a_root_blocker() -> None:
    story, _ = seed_with_a_stale_dependency()
    settled = settle_dependencies(story.rows, {story.id("Done")})
    context = build_context(settled.rows, done=settled.done)

    for cluster in extend_clusters(clusters_of(story, settled.rows), context):
        structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes,
                                    context)
        for root in (structure.dependency.root_blockers if structure.dependency else ()):
            assert names(story, root.members) != ["Auth Service Refactor"]


def test_without_a_completion_status_nothing_is_settled() -> None:
    story = seed_story()
    settled = settle_dependencies(story.rows, set())
    assert (settled.settled, settled.done) == ({}, {})
    assert settled.rows == story.rows


# -- chains beyond their updates ---------------------------------------------------------------


def test_the_owner_of_a_root_said_in_an_update_of_its_own_joins_the_chains_evidence() -> None:
    story = Story().declare("Person", "Alice", "Bob").declare("Team", "Security Team")
    story.episode("Alice", ("API Migration", "DEPENDS_ON", "Security Review"))
    story.episode("Bob", ("Billing Export", "DEPENDS_ON", "Security Review"))
    story.episode("Priya", ("Security Team", "RESPONSIBLE_FOR", "Security Review"))
    ownership = story.fact("Security Team", "RESPONSIBLE_FOR", "Security Review")
    context = build_context(story.rows)

    (chain,) = extend_clusters(clusters_of(story), context)

    assert ownership in chain.fact_ids
    structure = analyse_cluster(chain, story.facts, story.entities, story.episodes, context)
    assert names(story, [o.entity_id for o in structure.top_blocker.owners]) == [
        "Security Team"]


def test_an_upstream_dependency_said_alone_joins_the_chain_that_waits_on_it() -> None:
    # Its link is a suppressed hub (the footer restates that the launch waits on the review),
    # so clustering alone leaves it out; following the chain through the graph brings it in.
    story = seed_story()
    footer = ("Atlas Launch", "DEPENDS_ON", "Security Review")
    for i in range(12):
        story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"), footer)
    upstream = story.episode("Dana", ("Auth Service Refactor", "DEPENDS_ON", "Security Review"),
                             ("Security Review", "DEPENDS_ON", "Pen Test"), day=6)
    result = cluster_episodes(story.rows, LINKING, story.authors)
    context = build_context(story.rows, result.suppressed_fact_ids)

    (chain,) = [c for c in extend_clusters(result.clusters, context) if 1 in c.episode_ids]

    assert upstream in chain.episode_ids
    structure = analyse_cluster(chain, story.facts, story.entities, story.episodes, context)
    assert names(story, structure.top_blocker.members) == ["Pen Test"]
    assert story.fact(*footer) not in chain.fact_ids


def test_following_a_chain_upstream_stops_after_the_bounded_depth() -> None:
    story = Story()
    story.episode("Alice", ("Item 0", "DEPENDS_ON", "Item 1"))
    story.episode("Bob", ("Item 0", "DEPENDS_ON", "Item 1"))
    links = [story.fact(f"Item {i}", "DEPENDS_ON", f"Item {i + 1}") for i in range(1, 6)]
    triple = {fact: key for key, fact in story.fact_ids.items()}
    rows = story.rows + [(100 + i, fact, *triple[fact]) for i, fact in enumerate(links)]
    (cluster,) = clusters_of(story, [r for r in rows if r[0] < 100])

    (chain,) = extend_clusters([cluster], build_context(rows), max_depth=2)

    assert set(chain.fact_ids) & set(links) == set(links[:2])


def test_a_cycle_is_a_cycle_only_while_every_edge_of_it_holds() -> None:
    story = Story()
    story.episode("Alice", ("A", "DEPENDS_ON", "B"), ("B", "DEPENDS_ON", "A"))
    story.episode("Bob", ("B", "DEPENDS_ON", "A"))
    (cluster,) = clusters_of(story)
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes)
    assert structure.dependency.cycles == ((story.id("A"), story.id("B")),)

    # A → B ended (the fact is no longer among the current rows): no cycle, B is the root.
    current = [r for r in story.rows if r[1] != story.fact("A", "DEPENDS_ON", "B")]
    (cluster,) = clusters_of(story, current)
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes,
                                build_context(current))
    assert structure.dependency.cycles == ()
    assert names(story, structure.top_blocker.members) == ["A"]


# -- trackers ----------------------------------------------------------------------------------


def meta_bug_story() -> Story:
    """A meta bug tracks four bugs; one is fixed; two others wait on the second."""
    story = Story().declare("Status", "Fixed").declare("Team", "Graphics Team")
    for bug in ("Bug 1", "Bug 2", "Bug 3", "Bug 4"):
        story.episode("Triage", ("Meta Bug", "TRACKS", bug))
    story.episode("Dev", ("Bug 1", "HAS_STATUS", "Fixed"))
    story.episode("Ann", ("Feature X", "DEPENDS_ON", "Bug 2"), ("Ann", "RESPONSIBLE_FOR",
                                                                "Feature X"))
    story.episode("Ben", ("Feature Y", "DEPENDS_ON", "Bug 2"), ("Ben", "RESPONSIBLE_FOR",
                                                                "Feature Y"))
    story.episode("Cy", ("Feature Z", "DEPENDS_ON", "Bug 3"))
    story.episode("Dee", ("Feature Z", "DEPENDS_ON", "Bug 3"))
    story.episode("Triage", ("Graphics Team", "RESPONSIBLE_FOR", "Meta Bug"))
    return story


def analysed_tracker(story: Story):  # type: ignore[no-untyped-def]
    settled = settle_dependencies(story.rows, {story.id("Fixed")})
    context = build_context(settled.rows, done=settled.done)
    (tracker,) = [c for c in extend_clusters(clusters_of(story, settled.rows), context)
                  if story.fact("Meta Bug", "TRACKS", "Bug 1") in c.fact_ids]
    return analyse_cluster(tracker, story.facts, story.entities, story.episodes, context)


def test_a_tracking_item_tracks_its_items_and_ranks_the_open_ones_by_what_waits_on_them() -> None:
    story = meta_bug_story()
    (tracker,) = analysed_tracker(story).trackers

    assert names(story, [tracker.tracker_id]) == ["Meta Bug"]
    assert [(names(story, [i.entity_id])[0], i.open, i.reach) for i in tracker.items] == [
        ("Bug 2", True, 2), ("Bug 3", True, 1), ("Bug 4", True, 0), ("Bug 1", False, 0)]
    assert [i.state for i in tracker.items] == ["open", "open", "unknown", "done"]


def test_a_tracker_reads_tracks_n_items_m_open_and_is_never_a_root_blocker() -> None:
    story = meta_bug_story()
    structure = analysed_tracker(story)
    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)

    # Bug 4 is only tracked: nothing says it is open (it was "3 open" before issue #13's prose).
    assert summary.name == "Meta Bug tracking 4 items, 2 open"
    assert summary.claims[0].text == (
        "The Meta Bug tracks 4 items: 2 open, 1 done and 1 with no status in these updates; the "
        "most waited on first: Bug 2 (2 items waiting) and Bug 3 (1 item waiting).")
    # What waits on the tracked items is the same tree: its root blockers follow.
    roots = structure.dependency.root_blockers
    assert [names(story, r.members) for r in roots] == [["Bug 2"], ["Bug 3"]]
    assert summary.claims[1].text.startswith("Bug 2, with no owner named in these updates")


def test_work_waiting_on_a_tracker_waits_on_what_it_still_tracks() -> None:
    story = Story().declare("Status", "Fixed")
    story.episode("Triage", ("Meta Bug", "TRACKS", "Bug 1"), ("Meta Bug", "TRACKS", "Bug 2"))
    story.episode("Dev", ("Bug 1", "HAS_STATUS", "Fixed"), ("Meta Bug", "TRACKS", "Bug 1"))
    story.episode("Ann", ("Release", "DEPENDS_ON", "Meta Bug"))
    settled = settle_dependencies(story.rows, {story.id("Fixed")})
    context = build_context(settled.rows, done=settled.done)
    (cluster,) = extend_clusters(clusters_of(story, settled.rows), context)

    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)

    assert [names(story, r.members) for r in structure.dependency.root_blockers] == [["Bug 2"]]


# -- reports their customers ended -------------------------------------------------------------


def test_a_customers_ended_report_stays_part_of_the_issue_and_is_said_resolved() -> None:
    story = Story().declare("Issue", "502 Errors").declare("Event", "Deploy")
    for customer in ("Wayne Retail", "Soylent", "Globex", "Vandelay"):
        story.declare("Customer", customer)
    wayne = story.episode("Wayne Retail", ("Wayne Retail", "REPORTED", "502 Errors"),
                          ("502 Errors", "PRECEDED_BY", "Deploy"))
    soylent = story.episode("Soylent", ("Soylent", "REPORTED", "502 Errors"),
                            ("502 Errors", "PRECEDED_BY", "Deploy"))
    story.episode("Globex", ("Globex", "REPORTED", "502 Errors"), day=1)
    story.episode("Vandelay", ("Vandelay", "REPORTED", "502 Errors"), day=1)
    resolved = story.episode("Soylent", day=3)
    ended_fact = story.fact("Soylent", "REPORTED", "502 Errors")
    current = [row for row in story.rows if row[1] != ended_fact]
    report = EndedReport(ended_fact, story.id("Soylent"), story.id("502 Errors"), (soylent,),
                         MONDAY, MONDAY + timedelta(days=3), resolved)
    context = build_context(current, ended_reports=[report])

    (cluster,) = extend_clusters(clusters_of(story, current), context)

    assert cluster.ended_fact_ids == (ended_fact,)
    assert {wayne, soylent, resolved} <= set(cluster.episode_ids)
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)
    (issue,) = structure.recurring.issues
    assert [(names(story, [r.reporter_id])[0], r.resolved) for r in issue.reports
            if r.resolved] == [("Soylent", True)]
    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)
    assert summary.name == "502 Errors reported by 4 customers, 1 reports it resolved"
    assert "Soylent (5 Mar) reports it resolved for them; Wayne Retail, Globex and Vandelay " \
           "have not said so." in summary.summary


def test_a_report_that_ended_changes_the_fingerprint_but_restating_it_does_not_change_facts(
) -> None:
    base = Cluster(episode_ids=(1, 2), fact_ids=(10, 11), links=())
    ended = Cluster(episode_ids=(1, 2), fact_ids=(10, 11), links=(), ended_fact_ids=(11,))
    restated = Cluster(episode_ids=(1, 2, 3), fact_ids=(10, 11), links=())

    assert base.fingerprint != ended.fingerprint
    assert base.facts_fingerprint != ended.facts_fingerprint
    assert base.fingerprint != restated.fingerprint
    assert base.facts_fingerprint == restated.facts_fingerprint


# -- what a tracker counts, and what is no observation (issue #13, "prose that reads") ------------

MEDIA = "[meta] Control any media without interacting directly with pages where media are"
MEDIA_IN_A_NAME = "[meta] Control any media without interacting directly with…"


def summary_of_trackers(story: Story, ended: set[int] = frozenset()):  # type: ignore[no-untyped-def,assignment]
    settled = settle_dependencies(story.rows, {story.id("Fixed")})
    context = build_context(settled.rows, done=settled.done, ended_status_ids=ended)
    (cluster,) = extend_clusters(clusters_of(story, settled.rows), context)
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)
    return structure, summarize_with_template(structure, story.facts, story.entities,
                                              story.episodes)


def test_a_trackers_items_count_as_open_done_ended_or_with_no_status() -> None:
    story = Story().declare("Status", "Fixed", "New", "Wontfix").title("Bug 1556846", MEDIA)
    for bug in ("Bug 1", "Bug 2", "Bug 3", "Bug 4", "Bug 5"):
        story.episode("Alastor", ("Bug 1556846", "TRACKS", bug))
    story.episode("Dev", ("Bug 1", "HAS_STATUS", "Fixed"))
    story.episode("Dev", ("Bug 2", "HAS_STATUS", "Wontfix"))
    story.episode("Dev", ("Bug 3", "HAS_STATUS", "New"))
    story.episode("Ann", ("Ann", "RESPONSIBLE_FOR", "Bug 4"))

    structure, summary = summary_of_trackers(story, ended={story.id("Wontfix")})

    (tracker,) = structure.trackers
    assert [(names(story, [i.entity_id])[0], i.state) for i in tracker.items] == [
        ("Bug 3", "open"), ("Bug 4", "open"), ("Bug 5", "unknown"), ("Bug 1", "done"),
        ("Bug 2", "ended")]
    assert summary.name == f"Bug 1556846 “{MEDIA_IN_A_NAME}” tracking 5 items, 2 open"
    assert summary.claims[0].text == (
        f"Bug 1556846 “{MEDIA}” tracks 5 items: 2 open, 1 done, 1 ended without being done and "
        "1 with no status in these updates; open: Bug 3 and Bug 4.")


def test_items_known_only_as_tracked_are_never_counted_open() -> None:
    # A [meta] bug of the Bugzilla sample: its 54 children are outside the export ("54 open"
    # before).
    story = Story().declare("Status", "Fixed").title("Bug 1556846", MEDIA)
    for n in range(54):
        story.episode("Alastor", ("Bug 1556846", "TRACKS", f"Bug {1575995 + n}"))

    _, summary = summary_of_trackers(story)

    assert summary.name == f"Bug 1556846 “{MEDIA_IN_A_NAME}” tracking 54 items"
    assert summary.claims[0].text == (
        f"Bug 1556846 “{MEDIA}” tracks 54 items, none of them with a status in these updates.")


def test_a_second_tracker_of_the_same_items_and_title_reads_as_the_duplicate_it_is() -> None:
    story = Story().declare("Status", "Fixed")
    story.title("Bug 1556846", MEDIA).title("Bug 1572869", MEDIA)
    for bug in ("Bug 1575995", "Bug 1577367"):
        story.episode("Alastor", ("Bug 1556846", "TRACKS", bug))
        story.episode("Alastor", ("Bug 1572869", "TRACKS", bug))

    _, summary = summary_of_trackers(story)

    assert summary.claims[1].text == (
        "Bug 1572869, with the same title, tracks the same 2 items as Bug 1556846.")


def test_one_items_own_history_is_no_observation() -> None:
    story = Story().declare("Status", "New", "Assigned")
    story.episode("Boris", ("Boris", "REPORTED", "Bug 1586096"), ("Bug 1586096", "HAS_STATUS",
                                                                   "New"))
    story.episode("Hiro", ("Boris", "REPORTED", "Bug 1586096"), ("Hiro", "RESPONSIBLE_FOR",
                                                                  "Bug 1586096"))
    story.episode("Hiro", ("Boris", "REPORTED", "Bug 1586096"), ("Bug 1586096", "HAS_STATUS",
                                                                  "Assigned"))
    context = build_context(story.rows)

    (cluster,) = extend_clusters(clusters_of(story), context)

    assert is_item_history(cluster, context)


def test_an_items_history_that_waits_on_other_work_is_a_pattern() -> None:
    story = Story()
    story.episode("Honza", ("Honza", "REPORTED", "Bug 528988"))
    story.episode("Jesse", ("Honza", "REPORTED", "Bug 528988"),
                  ("Bug 528988", "DEPENDS_ON", "Bug 370886"))
    context = build_context(story.rows)

    (cluster,) = extend_clusters(clusters_of(story), context)

    assert not is_item_history(cluster, context)


def test_two_reporters_of_one_item_are_a_recurring_report_not_a_history() -> None:
    story = Story().declare("Customer", "Globex", "Soylent")
    story.episode("Globex", ("Globex", "REPORTED", "Ticket #35436"))
    story.episode("Soylent", ("Soylent", "REPORTED", "Ticket #35436"))
    context = build_context(story.rows)

    (cluster,) = extend_clusters(clusters_of(story), context)

    assert not is_item_history(cluster, context)


def test_one_customers_ticket_and_the_agents_answers_in_it_are_still_one_items_history() -> None:
    story = Story().declare("Customer", "kim").declare("Person", "lee")
    story.episode("kim", ("kim", "REPORTED", "acme/app#12"))
    story.episode("lee", ("lee", "ANSWERED", "acme/app#12"))
    story.episode("lee", ("lee", "ANSWERED", "acme/app#12"))
    context = build_context(story.rows)

    (cluster,) = extend_clusters(clusters_of(story), context)

    assert cluster.episode_ids == (1, 2, 3)
    assert is_item_history(cluster, context)


def test_two_customers_of_one_ticket_with_an_agents_answer_are_a_recurring_report() -> None:
    story = Story().declare("Customer", "kim", "sam").declare("Person", "lee")
    story.episode("kim", ("kim", "REPORTED", "acme/app#12"))
    story.episode("lee", ("lee", "ANSWERED", "acme/app#12"))
    story.episode("sam", ("sam", "REPORTED", "acme/app#12"))
    context = build_context(story.rows)

    (cluster,) = extend_clusters(clusters_of(story), context)

    assert not is_item_history(cluster, context)
