"""Minutes read as a careful reader does (``memory.extraction.minutes`` through the rules
reader). Every example is a sentence of the corpus's dev split, named by its episode id; each
phrasing family occurs in at least two dev sources, which each test's docstring names."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction import ExtractedEntity, Extraction
from memory.extraction.minutes import Decision, agenda_topic, find_decisions, minutes_speaker
from memory.extraction.rules import extract_with_rules
from memory.language.documents import read_document

REFERENCE_TIME = datetime(2022, 5, 30, tzinfo=UTC)


def extract(text: str) -> Extraction:
    return extract_with_rules(text, author="", reference_time=REFERENCE_TIME)


def statuses(extraction: Extraction) -> set[tuple[str, str]]:
    return {(f.source, f.target) for f in extraction.facts if f.relation == "HAS_STATUS"}


# ------------------------------------------------------------------ decisions with their item


@pytest.mark.parametrize(
    ("line", "item", "status"),
    [
        # pysc-2022-03-14
        ("* The SC accepted PEP 655 (Marking individual TypedDict items as required).",
         "PEP 655", "Accepted"),
        # pysc-2023-03-27
        ("- The SC discussed and rejected [PEP 582 (Python local packages directory)]"
         "(https://peps.python.org/pep-0582/).", "PEP 582", "Rejected"),
        # pysc-2022-04-11
        ("* Agreed to accept [PEP-678](https://peps.python.org/pep-0678/) (Enriching Exceptions"
         " with Notes).", "PEP-678", "Accepted"),
        # cpc-meetings-2021-2021-06-22-s5
        ("* 5 ECMA JavaScript related specs approved today, several people from the OpenJS "
         "community were involved.", "5 ECMA JavaScript related specs", "Approved"),
        # cpc-meetings-2022-2022-04-12-s7
        ("* Defer discussion on term limits/length until after the current election",
         "term limits/length", "Postponed"),
    ],
)
def test_minutes_that_record_a_decision_give_the_named_item_its_status(
        line: str, item: str, status: str) -> None:
    """The decision verbs (accept, approve, reject, defer) in python-sc and openjs-cpc."""
    extraction = extract(f"## 2022-03-14\n\n{line}\n")

    assert {(s.lower(), t) for s, t in statuses(extraction)} == {(item.lower(), status)}


def test_it_in_a_decision_is_the_item_just_discussed() -> None:
    """pysc-2022-11-14 (and pysc-2022-05-30: "discussed PEP 689 … and decided to accept it")."""
    extraction = extract("## 2022-11-14\n\n- The Steering Council discussed [PEP 690 – Lazy "
                         "Imports](https://peps.python.org/pep-0690/) and decided to reject "
                         "it.\n")

    assert statuses(extraction) == {("PEP 690", "Rejected")}


def test_a_decision_that_names_no_item_is_about_the_item_above() -> None:
    """cpc-meetings-2020-2020-03-24-s8 ("CPC approved") and cpc-meetings-2019-2019-09-17-s6
    ("agreed that we can land"), as pysc-2022-04-11's "deferring until after beta1" names what
    was discussed before it."""
    extraction = extract(
        "### openjs-foundation/cross-project-council\n\n"
        "* Create an onboarding process [#386](https://github.com/openjs-foundation/"
        "cross-project-council/pull/386)\n"
        "  * Michael: Conflicts resolved, CPC approved, have asked Brian to start board vote "
        "through email.\n")

    assert statuses(extraction) == {
        ("Create an onboarding process (openjs-foundation/cross-project-council#386)", "Approved")}


def test_a_deferral_after_a_discussion_is_about_what_was_discussed() -> None:
    """pysc-2022-04-11; the same "Discussed …, deferring" shape as cpc's "Defer discussion on"."""
    extraction = extract("## 2022-04-11\n\n* Discussed python-dev vs Discourse expected use; "
                         "deferring until after beta1.\n")

    assert statuses(extraction) == {("python-dev vs Discourse expected use", "Postponed")}


def test_waiting_until_the_next_meeting_postpones_the_item_the_line_names() -> None:
    """cpc-meetings-2020-2020-12-08-s7; python-sc defers "to the next Steering Council"
    (pysc-2024-10-16) in the same sense."""
    extraction = extract("### openjs-foundation/cross-project-council\n\n* Provide "
                         "implementation guidance for DCO/CLA [#632](https://github.com/"
                         "openjs-foundation/cross-project-council/issues/632) *Will wait until "
                         "next time when we have Brian\n")

    assert statuses(extraction) == {("openjs-foundation/cross-project-council#632", "Postponed")}


# --------------------------------------------------------------------- polls in CG minutes


@pytest.mark.parametrize(
    ("section", "item"),
    [
        # wasm-cg-main-2021-cg-08-03-s10
        ("#### Update on JS API for Stack Switching (Ross/Luke/Francis) [10 mins]\n\n"
         "DS: Poll passes, will create a repo for this.\n", "JS API for Stack Switching"),
        # wasm-cg-main-2024-cg-04-09-s12
        ("### Phase 3 poll for ESM Integration (Guy Bedford, 15 minutes)\n\n"
         "Poll passes, ESM integration to phase 3.\n", "ESM Integration"),
        # wasm-cg-main-2021-cg-10-26-s11
        ("### Update on CSP integration (Francis McCabe) [15 min]\n\n"
         "CSP advances to phase 3, congratulations!\n", "CSP"),
    ],
)
def test_a_poll_that_passes_accepts_the_agenda_item(section: str, item: str) -> None:
    """Polls and votes that pass: wasm-cg's "Poll passes" and the phases, as ethereum-pm's
    "London testnet fork blocks agreed" and cpc's "agreed to move forward" accept their item."""
    assert {(s.lower(), t) for s, t in statuses(extract(section))} == {(item.lower(),
                                                                         "Accepted")}


@pytest.mark.parametrize(
    "line",
    [
        "The SC decided not to accept PEP 999.",
        "Tim declined to comment on the plan.",
        "We accepted the risk for now.",
        "If approved, we can merge PEP 999 next week.",
        "PEP 999 will be accepted once the authors update it.",
        "Poll for phase 3",
        "Vote to advance ESM integration to phase 3",
        # ethpm-allcoredevs-cl-meetings-call-044-s11
        "was found at 17:27 august second, clients agreed it's good, but after that clients "
        "started appearing.",
    ],
)
def test_a_decision_not_taken_gives_no_status(line: str) -> None:
    assert statuses(extract(f"## Notes\n\n{line}\n")) == set()


def test_a_poll_under_a_category_heading_names_no_item() -> None:
    """A category heading is never an endpoint (GUIDE §8.1): "Poll passes" under "## Notes"."""
    assert statuses(extract("## Meeting Notes\n\nPoll passes.\n")) == set()


# ------------------------------------------------------------------------- the pure parts


def test_find_decisions_reads_the_decision_words_by_their_lemma() -> None:
    assert find_decisions("The SC discussed and accepted PEP 701 (f-string parsing).") == [
        Decision("accepted", "PEP 701")]
    assert find_decisions("Decided to defer decision to the next Steering Council") == [
        Decision("postponed", None)]


@pytest.mark.parametrize(
    ("heading", "topic"),
    [
        ("Propose to initiate phase 1 of stack switching proposal (Francis McCabe) [15 minutes]",
         "stack switching proposal"),
        ("Resume vote for creation of WebAssembly Benchmarking Subgroup, Ben Titzer / Petr "
         "Penzin", "WebAssembly Benchmarking Subgroup"),
        ("   1. Move JSPI to phase 4. (Francis McCabe, 20 minutes)", "JSPI"),
    ],
)
def test_an_agenda_heading_names_its_item_without_the_meetings_process_words(
        heading: str, topic: str) -> None:
    assert agenda_topic(heading) == topic


# ------------------------------------------------------------- what minutes do not state


def test_a_common_noun_used_by_something_is_no_product_in_use() -> None:
    """wasm-cg-main-2019-cg-04-02-s17; "uses a lot of memory" (support) was the same misread."""
    assert extract("The current API uses integers because reference types aren’t available "
                   "everywhere yet.\n").facts == []


def test_a_line_that_starts_with_a_verb_has_no_user() -> None:
    """wasm-cg-main-2022-cg-03-01-s12: "use" in "use cases" is a noun, "need" the verb."""
    assert extract("- still not a high priority for other browsers, need real-world use cases "
                   "(CG member input point)\n").facts == []


def test_an_infinitive_is_no_part_of_what_something_waits_on() -> None:
    """wasm-cg-main-2022-cg-03-01-s12: "heavy lifting to instantiate" is no work item."""
    assert extract("- WASM modules currently require (comparatively) heavy lifting to "
                   "instantiate\n").facts == []


@pytest.mark.parametrize("line", ["We use the reporting API.", "I'm using tailscale cli on Ubuntu.",
                                  "Acme uses Slack and Jira."])
def test_software_named_as_such_is_still_in_use(line: str) -> None:
    extraction = extract_with_rules(line, author="Acme Corp", reference_time=REFERENCE_TIME)

    assert {f.relation for f in extraction.facts} == {"USES"}


# ------------------------------------------------------------- who takes on what in minutes


def responsibilities(extraction: Extraction) -> set[tuple[str, str]]:
    return {(f.source, f.target) for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"}


def test_a_minutes_speaker_by_initials_is_the_i_of_the_line() -> None:
    """wasm-cg-main-2022-cg-06-21-s7; ethereum-pm writes the same speaker in bold
    ("**Vitalik**: …", ethpm-allcoredevs-cl-meetings-call-052-s18)."""
    extraction = extract("### Binaryen\n\nTL: I've been working on new parser in Binaryen and "
                         "noticed an inconsistency.\n")

    assert responsibilities(extraction) == {("TL", "New Parser in Binaryen")}


def test_someone_who_will_act_about_it_takes_on_the_item_just_discussed() -> None:
    """pysc-2022-01-10 and pysc-2022-11-28 ("Thomas will ask the authors to update the PEP"),
    as cpc's "Jory will move forward with …" under its item (cpc-meetings-2020-2020-11-17-s7)."""
    extraction = extract("## 2022-01-10\n\n* The SC discussed PEP 646, which was changed since "
                         "the previous SC accepted it. Petr will send out a couple of questions "
                         "about it.\n")

    assert responsibilities(extraction) == {("Petr", "PEP 646")}


def test_the_work_an_action_names_is_what_its_people_take_on() -> None:
    """wasm-cg-main-2018-cg-02-06-s18; a body that will act is responsible too (pysc-2022-01-10:
    "The SC will start by creating a clearer guideline")."""
    assert responsibilities(extract("#### Phases\n\n*AI:* Brad and JF to update the phases "
                                    "proposal.\n")) == {("Brad", "Phases Proposal"),
                                                        ("JF", "Phases Proposal")}
    assert responsibilities(extract("## 2022-01-10\n\nThe SC will start by creating a clearer "
                                    "guideline for when a PEP is required.\n")) == {
        ("SC", "Guideline")}


def test_a_speakers_commitment_after_a_clause_of_its_own_is_the_speakers() -> None:
    """wasm-cg-main-2021-cg-08-03-s10: "Poll passes" has a verb of its own, so it is no subject
    of "will create"; the clause after the comma commits the speaker, as in ethereum-pm's
    "London testnet fork blocks agreed, Tim to document" (ethpm-allcoredevs-el-meetings-
    meeting-115-s8) it commits the person it names."""
    extraction = extract("#### Update on JS API for Stack Switching\n\nDS: Poll passes, will "
                         "create a repo for this.\n")

    assert responsibilities(extraction) == {("DS", "Repo")}
    # a list of names before the modal is its subject, commas and all
    assert responsibilities(extract("#### Phases\n\n*AI:* Brad, JF and Ben to update the "
                                    "phases proposal.\n")) == {
        ("Brad", "Phases Proposal"), ("JF", "Phases Proposal"), ("Ben", "Phases Proposal")}


def test_an_action_item_that_names_no_work_is_about_its_agenda_item() -> None:
    """GUIDE §8.1's example, wasm-cg-main-2018-cg-02-21-s17."""
    extraction = extract("#### Layer 1 encoding proposal\n\n*AI:* Brad to ping tooling people, "
                         "as well as Brotli people.\n")

    assert responsibilities(extraction) == {("Brad", "Layer 1 Encoding Proposal")}


@pytest.mark.parametrize(
    "line",
    [
        "Time to merge this.",
        "BS: [Trying to find consensus]",
        "We will create a repo for this.",
        "Someone will look at it next week.",
        "The release will be published on Monday.",
    ],
)
def test_no_one_named_takes_on_nothing(line: str) -> None:
    assert responsibilities(extract(f"#### Rename memory.drop\n\n{line}\n")) == set()


# ------------------------------------------------------------------------- standup notes

_STANDUP = """### Week Update

@dryajov
 - Done:
   - worked on circuit tutorial
   - Released v2.3.2
 - Blocked:
   - N/A
 - Next:
   - get the circuit work merged - hopefuly this week
   - continue working ipfsd-ctl issues
     - graceful stop - https://github.com/ipfs/js-ipfsd-ctl/pull/205
   - finish mplex crash issue
"""


def test_a_standups_next_items_are_the_work_of_whose_update_it_is() -> None:
    """ipfs-2018-03-12-js-ipfs-dev-team-weekly-dryajov (GUIDE §10); the same owner-above-the-
    list reading as ethereum-pm's client updates under a team's heading ("### Lighthouse")."""
    extraction = extract(_STANDUP)

    assert responsibilities(extraction) == {("dryajov", "Circuit Work"),
                                            ("dryajov", "Ipfsd-ctl Issues"),
                                            ("dryajov", "Mplex Crash Issue")}


def test_a_standups_done_items_give_only_the_status_their_words_say() -> None:
    """ipfs-2019-01-09-gui-and-in-web-browsers-weekly-fsdiogo ("Released v2.3.2") and
    ipfs-2019-03-11-js-core-dev-team-weekly-achingbrain ("Fixed problem with extra nodes
    appearing in hamt shards"): no responsibility for finished work."""
    assert statuses(extract(_STANDUP)) == {("v2.3.2", "Released")}
    done = extract("@achingbrain\n- Done:\n  - Fixed problem with extra nodes appearing in hamt "
                   "shards\n")
    assert statuses(done) == {("Extra Nodes Appearing in Hamt Shards", "Fixed")}
    assert responsibilities(done) == set()


def test_a_standups_blocked_items_are_blocked() -> None:
    """ipfs-2018-06-25-js-core-dev-team-weekly-achingbrain and
    ipfs-2018-04-23-js-ipfs-core-dev-team-weekly-vasco-santos ("- IPNS OKRs")."""
    extraction = extract("### Week Update\n\n@achingbrain\n  - Done:\n    - Working on the "
                         "npm-on-ipfs work and adding interop tests\n  - Blocked:\n"
                         "    - https://github.com/ipfs/go-ipfs/pull/5139\n    - IPNS OKRs\n"
                         "    - Nope\n")

    assert statuses(extraction) == {("ipfs/go-ipfs#5139", "Blocked"), ("IPNS OKRs", "Blocked")}


def test_a_list_under_no_ones_handle_is_no_standup() -> None:
    assert extract("## Notes\n\n- Next:\n  - finish mplex crash issue\n").facts == []


# ------------------------------------------------------------------- summary tables


_SUMMARY_TABLE = (
    "## Decisions and Actions Made\n\n"
    "| Item | Description | Video ref |\n"
    "| ------------- | ----------- | --------- |\n"
    "| **Decision 2**   | London testnet fork blocks agreed, Tim to document "
    "| [1:01:29](https://youtu.be/XYhN26UrJ5o?t=3689) |\n"
    "| **Action 1**   | Full sync to be performed to verify EIP 3607 "
    "| [33:51](https://youtu.be/XYhN26UrJ5o?t=3186) |\n"
)


def test_a_numbered_row_of_a_summary_table_is_read_as_its_statement() -> None:
    """ethpm-allcoredevs-el-meetings-meeting-115-s8 (GUIDE §5): the decision row's item is
    accepted, and who is to document it takes it on."""
    extraction = extract(_SUMMARY_TABLE)

    assert statuses(extraction) == {("London Testnet Fork Blocks", "Accepted")}
    assert responsibilities(extraction) == {("Tim", "London Testnet Fork Blocks")}


def test_a_data_table_is_still_not_read() -> None:
    """wasm-cg's poll results ("| SF | F | N |") and benchmark tables are data."""
    document = read_document("| SF | F | N |\n| --- | --- | --- |\n| 8 | 12 | 4 |\n"
                             "| Run | Time |\n| --- | --- |\n| cold start of the app | 3s |\n")

    assert document.passages == []


def test_a_label_before_a_colon_is_no_speaker() -> None:
    """"AI: Landing" (cpc-meetings-2019-2019-07-10-s5) is an action item's label, not someone."""
    assert minutes_speaker("AI: Landing", anonymous=True) is None
    assert minutes_speaker("DS: Poll passes, will create a repo for this.", anonymous=True) == (
        ExtractedEntity("DS", "Person"))


def test_in_a_signed_message_a_name_before_a_colon_does_not_take_the_authors_i() -> None:
    """A customer's "Windows: I have the same issue" is the customer's report."""
    assert minutes_speaker("Windows: I have the same issue", anonymous=False) is None


def test_a_standup_line_that_names_no_work_gives_no_responsibility() -> None:
    """ipfs-2019-03-06-gui-and-in-web-browsers-weekly-olizilla ("Decide on direction …") and
    ipfs-2019-01-09-gui-and-in-web-browsers-weekly-fsdiogo ("Finish pending PRs"): a bare
    common noun is no piece of work, while a name is ("Continue Rendezvous")."""
    extraction = extract("### Week Update\n\n@olizilla\n- Next:\n  - Decide on direction for "
                         "user help for webui\n  - Finish pending PRs\n  - Continue Rendezvous\n")

    assert responsibilities(extraction) == {("olizilla", "Rendezvous")}


def test_a_blocked_item_with_a_named_blocker_gives_the_dependency_alone() -> None:
    """cpc-meetings-2020-2020-01-14-s6 ("Blocked on #432" under #379) and
    ipfs-2019-12-02-core-implementations-weekly-dirkmc ("Bitswap PoC is blocked on reviews and
    testground"): GUIDE §5 and §10 — the dependency, no Blocked status beside it."""
    minutes = extract("### openjs-foundation/cross-project-council\n\n* Collaboration space "
                      "[#379](https://github.com/openjs-foundation/cross-project-council/issues/"
                      "379)\n  * Blocked on [#432](https://github.com/openjs-foundation/"
                      "cross-project-council/issues/432)\n")
    standup = extract("### Week Update\n\n@dirkmc\n- Blocked:\n  - Bitswap PoC is blocked on "
                      "reviews and testground\n")

    assert {f.relation for f in minutes.facts} == {"DEPENDS_ON"}
    assert {(f.source, f.relation, f.target) for f in standup.facts} == {
        ("Bitswap PoC", "DEPENDS_ON", "Reviews and Testground")}


@pytest.mark.parametrize(
    ("notes", "fact"),
    [
        # ethpm-allcoredevs-cl-meetings-call-052-s18
        ("**Vitalik**: On data availability sampling phase 1, I wrote up kind of a pre-spec of 2 "
         "versions of data availability.\n", ("Vitalik", "Pre-spec")),
        # ethpm-allcoredevs-cl-meetings-call-052-s18
        ("**Vitalik**: Another spec related thing I've started to do, I did a draft PR "
         "separating out the light client spec into its own file.\n", ("Vitalik", "Draft PR")),
        # cpc-meetings-2021-2021-04-13-s8
        ("* @rromoff has a blog post ready once we determine day/time of meeting\n",
         ("@rromoff", "Blog Post")),
    ],
)
def test_work_someone_made_or_holds_is_theirs(notes: str, fact: tuple[str, str]) -> None:
    """Authored work in ethereum-pm transcripts and openjs-cpc minutes (GUIDE §8.3: "@rromoff
    has a blog post ready" → rromoff RESPONSIBLE_FOR blog post)."""
    assert responsibilities(extract(f"## Call 52\n\n{notes}")) == {fact}


@pytest.mark.parametrize("line", ["* Danny has a question about it.",
                                  "**Tim**: I have a PR for that.",
                                  "* Prysm has a release planned for next week.",
                                  "* We have a spec for this."])
def test_holding_something_that_names_no_piece_of_work_gives_nothing(line: str) -> None:
    assert responsibilities(extract(f"## Call 52\n\n{line}\n")) == set()
