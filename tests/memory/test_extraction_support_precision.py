"""What a customer's message in a support tracker does not report (issue #17, support genre):
the readings that said more than the words. Sentences from the corpus's dev episodes (ids in the
comments)."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction import Extraction
from memory.extraction.rules import extract_with_rules
from memory.extraction.support_context import asked_problem, names_occasion, names_os_release
from memory.extraction.support_products import product_words
from memory.extraction.support_reports import whole_product_fails

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)
DOCKER = product_words("docker/for-mac#1813")


def read(text: str, product: frozenset[str] = DOCKER) -> Extraction:
    return extract_with_rules(
        text, author="kim", reference_time=REFERENCE_TIME, author_type="Customer", product=product
    )


def signatures(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_the_trackers_product_failing_as_a_whole_names_no_symptom() -> None:
    # dfm-1813-jgf20-2017-07-03, dfw-9639-johan974-2020-11-28
    assert whole_product_fails("On Friday my docker", "stopped working", DOCKER)
    assert whole_product_fails("Docker version 2.5.0.1", "doesn't work", DOCKER)
    assert not whole_product_fails("MagicDNS", "stopped working", DOCKER)
    assert not whole_product_fails("Docker", "fails to start", DOCKER)


def test_the_symptom_said_after_the_product_stopped_working_is_the_report() -> None:
    # dfm-1813-jgf20-2017-07-03
    extraction = read(
        "On Friday my docker stopped working and was unable to start, tried updating docker"
        " today, but it was still stuck."
    )
    assert signatures(extraction) == {("kim", "REPORTED", "unable to start")}


def test_a_product_that_does_not_work_is_reported_by_what_it_then_does() -> None:
    # dfw-9639-johan974-2020-11-28
    extraction = read(
        "Docker version 2.5.0.1 doesn't work on my windows 10 pro. The hyper-v version first"
        " keeps on starting ..."
    )
    assert signatures(extraction) == {("kim", "REPORTED", "keeps on starting")}


def test_a_feature_that_stopped_working_is_still_a_problem() -> None:
    assert ("kim", "REPORTED", "MagicDNS Stopped Working") in signatures(
        read("MagicDNS stopped working.")
    )


def test_a_customer_still_stuck_gives_their_thread_no_blocked_status() -> None:
    # dfm-1813-jgf20-2017-07-03: "it was still stuck" is the symptom, not the thread's status
    extraction = extract_with_rules(
        "I tried updating docker today, but it was still stuck.",
        author="kim",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=DOCKER,
    )
    assert not [f for f in extraction.facts if f.relation == "HAS_STATUS"]


def test_a_problem_given_as_the_cause_of_another_is_no_report() -> None:
    # mv-1875-narration-sd-2020-06-25
    extraction = read(
        "it's pretty clear this is due to the safety through network blocking by (also latest)"
        " Norton 360, until it's up and ready to provide its firewall, etc..",
        product_words("mullvad/mullvadvpn-app#1875"),
    )
    assert not [f for f in extraction.facts if f.relation == "REPORTED"]


def test_a_cpu_that_does_not_fill_up_is_no_autofill_failure() -> None:
    # cur-3488-YeKao-2025-08-13: what the customer reports is the freeze
    extraction = read(
        "I restarted hundreds of times a day, and the CPU didn't even fill up the cursor before"
        " it froze by itself.",
        product_words("getcursor/cursor#3488"),
    )
    assert signatures(extraction) == {("kim", "REPORTED", "froze")}


def test_something_used_with_an_indefinite_article_is_no_product() -> None:
    # cur-1902-Anajrim01-2024-09-15-2
    extraction = read(
        "I was using a proxy in Code which got imported in Cursor too.",
        product_words("getcursor/cursor#1902"),
    )
    assert not [f for f in extraction.facts if f.relation == "USES"]
    assert ("kim", "USES", "Slack") in signatures(read("We use Slack and Jira."))


def test_the_update_a_problem_came_after_keeps_its_version() -> None:
    # sig-6996-thlkmoeller-2024-08-28
    extraction = read(
        "since the update to 7.22.0 i cannot start signal desktop anymore.",
        product_words("signalapp/Signal-Desktop#6996"),
    )
    assert (
        "cannot start signal desktop anymore",
        "PRECEDED_BY",
        "Update to 7.22.0",
    ) in signatures(extraction)


def test_what_fails_is_named_without_the_place_it_fails_in() -> None:
    # ts-8314-sspreitzer-2023-06-09
    extraction = read(
        "After upgrading to MacOS 13.4 the exit node functionality in the MacOS tailscale"
        " client does no longer work.",
        product_words("tailscale/tailscale#8314"),
    )
    assert signatures(extraction) == {
        ("kim", "REPORTED", "exit node functionality does no longer work"),
        ("exit node functionality does no longer work", "PRECEDED_BY", "Upgrading to MacOS 13.4"),
    }


def test_a_title_that_opens_on_its_update_reports_the_problem_after_the_colon() -> None:
    # ts-8314-sspreitzer-2023-06-09
    extraction = extract_with_rules(
        "# MacOS 13.4 update: Tailscale exit node functionality stops working #8314\n\n"
        "### What is the issue?\n\n"
        "After upgrading to MacOS 13.4 the exit node functionality in the MacOS tailscale client"
        " does no longer work.",
        author="sspreitzer",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=product_words("tailscale/tailscale#8314"),
    )
    issue = "Tailscale exit node functionality stops working (#8314)"
    assert signatures(extraction) == {
        ("sspreitzer", "REPORTED", issue),
        (issue, "PRECEDED_BY", "MacOS 13.4 Update"),
    }


def test_a_title_whose_first_part_reports_keeps_it() -> None:
    extraction = extract_with_rules(
        "# Autofill not working: tried everything #12\n\nNothing helps.",
        author="kim",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=product_words("bitwarden/clients#12"),
    )
    assert ("kim", "REPORTED", "Autofill not working (#12)") in signatures(extraction)


def test_a_title_that_opens_on_after_which_update_reports_what_broke() -> None:
    # sig-5125-friedrico-2021-03-25
    extraction = extract_with_rules(
        '# after each update; db broken: Error: SQLITE_NOTADB: file is not a database" #5125\n\n'
        "Hi.",
        author="friedrico",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=product_words("signalapp/Signal-Desktop#5125"),
    )
    assert signatures(extraction) == {
        ("friedrico", "REPORTED", "db broken (#5125)"),
        ("db broken (#5125)", "PRECEDED_BY", "Each Update"),
    }


def test_a_title_with_a_failing_action_in_any_form_is_a_report() -> None:
    # pm-7934-fengyangdi-2020-01-20
    extraction = extract_with_rules(
        "# Postman's window is not show when open the app #7934\n\nHello.",
        author="fengyangdi",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=product_words("postmanlabs/postman-app-support#7934"),
    )
    assert (
        "fengyangdi",
        "REPORTED",
        "Postman's window is not show when open the app (#7934)",
    ) in signatures(extraction)


def test_a_customer_on_a_version_of_the_trackers_product_uses_it_not_their_platform() -> None:
    # dfm-5231-Apollorion-2021-01-11
    extraction = read("I am on the latest version of docker desktop and Catalina.")
    assert signatures(extraction) == {("kim", "USES", "Docker Desktop")}
    assert not read("I am on the latest version of Catalina.").facts


def test_what_a_customer_uses_is_named_without_the_platform_it_runs_on() -> None:
    # ts-14884-chunjiw-2025-03-11
    extraction = read(
        "I'm using tailscale cli on Ubuntu and I have the same issue.",
        product_words("tailscale/tailscale#14884"),
    )
    assert ("kim", "USES", "Tailscale Cli") in signatures(extraction)


def test_a_quoted_state_in_a_title_keeps_no_half_quote() -> None:
    # dfw-8265-GothicSecret-2020-08-29
    extraction = extract_with_rules(
        '# stuck on "starting" #8265\n\nrun docker - it is stucked on "Starting" forever',
        author="GothicSecret",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=product_words("docker/for-win#8265"),
    )
    assert ("GothicSecret", "REPORTED", "stuck on starting (#8265)") in signatures(extraction)


def test_what_a_reported_problem_keeps_the_customer_from_is_no_second_report() -> None:
    # after bw-7630-niole-2024-01-20
    bitwarden = product_words("bitwarden/clients#7630")
    consequence = "Therefore, I cannot edit my 2-factor auth settings, like I was planning to do."
    extraction = read(f"Autofill does not work. {consequence}", bitwarden)
    assert {f.target for f in extraction.facts if f.relation == "REPORTED"} == {
        "Autofill Doesn't Work"
    }


def test_a_consequence_is_the_report_when_the_problem_itself_was_not_read() -> None:
    # bw-7630-niole-2024-01-20: "The web app does not accept this code" is not read
    bitwarden = product_words("bitwarden/clients#7630")
    consequence = "Therefore, I cannot edit my 2-factor auth settings, like I was planning to do."
    assert ("kim", "REPORTED", "cannot edit my 2-factor auth settings") in signatures(
        read(consequence, bitwarden)
    )


def test_how_long_a_product_has_been_used_is_no_part_of_its_name() -> None:
    extraction = read(
        "I have been using Postman for a while now.",
        product_words("postmanlabs/postman-app-support#1"),
    )
    assert signatures(extraction) == {("kim", "USES", "Postman")}


def test_a_sentence_that_says_what_is_used_still_reports_its_problem() -> None:
    postman = product_words("postmanlabs/postman-app-support#1")
    extraction = read("I am on the latest version of Postman and it crashes on startup.", postman)
    assert {("kim", "USES", "Postman"), ("kim", "REPORTED", "crashes")} <= signatures(extraction)


def test_a_title_that_asks_how_to_fix_this_problem_names_no_problem() -> None:
    # seen on public support threads outside the corpus (issue #17)
    assert asked_problem("How to solve this problem?") is None
    assert asked_problem("How do I fix this?") is None
    assert asked_problem("Any idea how to fix this issue") is None
    assert asked_problem("How to fix login not working") == "login not working"
    assert asked_problem("Login not working") == "Login not working"
    extraction = extract_with_rules(
        "# How to solve this problem? #12\n\nThe widget crashes when I open a file.",
        author="kim",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=product_words("acme/widget#12"),
    )
    assert not any("How to solve" in f.target for f in extraction.facts)


def test_a_title_that_asks_how_to_fix_a_named_problem_reports_that_problem() -> None:
    extraction = extract_with_rules(
        "# How to fix login not working? #12\n\nI cannot log in.",
        author="kim",
        reference_time=REFERENCE_TIME,
        author_type="Customer",
        product=product_words("acme/widget#12"),
    )
    assert ("kim", "REPORTED", "login not working (#12)") in signatures(extraction)


def test_the_moment_a_problem_shows_is_not_what_it_affects() -> None:
    assert names_occasion("start") and names_occasion("the first start")
    assert names_occasion("Startup") and not names_occasion("the export")
    assert not any(f.relation == "AFFECTS" for f in read("The widget crashes on start.").facts)
    assert not any(f.relation == "AFFECTS" for f in read("Crash on startup").facts)


def test_the_operating_system_a_problem_shows_on_is_not_what_it_affects() -> None:
    for release in ("High Sierra", "macOS Big Sur", "Windows 11", "Android 14", "Ubuntu 22.04",
                    "Mac OS X 10.13"):
        assert names_os_release(release), release
    for product in ("Docker Desktop", "Windows Terminal", "Docker for Mac", "Pro", "Sierra Cloud"):
        assert not names_os_release(product), product
    for text in ("The widget crashes on High Sierra.", "Login fails on Windows 11",
                 "The app crashes on Android 14", "The app crashes on macOS Big Sur"):
        assert not any(f.relation == "AFFECTS" for f in read(text).facts), text


def test_a_product_a_problem_shows_in_still_is_what_it_affects() -> None:
    assert ("Crashes", "AFFECTS", "Docker Desktop") in signatures(
        read("The widget crashes on Docker Desktop.")
    )
    assert ("Login Failures", "AFFECTS", "Mobile App") in signatures(
        read("Our users can't log in to the mobile app.")
    )
    assert ("Timeout Errors", "AFFECTS", "Export") in signatures(
        read("Requests time out on the export.")
    )
