"""Clustering: signatures → episode graph → components, hub suppression, structural splits."""

from __future__ import annotations

import json
import random

import pytest

from memory.bench.synthetic import synthetic_graph
from memory.engine.clustering import ClusteringSettings, cluster_episodes
from memory.engine.types import Cluster, Signature
from tests.memory.engine.stories import LINKING, Story, seed_story


def cluster(story: Story, **settings: float) -> tuple[tuple[Cluster, ...], dict]:
    result = cluster_episodes(
        story.rows, LINKING, story.authors, ClusteringSettings(**settings)  # type: ignore[arg-type]
    )
    return result.clusters, result.audit


def candidate(audit: dict, signature: Signature) -> dict:
    found = [c for c in audit["hub_candidates"] if c["signature"] == signature.as_dict()]
    assert found, f"{signature} was not a hub candidate"
    return found[0]


# -- the seed ---------------------------------------------------------------------------------


def test_the_seed_updates_form_one_cluster_of_three_episodes_with_all_their_facts() -> None:
    story = seed_story()
    clusters, _ = cluster(story)
    assert len(clusters) == 1
    assert clusters[0].episode_ids == (1, 2, 3)
    assert clusters[0].fact_ids == tuple(sorted(story.fact_ids.values()))
    assert clusters[0].split_from is None


def test_the_seed_cluster_says_which_shared_signatures_link_its_episodes() -> None:
    story = seed_story()
    (seed,), _ = cluster(story)
    links = {(link.signature, link.episode_ids) for link in seed.links}
    assert links == {
        (Signature("RESPONSIBLE_FOR", story.id("Auth Service Refactor"), story.id("Backend Team")),
         (1, 2)),
        (Signature("CHAIN", story.id("Auth Service Refactor")), (1, 2)),
        (Signature("RESPONSIBLE_FOR", story.id("Payments Integration"), story.id("Bob")), (2, 3)),
        # A dependency links at both ends: Clara waits on what Bob's work waits with.
        (Signature("CHAIN", story.id("Payments Integration")), (2, 3)),
    }
    waits = next(link for link in seed.links if link.relation == "CHAIN")
    assert waits.fact_ids == tuple(sorted([
        story.fact("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
        story.fact("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
    ]))


def test_a_shared_status_links_nothing_but_is_kept_as_evidence() -> None:
    story = Story().declare("Status", "Blocked")
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"),
                  ("Search", "HAS_STATUS", "Blocked"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Billing"),
                  ("Billing", "HAS_STATUS", "Blocked"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Billing"))
    clusters, _ = cluster(story)
    assert [c.episode_ids for c in clusters] == [(2, 3)]
    assert story.fact("Billing", "HAS_STATUS", "Blocked") in clusters[0].fact_ids


def test_target_mode_links_different_sources_pointing_at_the_same_target() -> None:
    story = Story().declare("Customer", "Acme", "Globex").declare("Issue", "Login Timeout")
    story.episode("", ("Acme", "REPORTED", "Login Timeout"))
    story.episode("", ("Globex", "REPORTED", "Login Timeout"))
    clusters, _ = cluster(story)
    assert [c.episode_ids for c in clusters] == [(1, 2)]


def test_an_agents_answer_in_a_thread_links_with_its_customers_reports_of_it() -> None:
    story = (Story().declare("Customer", "kim", "sam").declare("Person", "lee")
             .declare("WorkItem", "acme/app#12", "acme/app#30"))
    story.episode("kim", ("kim", "REPORTED", "acme/app#12"))
    story.episode("lee", ("lee", "ANSWERED", "acme/app#12"))
    story.episode("lee", ("lee", "ANSWERED", "acme/app#30"))  # a thread no customer is in
    clusters, _ = cluster(story)
    [thread] = clusters
    assert thread.episode_ids == (1, 2)
    [link] = thread.links
    assert link.signature == Signature("REPORTED", story.id("acme/app#12"))
    assert story.fact("lee", "ANSWERED", "acme/app#12") in link.fact_ids


def test_an_update_saying_the_root_waits_on_something_upstream_joins_the_chain() -> None:
    story = seed_story()
    upstream = story.episode("Grace", ("Auth Service Refactor", "DEPENDS_ON", "Security Review"),
                             ("Security Team", "RESPONSIBLE_FOR", "Security Review"), day=7)
    (chain,), _ = cluster(story)
    assert upstream in chain.episode_ids
    assert story.fact("Auth Service Refactor", "DEPENDS_ON", "Security Review") in chain.fact_ids


def test_two_dependencies_with_no_item_in_common_do_not_link() -> None:
    story = Story()
    story.episode("Alice", ("API Migration", "DEPENDS_ON", "Auth Refactor"))
    story.episode("Bob", ("Billing Export", "DEPENDS_ON", "Ledger Rewrite"))
    clusters, _ = cluster(story)
    assert clusters == ()


def test_pair_mode_needs_the_exact_triple() -> None:
    story = Story()
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Search"))
    clusters, _ = cluster(story)
    assert clusters == ()


def test_components_smaller_than_the_minimum_are_not_clusters() -> None:
    story = seed_story()
    story.episode("Dana", ("Dana", "RESPONSIBLE_FOR", "Docs"))
    story.episode("Dana", ("Dana", "RESPONSIBLE_FOR", "Docs"))
    assert len(cluster(story)[0]) == 2
    assert [c.episode_ids for c in cluster(story, min_cluster_episodes=3)[0]] == [(1, 2, 3)]


def test_an_empty_input_gives_no_clusters() -> None:
    result = cluster_episodes([], LINKING, {})
    assert result.clusters == ()
    assert result.audit["episodes"] == 0


def test_rows_may_come_from_an_iterator() -> None:
    story = seed_story()
    result = cluster_episodes(iter(story.rows), LINKING, story.authors)
    assert [c.episode_ids for c in result.clusters] == [(1, 2, 3)]


# -- hub suppression --------------------------------------------------------------------------

BOILERPLATE = ("Platform Org", "RESPONSIBLE_FOR", "Infrastructure Budget")


def forty_updates_with_boilerplate_and_a_shared_blocker() -> tuple[Story, dict[str, list[int]]]:
    """10 workstreams blocked on the auth refactor, 10 pairs of weekly updates about a feature,
    10 unrelated one-off updates; the budget boilerplate is restated in half of all 40."""
    story = Story().declare("Team", "Platform Org").declare("Status", "Blocked", "On Track")
    groups: dict[str, list[int]] = {"workstreams": [], "pairs": [], "singles": []}
    for i in range(10):
        facts = [
            (f"Person {i}", "RESPONSIBLE_FOR", f"Workstream {i}"),
            (f"Workstream {i}", "DEPENDS_ON", "Auth Refactor"),
            (f"Workstream {i}", "HAS_STATUS", "Blocked"),
        ]
        groups["workstreams"].append(story.episode(f"Person {i}", *facts, *(
            [BOILERPLATE] if i < 5 else [])))
    for j in range(10):
        for week in range(2):
            facts = [
                (f"Dev {j}", "RESPONSIBLE_FOR", f"Feature {j}"),
                (f"Feature {j}", "HAS_STATUS", "On Track"),
            ]
            boilerplate = [BOILERPLATE] if week == 0 else []
            groups["pairs"].append(story.episode(f"Dev {j}", *facts, *boilerplate, day=7 * week))
    for k in range(10):
        facts = [(f"Helper {k}", "RESPONSIBLE_FOR", f"Chore {k}")]
        groups["singles"].append(story.episode(f"Helper {k}", *facts, *(
            [BOILERPLATE] if k < 5 else [])))
    return story, groups


def test_boilerplate_is_suppressed_while_the_blocker_keeps_its_ten_workstreams() -> None:
    story, groups = forty_updates_with_boilerplate_and_a_shared_blocker()
    clusters, audit = cluster(story)

    boilerplate = candidate(audit, Signature(
        "RESPONSIBLE_FOR", story.id("Infrastructure Budget"), story.id("Platform Org")))
    assert boilerplate["suppressed"] is True
    assert boilerplate["episodes"] == 20
    assert boilerplate["share"] == 0.5
    assert boilerplate["multi_fact_episodes"] == 20
    assert boilerplate["aside_ratio"] == 1.0
    assert (boilerplate["facts"], boilerplate["restated_share"]) == (1, 0.95)
    # Without it: the 5 workstreams (joined by the blocker), 10 feature pairs and 5 one-offs.
    assert boilerplate["bridged_groups"] == 16

    blocker = candidate(audit, Signature("CHAIN", story.id("Auth Refactor")))
    assert blocker["suppressed"] is False
    assert blocker["aside_ratio"] == 0.0
    assert blocker["bridged_groups"] is None  # not an aside: bridging is not even asked

    by_size = sorted(clusters, key=lambda c: -len(c.episode_ids))
    assert by_size[0].episode_ids == tuple(groups["workstreams"])
    assert story.fact(*BOILERPLATE) not in by_size[0].fact_ids
    pairs = {c.episode_ids for c in by_size[1:]}
    expected_pairs = {tuple(groups["pairs"][i:i + 2]) for i in range(0, 20, 2)}
    assert pairs == expected_pairs  # the boilerplate chained no unrelated updates together
    assert all(story.fact(*BOILERPLATE) not in c.fact_ids for c in clusters)
    assert audit["suppressed_signatures"] == 1
    json.dumps(audit)


def test_authors_given_as_a_lookup_are_asked_once_for_the_hub_candidates_episodes_only() -> None:
    story, _ = forty_updates_with_boilerplate_and_a_shared_blocker()
    asked: list[set[int]] = []

    def authors_of(episodes):  # type: ignore[no-untyped-def]
        asked.append(set(episodes))
        return {e: story.authors[e] for e in episodes}

    with_mapping = cluster_episodes(story.rows, LINKING, story.authors)
    with_lookup = cluster_episodes(story.rows, LINKING, authors_of)

    assert (with_lookup.clusters, with_lookup.audit) == (with_mapping.clusters, with_mapping.audit)
    candidates = {c["signature"]["target"] for c in with_mapping.audit["hub_candidates"]}
    assert len(asked) == 1 and candidates
    carrying = {row[0] for row in story.rows if row[4] in candidates}
    assert asked[0] == carrying < set(story.authors)


def test_without_hub_suppression_the_boilerplate_chains_unrelated_updates_together() -> None:
    story, _ = forty_updates_with_boilerplate_and_a_shared_blocker()
    clusters, _ = cluster(story, hub_min_episodes=1000, hub_candidate_cap=1000)
    assert max(len(c.episode_ids) for c in clusters) == 35


def test_a_standing_ownership_restated_every_week_links_nothing() -> None:
    story = Story().declare("Status", "In Progress")
    dana = []
    for week in range(8):
        facts = [
            ("Dana", "RESPONSIBLE_FOR", "Project Atlas"),  # "as you know, I own Project Atlas"
            ("Dana", "RESPONSIBLE_FOR", f"Task {week}"),
            (f"Task {week}", "HAS_STATUS", "In Progress"),
        ]
        if week in (0, 1):
            facts.append((f"Task {week}", "DEPENDS_ON", "Search Index"))
        if week in (4, 5):
            facts.append((f"Task {week}", "DEPENDS_ON", "Billing API"))
        dana.append(story.episode("Dana", *facts, day=7 * week))
    eve = story.episode("Eve", ("Eve", "RESPONSIBLE_FOR", "Reports"),
                        ("Reports", "DEPENDS_ON", "Search Index"))
    finn = story.episode("Finn", ("Finn", "RESPONSIBLE_FOR", "Invoices"),
                         ("Invoices", "DEPENDS_ON", "Billing API"))
    for k in range(6):
        story.episode(f"Helper {k}", (f"Helper {k}", "RESPONSIBLE_FOR", f"Chore {k}"))

    clusters, audit = cluster(story)

    atlas = candidate(audit, Signature(
        "RESPONSIBLE_FOR", story.id("Project Atlas"), story.id("Dana")))
    # Connected to the other facts only through Dana herself, the author: an aside every week.
    assert (atlas["multi_fact_episodes"], atlas["aside_episodes"]) == (8, 8)
    assert atlas["suppressed"] is True
    assert [c.episode_ids for c in clusters] == [
        (dana[0], dana[1], eve), (dana[4], dana[5], finn)
    ]
    assert all(story.fact("Dana", "RESPONSIBLE_FOR", "Project Atlas") not in c.fact_ids
               for c in clusters)


def test_a_blocker_in_updates_that_say_nothing_else_about_the_waiting_work_is_kept() -> None:
    # "I'm on the checkout team. Our item 3 is blocked on the auth refactor." — the dependency
    # shares nothing with the other fact but the author, yet it is ten different facts.
    story = Story()
    for i in range(10):
        story.declare("Team", f"Team {i}")
        story.episode(f"Person {i}", (f"Person {i}", "MEMBER_OF", f"Team {i}"),
                      (f"Item {i}", "DEPENDS_ON", "Auth Refactor"))
    for k in range(10):
        story.episode(f"Helper {k}", (f"Helper {k}", "RESPONSIBLE_FOR", f"Chore {k}"))
    clusters, audit = cluster(story)
    blocker = candidate(audit, Signature("CHAIN", story.id("Auth Refactor")))
    assert (blocker["aside_ratio"], blocker["restated_share"]) == (1.0, 0.0)
    assert blocker["suppressed"] is False
    assert [c.episode_ids for c in clusters] == [tuple(range(1, 11))]


def test_the_authors_own_entity_would_otherwise_make_the_ownership_look_connected() -> None:
    story = Story().declare("Status", "In Progress")
    for week in range(6):
        story.episode("", ("Dana", "RESPONSIBLE_FOR", "Project Atlas"),
                      ("Dana", "RESPONSIBLE_FOR", f"Task {week}"))
    _, audit = cluster(story)
    atlas = candidate(audit, Signature(
        "RESPONSIBLE_FOR", story.id("Project Atlas"), story.id("Dana")))
    # No author recorded: Dana counts as a shared entity, so the ownership is not an aside.
    assert atlas["aside_episodes"] == 0
    assert atlas["suppressed"] is False


def test_many_customers_reporting_one_issue_in_updates_that_say_nothing_else_are_kept() -> None:
    story = Story().declare("Issue", "Error 502")
    for i in range(8):
        story.declare("Customer", f"Customer {i}")
        story.episode("", (f"Customer {i}", "REPORTED", "Error 502"))
    clusters, audit = cluster(story)
    error = candidate(audit, Signature("REPORTED", story.id("Error 502")))
    assert (error["multi_fact_episodes"], error["alone_episodes"]) == (0, 8)
    assert error["restated_share"] == 0.0
    assert error["suppressed"] is False
    assert [len(c.episode_ids) for c in clusters] == [8]


def test_a_heading_that_is_the_only_fact_of_every_agenda_it_heads_glues_nothing() -> None:
    # "MCPs blocked on unresolved concerns": one sentence atop every weekly agenda, and the only
    # thing read from most of them — before, it glued 30 agendas into one pattern.
    story = Story()
    heading = ("MCPs", "DEPENDS_ON", "Unresolved Concerns")
    agendas = [story.episode("Triage Bot", heading, day=7 * week) for week in range(30)]
    pair = [story.episode("Lena", ("Lena", "RESPONSIBLE_FOR", "Parser Rewrite"), day=d)
            for d in (1, 8)]

    clusters, audit = cluster(story)

    verdict = candidate(audit, Signature("CHAIN", story.id("Unresolved Concerns")))
    assert (verdict["alone_episodes"], verdict["multi_fact_episodes"]) == (30, 0)
    assert verdict["suppressed"] is True
    assert [c.episode_ids for c in clusters] == [tuple(pair)]
    assert not set(agendas) & {e for c in clusters for e in c.episode_ids}


def test_a_fact_that_only_shares_a_suppressed_signature_stays_evidence() -> None:
    # The footer restates that the launch depends on the security review; Grace says once that
    # her rollout does too. The footer is boilerplate, her dependency is not.
    story = Story()
    footer = ("Atlas Launch", "DEPENDS_ON", "Security Review")
    for i in range(12):
        story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"), footer)
    grace = story.episode("Grace", ("Grace", "RESPONSIBLE_FOR", "SSO Rollout"),
                          ("SSO Rollout", "DEPENDS_ON", "Security Review"))
    ines = story.episode("Ines", ("Ines", "RESPONSIBLE_FOR", "Onboarding"),
                         ("Grace", "RESPONSIBLE_FOR", "SSO Rollout"))

    result = cluster_episodes(story.rows, LINKING, story.authors)

    assert candidate(result.audit, Signature("CHAIN", story.id("Security Review")))[
        "suppressed"] is True
    assert result.suppressed_fact_ids == {story.fact(*footer)}
    (pair,) = result.clusters
    assert pair.episode_ids == (grace, ines)
    assert story.fact("SSO Rollout", "DEPENDS_ON", "Security Review") in pair.fact_ids


def test_an_aside_among_updates_that_are_connected_anyway_is_kept() -> None:
    story = Story().declare("Status", "Green")
    for week in range(6):
        story.episode("Dana", ("Platform Org", "RESPONSIBLE_FOR", "Budget"),
                      ("Dana", "RESPONSIBLE_FOR", "Search"), ("Search", "HAS_STATUS", "Green"),
                      day=7 * week)
    clusters, audit = cluster(story)
    budget = candidate(audit, Signature(
        "RESPONSIBLE_FOR", story.id("Budget"), story.id("Platform Org")))
    assert (budget["aside_ratio"], budget["bridged_groups"]) == (1.0, 1)
    assert budget["suppressed"] is False
    assert story.fact("Platform Org", "RESPONSIBLE_FOR", "Budget") in clusters[0].fact_ids


def test_two_boilerplate_sentences_restated_together_do_not_shield_each_other() -> None:
    story = Story()
    for i in range(12):
        story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"),
                      (f"Item {i}", "DEPENDS_ON", f"Service {i}"),
                      *([("Platform Org", "RESPONSIBLE_FOR", "Budget"),
                         ("Security Team", "RESPONSIBLE_FOR", "Audit")] if i < 8 else []))
    clusters, audit = cluster(story)
    assert [c["suppressed"] for c in audit["hub_candidates"]] == [True, True]
    assert clusters == ()


def test_an_ownership_restated_next_to_boilerplate_is_not_judged_by_the_boilerplate() -> None:
    # Grace's weekly note, once her statuses are superseded, holds only her ownership and the
    # template lines; the ownership is real (others wait on her rollout) and must keep linking.
    story = Story()
    boilerplate = ("Priya", "RESPONSIBLE_FOR", "Project Atlas")
    for i in range(12):
        story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"),
                      (f"Item {i}", "HAS_STATUS", "Blocked"), boilerplate)
    grace = [story.episode("Grace", ("Grace", "RESPONSIBLE_FOR", "SSO Rollout"), boilerplate,
                           day=7 * week) for week in range(4)]
    waiting = [story.episode(name, (name, "RESPONSIBLE_FOR", f"{name} Work"),
                             (f"{name} Work", "DEPENDS_ON", "SSO Rollout"),
                             ("Grace", "RESPONSIBLE_FOR", "SSO Rollout"))
               for name in ("Ines", "Jon")]

    clusters, audit = cluster(story)

    ownership = candidate(audit, Signature(
        "RESPONSIBLE_FOR", story.id("SSO Rollout"), story.id("Grace")))
    assert ownership["suppressed"] is False
    assert candidate(audit, Signature("RESPONSIBLE_FOR", story.id("Project Atlas"),
                                      story.id("Priya")))["suppressed"] is True
    assert [c.episode_ids for c in clusters] == [tuple(sorted([*grace, *waiting]))]


def test_small_graphs_have_no_hub_candidates() -> None:
    _, audit = cluster(seed_story())
    assert audit["hub_threshold"] == 5
    assert audit["hub_candidates"] == []


# -- the size cap -----------------------------------------------------------------------------


def two_projects_joined_by_one_update() -> tuple[Story, set[int], set[int]]:
    story = Story()
    projects: dict[str, set[int]] = {"A": set(), "B": set()}
    for name in projects:
        for i in range(30):
            facts = [
                (f"Owner {name}{i % 4}", "RESPONSIBLE_FOR", f"Item {name}{i % 5}"),
                (f"Item {name}{i % 5}", "DEPENDS_ON", f"Core {name}{i % 3}"),
            ]
            if i == 0:
                facts.append(("Guild Lead", "MEMBER_OF", "Guild"))
            projects[name].add(story.episode(f"Owner {name}{i % 4}", *facts, day=i))
    return story, projects["A"], projects["B"]


def test_a_component_over_the_size_cap_is_split_along_its_weak_seams() -> None:
    story, project_a, project_b = two_projects_joined_by_one_update()
    settings = {"max_cluster_episodes": 40, "hub_min_episodes": 1000, "hub_candidate_cap": 1000}
    clusters, audit = cluster(story, **settings)

    assert len(audit["splits"]) == 1
    split = audit["splits"][0]
    assert (split["component"], split["episodes"]) == (1, 60)
    assert sum(split["parts"]) + split["dropped_episodes"] == 60
    assert all(c.split_from == 1 for c in clusters)
    assert all(2 <= len(c.episode_ids) <= 40 for c in clusters)
    for part in clusters:
        assert set(part.episode_ids) <= project_a or set(part.episode_ids) <= project_b
        assert all(set(link.episode_ids) <= set(part.episode_ids) for link in part.links)


def test_an_oversized_chain_with_one_root_stays_one_cluster_and_is_never_cut_by_time() -> None:
    # Twelve workstreams blocked on one refactor, each restated every week for ten weeks: 120
    # updates, over the cap, but one dependency tree. Cutting it would publish look-alikes.
    story = Story()
    for week in range(10):
        for i in range(12):
            story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"),
                          (f"Item {i}", "DEPENDS_ON", "Auth Refactor"), day=7 * week + i / 12)

    clusters, audit = cluster(story, max_cluster_episodes=50)

    assert [len(c.episode_ids) for c in clusters] == [120]
    assert clusters[0].split_from is None
    (split,) = audit["splits"]
    assert (split["method"], split["parts"], split["still_oversized"]) == ("none", [120], [120])
    assert "one structure" in split["reason"]


def test_an_oversized_component_splits_into_whole_trees_each_over_all_its_weeks() -> None:
    story, project_a, project_b = two_projects_joined_by_one_update()
    settings = {"max_cluster_episodes": 40, "hub_min_episodes": 1000, "hub_candidate_cap": 1000}
    clusters, audit = cluster(story, **settings)

    assert audit["splits"][0]["method"] == "structure"
    assert sorted(set(c.episode_ids) for c in clusters) == sorted([project_a, project_b])


def oversized_support_queue() -> tuple[Story, dict[str, list[int]]]:
    """Fifteen weeks of two customers a week reporting each of two issues to one team's queue,
    with the episodes of each issue."""
    story = Story().declare("Team", "Support Team")
    issues: dict[str, list[int]] = {"Timeouts": [], "Login Failures": []}
    for week in range(15):
        for issue, customers in issues.items():
            for c in range(2):
                customer = f"{issue} Customer {c}"
                story.declare("Customer", customer).declare("Issue", issue)
                customers.append(story.episode(
                    "Agent", (customer, "REPORTED", issue),
                    ("Support Team", "RESPONSIBLE_FOR", "Queue"), day=7 * week))
    return story, issues


def test_an_oversized_support_queue_splits_by_issue() -> None:
    story, issues = oversized_support_queue()

    clusters, audit = cluster(story, max_cluster_episodes=50, hub_min_episodes=1000,
                              hub_candidate_cap=1000)

    assert audit["splits"][0]["method"] == "structure"
    assert sorted(c.episode_ids for c in clusters) == sorted(
        tuple(sorted(eps)) for eps in issues.values())


def test_a_message_resembling_an_issue_goes_with_it_when_its_queue_splits_by_issue() -> None:
    story, issues = oversized_support_queue()
    story.declare("Customer", "sam").declare("WorkItem", "acme/app#99")
    resembling = story.episode("sam", ("sam", "RESEMBLES", "Timeouts"),
                               ("sam", "REPORTED", "acme/app#99"), day=100)

    clusters, _ = cluster(story, max_cluster_episodes=50, hub_min_episodes=1000,
                          hub_candidate_cap=1000)

    assert sorted(c.episode_ids for c in clusters) == sorted([
        tuple(sorted([*issues["Timeouts"], resembling])), tuple(issues["Login Failures"])])


def test_a_split_part_keeps_the_facts_of_its_own_episodes_only() -> None:
    story, _, _ = two_projects_joined_by_one_update()
    settings = {"max_cluster_episodes": 40, "hub_min_episodes": 1000, "hub_candidate_cap": 1000}
    clusters, _ = cluster(story, **settings)
    for part in clusters:
        own = {f for e in part.episode_ids for f in story.episode_facts[e]}
        assert set(part.fact_ids) == own


def test_updates_elsewhere_in_the_graph_do_not_change_how_a_component_is_split() -> None:
    """A split depends on its component alone: unrelated updates arriving (another project's
    pairs) must not reshuffle its parts, or its observations would be retired for nothing."""
    settings = ClusteringSettings(max_cluster_episodes=20)
    graph = synthetic_graph(episodes=1500, seed=5, big_project_share=0.2)
    before = cluster_episodes(graph.rows, graph.linking, graph.authors, settings)
    assert before.audit["splits"], "the sample must exercise a split"
    rows, authors = list(graph.rows), dict(graph.authors)
    last_episode, last_fact = max(authors), max(row[1] for row in rows)
    base_entity = 1 + max(max(row[2], row[4]) for row in rows)
    for i in range(3000):  # 6,000 more episodes, in pairs sharing one dependency each
        source, target = base_entity + 2 * i, base_entity + 2 * i + 1
        for episode in (last_episode + 2 * i + 1, last_episode + 2 * i + 2):
            rows.append((episode, last_fact + i + 1, source, "DEPENDS_ON", target))
            authors[episode] = None

    after = cluster_episodes(rows, graph.linking, authors, settings)

    split_before = [c for c in before.clusters if c.split_from is not None]
    split_after = [c for c in after.clusters if c.split_from is not None]
    assert split_after == split_before
    assert after.audit["splits"] == before.audit["splits"]


def test_the_same_rows_in_any_order_give_the_same_clusters_and_audit() -> None:
    graph = synthetic_graph(episodes=2500, seed=3, big_project_share=0.2)
    settings = ClusteringSettings(hub_min_share=0.01, max_cluster_episodes=20)
    baseline = cluster_episodes(graph.rows, graph.linking, graph.authors, settings)
    assert baseline.audit["splits"], "the sample must exercise a split"
    assert baseline.audit["suppressed_signatures"], "and a suppressed hub"
    for seed in (1, 2, 3, 4):
        rows = list(graph.rows)
        random.Random(seed).shuffle(rows)
        shuffled = cluster_episodes(rows, graph.linking, graph.authors, settings)
        assert shuffled.clusters == baseline.clusters
        assert shuffled.audit == baseline.audit


def test_clusters_are_ordered_by_their_smallest_episode_and_never_share_episodes() -> None:
    graph = synthetic_graph(episodes=1500, seed=5, big_project_share=0.2)
    clusters = cluster_episodes(graph.rows, graph.linking, graph.authors).clusters
    firsts = [c.episode_ids[0] for c in clusters]
    assert firsts == sorted(firsts)
    episodes = [e for c in clusters for e in c.episode_ids]
    assert len(episodes) == len(set(episodes))
    assert all(list(c.episode_ids) == sorted(c.episode_ids) for c in clusters)
    assert all(list(c.fact_ids) == sorted(c.fact_ids) for c in clusters)


def test_the_audit_is_json_serializable_and_records_the_settings() -> None:
    graph = synthetic_graph(episodes=1500, seed=5, big_project_share=0.2)
    audit = cluster_episodes(graph.rows, graph.linking, graph.authors).audit
    assert json.loads(json.dumps(audit))["settings"] == ClusteringSettings().as_dict()


# -- settings ---------------------------------------------------------------------------------


def test_settings_read_a_graphs_overrides_and_ignore_unrelated_keys() -> None:
    settings = ClusteringSettings.from_mapping(
        {"max_cluster_episodes": 80, "hub_aside_ratio": 0.75, "settle_seconds": 30}
    )
    assert settings.max_cluster_episodes == 80
    assert settings.hub_aside_ratio == 0.75
    assert settings.min_cluster_episodes == 2


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"min_cluster_episodes": 1}, "min_cluster_episodes"),
        ({"hub_aside_ratio": 1.5}, "hub_aside_ratio"),
        ({"max_cluster_episodes": "many"}, "max_cluster_episodes"),
        ({"hub_min_episodes": 1.5}, "hub_min_episodes"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(overrides: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ClusteringSettings.from_mapping(overrides)


# -- what the audit records of an oversized component, figure by figure (issue #18) ------------

NO_HUBS = {"hub_min_episodes": 1000, "hub_candidate_cap": 1000}


def two_trees_and_an_issue_glued_by_ownerships() -> Story:
    """Four items waiting on Alpha Core (updates 1–4), two on Beta Core (5–6), one report (7);
    two ownerships restated across them glue everything into one component."""
    story = Story().declare("Customer", "Acme").declare("Issue", "Outage")
    infra, tools = ("Ops", "RESPONSIBLE_FOR", "Infra"), ("Ops", "RESPONSIBLE_FOR", "Tools")
    for i in range(1, 5):
        glue = [infra] if i == 1 else [tools] if i == 2 else []
        story.episode("", (f"A{i}", "DEPENDS_ON", "Alpha Core"), *glue)
    for i in range(1, 3):
        story.episode("", (f"B{i}", "DEPENDS_ON", "Beta Core"), infra if i == 1 else tools)
    story.episode("", ("Acme", "REPORTED", "Outage"), infra)
    return story


def test_a_split_records_its_parts_the_parts_dropped_and_the_signatures_it_cut() -> None:
    # A part exactly at the size cap is not oversized; one exactly at the minimum is kept.
    clusters, audit = cluster(two_trees_and_an_issue_glued_by_ownerships(),
                              max_cluster_episodes=4, **NO_HUBS)

    assert [c.episode_ids for c in clusters] == [(1, 2, 3, 4), (5, 6)]
    assert audit["splits"] == [{
        "component": 1, "episodes": 7, "method": "structure", "parts": [4, 2],
        "dropped_parts": [1], "dropped_episodes": 1, "still_oversized": [],
        "cut_signatures": 2,  # Ops owning Infra (3 parts) and Ops owning Tools (2 parts)
    }]


def test_a_component_with_one_structure_is_recorded_as_kept_whole_and_why() -> None:
    story = Story()
    for i in range(5):
        story.episode("", (f"Item {i}", "DEPENDS_ON", "Auth Refactor"))

    clusters, audit = cluster(story, max_cluster_episodes=4, **NO_HUBS)

    assert [len(c.episode_ids) for c in clusters] == [5]
    assert audit["splits"] == [{
        "component": 1, "episodes": 5, "method": "none", "parts": [5], "dropped_parts": [],
        "dropped_episodes": 0, "still_oversized": [5], "cut_signatures": 0,
        "reason": "one structure: no separate dependency trees or issues to cut along",
    }]


def test_a_whole_number_given_as_a_decimal_is_read_as_an_integer_and_a_fraction_refused() -> None:
    assert type(ClusteringSettings.from_mapping({"max_cluster_episodes": 80.0})
                .max_cluster_episodes) is int
    with pytest.raises(ValueError, match="max_cluster_episodes must be an integer"):
        ClusteringSettings.from_mapping({"max_cluster_episodes": 80.5})


def test_a_signature_cut_by_a_split_keeps_in_each_part_only_that_parts_updates_and_facts() -> None:
    story = Story().declare("Customer", "Acme", "Globex", "Initech", "Umbrella")
    story.declare("Issue", "Outage", "Slowness").declare("Product", "Checkout")
    ops = ("Ops", "RESPONSIBLE_FOR", "Infra")
    outage_affects = ("Outage", "AFFECTS", "Checkout")
    story.episode("", ("Acme", "REPORTED", "Outage"), outage_affects, ops)
    story.episode("", ("Globex", "REPORTED", "Outage"), outage_affects, ops)
    story.episode("", ("Initech", "REPORTED", "Slowness"), ("Slowness", "AFFECTS", "Checkout"),
                  ops)
    story.episode("", ("Umbrella", "REPORTED", "Slowness"))

    clusters, _ = cluster(story, max_cluster_episodes=3, **NO_HUBS)

    outage, slowness = clusters
    assert (outage.episode_ids, slowness.episode_ids) == ((1, 2), (3, 4))
    links = {(link.source_id, link.relation, link.target_id): (link.episode_ids, link.fact_ids)
             for link in outage.links}
    # Checkout's AFFECTS signature and Ops' ownership ran into the other part: cut to this one.
    assert links[(None, "AFFECTS", story.id("Checkout"))] == (
        (1, 2), (story.fact(*outage_affects),))
    assert links[(story.id("Ops"), "RESPONSIBLE_FOR", story.id("Infra"))] == (
        (1, 2), (story.fact(*ops),))
    # In the other part each of them is on one update only: no link there.
    assert [(link.relation, link.episode_ids) for link in slowness.links] == [("REPORTED", (3, 4))]


def test_an_update_about_no_structure_goes_with_the_structure_its_signatures_lead_to() -> None:
    story = Story()
    story.episode("", ("A1", "DEPENDS_ON", "Alpha Core"), ("Ann", "RESPONSIBLE_FOR", "A1"))
    story.episode("", ("A2", "DEPENDS_ON", "Alpha Core"), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    story.episode("", ("B1", "DEPENDS_ON", "Beta Core"), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    story.episode("", ("B2", "DEPENDS_ON", "Beta Core"))
    ownership_again = story.episode("", ("Ann", "RESPONSIBLE_FOR", "A1"))

    clusters, _ = cluster(story, max_cluster_episodes=4, **NO_HUBS)

    assert [c.episode_ids for c in clusters] == [(1, 2, ownership_again), (3, 4)]


def test_an_update_about_two_trees_goes_with_the_one_most_of_its_facts_are_about() -> None:
    story = Story()
    story.episode("", ("X1", "DEPENDS_ON", "X Core"))
    story.episode("", ("X2", "DEPENDS_ON", "X Core"))
    story.episode("", ("Y1", "DEPENDS_ON", "Y Core"))
    story.episode("", ("Y2", "DEPENDS_ON", "Y Core"))
    mostly_y = story.episode("", ("X3", "DEPENDS_ON", "X Core"), ("Y3", "DEPENDS_ON", "Y Core"),
                             ("Y4", "DEPENDS_ON", "Y Core"))

    clusters, _ = cluster(story, max_cluster_episodes=4, **NO_HUBS)

    assert [c.episode_ids for c in clusters] == [(1, 2), (3, 4, mostly_y)]


# -- the hub candidates' audit, figure by figure and in words (issue #18) ----------------------

BUDGET = ("Org", "RESPONSIBLE_FOR", "Budget")
GUILD = ("Lead", "RESPONSIBLE_FOR", "Guild")
INFRA = ("Ops", "RESPONSIBLE_FOR", "Infra")


def four_kinds_of_hub_candidate() -> Story:
    """19 updates and four signatures on 3 or 4 of them, each judged for another reason:
    the budget line is boilerplate (an aside restated across four unrelated pairs), the guild
    ownership is connected to what its updates say, the refactor is an aside but many different
    dependencies, the infra line a restated aside whose updates are connected anyway."""
    story = Story()
    for a, b in [("P1", "W1"), ("P2", "W2"), ("Org", "Team")]:
        story.episode("", (a, "RESPONSIBLE_FOR", b), BUDGET)
    for a, b in [("P1", "W1"), ("P2", "W2"), ("Org", "Team")]:
        story.episode("", (a, "RESPONSIBLE_FOR", b))
    story.episode("", GUILD, ("Lead", "RESPONSIBLE_FOR", "Plan"))
    story.episode("", GUILD, ("Guild", "RESPONSIBLE_FOR", "Event"))
    story.episode("", GUILD, ("X", "RESPONSIBLE_FOR", "Y"))
    story.episode("", ("S1", "DEPENDS_ON", "Refactor"), ("M1", "RESPONSIBLE_FOR", "N1"))
    story.episode("", ("S2", "DEPENDS_ON", "Refactor"), ("M2", "RESPONSIBLE_FOR", "N2"))
    # What the refactor itself waits on, next to who owns it: connected through the refactor.
    story.episode("", ("Refactor", "DEPENDS_ON", "Vendor"), ("Kim", "RESPONSIBLE_FOR", "Refactor"))
    story.episode("", INFRA, ("Q1", "RESPONSIBLE_FOR", "R1"))
    story.episode("", INFRA, ("Q1", "RESPONSIBLE_FOR", "R1"), ("Q2", "RESPONSIBLE_FOR", "R2"))
    story.episode("", INFRA, ("Q2", "RESPONSIBLE_FOR", "R2"))
    story.episode("", ("U1", "RESPONSIBLE_FOR", "V1"))
    story.episode("", ("U2", "RESPONSIBLE_FOR", "V2"))
    story.episode("", ("P3", "RESPONSIBLE_FOR", "W3"), BUDGET)
    story.episode("", ("P3", "RESPONSIBLE_FOR", "W3"))
    return story


def test_every_hub_candidate_is_audited_with_its_figures_and_the_reason_in_words() -> None:
    story = four_kinds_of_hub_candidate()

    _, audit = cluster(story, hub_min_episodes=3)

    def signature(source: str | None, relation: str, target: str) -> dict:
        return {"source": story.id(source) if source else None, "relation": relation,
                "target": story.id(target)}

    assert audit["hub_candidates"] == [
        {"signature": signature(*BUDGET), "episodes": 4, "share": 0.2105, "facts": 1,
         "restated_share": 0.75, "multi_fact_episodes": 4, "aside_episodes": 3,
         "alone_episodes": 0, "aside_ratio": 0.75, "bridged_groups": 4, "suppressed": True,
         "reason": "suppressed: a restated aside (1 facts over 4 episodes, an aside in 3 of 4 "
                   "multi-fact episodes, alone in 0), bridging 4 otherwise separate groups"},
        {"signature": signature(None, "CHAIN", "Refactor"), "episodes": 3, "share": 0.1579,
         "facts": 3, "restated_share": 0.0, "multi_fact_episodes": 3, "aside_episodes": 2,
         "alone_episodes": 0, "aside_ratio": 0.6667, "bridged_groups": None, "suppressed": False,
         "reason": "kept: an aside, but 3 different facts over 3 episodes: many things pointing "
                   "at one target, not one statement restated"},
        {"signature": signature(*GUILD), "episodes": 3, "share": 0.1579, "facts": 1,
         "restated_share": 0.6667, "multi_fact_episodes": 3, "aside_episodes": 1,
         "alone_episodes": 0, "aside_ratio": 0.3333, "bridged_groups": None, "suppressed": False,
         "reason": "kept: connected to the rest of its update in 2 of 3 multi-fact episodes"},
        {"signature": signature(*INFRA), "episodes": 3, "share": 0.1579, "facts": 1,
         "restated_share": 0.6667, "multi_fact_episodes": 3, "aside_episodes": 3,
         "alone_episodes": 0, "aside_ratio": 1.0, "bridged_groups": 1, "suppressed": False,
         "reason": "kept: a restated aside (an aside in 3 of 3 multi-fact episodes, alone in 0), "
                   "but its episodes are connected without it"},
    ]


def test_a_candidate_exactly_at_every_threshold_is_suppressed() -> None:
    # The budget line: an aside in 3 of 4 updates (0.75), 0.75 restated, bridging 4 groups.
    _, audit = cluster(four_kinds_of_hub_candidate(), hub_min_episodes=3, hub_aside_ratio=0.75,
                       hub_min_restated_share=0.75, hub_min_bridged_groups=4)

    budget = audit["hub_candidates"][0]
    assert (budget["aside_ratio"], budget["restated_share"], budget["bridged_groups"]) == (
        0.75, 0.75, 4)
    assert budget["suppressed"] is True


def test_a_restated_aside_bridging_fewer_groups_than_asked_is_kept_and_still_links_them() -> None:
    story = Story()
    story.episode("", INFRA, ("Q1", "RESPONSIBLE_FOR", "R1"))
    story.episode("", INFRA, ("Q2", "RESPONSIBLE_FOR", "R2"))
    story.episode("", INFRA, ("Q2", "RESPONSIBLE_FOR", "R2"))
    story.episode("", ("Q1", "RESPONSIBLE_FOR", "R1"))

    clusters, audit = cluster(story, hub_min_episodes=3, hub_min_bridged_groups=3)

    (infra,) = audit["hub_candidates"]
    assert (infra["bridged_groups"], infra["suppressed"]) == (2, False)
    assert [c.episode_ids for c in clusters] == [(1, 2, 3, 4)]


def test_a_suppressed_dependency_footer_plays_no_part_in_how_a_component_is_split() -> None:
    # "Atlas depends on the review" is restated as a footer in three unrelated updates: it is
    # suppressed, and must not pull the updates it sits in out of their own trees.
    story = Story()
    footer = ("Atlas", "DEPENDS_ON", "Review")
    story.episode("", footer, ("A1", "DEPENDS_ON", "Alpha"), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    for i in range(2, 5):
        story.episode("", (f"A{i}", "DEPENDS_ON", "Alpha"))
    story.episode("", ("B1", "DEPENDS_ON", "Beta"), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    story.episode("", footer, ("B2", "DEPENDS_ON", "Beta"))
    story.episode("", footer, ("U1", "RESPONSIBLE_FOR", "V1"))
    story.episode("", ("U1", "RESPONSIBLE_FOR", "V1"))

    result = cluster_episodes(story.rows, LINKING, story.authors,
                              ClusteringSettings(hub_min_episodes=3, max_cluster_episodes=4))

    assert result.suppressed_fact_ids == {story.fact(*footer)}
    assert [c.episode_ids for c in result.clusters] == [(1, 2, 3, 4), (5, 6), (7, 8)]


def test_the_audit_counts_the_updates_signatures_and_what_was_suppressed() -> None:
    clusters, audit = cluster(four_kinds_of_hub_candidate(), hub_min_episodes=3)

    # 21 signatures, 10 of them on two updates or more; 7 pairs and triples are left once the
    # budget line is suppressed (the two one-off updates join nothing).
    assert {k: v for k, v in audit.items() if k not in ("hub_candidates", "settings")} == {
        "episodes": 19, "rows": 33, "signatures": 21, "shared_signatures": 10,
        "hub_threshold": 3, "suppressed_signatures": 1, "suppressed_facts": 1,
        "components": 7, "clusters": 7, "clustered_episodes": 17, "splits": [],
    }
    assert len(clusters) == 7


def test_a_fact_restated_in_two_updates_is_cited_once_by_the_link_it_makes() -> None:
    story = seed_story()
    (seed,), _ = cluster(story)

    owns = next(link for link in seed.links
                if link.signature == Signature("RESPONSIBLE_FOR", story.id("Auth Service Refactor"),
                                               story.id("Backend Team")))

    assert owns.fact_ids == (
        story.fact("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),)


def test_a_component_exactly_at_the_size_cap_is_not_split() -> None:
    story = Story()
    story.episode("", ("A1", "DEPENDS_ON", "Alpha"), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    story.episode("", ("A2", "DEPENDS_ON", "Alpha"))
    story.episode("", ("B1", "DEPENDS_ON", "Beta"), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    story.episode("", ("B2", "DEPENDS_ON", "Beta"))

    clusters, audit = cluster(story, max_cluster_episodes=4, **NO_HUBS)

    assert [c.episode_ids for c in clusters] == [(1, 2, 3, 4)]
    assert audit["splits"] == []


def test_splits_are_audited_in_the_order_of_their_components_first_update() -> None:
    # Two oversized components whose updates interleave: X holds 1, 4, 5, Y holds 2, 3, 6.
    story = Story()
    for episode, (tree, item) in enumerate(
            [("X", "X1"), ("Y", "Y1"), ("Y", "Y2"), ("X", "X2"), ("X", "X3"), ("Y", "Y3")]):
        story.episode("", (item, "DEPENDS_ON", f"{tree} Core"), day=episode)

    _, audit = cluster(story, max_cluster_episodes=2, **NO_HUBS)

    assert [split["component"] for split in audit["splits"]] == [1, 2]


def test_an_update_naming_an_item_at_both_ends_of_a_dependency_hides_no_other_link() -> None:
    # Update 1 says A waits on X and X on B: X's signature twice in one update links nothing.
    story = Story()
    story.episode("", ("A", "DEPENDS_ON", "X"), ("X", "DEPENDS_ON", "B"))
    story.episode("Ann", ("Ann", "RESPONSIBLE_FOR", "Search"))
    story.episode("Ann", ("Ann", "RESPONSIBLE_FOR", "Search"))

    clusters, _ = cluster(story)

    assert [c.episode_ids for c in clusters] == [(2, 3)]


@pytest.mark.parametrize(
    "overrides",
    [
        {"min_cluster_episodes": 2, "max_cluster_episodes": 2},
        {"hub_min_episodes": 2, "hub_candidate_cap": 2, "hub_min_bridged_groups": 1},
        {"hub_min_share": 1.0, "hub_aside_ratio": 0.0, "hub_min_restated_share": 0.0},
        {"hub_aside_ratio": 1.0, "hub_min_restated_share": 1.0},
    ],
)
def test_settings_at_the_edges_of_their_ranges_are_accepted(overrides: dict) -> None:
    settings = ClusteringSettings.from_mapping(overrides)

    assert {name: getattr(settings, name) for name in overrides} == overrides


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"hub_min_episodes": 1}, "hub_min_episodes is out of range: 1"),
        ({"hub_min_share": 0.0}, "hub_min_share is out of range: 0.0"),
        ({"hub_min_share": 1.5}, "hub_min_share is out of range: 1.5"),
        ({"hub_candidate_cap": 1}, "hub_candidate_cap is out of range: 1"),
        ({"hub_aside_ratio": -0.5}, "hub_aside_ratio is out of range: -0.5"),
        ({"hub_min_restated_share": 1.5}, "hub_min_restated_share is out of range: 1.5"),
        ({"hub_min_bridged_groups": 0}, "hub_min_bridged_groups is out of range: 0"),
        ({"min_cluster_episodes": 3, "max_cluster_episodes": 2},
         "max_cluster_episodes is out of range: 2"),
    ],
)
def test_settings_just_outside_their_ranges_are_refused_naming_the_field_and_value(
    overrides: dict, message: str,
) -> None:
    with pytest.raises(ValueError, match=f"^clustering setting {message}$"):
        ClusteringSettings.from_mapping(overrides)
