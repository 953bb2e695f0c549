"""Readings the rules decline, so that a doubtful fact never becomes a confident, cited
observation (issue #17, precision round). Every example is a sentence of the corpus's dev split,
named by its episode id; each class of misreading occurs in at least two dev sources, which each
test's docstring names. Each test also reads a sentence the guard must leave alone."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction import Extraction
from memory.extraction.rules import conditioned, denied, extract_with_rules, refers_back

REFERENCE_TIME = datetime(2024, 10, 8, tzinfo=UTC)


def customer_says(text: str, author: str = "jane") -> Extraction:
    return extract_with_rules(text, author=author, reference_time=REFERENCE_TIME,
                              author_type="Customer")


def minutes(text: str) -> Extraction:
    return extract_with_rules(text, author="", reference_time=REFERENCE_TIME)


def reported(extraction: Extraction) -> set[str]:
    return {f.target for f in extraction.facts if f.relation == "REPORTED"}


def named(extraction: Extraction) -> set[str]:
    return {e.name for e in extraction.entities}


# ------------------------------------------------------------- names that only point back


def test_a_bare_problem_word_names_no_problem_of_its_own() -> None:
    """pm-4642-WurstCommander-2018-11-18 (postman): "the bug" is the thread's problem, named
    elsewhere; cur-598-zdaar-2024-10-16 (cursor): "Same error" is another's."""
    assert reported(customer_says("Yesterday the bug was back, I had the close the postman.exe "
                                  "with taskmanager and at last postman started.")) == set()
    assert reported(customer_says("Same error, ubuntu 23.04")) == set()


def test_a_bare_document_or_issue_kind_is_no_work_item_in_minutes() -> None:
    """wasm-cg-main-2022-cg-03-01-s12 ("Spec has been stalled in phase 2 since 2019") and
    ipfs-2018-04-23-js-ipfs-core-dev-team-weekly-vasco-santos ("- Pending Issues" under Next)."""
    spec = minutes("#### Update on ES Module Integration (Asumu Takikawa) [30 min]\n\n"
                   "- Spec has been stalled in phase 2 since 2019; no web engines had "
                   "supported, no test suite\n")
    standup = minutes("### Week Update\n\n@vasco-santos\n- Next:\n  - Pending Issues\n")

    assert "Spec" not in named(spec)
    assert "Issues" not in named(standup) and "Pending Issues" not in named(standup)


def test_a_problem_named_by_its_own_words_is_still_a_name() -> None:
    assert refers_back(["same", "error"])
    assert refers_back(["pending", "issues"])
    assert not refers_back(["login", "errors"])
    assert not refers_back(["spec", "draft", "review"])


# ------------------------------------------------------------------ the vendor's own words


MULLVAD_AGENT = (
    "@krishnacenter You are sadly not the only person with this issue. Russia has recently "
    "started blocking our API server and the bridges we use to reach it more aggressively. For "
    "more in depth help I recommend you contact support@mullvad.net.\n\n"
    "In short, basically the ways our app currently access the API are currently blocked."
)


def test_a_message_in_the_vendors_voice_reports_no_problem_of_its_author() -> None:
    """mv-4663-faern-2023-05-09 and mv-503-faern-2018-10-08 (mullvad: "our API server", "our
    app", "I recommend you contact support"); the same voice — thanks for the report, then
    advice — in bw-8963-sammbw-2024-04-29 (bitwarden) and warp-13509-leesa-ui-w-2026-07-09
    (warp). An agent's message is never a report (GUIDE §6)."""
    assert reported(customer_says(MULLVAD_AGENT, author="faern")) == set()
    assert reported(customer_says(
        "We are currently working on allowing logins to the app for users where the computer "
        "for some reason fail to communicate with our API. If you are willing to run beta "
        "software you can test it out.", author="faern")) == set()


def test_a_customer_may_call_their_own_api_ours_when_they_advise_no_one() -> None:
    """A business customer's "our API" alone is no vendor's voice."""
    assert reported(customer_says("Our API calls keep timing out since the update.")) != set()


def test_the_same_words_about_the_customers_own_app_are_their_report() -> None:
    """mv-4663-faern-2023-05-09's sentence with "my app" for "our app"."""
    assert reported(customer_says("In short, the ways my app currently access the API are "
                                  "currently blocked.")) == {"API are currently blocked"}


# ---------------------------------------------------------- conditions put to the reader


def test_a_condition_put_to_the_reader_is_advice_not_a_report() -> None:
    """cur-598-danperks-2024-10-04 (cursor: an agent's "if your network/VPN isn't blocking")
    and sig-6970-waynongithub-2024-10-08 (signal: a customer explaining "So if you try to open
    a database …, it will report a database error")."""
    assert reported(customer_says(
        'You should see something like "Welcome to Cursor. From server xxxx..." if your '
        "network/VPN isn't blocking requests.")) == set()
    assert reported(customer_says(
        "So if you try to open a database that was made in an older version of Signal in a "
        "newer version of Signal, it will report a database error.")) == set()


def test_a_condition_of_the_customers_own_still_reports_the_problem() -> None:
    assert reported(customer_says("Whenever I open the app, it crashes.")) != set()
    assert reported(customer_says("When you open the app, it crashes.")) != set()


def test_whether_the_reader_can_reproduce_it_is_no_condition_on_the_problem() -> None:
    """warp-5244-kamel3d-2024-08-21: "not sure if you can reproduce it but the login is not
    working" — the problem is said after "but", outside the "if"."""
    assert not conditioned("not sure if you can reproduce it but the login is not working",
                           "the login is not working")
    assert reported(customer_says("I don't know if you can reproduce it but the login is not "
                                  "working.")) != set()


# -------------------------------------------------------------- a problem said not to happen


def test_a_problem_said_not_to_happen_is_not_reported() -> None:
    """warp-5357-falrom-2025-07-21 (warp: "does not, by itself, cause a memory leak") and
    cur-598-danperks-2024-10-04 (cursor: "VPN isn't blocking requests")."""
    extraction = customer_says("Simply attaching to an already running Docker container does "
                               "not, by itself, cause a memory leak.")

    assert reported(extraction) == set()
    assert denied("if your network/VPN isn't blocking requests.", "VPN isn't blocking")


def test_a_failure_is_its_own_negation_and_stays_a_problem() -> None:
    """warp-5357-falrom-2025-07-21's next sentence, and "doesn't work" (bw-11475)."""
    assert not denied("autofill does not work", "autofill does not work")
    assert reported(customer_says(
        "However, once I execute the command 'Warpify subshell Ctrl+I', memory usage begins "
        "to grow endlessly.")) != set()
