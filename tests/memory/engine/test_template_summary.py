"""The template summarizer: the seed's exact prose, valid citations, bounded lengths, no causes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory.engine.clustering import cluster_episodes
from memory.engine.structure import analyse_cluster
from memory.engine.template_summary import summarize_with_template
from memory.engine.types import MAX_CLAIM_CHARS, MAX_CLAIMS, MAX_NAME_CHARS, Summary
from memory.engine.types import validate_summary as problems_of
from tests.memory.engine.stories import LINKING, Story, seed_story
from tests.memory.engine.test_structure import login_timeouts

CAUSAL = ("because", "caused by", "cause", "due to", "led to", "leads to", "results in",
          "resulted in", "responsible for the outage")


def summaries(
    story: Story, linking: dict[str, str] = LINKING
) -> list[tuple[Summary, tuple[int, ...]]]:
    """(summary, cluster fact ids) for every cluster of the story."""
    out = []
    for cluster in cluster_episodes(story.rows, linking, story.authors).clusters:
        structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes)
        out.append(
            (summarize_with_template(structure, story.facts, story.entities, story.episodes),
             cluster.fact_ids)
        )
    return out


def summary_of(story: Story, linking: dict[str, str] = LINKING) -> Summary:
    (summary, _), = summaries(story, linking)
    return summary


# -- the seed ---------------------------------------------------------------------------------


def test_the_seed_summary_names_the_root_blocker_and_what_unblocking_it_clears() -> None:
    summary = summary_of(seed_story())
    assert summary.name == "Auth Service Refactor blocking 3 workstreams"
    assert [claim.text for claim in summary.claims] == [
        "The Auth Service Refactor, owned by the Backend Team, is the root blocker of a "
        "dependency chain across 3 workstreams.",
        "Alice's API Migration and Bob's Payments Integration wait on it directly.",
        "Clara's Checkout Flow is blocked downstream, through the Payments Integration.",
        "Unblocking the Auth Service Refactor clears all 3 workstreams and the 3 people waiting "
        "on them: Alice, Bob and Clara.",
    ]
    assert summary.summary == " ".join(claim.text for claim in summary.claims)


def test_each_seed_claim_cites_the_facts_that_say_it() -> None:
    story = seed_story()
    claims = summary_of(story).claims
    fact = story.fact
    assert set(claims[0].fact_ids) == {
        fact("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
        fact("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
        fact("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
        fact("Checkout Flow", "DEPENDS_ON", "Payments Integration"),
    }
    assert set(claims[1].fact_ids) == {
        fact("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
        fact("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
        fact("Alice", "RESPONSIBLE_FOR", "API Migration"),
        fact("Bob", "RESPONSIBLE_FOR", "Payments Integration"),
    }
    assert set(claims[2].fact_ids) == {
        fact("Checkout Flow", "DEPENDS_ON", "Payments Integration"),
        fact("Clara", "RESPONSIBLE_FOR", "Checkout Flow"),
    }
    assert fact("Clara", "RESPONSIBLE_FOR", "Checkout Flow") in claims[3].fact_ids


def test_the_same_structure_always_gets_the_same_words() -> None:
    assert summary_of(seed_story()) == summary_of(seed_story())


# -- harder chains ----------------------------------------------------------------------------


def test_a_blocker_holding_up_many_workstreams_names_a_few_and_counts_the_others() -> None:
    story = Story().declare("Team", "Identity Team")
    for i in range(8):
        story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"),
                      (f"Item {i}", "DEPENDS_ON", "SSO"),
                      ("Identity Team", "RESPONSIBLE_FOR", "SSO"))
    summary = summary_of(story)
    assert summary.name == "SSO blocking 8 workstreams"
    assert summary.claims[1].text == (
        "Person 0's Item 0, Person 1's Item 1, Person 2's Item 2 and 5 others wait on it directly."
    )
    assert summary.claims[2].text == (
        "Unblocking the SSO clears all 8 workstreams and the 8 people waiting on them: "
        "Person 0, Person 1, Person 2 and 5 others."
    )


def test_several_root_blockers_are_each_named() -> None:
    story = Story()
    for i, blocker in enumerate(["Zeta API", "Zeta API", "Alpha DB", "Beta Queue"]):
        story.episode(f"Person {i}", (f"Person {i}", "RESPONSIBLE_FOR", f"Item {i}"),
                      (f"Item {i}", "DEPENDS_ON", blocker), ("Ops", "RESPONSIBLE_FOR", "Infra"))
    summary = summary_of(story)
    assert summary.name == "Zeta API and 2 other blockers holding up 4 workstreams"
    texts = [claim.text for claim in summary.claims]
    assert "The Alpha DB, with no owner named in these updates, separately blocks 1 workstream: " \
           "Person 2's Item 2." in texts
    assert "The Beta Queue, with no owner named in these updates, separately blocks 1 " \
           "workstream: Person 3's Item 3." in texts


def test_a_blocking_cycle_is_described_as_a_cycle() -> None:
    story = Story()
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"),
                  ("Search", "DEPENDS_ON", "Index"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Index"), ("Index", "DEPENDS_ON", "Search"),
                  ("Search", "DEPENDS_ON", "Index"))
    story.episode("Clara", ("Clara", "RESPONSIBLE_FOR", "Reports"),
                  ("Reports", "DEPENDS_ON", "Search"), ("Bob", "RESPONSIBLE_FOR", "Index"))
    summary = summary_of(story)
    assert summary.name == "Dependency cycle of Index and Search blocking 1 workstream"
    assert summary.claims[0].text == (
        "The Index and the Search wait on each other in a dependency cycle (owned by Alice and "
        "Bob), and nothing outside the cycle unblocks them; together they are the root blocker "
        "of 1 workstream."
    )
    assert summary.claims[1].text == "Clara's Reports waits on the cycle directly."


def test_a_cycle_that_is_not_the_root_gets_its_own_sentence() -> None:
    story = Story()
    story.episode("Alice", ("Search", "DEPENDS_ON", "Index"), ("Index", "DEPENDS_ON", "Search"))
    story.episode("Bob", ("Index", "DEPENDS_ON", "Search"), ("Index", "DEPENDS_ON", "Storage"))
    texts = [claim.text for claim in summary_of(story).claims]
    assert "The Search and the Index also wait on each other in a cycle." in texts


def test_a_chain_without_owners_says_so() -> None:
    story = Story()
    story.episode("", ("Search", "DEPENDS_ON", "Index"))
    story.episode("", ("Reports", "DEPENDS_ON", "Index"), ("Export", "DEPENDS_ON", "Reports"))
    summary = summary_of(story)
    assert [claim.text for claim in summary.claims] == [
        "The Index, with no owner named in these updates, is the root blocker of a dependency "
        "chain across 3 workstreams.",
        "The Reports and the Search wait on it directly.",
        "The Export is blocked downstream, through the Reports.",
        "Unblocking the Index clears all 3 workstreams.",
    ]


def test_a_blocker_holding_up_one_person_names_who_it_unblocks() -> None:
    story = Story().declare("Person", "Bob", "Clara")
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Payments"))
    story.episode("Clara", ("Clara", "RESPONSIBLE_FOR", "Checkout"),
                  ("Checkout", "DEPENDS_ON", "Payments"), ("Bob", "RESPONSIBLE_FOR", "Payments"))

    last = summary_of(story).claims[-1].text

    assert last == (
        "Unblocking the Payments clears the one workstream waiting on it and unblocks Clara."
    )


# -- recurring issues -------------------------------------------------------------------------


def two_issues_after_one_release() -> Story:
    story = login_timeouts()
    story.declare("Issue", "Blank Invoice").declare("Customer", "Umbrella")
    story.episode("Support", ("Umbrella", "REPORTED", "Blank Invoice"),
                  ("Blank Invoice", "PRECEDED_BY", "Release 4.2"), day=4)
    story.episode("Support", ("Acme", "REPORTED", "Blank Invoice"),
                  ("Blank Invoice", "PRECEDED_BY", "Release 4.2"), day=5)
    return story


def test_a_recurring_issue_reports_who_saw_it_when_and_what_came_before() -> None:
    summary = summary_of(login_timeouts())
    assert summary.name == "Login Timeout reported by 3 customers"
    assert [claim.text for claim in summary.claims] == [
        "Acme (2 Mar), Globex (3 Mar) and Initech (5 Mar) reported the Login "
        "Timeout.",
        "The Login Timeout affects the Checkout.",
        "The Login Timeout followed Release 4.2 (in 2 updates) and the Maintenance (in 1 update), "
        "a recurring pattern worth investigating.",
    ]


def test_an_event_before_several_issues_is_reported_as_worth_investigating() -> None:
    texts = [claim.text for claim in summary_of(two_issues_after_one_release()).claims]
    assert "Release 4.2 came before the Login Timeout and the Blank Invoice in 4 updates, a " \
           "recurring pattern worth investigating." in texts


@pytest.mark.parametrize("story", [login_timeouts, two_issues_after_one_release])
def test_a_recurring_issue_never_asserts_a_cause(story: Callable[[], Story]) -> None:
    summary = summary_of(story())
    words = " ".join([summary.name, summary.summary]).lower()
    assert "worth investigating" in words
    for phrase in CAUSAL:
        assert phrase not in words, phrase


# -- shared context ---------------------------------------------------------------------------


def test_shared_context_describes_what_the_updates_share_and_cites_it() -> None:
    story = Story().declare("Team", "Backend Team")
    story.episode("Alice", ("Backend Team", "RESPONSIBLE_FOR", "Auth Service"),
                  ("Alice", "MEMBER_OF", "Backend Team"), day=0)
    story.episode("Bob", ("Backend Team", "RESPONSIBLE_FOR", "Auth Service"), day=2)
    summary = summary_of(story)
    ownership = story.fact("Backend Team", "RESPONSIBLE_FOR", "Auth Service")
    assert summary.name == "2 updates about Backend Team and Auth Service"
    assert [(claim.text, claim.fact_ids) for claim in summary.claims] == [
        ("Alice and Bob wrote these 2 related updates between 2 Mar and 4 Mar.",
         (ownership,)),
        ("2 updates state that the Backend Team is responsible for the Auth Service.",
         (ownership,)),
    ]


def test_shared_context_through_a_target_names_the_sources() -> None:
    story = Story().declare("Customer", "Acme", "Globex").declare("Product", "Chips")
    story.episode("Buyer", ("Acme", "SUPPLIES", "Chips"), ("Acme", "USES", "Chips"))
    story.episode("Buyer", ("Globex", "SUPPLIES", "Chips"))
    story.episode("Buyer", ("Globex", "SUPPLIES", "Chips"), ("Chips", "HAS_STATUS", "Short"))
    summary = summary_of(story, {**LINKING, "SUPPLIES": "target"})
    assert summary.name == "3 updates about Chips"
    assert summary.claims[-1].text == "3 updates say that Acme and Globex supply the Chips."


# -- always valid -----------------------------------------------------------------------------


def sample_stories() -> list[Story]:
    long_name = "Very Long Work Item Name " * 12
    long = Story()
    for i in range(12):
        long.episode(f"Person {i} {long_name}", (f"Person {i} {long_name}", "RESPONSIBLE_FOR",
                                                  f"Item {i} {long_name}"),
                     (f"Item {i} {long_name}", "DEPENDS_ON", f"Blocker {i % 5} {long_name}"),
                     ("Ops", "RESPONSIBLE_FOR", f"Blocker {i % 5} {long_name}"))
    return [seed_story(), login_timeouts(), two_issues_after_one_release(), long]


@pytest.mark.parametrize("story", sample_stories())
def test_every_summary_cites_only_its_cluster_and_stays_within_bounds(story: Story) -> None:
    for summary, fact_ids in summaries(story):
        assert problems_of(summary, fact_ids) == []
        assert len(summary.name) <= MAX_NAME_CHARS
        assert len(summary.claims) <= MAX_CLAIMS
        assert all(len(claim.text) <= MAX_CLAIM_CHARS for claim in summary.claims)
        assert all(claim.fact_ids for claim in summary.claims)
