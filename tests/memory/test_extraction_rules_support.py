"""How the rules read customers' support messages (``memory.extraction.rules``): what a body
restating the title's problem adds, guesses and their scope, and what a title's subject names.
Phrasings from the corpus's dev episodes (ids in the comments)."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction import Extraction
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)


def read(text: str, author: str = "kim") -> Extraction:
    return extract_with_rules(text, author=author, reference_time=REFERENCE_TIME,
                              author_type="Customer")


def signatures(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_the_body_saying_what_the_titles_problem_followed_gives_its_event() -> None:
    # bw-9369-juarez-spa3-2024-05-25
    extraction = read("# Autofill and CTRL+Shift+L not working #9369\n\n"
                      "Autofill and CTRL+Shift+L stopped working after version 2024.5.0.")

    assert signatures(extraction) == {
        ("kim", "REPORTED", "Autofill and CTRL+Shift+L not working (#9369)"),
        ("Autofill and CTRL+Shift+L not working (#9369)", "PRECEDED_BY", "Version 2024.5.0")}


def test_a_problem_the_body_reports_after_an_event_followed_it() -> None:
    # dfw-9385-zhangmx-2020-11-04: the title names no known problem, the body does
    extraction = read("# docker desktop wsl distro stopped #9385\n\n### Actual behavior\n\n"
                      "After update, docker could not run.")
    # cur-3488-YeKao-2025-08-13
    freeze = read("After one update, it started to freeze.")

    assert ("docker could not run", "PRECEDED_BY", "Update") in signatures(extraction)
    assert ("freeze", "PRECEDED_BY", "One Update") in signatures(freeze)


def test_a_title_that_guesses_reports_nothing_and_the_body_says_what_is_seen() -> None:
    # warp-6830-yanquer-2025-07-14
    extraction = read("# may has memory leaky #6830\n\nMemory usage will gradually increase.")

    assert signatures(extraction) == {("kim", "REPORTED", "Memory Usage")}


def test_a_title_that_says_something_could_not_be_done_is_no_guess() -> None:
    # pm-1504-BenSeverson-2015-10-13
    extraction = read('# "Could not get any response" from servers with SSL issues #1504\n\nhi')

    assert [f.relation for f in extraction.facts] == ["REPORTED"]


def test_what_follows_a_hedge_and_a_but_is_asserted() -> None:
    # pm-5598-mfaheemakhtar-2018-12-01; warp-5244-kamel3d-2024-08-21 has the same shape
    extraction = read("Not sure if I'm facing the same problem but when I started the Postman "
                      "today, it got stuck on the loading screen.")

    assert signatures(extraction) == {("kim", "REPORTED", "stuck on the loading screen")}
    assert read("I think it is broken but I am not sure.").facts == []


def test_a_customer_stuck_on_a_step_states_a_symptom_not_a_dependency() -> None:
    # sig-7703-0nvd0-2026-02-04
    extraction = read('# cannot link device on pc #7703\n\nstuck on "syncing contacts and groups"')

    assert signatures(extraction) == {("kim", "REPORTED", "cannot link device on pc (#7703)")}


def test_the_product_a_title_says_fails_is_what_the_problem_affects() -> None:
    # sig-6366-pig0r-2023-04-11, pm-5772-bharatup-2019-01-14, pm-10763-cyphercookie-2022-03-17
    refuses = read("# Signal Desktop refuses to link #6366\n\nhi")
    crashed = read("# POSTMAN desktop app is getting crashed after the latest update. #5772\n\nhi")
    blank = read("# [Incident][Resolved] Postman 9.15.1 shows a blank white screen #10763\n\nhi")

    assert ("Signal Desktop refuses to link (#6366)", "AFFECTS", "Signal Desktop") in (
        signatures(refuses))
    assert any(s[1:] == ("AFFECTS", "POSTMAN Desktop") for s in signatures(crashed))
    assert any(s[1:] == ("AFFECTS", "Postman 9.15.1") for s in signatures(blank))


def test_a_sentence_saying_only_when_it_came_dates_the_problem_just_reported() -> None:
    # cur-1986-SurgeODDR-2024-09-24; pm-7934-Blacksmiss-2020-01-24
    titled = read("# Cursor consuming extreme CPU and causing battery draining #1986\n\n"
                  "Since yesterday's update.")
    said = read("Similar issue - Postman shows a blank screen only. Issue came up after update.")

    assert ("Cursor consuming extreme CPU and causing battery draining (#1986)", "PRECEDED_BY",
            "Update") in signatures(titled)
    assert ("blank screen", "PRECEDED_BY", "Update") in signatures(said)
    assert read("Since the update.").facts == []  # no problem reported: nothing followed it


def test_the_same_issue_with_an_area_named_by_its_noun_reports_that_areas_problem() -> None:
    from memory.support import problem_of

    extraction = read("+1\nI had the same problem with the database after the update.")
    reported = [f.target for f in extraction.facts if f.relation == "REPORTED"]

    assert reported and problem_of(reported[0]) == "Database Failures"


def test_the_same_issue_with_a_circumstance_reports_nothing() -> None:
    extraction = read("I have the same issue with the same version of macOS.")

    assert not [f for f in extraction.facts if f.relation == "REPORTED"]


def test_a_body_saying_the_app_takes_forever_to_start_reports_the_start_failing() -> None:
    # as a title saying it does (memory.extraction.symptoms: an area's action that takes too
    # long is that area's failure), not the table's broader Latency
    from memory.support import problem_of

    extraction = read("Since this morning Docker takes forever to start.")
    reported = {problem_of(f.target) for f in extraction.facts if f.relation == "REPORTED"}
    assert reported == {"Start Failures"}


def test_a_body_saying_the_app_is_slow_still_reports_latency() -> None:
    from memory.support import problem_of

    extraction = read("Warp is really slow since the update.")
    reported = {problem_of(f.target) for f in extraction.facts if f.relation == "REPORTED"}
    assert reported == {"Latency"}
