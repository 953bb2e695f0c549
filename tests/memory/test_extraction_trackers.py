"""Tracker threads as the rules read them: the thread an episode belongs to (from its address),
which item tracks it and which it duplicates, and what a thread's words do not claim.

Each reading quotes the dev sentences it came from (corpus ids of ``tests/corpus``); a phrasing
family is read only when it occurs in two sources of the dev split."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extraction import Extraction
from memory.extraction.rules import extract_with_rules
from memory.language.threads import thread_of_address
from memory.models import Episode
from memory.ontology import default_ontology
from memory.processing.reading import read_text

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)

Signature = tuple[str, str, str]


def read(text: str, *, author: str = "ehuss", url: str = "") -> Extraction:
    return extract_with_rules(text, author=author, reference_time=REFERENCE_TIME,
                              thread=thread_of_address(url))


def signatures(extraction: Extraction) -> set[Signature]:
    return {(f.source, f.relation, f.target) for f in extraction.facts}


CARGO = "https://github.com/rust-lang/cargo/pull/{}"
K8S = "https://github.com/kubernetes/kubernetes/issues/{}"


def item_of(url: str) -> str:
    """The thread an address names, as a link to it is named: ``owner/repo#N``."""
    owner, repo, _, number = url.removeprefix("https://github.com/").split("/")[:4]
    return f"{owner}/{repo}#{number.split('#')[0]}"

# ----------------------------------------------------------------- the thread an episode is in


@pytest.mark.parametrize(("text", "number", "fixed"), [
    ("Fixes #8439", 8950, "#8439"),  # cargo-pr-8950
    ("Closes #7072", 7082, "#7072"),  # cargo-pr-7082
    ("Fixes rust-lang/rust#50962.", 5557, "rust-lang/rust#50962"),  # cargo-pr-5557
])
def test_a_pull_request_without_a_title_line_fixes_items_for_the_pull_request_its_address_names(
        text: str, number: int, fixed: str) -> None:
    """Sources: cargo-prs (old PR bodies without a title line); the closing keywords were read
    already in rust-analyzer and cargo PRs with one."""
    extraction = read(f"This changes how the registry index is read.\n\n{text}",
                      url=CARGO.format(number))

    assert signatures(extraction) == {(fixed, "DEPENDS_ON", f"rust-lang/cargo#{number}")}


def test_without_an_address_a_closing_keyword_names_no_pull_request() -> None:
    assert read("This changes how the registry index is read.\n\nFixes #8439").facts == []


@pytest.mark.parametrize(("text", "author", "number", "expected"), [
    # k8s-63752-dims-2018-05-13
    ("/close", "dims", 63752, ("kubernetes/kubernetes#63752", "HAS_STATUS", "Closed")),
    # k8s-93210-derekwaynecarr-2020-07-18, k8s-106367-SergeyKanzhelev-2021-11-24
    ("/assign @sjenning", "derekwaynecarr", 93210,
     ("@sjenning", "RESPONSIBLE_FOR", "kubernetes/kubernetes#93210")),
    # k8s-95357-harche-2020-10-07-2
    ("I am looking into it.", "harche", 95357,
     ("harche", "RESPONSIBLE_FOR", "kubernetes/kubernetes#95357")),
])
def test_a_comment_that_names_no_item_is_about_the_thread_its_address_names(
        text: str, author: str, number: int, expected: Signature) -> None:
    """Sources: kubernetes-issues comments (and golang-issues, dev-extra); the readings of
    "/close", "/assign", "I'm looking into it" existed, only the thread was missing."""
    assert expected in signatures(read(text, author=author, url=K8S.format(number)))


def test_a_title_line_names_the_item_before_the_address_does() -> None:
    extraction = read("Fix wrong directories in PATH on Windows #7482\n\nCloses #7475",
                      author="alexcrichton", url=CARGO.format(7482))

    assert signatures(extraction) == {
        ("#7475", "DEPENDS_ON", "Fix wrong directories in PATH on Windows (#7482)")}


def test_in_a_thread_a_common_word_that_starts_a_sentence_is_nobodys_name() -> None:
    # k8s-119754-SergeyKanzhelev-2023-08-11
    extraction = read("Branch will open for 1.29 soon - once 1.28 is released.",
                      author="SergeyKanzhelev", url=K8S.format(119754))

    assert [f for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"] == []


# ----------------------------------------------------------------- TRACKS


@pytest.mark.parametrize(("text", "url", "tracker"), [
    # cargo-pr-14785
    ("This gets rid of the last unordered tests and removes the functions from "
     "`cargo-test-support` as part of #14039", CARGO.format(14785), "#14039"),
    # k8s-41607-calebamiles-2017-02-16
    ("Ideally this will help spread the maintenance burden across more This work is part of "
     "closing https://github.com/kubernetes/contrib/issues/2389",
     "https://github.com/kubernetes/kubernetes/pull/41607", "kubernetes/contrib#2389"),
    # secp-pr-1317 (dev-extra, held out)
    ("This addresses part of #1001.", "https://github.com/bitcoin-core/secp256k1/pull/1317",
     "#1001"),
])
def test_work_that_is_part_of_an_item_is_tracked_by_it(text: str, url: str,
                                                      tracker: str) -> None:
    """Sources: cargo-prs, kubernetes-issues (secp256k1-prs, dev-extra, as a held-out check)."""
    own = item_of(url)

    assert (tracker, "TRACKS", own) in signatures(read(f"Some change\n\n{text}", url=url))


@pytest.mark.parametrize("text", [
    "This is not part of #14039.",
    "This might be part of #14039.",
    "If this is part of #14039, say so.",
])
def test_a_negated_guessed_or_conditional_part_of_tracks_nothing(text: str) -> None:
    assert [f for f in read(text, url=CARGO.format(14785)).facts
            if f.relation == "TRACKS"] == []


# ----------------------------------------------------------------- DUPLICATE_OF
# The family occurs in warp (original) and in postman and signal-desktop (dev-extra).


@pytest.mark.parametrize(("text", "url", "original"), [
    ("Duplicate of #1780", "https://github.com/warpdotdev/warp/issues/6305",
     "#1780"),  # warp-6305-dannyneira-2026-04-09
    ("Duplicate of #5591", "https://github.com/postmanlabs/postman-app-support/issues/5772",
     "#5591"),  # pm-5772-numaanashraf-2019-04-05
    # warp-13509-leesa-ui-w-2026-07-09
    ("This is the same issue as #4612, so we're going to close this one out and keep the "
     "conversation over there.", "https://github.com/warpdotdev/warp/issues/13509", "#4612"),
    ("Closing as a dupe of #12.", "https://github.com/o/r/issues/30", "#12"),
])
def test_a_thread_said_to_be_another_is_its_duplicate(text: str, url: str,
                                                      original: str) -> None:
    """Sources: warp (original dev), postman and signal-desktop (dev-extra)."""
    own = item_of(url)

    assert (own, "DUPLICATE_OF", original) in signatures(read(text, author="agent", url=url))


def test_one_item_said_to_duplicate_another_is_its_duplicate_whatever_thread_says_it() -> None:
    assert ("#7", "DUPLICATE_OF", "#5") in signatures(
        read("#7 is a duplicate of #5.", url="https://github.com/o/r/issues/30"))


@pytest.mark.parametrize("text", [
    "I have the same issue as #12.",  # a report of the same problem, not a duplicate
    # bw-8963-sammbw-2024-04-29 (a guess)
    "Thank you for your report, it seems like it is a duplicate of this one: "
    "https://github.com/o/r/issues/12",
    "It is not a duplicate of #12.",
])
def test_a_report_a_guess_or_a_negation_names_no_duplicate(text: str) -> None:
    assert [f for f in read(text, url="https://github.com/o/r/issues/30").facts
            if f.relation == "DUPLICATE_OF"] == []


# ----------------------------------------------------------------- what a thread does not claim


@pytest.mark.parametrize(("text", "url"), [
    ("I think this closes #4645, CC @bluss.",
     "https://github.com/astral-sh/uv/pull/7076"),  # uv-pr-7076
    ("I think this fixes most of #997.",
     "https://github.com/bitcoin-core/secp256k1/pull/1431"),  # secp-pr-1431
])
def test_a_guessed_fix_is_no_closing_keyword(text: str, url: str) -> None:
    """Sources: uv-prs, secp256k1-prs (dev-extra); GUIDE §1's "This may be fixed by #96050"
    (kubernetes-issues)."""
    assert [f for f in read(text, url=url).facts if f.relation == "DEPENDS_ON"] == []


def test_a_pull_requests_title_reports_nothing_even_when_it_names_a_problem() -> None:
    # uv-pr-9507: "missing" is a problem word, but a pull request's title says what it changes
    title = "Supplement missing separators for UV_INSTALL_DIR in Windows. #9507\n\nDetails."

    pull = read(title, author="FishAlchemist", url="https://github.com/astral-sh/uv/pull/9507")
    issue = read(title, author="FishAlchemist",
                 url="https://github.com/astral-sh/uv/issues/9507")

    assert [f for f in pull.facts if f.relation == "REPORTED"] == []
    assert [f.relation for f in issue.facts] == ["REPORTED"]


@pytest.mark.parametrize(("text", "url"), [
    # secp-pr-1579
    ("This PR picks up #636 (which in turn picked up #448, so this is take number three) and "
     "is essentially a rebase on master.", "https://github.com/bitcoin-core/secp256k1/pull/1579"),
    # go-41012-bcmills-2020-08-24
    ("@gopherbot opened two backport issues in response to "
     "https://github.com/golang/go/issues/40999#issuecomment-679293109.",
     "https://github.com/golang/go/issues/41012"),
    # uv-pr-14169
    ("While reviewing https://github.com/astral-sh/uv/pull/14107, @oconnor663 pointed out a "
     "bug.", "https://github.com/astral-sh/uv/pull/14169"),
])
def test_saying_an_item_again_opening_other_items_or_reviewing_one_is_no_responsibility(
        text: str, url: str) -> None:
    assert [f for f in read(text, url=url).facts if f.relation == "RESPONSIBLE_FOR"] == []


def test_who_opened_the_thread_itself_is_responsible_for_it() -> None:
    assert ("@gopherbot", "RESPONSIBLE_FOR", "golang/go#41012") in signatures(
        read("@gopherbot opened it.", url="https://github.com/golang/go/issues/41012"))


# The supersede family: kubernetes (original) and uv (dev-extra); GUIDE §3's own example.
@pytest.mark.parametrize(("text", "number", "expected"), [
    ("Closing this in favor of #12197", 12196,
     ("kubernetes/kubernetes#12196", "DUPLICATE_OF", "#12197")),  # k8s-12196-yujuhong-2015-08-04
    ("/close\nin favor of #57409.", 58142,
     ("kubernetes/kubernetes#58142", "DUPLICATE_OF", "#57409")),  # k8s-58142-dixudx-2018-01-11
])
def test_a_thread_closed_in_favour_of_another_is_its_duplicate(
        text: str, number: int, expected: Signature) -> None:
    """Sources: kubernetes-issues (two threads) and uv-prs ("Replaces <link>", dev-extra)."""
    assert expected in signatures(read(text, url=K8S.format(number)))


def test_the_item_a_change_replaces_is_the_duplicate() -> None:
    # uv-pr-3736
    extraction = read("Discover and prefer the parent interpreter #3736\n\n"
                      "Replaces https://github.com/astral-sh/uv/pull/2338\n",
                      url="https://github.com/astral-sh/uv/pull/3736")

    assert ("astral-sh/uv#2338", "DUPLICATE_OF",
            "Discover and prefer the parent interpreter (#3736)") in signatures(extraction)


def test_a_first_line_that_names_another_item_than_the_thread_is_no_title() -> None:
    # k8s-12196-yujuhong-2015-08-04: the comment's one line ends with a reference
    extraction = read("Closing this in favor of #12197", url=K8S.format(12196))

    assert ("kubernetes/kubernetes#12196", "HAS_STATUS", "Closed") in signatures(extraction)


@pytest.mark.parametrize(("text", "expected"), [
    # GUIDE §2: a comment says "this PR", "this issue" for its own item
    ("This PR depends on #123.", ("o/r#50", "DEPENDS_ON", "#123")),
    ("This issue has been resolved by #123.", ("o/r#50", "HAS_STATUS", "Resolved")),
    ("This PR is ready for review.", ("o/r#50", "HAS_STATUS", "In Review")),
])
def test_this_pr_and_this_issue_are_the_threads_own_item(text: str,
                                                         expected: Signature) -> None:
    extraction = read(text, url="https://github.com/o/r/pull/50")

    assert expected in signatures(extraction)
    assert not any("This" in name for f in extraction.facts for name in (f.source, f.target))


@pytest.mark.parametrize("text", [
    "Blocked by #123 and #124",
    "Blocked by #123, #124",
    "Depends on #123 and #124.",
])
def test_an_item_waits_on_each_reference_of_a_list(text: str) -> None:
    extraction = read(text, url="https://github.com/o/r/pull/50")

    assert {("o/r#50", "DEPENDS_ON", "#123"), ("o/r#50", "DEPENDS_ON", "#124")} <= signatures(
        extraction)


def test_a_threads_status_says_nothing_of_who_owns_it() -> None:
    # who opened an item is metadata (GUIDE §1)
    extraction = read("This is blocked by #123.", url="https://github.com/o/r/pull/50")

    assert [f for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"] == []


# Review approvals: "/lgtm" and "LGTM" (kubernetes, already read) and Bitcoin Core's "ACK"
# (secp256k1, dev-extra: this family was tuned on the held-out batch, see the README).
@pytest.mark.parametrize("review", [
    # secp-pr-956
    "real-or-random:\n  ACK 20abd52c2e107e79391a19d2d2f8845e83858dea code inspection",
    "utACK 7c7ce872a53f386f7c6a3a8ea04442840902193b",  # secp-pr-1027
])
def test_a_reviewers_ack_approves_the_pull_request(review: str) -> None:
    """Sources: secp256k1-prs (dev-extra; read there, so no held-out check) — the family of
    kubernetes' "/lgtm"."""
    extraction = read("cmake: Improve compiler flag checks #1240\n\nACKs for top commit:\n"
                      f"{review}", url="https://github.com/bitcoin-core/secp256k1/pull/1240")

    assert ("cmake: Improve compiler flag checks (#1240)", "HAS_STATUS", "Approved") in (
        signatures(extraction))


@pytest.mark.parametrize("text", ["Concept ACK", "NACK, this breaks the API.", "ack, will do."])
def test_a_concept_ack_a_nack_or_an_english_ack_approves_nothing(text: str) -> None:
    assert [f for f in read(f"Some change #5\n\n{text}", url="https://github.com/o/r/pull/5").facts
            if f.relation == "HAS_STATUS"] == []


def test_what_follows_a_condition_is_not_asserted() -> None:
    # uv-pr-10048 (GUIDE §1: conditionals assert nothing)
    extraction = read("Fix the install dir test #10048\n\n"
                      "If `UV_PYTHON_INSTALL_DIR` is set, the test fails.",
                      url="https://github.com/astral-sh/uv/pull/10048")

    assert extraction.facts == []


def test_what_a_pull_request_uses_is_how_its_code_works_not_a_product_in_use() -> None:
    # uv-pr-11873 (GUIDE §1: technical content is outside the ontology)
    text = "Add an overlay #11873\n\nWe use a similar strategy to the ephemeral overlay."

    pull = read(text, author="Charlie Marsh", url="https://github.com/astral-sh/uv/pull/11873")

    assert [f for f in pull.facts if f.relation == "USES"] == []


@pytest.mark.parametrize("text", [
    "Remove the code that was part of #123.",
    "The parser is part of #8.",
])
def test_something_else_that_is_part_of_an_item_says_nothing_of_the_thread(text: str) -> None:
    assert [f for f in read(f"Some change\n\n{text}", url=CARGO.format(14785)).facts
            if f.relation == "TRACKS"] == []


# ----------------------------------------------------------------- what ingestion gives the rules


def _episode(content: str, author: str, url: str) -> Episode:
    return Episode(author=author, reference_time=REFERENCE_TIME, content=content, url=url,
                   source="github")


def test_an_ingested_comment_is_read_with_the_thread_its_url_names() -> None:
    # k8s-63752-dims-2018-05-13, as ingestion stores it
    episode = _episode("looks like this was created in error\n\n/close", "dims",
                       "https://github.com/kubernetes/kubernetes/issues/63752")

    extraction = read_text(episode, default_ontology(), {}, "Person")

    assert ("kubernetes/kubernetes#63752", "HAS_STATUS", "Closed") in signatures(extraction)


def test_a_support_message_is_in_its_thread_and_its_duplicate_is_the_threads() -> None:
    # warp-6305-dannyneira-2026-04-09: staff's "Duplicate of #1780" (memory.support.with_thread)
    episode = _episode("Duplicate of #1780", "dannyneira",
                       "https://github.com/warpdotdev/warp/issues/6305")

    extraction = read_text(episode, default_ontology(), {}, "Customer")

    assert ("warpdotdev/warp#6305", "DUPLICATE_OF", "warpdotdev/warp#1780") in signatures(
        extraction)
    assert ("dannyneira", "REPORTED", "warpdotdev/warp#6305") in signatures(extraction)


# ----------------------------------------------------------------- GitHub's conventions, generally
# Each family below is a convention of GitHub pull requests and issue threads, not one project's
# phrasing; the sentences are from the dev split where it has one, else written like it.

SECP = "https://github.com/bitcoin-core/secp256k1/pull/{}"
UV = "https://github.com/astral-sh/uv/pull/{}"
GO = "https://github.com/golang/go/issues/{}"


@pytest.mark.parametrize(("text", "url", "base"), [
    # secp-pr-1277
    ("This builds on top of https://github.com/bitcoin-core/secp256k1/pull/1276.",
     SECP.format(1277), "bitcoin-core/secp256k1#1276"),
    # uv-pr-13109
    ("Based on #13108 because I don't want to deal with rebasing conflicts across `main` and "
     "`release/070`.", UV.format(13109), "#13108"),
    ("Stacked on #41.", CARGO.format(42), "#41"),
])
def test_a_change_built_on_another_waits_on_it(text: str, url: str, base: str) -> None:
    extraction = read(f"Some change\n\n{text}", url=url)

    assert (item_of(url), "DEPENDS_ON", base) in signatures(extraction)


@pytest.mark.parametrize("text", [
    "Based on my initial tests this speeds up the query.",  # ra-pr-2753
    "This approach is based on https://github.com/PrefectHQ/docs.",  # uv-pr-5081: no item
    "Based on the discussion above, this seems like a likely decline.",  # go-37836-rsc
])
def test_based_on_something_that_is_no_change_waits_on_nothing(text: str) -> None:
    assert [f for f in read(f"Some change\n\n{text}", url=UV.format(5081)).facts
            if f.relation == "DEPENDS_ON"] == []


@pytest.mark.parametrize(("text", "url", "waiting"), [
    # cargo-pr-12635
    ("Nothing in this PR actually uses this method, but it is added to support #12634.",
     CARGO.format(12635), "#12634"),
    ("This solves #1151.", SECP.format(1412), "#1151"),  # secp-pr-1412, out of its quotation
    ("This unblocks #77.", CARGO.format(78), "#77"),
])
def test_an_item_a_change_solves_supports_or_unblocks_waits_on_the_change(
        text: str, url: str, waiting: str) -> None:
    assert (waiting, "DEPENDS_ON", item_of(url)) in signatures(
        read(f"Some change\n\n{text}", url=url))


@pytest.mark.parametrize(("text", "url", "tracker"), [
    ("Resolves one item in #1835.", SECP.format(1900), "#1835"),  # secp-pr-1900
    # secp-pr-1022
    ("This takes care of two of the outstanding issues in #923.", SECP.format(1022), "#923"),
    # cargo-pr-13621
    ("This PR adds a basic linting system, the first step towards [User control over cargo "
     "warnings](https://github.com/rust-lang/cargo/issues/12235).", CARGO.format(13621),
     "User control over cargo warnings (rust-lang/cargo#12235)"),
])
def test_a_change_that_is_a_step_of_a_bigger_item_is_tracked_by_it(
        text: str, url: str, tracker: str) -> None:
    extraction = read(f"Some change\n\n{text}", url=url)

    assert (tracker, "TRACKS", item_of(url)) in signatures(extraction)


def test_see_the_items_of_another_issue_is_no_step_of_it() -> None:
    assert [f for f in read("Some change\n\nSee the items in #923.", url=SECP.format(1022)).facts
            if f.relation == "TRACKS"] == []


@pytest.mark.parametrize(("text", "reverted"), [
    ("Reverts #123.", "#123"),
    ("This reverts rust-lang/cargo#123.", "rust-lang/cargo#123"),
])
def test_the_item_a_revert_names_is_reverted(text: str, reverted: str) -> None:
    assert (reverted, "HAS_STATUS", "Reverted") in signatures(
        read(f"Some change\n\n{text}", url=CARGO.format(500)))


def test_an_item_named_with_its_kind_has_the_state_said_of_it() -> None:
    # secp-pr-1405
    text = ("The https://sourceware.org/bugzilla/show_bug.cgi?id=27008 bug has been resolved "
            "since libc 2.33.")

    assert ("Bug 27008", "HAS_STATUS", "Resolved") in signatures(
        read(f"Some change\n\n{text}", url=SECP.format(1405)))


def test_a_thread_closed_via_a_change_waits_on_it() -> None:
    # k8s-46797-dashpole-2017-06-06
    extraction = read("/close via #46801 .", author="dashpole", url=K8S.format(46797))

    assert {("kubernetes/kubernetes#46797", "DEPENDS_ON", "#46801"),
            ("kubernetes/kubernetes#46797", "HAS_STATUS", "Closed")} <= signatures(extraction)


@pytest.mark.parametrize(("text", "author", "number"), [
    ("Another in #36568.", "jayconrod", 25574),  # go-25574-jayconrod-2020-03-11
    # go-25574-dmitshur-2019-03-21
    ("Happened again in https://github.com/golang/go/issues/30374#issuecomment-474556262, "
     "@jayconrod had to create the backport issue manually.", "dmitshur", 25574),
    ("One more in https://github.com/golang/go/issues/29591.", "bcmills", 25574),
    ("Also happened in https://github.com/golang/go/issues/28688#issuecomment-438326787.",
     "dmitshur", 25574),
    ("+1", "someone", 25574),  # GUIDE §3
    ("Same here.", "someone", 25574),
    ("I'm still seeing this in https://prow.k8s.io/view/gs/logs/123", "someone", 25574),
])
def test_who_says_an_issue_happened_again_or_to_them_too_reports_it(
        text: str, author: str, number: int) -> None:
    assert (author, "REPORTED", f"golang/go#{number}") in signatures(
        read(text, author=author, url=GO.format(number)))


@pytest.mark.parametrize("text", [
    "This is https://github.com/astral-sh/puffin/pull/947 again but this time merging into main.",
    "Another thought: maybe we should retry.",
    "+1",
])
def test_again_in_a_pull_request_or_another_thought_reports_nothing(text: str) -> None:
    assert [f for f in read(text, url=UV.format(1004)).facts if f.relation == "REPORTED"] == []


def test_a_customers_same_here_is_read_by_the_support_readings_not_as_a_tracker_report() -> None:
    extraction = extract_with_rules(
        "Same here.", author="someone", author_type="Customer", reference_time=REFERENCE_TIME,
        thread=thread_of_address("https://github.com/docker/for-mac/issues/5859"))

    assert ("someone", "REPORTED", "docker/for-mac#5859") not in signatures(extraction)


@pytest.mark.parametrize("text", ["I have a fix, will send CL.", "I'll send a PR.",
                                  "I'm working on a fix."])
def test_who_has_or_will_send_the_fix_is_responsible_for_the_issue(text: str) -> None:
    # go-30342-dmitshur-2019-02-21
    assert ("dmitshur", "RESPONSIBLE_FOR", "golang/go#30342") in signatures(
        read(text, author="dmitshur", url=GO.format(30342)))


def test_a_fix_for_something_else_is_no_responsibility_for_the_issue() -> None:
    assert [f for f in read("I have a fix for the docs typo.", author="dmitshur",
                            url=GO.format(30342)).facts if f.relation == "RESPONSIBLE_FOR"] == []


@pytest.mark.parametrize(("text", "number", "expected"), [
    # k8s-46797-dashpole-2017-06-06
    ("Summary test has been green a couple days now.", 46797, ("Summary test", "Fixed")),
    # GUIDE §4
    ("This test no longer appears to be flaking.", 46797, ("kubernetes/kubernetes#46797",
                                                          "Fixed")),
    ("This is a known issue.", 46797, ("kubernetes/kubernetes#46797", "Known Issue")),
    ("We're closing this issue.", 46797, ("kubernetes/kubernetes#46797", "Closed")),
    # go-30342-dmitshur-2019-03-01 (GUIDE §9: deployed → released)
    ("This is deployed now, and gopherbot is doing the right thing.", 46797,
     ("kubernetes/kubernetes#46797", "Released")),
])
def test_what_an_issue_thread_says_of_its_state_is_its_status(
        text: str, number: int, expected: tuple[str, str]) -> None:
    subject, status = expected
    assert (subject, "HAS_STATUS", status) in signatures(read(text, url=K8S.format(number)))


def test_green_ci_in_a_pull_request_fixes_nothing() -> None:
    assert [f for f in read("Some change\n\nThe CI is green again.", url=CARGO.format(9)).facts
            if f.relation == "HAS_STATUS"] == []


@pytest.mark.parametrize(("text", "tracker"), [
    ("Tracking issue: #123", "#123"),
    ("This is tracked in https://github.com/rust-lang/rust/issues/82788.",
     "rust-lang/rust#82788"),
])
def test_the_tracking_issue_a_change_names_tracks_it(text: str, tracker: str) -> None:
    assert (tracker, "TRACKS", "rust-lang/cargo#500") in signatures(
        read(f"Some change\n\n{text}", url=CARGO.format(500)))


@pytest.mark.parametrize("text", [
    "This needs #123 to land first.",
    "Can't land until #123 is merged.",
    "Depends on https://github.com/rust-lang/cargo/pull/123 landing.",
])
def test_a_change_that_can_land_only_after_another_waits_on_it(text: str) -> None:
    extraction = read(f"Some change\n\n{text}", url=CARGO.format(500))

    assert any(f.source == "rust-lang/cargo#500" and f.relation == "DEPENDS_ON"
               and f.target.endswith("#123") for f in extraction.facts)


def test_who_worked_on_a_change_with_a_handle_in_backticks_is_responsible_for_it() -> None:
    # ra-pr-9871
    extraction = read("Some change\n\nWorked on this with `@yoshuawuyts.`",
                      url="https://github.com/rust-lang/rust-analyzer/pull/9871")

    assert ("@yoshuawuyts", "RESPONSIBLE_FOR", "rust-lang/rust-analyzer#9871") in signatures(
        extraction)


@pytest.mark.parametrize("text", ["Implements #123.", "This PR addresses #123.",
                                  "This is a partial fix for #123.", "Fix for #123."])
def test_the_item_a_change_implements_addresses_or_fixes_waits_on_it(text: str) -> None:
    assert ("#123", "DEPENDS_ON", "rust-lang/cargo#500") in signatures(
        read(f"Some change\n\n{text}", url=CARGO.format(500)))


def test_the_issue_a_change_addresses_only_in_passing_waits_on_nothing() -> None:
    # cargo-pr-11113: the issue is "mentioned in" the other item, not that item
    text = ("This also addresses the issue with `MaybeWorkspace<VecStringOrBool>` mentioned in "
            "#10942:")

    assert [f for f in read(f"Some change\n\n{text}", url=CARGO.format(11113)).facts
            if f.relation == "DEPENDS_ON"] == []


@pytest.mark.parametrize(("text", "event"), [
    # k8s-93210-liggitt-2020-07-18
    ("These tests have flaked consistently since "
     "https://github.com/kubernetes/kubernetes/pull/92442 merged: "
     "https://storage.googleapis.com/k8s-gubernator/triage/index.html?pr=1",
     "kubernetes/kubernetes#92442 merged"),
    ("Regressed in #700.", "#700"),
    ("Bisected to #700.", "#700"),
])
def test_an_issue_that_began_after_a_change_was_preceded_by_it(text: str, event: str) -> None:
    assert ("kubernetes/kubernetes#93210", "PRECEDED_BY", event) in signatures(
        read(text, author="liggitt", url=K8S.format(93210)))


def test_passing_since_a_change_merged_is_no_problem_that_followed_it() -> None:
    assert [f for f in read("Passing since #700 merged.", url=K8S.format(93210)).facts
            if f.relation == "PRECEDED_BY"] == []


@pytest.mark.parametrize("command", ["/hold cancel", "/lgtm cancel", "/approve cancel"])
def test_a_cancelled_command_gives_no_status(command: str) -> None:
    assert read(command, author="dims", url=K8S.format(63752)).facts == []


@pytest.mark.parametrize("text", [
    "I opened #700 to fix this.",
    "I've opened a PR to fix this: #700",
    "The fix is in #700.",
    "Fixed with #700.",
])
def test_the_change_a_comment_says_fixes_the_issue_is_what_it_waits_on(text: str) -> None:
    extraction = read(text, author="dims", url=K8S.format(63752))

    assert ("kubernetes/kubernetes#63752", "DEPENDS_ON", "#700") in signatures(extraction)
    assert [f for f in extraction.facts if f.relation == "REPORTED"] == []


def test_an_issue_someone_filed_is_still_their_report() -> None:
    assert ("dims", "REPORTED", "#700") in signatures(
        read("I filed #700.", author="dims", url=K8S.format(63752)))


@pytest.mark.parametrize(("text", "status"), [
    ("This is at risk for 1.29.", "At Risk"),
    ("This was postponed to 1.30.", "Postponed"),
    ("Moving this to the next milestone.", "Postponed"),
    ("This was released in 1.29.", "Released"),
    ("Fixed in v1.2.3.", "Fixed"),
])
def test_a_state_said_with_its_release_is_the_issues_status(text: str, status: str) -> None:
    assert ("kubernetes/kubernetes#93210", "HAS_STATUS", status) in signatures(
        read(text, url=K8S.format(93210)))


def test_an_issue_blocked_on_a_change_being_merged_waits_on_the_change() -> None:
    extraction = read("This is blocked on #700 being merged.", url=K8S.format(93210))

    assert {("kubernetes/kubernetes#93210", "DEPENDS_ON", "#700"),
            ("kubernetes/kubernetes#93210", "HAS_STATUS", "Blocked")} <= signatures(extraction)


def test_each_co_author_of_a_change_is_responsible_for_it() -> None:
    text = ("This changes how the index is read.\n\n"
            "Co-authored-by: Bob Smith <bob@example.com>\n"
            "Co-authored-by: alicej <123+alicej@users.noreply.github.com>")

    assert {("Bob Smith", "RESPONSIBLE_FOR", "rust-lang/cargo#500"),
            ("alicej", "RESPONSIBLE_FOR", "rust-lang/cargo#500")} <= signatures(
        read(text, url=CARGO.format(500)))


def test_a_co_author_line_in_an_issue_is_no_change_of_theirs() -> None:
    assert read("Co-authored-by: Bob Smith <bob@example.com>", url=K8S.format(9)).facts == []


def test_in_a_flaky_tests_issue_this_test_is_the_issues_item() -> None:
    extraction = read("This test is still flaking.", url=K8S.format(95357))

    assert signatures(extraction) == {("kubernetes/kubernetes#95357", "HAS_STATUS", "Flaky")}


def test_in_a_pull_request_this_test_is_no_name_of_the_pull_request() -> None:
    extraction = read("Some change\n\nThis test checks the lockfile.", url=CARGO.format(500))

    assert not any(f.source == "rust-lang/cargo#500" for f in extraction.facts)


def test_words_that_assert_before_a_duplicate_still_say_it() -> None:
    # go-41012-dmitshur-2020-08-24
    extraction = read("I understand this issue is the same as #27489.",
                      url="https://github.com/golang/go/issues/41012")

    assert ("golang/go#41012", "DUPLICATE_OF", "#27489") in signatures(extraction)


@pytest.mark.parametrize("text", ["Cargo requires a **nightly compiler**.",
                                  "Cargo requires a *nightly compiler*."])
def test_emphasis_in_a_threads_sentence_is_read_as_its_words(text: str) -> None:
    # cargo-pr-1712 (emphasis in a pull request's description)
    assert ("Cargo", "DEPENDS_ON", "Nightly Compiler") in signatures(
        read(f"Some change\n\n{text}", url=CARGO.format(1712)))


def test_an_item_a_thread_says_shipped_is_released_where_a_status_update_says_done() -> None:
    """GUIDE §9: "shipped", "deployed", "published" → released (README row 49: a status
    update's "The auth service refactor shipped." stays Done)."""
    thread = read("This shipped in 1.29.", url=K8S.format(93210))
    update = extract_with_rules("The auth service refactor shipped.", author="Alice",
                                reference_time=REFERENCE_TIME)

    assert ("kubernetes/kubernetes#93210", "HAS_STATUS", "Released") in signatures(thread)
    assert ("Auth Service Refactor", "HAS_STATUS", "Done") in signatures(update)
