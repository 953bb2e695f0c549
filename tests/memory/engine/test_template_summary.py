"""The template summarizer: the seed's exact prose, valid citations, bounded lengths, no causes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from memory.engine.clustering import cluster_episodes
from memory.engine.context import (
    EndedReport,
    build_context,
    extend_clusters,
    settle_dependencies,
)
from memory.engine.structure import analyse_cluster
from memory.engine.template_summary import (
    and_list,
    clip,
    duration,
    reads_plural,
    sentence,
    summarize_with_template,
    verb_forms,
)
from memory.engine.types import MAX_CLAIM_CHARS, MAX_CLAIMS, MAX_NAME_CHARS, Cluster, Summary
from memory.engine.types import validate_summary as problems_of
from tests.memory.engine.stories import LINKING, MONDAY, Story, seed_story
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


def one_release_before_two_issues_once_each() -> Story:
    """Release 4.2 came before each issue in one update: a pattern across the two issues, not in
    either issue's own reports."""
    story = Story().declare("Customer", "Acme", "Globex", "Initech")
    story.declare("Issue", "Login Timeout", "Blank Invoice").declare("Event", "Release 4.2")
    story.episode("Support", ("Acme", "REPORTED", "Login Timeout"),
                  ("Login Timeout", "PRECEDED_BY", "Release 4.2"), day=0)
    story.episode("Support", ("Globex", "REPORTED", "Login Timeout"), day=1)
    story.episode("Support", ("Initech", "REPORTED", "Login Timeout"), day=2)
    story.episode("Support", ("Acme", "REPORTED", "Blank Invoice"),
                  ("Blank Invoice", "PRECEDED_BY", "Release 4.2"), day=3)
    story.episode("Support", ("Globex", "REPORTED", "Blank Invoice"), day=4)
    return story


def test_an_event_before_two_issues_is_the_pattern_worth_investigating_not_the_first_issue(
) -> None:
    summary = summary_of(one_release_before_two_issues_once_each())
    texts = [claim.text for claim in summary.claims]
    assert summary.summary.count("worth investigating") == 1
    assert texts[0] == (
        "Acme (2 Mar), Globex (3 Mar) and Initech (4 Mar) reported the Login Timeout.")
    assert texts[-1].endswith("a recurring pattern worth investigating.")


def test_an_event_before_an_issue_not_shown_leaves_the_first_issue_worth_investigating(
) -> None:
    # The Outage came before the fourth issue twice: recurring, but before one issue, which the
    # summary does not show. The first issue's reports remain the pattern worth investigating.
    story = Story().declare("Customer", "Acme", "Globex", "Initech", "Umbrella")
    story.declare("Issue", "Login Timeout", "Blank Invoice", "Slow Search", "Lost Cart")
    story.declare("Event", "Outage")
    for day, customer in enumerate(("Acme", "Globex", "Initech")):
        story.episode("Support", (customer, "REPORTED", "Login Timeout"),
                      (customer, "REPORTED", "Blank Invoice"),
                      (customer, "REPORTED", "Slow Search"), day=day)
    for day, customer in ((3, "Umbrella"), (4, "Acme")):
        story.episode("Support", ("Umbrella", "REPORTED", "Login Timeout"),
                      (customer, "REPORTED", "Lost Cart"),
                      ("Lost Cart", "PRECEDED_BY", "Outage"), day=day)

    summary = summary_of(story)

    assert summary.summary.count("worth investigating") == 1
    assert summary.claims[0].text.endswith(
        "reported the Login Timeout, a recurring pattern worth investigating.")


def two_issues_reported_together() -> Story:
    """Two customers reporting the same two problems, nothing before either (a support
    thread's problem and its ticket)."""
    story = Story().declare("Customer", "Acme", "Globex")
    story.declare("Issue", "Login Failures", "Sync Errors")
    story.episode("Support", ("Acme", "REPORTED", "Login Failures"),
                  ("Acme", "REPORTED", "Sync Errors"), day=0)
    story.episode("Support", ("Globex", "REPORTED", "Login Failures"),
                  ("Globex", "REPORTED", "Sync Errors"), day=1)
    return story


def test_a_recurring_pattern_is_called_worth_investigating_once_not_after_every_issue() -> None:
    summary = summary_of(two_issues_reported_together())
    assert summary.summary.count("worth investigating") == 1
    assert summary.claims[0].text.endswith("a recurring pattern worth investigating.")


def test_a_pattern_of_a_past_year_gives_its_days_their_year() -> None:
    story = login_timeouts()
    (cluster,) = cluster_episodes(story.rows, LINKING, story.authors).clusters
    next_year = analyse_cluster(cluster, story.facts, story.entities, story.episodes,
                                as_of=MONDAY + timedelta(days=330))
    same_year = analyse_cluster(cluster, story.facts, story.entities, story.episodes,
                                as_of=MONDAY + timedelta(days=30))
    assert summarize_with_template(next_year, story.facts, story.entities, story.episodes
                                   ).claims[0].text == (
        "Acme (2 Mar 2026), Globex (3 Mar 2026) and Initech (5 Mar 2026) reported the Login "
        "Timeout.")
    assert summarize_with_template(same_year, story.facts, story.entities, story.episodes
                                   ).claims[0].text.startswith("Acme (2 Mar), Globex (3 Mar)")


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


def test_an_agent_who_answered_in_a_thread_is_never_said_to_have_reported_it() -> None:
    story = (Story().declare("Customer", "kim").declare("Person", "lee")
             .declare("WorkItem", "acme/app#12"))
    story.episode("kim", ("kim", "REPORTED", "acme/app#12"))
    story.episode("lee", ("lee", "ANSWERED", "acme/app#12"))
    summary = summary_of(story)
    assert summary.claims[-1].text == (
        "2 updates say that kim reported acme/app#12 and that lee answered in acme/app#12.")
    assert summary.claims[-1].fact_ids == tuple(sorted((
        story.fact("kim", "REPORTED", "acme/app#12"),
        story.fact("lee", "ANSWERED", "acme/app#12"))))


def test_a_message_placed_by_its_words_is_never_said_to_have_reported_the_issue() -> None:
    story = (Story().declare("Customer", "kim").declare("Customer", "sam")
             .declare("Issue", "Login Failures"))
    story.episode("kim", ("kim", "REPORTED", "Login Failures"))
    story.episode("sam", ("sam", "RESEMBLES", "Login Failures"))
    summary = summary_of(story)
    assert summary.claims[-1].text == (
        "2 updates say that kim reported the Login Failures and that sam resembles the reports "
        "of the Login Failures.")


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


# -- real tracker names (issue #13, "prose that reads") -------------------------------------------
# Titles as the Bugzilla sample has them (tests/memory/importers/fixtures, MPL-2.0).

CLEAR_DATA = "Clear Private Data should also reset last directory saved to"
LARRY = ("Larry should be completely updated with all ssl info when an https page requires "
         "http authentication")


def test_a_tracker_item_reads_by_its_title_the_first_time_and_by_its_key_after() -> None:
    story = Story().title("Bug 446261", CLEAR_DATA)
    story.episode("Ann", ("Bug 1102808", "DEPENDS_ON", "Bug 446261"))
    story.episode("Ben", ("Bug 1200000", "DEPENDS_ON", "Bug 446261"))

    summary = summary_of(story)

    assert summary.name == f"Bug 446261 “{CLEAR_DATA}” blocking 2 items"
    assert [claim.text for claim in summary.claims] == [
        f"Bug 446261 “{CLEAR_DATA}”, with no owner named in these updates, is the root blocker "
        "of a dependency chain across 2 items.",
        "Bug 1102808 and Bug 1200000 wait on it directly.",
        "Unblocking Bug 446261 clears all 2 items.",
    ]


def test_a_long_title_is_clipped_in_the_name_and_in_the_claims() -> None:
    story = Story().title("Bug 528988", LARRY)
    story.episode("Honza", ("Bug 528988", "DEPENDS_ON", "Bug 370886"))
    story.episode("Honza", ("Bug 528988", "DEPENDS_ON", "Bug 370886"), day=1)

    summary = summary_of(story)

    assert summary.name == ("Bug 370886 blocking Bug 528988 “Larry should be completely updated "
                            "with all ssl info when…”")
    assert len(summary.name) <= MAX_NAME_CHARS
    assert "“Larry should be completely updated with all ssl info when an https page requires " \
           "http…”" in summary.summary


def test_one_item_waiting_reads_as_one_sentence_with_the_day_it_began_to_wait() -> None:
    story = Story().title("Bug 528988", LARRY)
    story.episode("Honza", ("Honza", "REPORTED", "Bug 528988"), day=0)
    story.episode("Jesse", ("Honza", "REPORTED", "Bug 528988"),
                  ("Bug 528988", "DEPENDS_ON", "Bug 370886"), day=87)

    (claim,) = summary_of(story).claims

    # No "root blocker of a dependency chain across 1 workstream", no "clears the one
    # workstream": one bug waits on another, since the day an update said so.
    assert claim.text == ("Bug 528988 “Larry should be completely updated with all ssl info "
                          "when an https page requires http…” waits on Bug 370886, with no "
                          "owner named in these updates, since 28 May.")


def test_a_day_carries_its_year_when_the_evidence_spans_years() -> None:
    story = Story().title("Bug 446261", CLEAR_DATA)
    story.episode("Mladen", ("Mladen", "REPORTED", "Bug 446261"),
                  at=datetime(2008, 7, 20, tzinfo=UTC))
    story.episode("Johann", ("Mladen", "REPORTED", "Bug 446261"),
                  ("Bug 1102808", "DEPENDS_ON", "Bug 446261"),
                  at=datetime(2019, 12, 9, tzinfo=UTC))

    (claim,) = summary_of(story).claims

    assert claim.text.endswith("since 9 Dec 2019.")


def test_a_name_keeps_its_own_case_at_the_start_of_a_sentence() -> None:
    story = Story().declare("Person", "mia@example.com")
    story.episode("mia@example.com", ("mia@example.com", "RESPONSIBLE_FOR", "ENG-1"))
    story.episode("mia@example.com", ("mia@example.com", "RESPONSIBLE_FOR", "ENG-1"), day=2)

    summary = summary_of(story)

    assert summary.claims[0].text == (
        "mia@example.com wrote these 2 related updates between 2 Mar and 4 Mar.")
    assert summary.claims[1].text == (
        "2 updates state that mia@example.com is responsible for ENG-1.")


def test_a_key_never_takes_an_article_and_a_written_name_still_does() -> None:
    story = Story()
    story.episode("Ann", ("ATL-12", "DEPENDS_ON", "Auth Service Refactor"),
                  ("Checkout Flow", "DEPENDS_ON", "Auth Service Refactor"))
    story.episode("Ben", ("Payments", "DEPENDS_ON", "Auth Service Refactor"))

    text = summary_of(story).summary

    assert "ATL-12" in text and "the ATL-12" not in text
    assert text.startswith("The Auth Service Refactor")


def test_a_name_that_is_a_tickets_words_takes_no_article() -> None:
    # Names the support corpus's messages gave (tests/corpus): a title with its ticket's number,
    # and one in lower case.
    story = Story().declare("Issue", "Autofill no longer works on Chrome (#11050)",
                            "your login on the website does not work (#13509)")
    story.declare("Customer", "cyberfox1", "Sicken-jarvis")
    story.episode("cyberfox1", ("cyberfox1", "REPORTED", "Autofill no longer works on Chrome "
                                "(#11050)"), ("Sicken-jarvis", "REPORTED", "your login on the "
                                              "website does not work (#13509)"))
    story.episode("Sicken-jarvis", ("Sicken-jarvis", "REPORTED", "your login on the website "
                                    "does not work (#13509)"))

    text = summary_of(story).summary

    assert "reported Autofill no longer works on Chrome (#11050)" in text
    assert "reported your login on the website does not work (#13509)" in text
    assert "the Autofill" not in text and "the your" not in text


# -- words for relations and names the template has no table for (issue #18) -----------------


@pytest.mark.parametrize(
    ("relation", "forms"),
    [
        ("SUPPLIES", ("supplies", "supply")),
        ("OWNS_SHARE_IN", ("owns share in", "own share in")),
        ("IS_PART_OF", ("is part of", "are part of")),
        ("HAS_ROLE_IN", ("has role in", "have role in")),
        ("WAS_MOVED_TO", ("was moved to", "were moved to")),
        ("TEACHES", ("teaches", "teach")),
        ("PUSHES", ("pushes", "push")),
        ("PASSES", ("passes", "pass")),
        ("FIXES", ("fixes", "fix")),
        ("BLOCKS", ("blocks", "block")),
        ("ACCESS", ("access", "access")),
        ("SUPPORT", ("support", "support")),
        ("_", ("relates to", "relate to")),
    ],
)
def test_a_relation_without_words_of_its_own_reads_as_a_verb_agreeing_with_its_subject(
    relation: str, forms: tuple[str, str],
) -> None:
    assert verb_forms(relation) == forms


@pytest.mark.parametrize(
    ("name", "plural"),
    [
        ("Timeout Errors", True), ("Bugs", True), ("Outage", False), ("Ads", False),
        ("Access", False), ("Status", False), ("Root Cause Analysis", False), ("", False),
        ("MagicDNS Failures (tailscale/tailscale)", True), ("Start Failures (docker/for-*)", True),
        ("Exit Node (tailscale/tailscale)", False),
    ],
)
def test_a_name_ending_in_a_plural_noun_reads_plural(name: str, plural: bool) -> None:
    assert reads_plural(name) is plural


def summary_with(story: Story, episodes: dict) -> Summary:
    (cluster,) = cluster_episodes(story.rows, LINKING, story.authors).clusters
    structure = analyse_cluster(cluster, story.facts, story.entities, episodes)
    return summarize_with_template(structure, story.facts, story.entities, episodes)


def test_updates_known_only_by_their_authors_entity_name_that_person_and_one_day_reads_on() -> None:
    story = Story().declare("Person", "Alice")
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"))
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"))
    episodes = {e: info._replace(author="") for e, info in story.episodes.items()}

    summary = summary_with(story, episodes)

    assert summary.claims[0].text == "Alice wrote these 2 related updates on 2 Mar."


def test_updates_without_an_author_say_their_authors_wrote_them() -> None:
    story = Story()
    story.episode("", ("Alice", "RESPONSIBLE_FOR", "Search"), day=0)
    story.episode("", ("Alice", "RESPONSIBLE_FOR", "Search"), day=1)

    summary = summary_of(story)

    assert summary.claims[0].text == (
        "Their authors wrote these 2 related updates between 2 Mar and 3 Mar.")


def test_shared_context_names_the_most_shared_first_and_as_many_as_claims_allow() -> None:
    # Nine signatures shared: one by three updates, eight by two; a summary has at most
    # MAX_CLAIMS claims, the first of them the window.
    story = Story().declare("Person", "Olga", "Zed")  # Olga first: her links sort first by id
    shared = [("Olga", "RESPONSIBLE_FOR", f"System {i}") for i in range(1, 9)]
    story.episode("", ("Zed", "RESPONSIBLE_FOR", "Zoo"), *shared)
    story.episode("", ("Zed", "RESPONSIBLE_FOR", "Zoo"), *shared)
    story.episode("", ("Zed", "RESPONSIBLE_FOR", "Zoo"))

    summary = summary_of(story)

    assert len(summary.claims) == MAX_CLAIMS
    assert summary.name == "3 updates about Zed and Zoo"
    assert [claim.text for claim in summary.claims[1:3]] == [
        "3 updates state that Zed is responsible for the Zoo.",
        "2 updates state that Olga is responsible for System 1.",
    ]


# -- who reported an issue, in words (issue #18) -----------------------------------------------


def test_two_people_reporting_an_issue_read_as_people_and_as_a_pattern_worth_investigating(
) -> None:
    story = Story().declare("Person", "Alice", "Bob").declare("Issue", "Login Timeout")
    story.episode("Support", ("Alice", "REPORTED", "Login Timeout"), day=0)
    story.episode("Support", ("Bob", "REPORTED", "Login Timeout"), day=1)

    summary = summary_of(story)

    assert summary.name == "Login Timeout reported by 2 people"
    assert summary.claims[0].text == (
        "Alice (2 Mar) and Bob (3 Mar) reported the Login Timeout, a recurring pattern worth "
        "investigating.")


def test_reporters_of_different_kinds_read_as_reporters() -> None:
    story = Story().declare("Person", "Alice").declare("Customer", "Acme")
    story.declare("Issue", "Login Timeout")
    story.episode("Support", ("Alice", "REPORTED", "Login Timeout"), day=0)
    story.episode("Support", ("Acme", "REPORTED", "Login Timeout"), day=1)

    assert summary_of(story).name == "Login Timeout reported by 2 reporters"


def test_an_issue_reported_by_no_one_but_seen_in_several_updates_reads_as_recurring() -> None:
    story = Story().declare("Issue", "Slow Search").declare("Product", "Search")
    story.episode("Support", ("Slow Search", "AFFECTS", "Search"), day=0)
    story.episode("Support", ("Slow Search", "AFFECTS", "Search"), day=1)

    assert summary_of(story).name == "Slow Search recurring in 2 updates"


@pytest.mark.parametrize(
    ("weeks", "words"),
    [(1, "1 week"), (103, "103 weeks"), (104, "over 1 year"), (105, "over 2 years"),
     (261, "over 5 years"), (52 * 16 + 8, "over 16 years")],
)
def test_how_long_an_item_has_stalled_reads_in_weeks_and_from_104_weeks_in_whole_years(
    weeks: int, words: str,
) -> None:
    assert duration(weeks) == words


def test_two_customers_saying_an_issue_is_resolved_for_them_read_in_the_plural() -> None:
    story = Story().declare("Customer", "Acme", "Globex", "Initech")
    story.declare("Issue", "Login Timeout")
    for day_, customer in enumerate(["Acme", "Globex", "Initech"]):
        story.episode("Support", (customer, "REPORTED", "Login Timeout"), day=day_)
    (cluster,) = cluster_episodes(story.rows, LINKING, story.authors).clusters
    ended = [EndedReport(story.fact(c, "REPORTED", "Login Timeout"), story.id(c),
                         story.id("Login Timeout"), (e,), MONDAY, MONDAY + timedelta(days=4 + e),
                         None) for e, c in enumerate(["Acme", "Globex"], start=1)]
    cluster = Cluster(cluster.episode_ids, cluster.fact_ids, cluster.links,
                      ended_fact_ids=tuple(r.fact_id for r in ended))
    context = build_context(story.rows, ended_reports=ended)
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)

    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)

    assert summary.name == "Login Timeout reported by 3 customers, 2 report it resolved"
    assert summary.claims[1].text == (
        "Acme (7 Mar) and Globex (8 Mar) report it resolved for them; Initech has not said so.")


def test_a_cycles_own_sentence_cites_the_dependencies_inside_the_cycle_only() -> None:
    story = Story()
    story.episode("Alice", ("Search", "DEPENDS_ON", "Index"), ("Index", "DEPENDS_ON", "Search"))
    story.episode("Bob", ("Index", "DEPENDS_ON", "Search"), ("Index", "DEPENDS_ON", "Storage"),
                  ("Reports", "DEPENDS_ON", "Search"))

    cycle = next(claim for claim in summary_of(story).claims if "in a cycle" in claim.text)

    assert cycle.fact_ids == tuple(sorted([story.fact("Search", "DEPENDS_ON", "Index"),
                                           story.fact("Index", "DEPENDS_ON", "Search")]))


def test_a_second_blocker_that_is_a_cycle_separately_blocks_in_the_plural() -> None:
    story = Story()
    for i in range(3):
        story.episode(f"Person {i}", (f"Item {i}", "DEPENDS_ON", "Zeta API"),
                      ("Ops", "RESPONSIBLE_FOR", "Infra"))
    story.episode("Alice", ("Search", "DEPENDS_ON", "Index"), ("Index", "DEPENDS_ON", "Search"),
                  ("Reports", "DEPENDS_ON", "Search"), ("Ops", "RESPONSIBLE_FOR", "Infra"))

    summary = summary_of(story)

    assert summary.claims[-1].text == (
        "The Index and the Search, with no owner named in these updates, separately block 1 "
        "workstream: the Reports.")


@pytest.mark.parametrize(
    ("status", "says"),
    [
        (None, "The Meta Bug tracks Bug 1, with no status in these updates."),
        ("Open", "The Meta Bug tracks Bug 1, which is open."),
        ("Fixed", "The Meta Bug tracks Bug 1, which is done."),
        ("Wontfix", "The Meta Bug tracks Bug 1, which ended without being done."),
    ],
)
def test_a_tracker_of_one_item_is_named_after_it_and_says_what_became_of_it(
    status: str | None, says: str,
) -> None:
    story = Story().declare("Status", "Fixed", "Wontfix", "Open")
    story.episode("Triage", ("Meta Bug", "TRACKS", "Bug 1"))
    story.episode("Dev", ("Meta Bug", "TRACKS", "Bug 1"),
                  *([("Bug 1", "HAS_STATUS", status)] if status else []))
    settled = settle_dependencies(story.rows, {story.id("Fixed")})
    context = build_context(settled.rows, done=settled.done,
                            ended_status_ids={story.id("Wontfix")})
    (cluster,) = cluster_episodes(settled.rows, LINKING, story.authors).clusters
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)

    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)

    assert (summary.name, summary.claims[0].text) == ("Meta Bug tracking Bug 1", says)


def test_a_report_resolved_in_the_new_year_carries_its_year() -> None:
    # The reports came in late December; Acme said it was resolved for them on 3 January.
    story = Story().declare("Customer", "Acme", "Globex").declare("Issue", "Login Timeout")
    december = datetime(2026, 12, 28, 9, 0, tzinfo=UTC)
    story.episode("Support", ("Acme", "REPORTED", "Login Timeout"), at=december)
    story.episode("Support", ("Globex", "REPORTED", "Login Timeout"),
                  at=december + timedelta(days=1))
    (cluster,) = cluster_episodes(story.rows, LINKING, story.authors).clusters
    acme = story.fact("Acme", "REPORTED", "Login Timeout")
    ended = EndedReport(acme, story.id("Acme"), story.id("Login Timeout"), (1,), december,
                        datetime(2027, 1, 3, 9, 0, tzinfo=UTC), None)
    cluster = Cluster(cluster.episode_ids, cluster.fact_ids, cluster.links, ended_fact_ids=(acme,))
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes,
                                build_context(story.rows, ended_reports=[ended]))

    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)

    assert summary.claims[1].text == (
        "Acme (3 Jan 2027) reports it resolved for them; Globex has not said so.")


def test_an_issue_named_in_the_plural_affects_in_the_plural() -> None:
    story = Story().declare("Customer", "Acme", "Globex").declare("Issue", "Timeout Errors")
    story.declare("Product", "Checkout")
    story.episode("Support", ("Acme", "REPORTED", "Timeout Errors"),
                  ("Timeout Errors", "AFFECTS", "Checkout"), day=0)
    story.episode("Support", ("Globex", "REPORTED", "Timeout Errors"), day=1)

    assert summary_of(story).claims[1].text == "The Timeout Errors affect the Checkout."


def test_one_customer_resolved_and_two_silent_have_not_said_so() -> None:
    story = Story().declare("Customer", "Acme", "Globex", "Initech")
    story.declare("Issue", "Login Timeout")
    for day_, customer in enumerate(["Acme", "Globex", "Initech"]):
        story.episode("Support", (customer, "REPORTED", "Login Timeout"), day=day_)
    (cluster,) = cluster_episodes(story.rows, LINKING, story.authors).clusters
    acme = story.fact("Acme", "REPORTED", "Login Timeout")
    ended = EndedReport(acme, story.id("Acme"), story.id("Login Timeout"), (1,), MONDAY,
                        MONDAY + timedelta(days=5), None)
    cluster = Cluster(cluster.episode_ids, cluster.fact_ids, cluster.links, ended_fact_ids=(acme,))
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes,
                                build_context(story.rows, ended_reports=[ended]))

    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)

    assert summary.name == "Login Timeout reported by 3 customers, 1 reports it resolved"
    assert summary.claims[1].text == (
        "Acme (7 Mar) reports it resolved for them; Globex and Initech have not said so.")


def test_unblocking_one_workstream_of_two_owners_names_both_waiting_on_it() -> None:
    story = Story()
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Payments"),
                  ("Payments", "DEPENDS_ON", "Auth"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Payments"), ("Payments", "DEPENDS_ON", "Auth"))

    assert summary_of(story).claims[-1].text == (
        "Unblocking the Auth clears the one workstream waiting on it and the 2 people waiting on "
        "it: Alice and Bob.")


def test_unblocking_two_workstreams_of_two_people_names_them_waiting_on_them() -> None:
    story = Story()
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"),
                  ("Search", "DEPENDS_ON", "Index"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Reports"), ("Reports", "DEPENDS_ON", "Index"))

    assert summary_of(story).claims[-1].text == (
        "Unblocking the Index clears all 2 workstreams and the 2 people waiting on them: Alice "
        "and Bob.")


def test_work_blocked_downstream_is_listed_by_name_and_a_name_with_its_own_article_keeps_it(
) -> None:
    story = Story()
    story.episode("", ("Search", "DEPENDS_ON", "The Big Migration"))
    story.episode("", ("Zoo Export", "DEPENDS_ON", "Search"), ("Alerts", "DEPENDS_ON", "Search"))

    texts = [claim.text for claim in summary_of(story).claims]

    assert texts[0].startswith("The Big Migration, with no owner named in these updates, is the "
                               "root blocker")
    assert texts[2] == "The Alerts and the Zoo Export are blocked downstream, through the Search."


# -- small words: lists, clipping, sentences, sources named in order (issue #18) ----------------


@pytest.mark.parametrize(
    ("count_", "reads"),
    [(4, "A1, A2, A3 and A4"), (5, "A1, A2, A3 and 2 others")],
)
def test_a_list_names_up_to_four_and_past_that_three_and_counts_the_others(
    count_: int, reads: str,
) -> None:
    assert and_list([f"A{i}" for i in range(1, count_ + 1)], limit=3) == reads


def test_a_clipped_text_ends_at_a_word_without_its_trailing_comma() -> None:
    assert clip("Acme, FedEX, Initech and Umbrella", 14) == "Acme, FedEX…"


@pytest.mark.parametrize("text", ["Done.", "Ship it!", "Why?"])
def test_a_sentence_that_already_ends_keeps_its_ending(text: str) -> None:
    assert sentence(text) == text


def test_sources_pointing_at_one_target_are_named_by_name_and_one_of_them_agrees() -> None:
    story = Story().declare("Customer", "Zeta Corp", "Acme").declare("Product", "Chips", "Gears")
    story.episode("Buyer", ("Zeta Corp", "SUPPLIES", "Chips"))
    story.episode("Buyer", ("Acme", "SUPPLIES", "Chips"))
    story.episode("Buyer", ("Acme", "SUPPLIES", "Gears"))
    story.episode("Buyer", ("Acme", "SUPPLIES", "Gears"))
    linking = {**LINKING, "SUPPLIES": "target"}

    texts = {s.claims[-1].text for s, _ in summaries(story, linking)}

    assert texts == {"2 updates say that Acme and Zeta Corp supply the Chips.",
                     "2 updates say that Acme supplies the Gears."}


def test_a_chain_whose_only_tracker_has_everything_done_is_told_as_the_tracker() -> None:
    story = Story().declare("Status", "Fixed")
    story.episode("Triage", ("Meta Bug", "TRACKS", "Bug 1"))
    story.episode("Dev", ("Bug 1", "HAS_STATUS", "Fixed"), ("Meta Bug", "TRACKS", "Bug 1"))
    story.episode("Ann", ("Release", "DEPENDS_ON", "Meta Bug"))
    settled = settle_dependencies(story.rows, {story.id("Fixed")})
    context = build_context(settled.rows, done=settled.done)
    (cluster,) = extend_clusters(
        cluster_episodes(settled.rows, LINKING, story.authors).clusters, context)
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)

    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)

    assert summary.name == "Meta Bug tracking Bug 1"


def test_a_summary_tells_at_most_three_issues() -> None:
    story = Story().declare("Customer", "Acme", "Globex")
    issues = ["Issue A", "Issue B", "Issue C", "Issue D"]
    story.declare("Issue", *issues)
    for day_, issue in enumerate(issues):
        story.episode("Support", ("Acme", "REPORTED", issue), ("Globex", "REPORTED", issue),
                      ("Acme", "REPORTED", "Issue A"), day=day_)

    summary = summary_of(story)

    assert not any("Issue D" in claim.text for claim in summary.claims)


def test_updates_no_signature_joins_on_their_own_still_get_a_summary_citing_a_fact() -> None:
    # A part of a split component may keep no link of its own (its signatures were cut): the
    # window cites no link, so the summary falls back to saying the updates share facts.
    story = Story()
    story.episode("Alice", ("Alice", "RESPONSIBLE_FOR", "Search"))
    story.episode("Bob", ("Bob", "RESPONSIBLE_FOR", "Billing"))
    facts = tuple(sorted(story.fact_ids.values()))
    structure = analyse_cluster(Cluster((1, 2), facts, links=()), story.facts, story.entities,
                                story.episodes)

    summary = summarize_with_template(structure, story.facts, story.entities, story.episodes)

    assert summary.name == "2 related updates"
    assert [(c.text, c.fact_ids) for c in summary.claims] == [
        ("These 2 updates share facts.", facts[:1])]


def test_work_blocked_downstream_through_several_items_names_them_by_name() -> None:
    story = Story()
    story.episode("", ("Zeta Search", "DEPENDS_ON", "Index"),
                  ("Alpha Reports", "DEPENDS_ON", "Index"))
    story.episode("", ("Export", "DEPENDS_ON", "Zeta Search"),
                  ("Export", "DEPENDS_ON", "Alpha Reports"))

    texts = [claim.text for claim in summary_of(story).claims]

    assert "The Export is blocked downstream, through the Alpha Reports and the Zeta Search." \
        in texts


def test_an_author_whose_entity_the_updates_never_mention_is_not_named() -> None:
    story = Story().declare("Person", "Alice")
    story.episode("Alice", ("Bob", "RESPONSIBLE_FOR", "Search"))
    story.episode("Alice", ("Bob", "RESPONSIBLE_FOR", "Search"))
    episodes = {e: info._replace(author="") for e, info in story.episodes.items()}
    entities = {i: e for i, e in story.entities.items() if e.name != "Alice"}
    (cluster,) = cluster_episodes(story.rows, LINKING, story.authors).clusters
    structure = analyse_cluster(cluster, story.facts, entities, episodes)

    summary = summarize_with_template(structure, story.facts, entities, episodes)

    assert summary.claims[0].text.startswith("Their authors wrote these 2 related updates")


def test_one_tracker_item_waiting_without_a_title_is_named_by_its_key() -> None:
    story = Story()
    story.episode("Dev", ("Bug 7", "DEPENDS_ON", "Bug 3"))
    story.episode("Dev", ("Bug 7", "DEPENDS_ON", "Bug 3"))

    assert summary_of(story).name == "Bug 3 blocking Bug 7"


def test_a_second_tracker_of_the_same_items_under_another_title_says_so_without_same_title(
) -> None:
    story = Story()
    for bug in ("Bug 1", "Bug 2"):
        story.episode("Triage", ("Meta A", "TRACKS", bug))
        story.episode("Triage", ("Meta B", "TRACKS", bug))
    story.title("Meta A", "Startup speed").title("Meta B", "Startup time")

    summary = summary_of(story)

    assert summary.claims[-1].text == "Meta B “Startup time” tracks the same 2 items as Meta A."


def test_a_tracker_of_one_item_clips_both_titles_in_its_name_at_forty_characters() -> None:
    story = Story()
    story.episode("Triage", ("Bug 100", "TRACKS", "Bug 200"))
    story.episode("Triage", ("Bug 100", "TRACKS", "Bug 200"))
    story.title("Bug 100", "Slow " * 10).title("Bug 200", "Leak " * 10)  # 49 characters each

    assert summary_of(story).name == (
        "Bug 100 “Slow Slow Slow Slow Slow Slow Slow…” tracking "
        "Bug 200 “Leak Leak Leak Leak Leak Leak Leak…”")


def tracker_summary(statuses: dict[str, str | None], waiting: tuple[str, ...] = ()) -> Summary:
    """The Meta Bug tracks the given bugs, each with its status (Fixed: done, Wontfix: ended,
    Open, or none); each bug in ``waiting`` has a feature waiting on it."""
    story = Story().declare("Status", "Fixed", "Wontfix", "Open")
    for bug in statuses:
        story.episode("Triage", ("Meta Bug", "TRACKS", bug))
    for bug, status in statuses.items():
        if status:
            story.episode("Dev", ("Meta Bug", "TRACKS", bug), (bug, "HAS_STATUS", status))
    for bug in waiting:
        story.episode("Ann", (f"Feature on {bug}", "DEPENDS_ON", bug))
    settled = settle_dependencies(story.rows, {story.id("Fixed")})
    context = build_context(settled.rows, done=settled.done,
                            ended_status_ids={story.id("Wontfix")})
    clusters = extend_clusters(cluster_episodes(settled.rows, LINKING, story.authors).clusters,
                               context)
    tracks = story.fact("Meta Bug", "TRACKS", next(iter(statuses)))
    (cluster,) = [c for c in clusters if tracks in c.fact_ids]
    structure = analyse_cluster(cluster, story.facts, story.entities, story.episodes, context)
    return summarize_with_template(structure, story.facts, story.entities, story.episodes)


@pytest.mark.parametrize(
    ("statuses", "waiting", "name", "says"),
    [
        ({"Bug 1": "Open", "Bug 2": "Fixed"}, (), "Meta Bug tracking 2 items, 1 open",
         "The Meta Bug tracks 2 items: 1 open and 1 done; open: Bug 1."),
        ({"Bug 1": "Open", "Bug 2": "Open"}, (), "Meta Bug tracking 2 items, 2 open",
         "The Meta Bug tracks 2 items, all open; open: Bug 1 and Bug 2."),
        ({"Bug 1": "Fixed", "Bug 2": None}, (), "Meta Bug tracking 2 items, 0 open",
         "The Meta Bug tracks 2 items: 1 done and 1 with no status in these updates."),
        ({"Bug 1": "Fixed", "Bug 2": "Fixed"}, (), "Meta Bug tracking 2 items, 0 open",
         "The Meta Bug tracks 2 items, all done."),
        ({"Bug 1": "Open", "Bug 2": "Open"}, ("Bug 2",), "Meta Bug tracking 2 items, 2 open",
         "The Meta Bug tracks 2 items, all open; the most waited on first: Bug 2 (1 item "
         "waiting) and Bug 1."),
    ],
)
def test_a_tracker_counts_its_items_by_state_and_lists_the_open_ones_most_waited_on_first(
    statuses: dict[str, str | None], waiting: tuple[str, ...], name: str, says: str,
) -> None:
    summary = tracker_summary(statuses, waiting)

    assert (summary.name, summary.claims[0].text) == (name, says)
