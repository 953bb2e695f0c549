"""Symptoms: one canonical issue however the customer says it (lemmas + a synonym table)."""

from __future__ import annotations

import pytest

from memory.extraction.symptoms import SYMPTOMS, find_symptom, problem_name, symptom_name


@pytest.mark.parametrize(
    ("text", "issue"),
    [
        ("requests time out", "Timeout Errors"),
        ("the export keeps timing out", "Timeout Errors"),
        ("it timed out twice", "Timeout Errors"),
        ("we get a timeout", "Timeout Errors"),
        ("a time-out on save", "Timeout Errors"),
        ("cannot log in", "Login Failures"),
        ("I am unable to sign in", "Login Failures"),
        ("I am locked out of my account", "Login Failures"),
        ("I cannot get into my account", "Login Failures"),
        ("login errors since Monday", "Login Failures"),
        ("the app is laggy", "Latency"),
        ("it takes forever to load", "Latency"),
        ("the dashboard is down", "Outages"),
        ("the app keeps crashing", "Crashes"),
        # the corpus's dev split (tests/corpus), by episode
        ("I am still seeing a large amount of memory usage", "Memory Usage"),  # warp-733
        ("Memory usage will gradually increase", "Memory Usage"),  # warp-6830-yanquer
        ("memory usage begins to grow endlessly", "Memory Usage"),  # warp-5357-falrom
        ("Latest version of warp keeps maxing my CPU Cores", "CPU Usage"),  # warp-5647
        ("I've been having spikes of 100% CPU use", "CPU Usage"),  # dfm-3499-chespinoza
    ],
)
def test_each_paraphrase_names_the_same_canonical_issue(text: str, issue: str) -> None:
    assert symptom_name(text) == issue


@pytest.mark.parametrize(
    "text",
    ["it is not slow any more", "I can log in now", "the payments integration", "a login bug",
     "never crash", "memory-mapped files", "the cpu architecture",
     # warp-5357 (dev): a negation a few words before the symptom
     "attaching to a container does not, by itself, cause a memory leak"],
)
def test_a_negated_or_absent_symptom_is_not_said(text: str) -> None:
    assert symptom_name(text) is None


def test_the_symptom_is_found_where_it_is_said() -> None:
    assert find_symptom("1000 of my subscribers can not log in") == ("Login Failures", 4, 8)


def test_the_synonym_table_is_small_and_every_phrasing_is_found() -> None:
    assert sum(len(phrases) for phrases in SYMPTOMS.values()) < 60
    for issue, phrases in SYMPTOMS.items():
        for phrase in phrases:
            # the first alternative of each word, "my" for a wildcard
            said = " ".join("my" if w == "*" else w.split("|")[0] for w in phrase.split(" "))
            assert symptom_name(said) == issue, phrase


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Autofill no longer works on Chrome", "Autofill Failures"),
        ("Unable to auto-fill the selected item on this page", "Autofill Failures"),
        ("Autofill and CTRL+Shift+L not working", "Autofill Failures"),
        ("Docker stuck in starting state", "Start Failures"),
        ('stuck on "starting"', "Start Failures"),
        ("Docker won't start Windows 10 loading forever", "Start Failures"),
        ("Docker desktop not running after update", "Start Failures"),
        ("Docker for Mac Desktop stuck in the Updating state", "Update Failures"),
        ("MagicDNS not working for name or IP", "MagicDNS Failures"),
        ("Client Update from 1.36.0 to 1.36.1 broke MagicDNS", "MagicDNS Failures"),
        ("Internet does not work when using exit node", "Internet Failures"),
        ("Running as exit node breaks internet access", "Internet Failures"),
        ("2FA via Authenticator app not working", "2FA Failures"),
        ("your login on the website does not work", "Login Failures"),
        ("Endless login loop", "Login Failures"),
        ("warp wont log in", "Login Failures"),
        ("Application Not Letting Me Log In", "Login Failures"),
        ("High CPU consuption", "High CPU Usage"),
        ("Two-step login problem on Ubuntu 24", "2FA Failures"),
        ("Not receiving 2FA email when logging into desktop app", "2FA Failures"),
        ("I cannot edit my 2-factor auth settings", "2FA Failures"),
        ("Magic DNS only works partially", "MagicDNS Failures"),
        ("timeout problem", "Timeout Errors"),
        ("I noticed MagicDNS stops working after there is IP change", "MagicDNS Failures"),
        ("Web Site Login Loop", "Login Failures"),
        ("Latest app version won't let me connect", "Connect Failures"),
        ("Internet access blocked by VPN", "Internet Failures"),
        ("Cannot access internet despite UI showing successful connection", "Internet Failures"),
        ("cannot link device on pc", "Link Failures"),
        ("The hyper-v version first keeps on starting and finally says it fails", "Start Failures"),
        ("After update, docker could not run", "Start Failures"),
        ("Our ochre rook syncs are broken", "Ochre Rook Sync Failures"),  # an area of its own
        ("I have been having spikes of 100% CPU use", "High CPU Usage"),
        ("I am still seeing a large amount of memory usage", "High Memory Usage"),
        ("the app is painfully slow", "Latency"),  # the table's symptoms keep their name
    ],
)
def test_one_problem_said_in_different_words_has_one_canonical_name(text: str,
                                                                    problem: str) -> None:
    assert problem_name(text) == problem


@pytest.mark.parametrize(
    "text",
    ["It doesn't work", "the workaround does not work", "this is not a bug",
     "I can not reproduce this", "Docker Version 2.5.0.1 Doesn't Work", "Thanks, all good now",
     "It did just fine (wasn't running docker)"],
)
def test_no_problem_is_named_without_saying_what_fails(text: str) -> None:
    assert problem_name(text) is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("After installing update postman app does not load", "Start Failures"),
        ("Stuck in white screen", "Start Failures"),
        ("Signal Desktop refuses to link", "Link Failures"),
        ("Signal Desktop app not linking", "Link Failures"),
        ("Desktop fails to re-link with phone", "Link Failures"),
        ("Editor froze after trying to Cmd + K", "Freezes"),
        ("Cursor keeps freezing, requires reload every time", "Freezes"),
        ("Database startup error version >= 7.24.1", "Database Failures"),
        ("Self-signed certificates for localhost not working", "Certificate Failures"),
        ("I get a sync error", "Sync Failures"),
    ],
)
def test_an_app_that_does_not_load_a_device_that_will_not_link_and_a_store_that_errs_are_named(
        text: str, problem: str) -> None:
    assert problem_name(text) == problem


@pytest.mark.parametrize("text", ["I wasn't running it", "the app does not work",
                                  "see the error page"])
def test_words_that_name_no_area_state_no_problem(text: str) -> None:
    assert problem_name(text) is None


@pytest.mark.parametrize(("text", "phrase"), [
    # bw-11475-grauerpanther-bitwarden-2024-10-09: the problem's words start after the comma
    ("Disabling the browser extension does not solve the problem, autofill does not work.",
     "autofill does not work"),
    ("I noticed MagicDNS stops working after there is IP change", "MagicDNS stops working"),
])
def test_a_problems_phrase_never_runs_across_a_clause_mark(text: str, phrase: str) -> None:
    from memory.extraction.symptoms import find_problem

    found = find_problem(text)
    assert found is not None and found.phrase == phrase


@pytest.mark.parametrize(("text", "issue"), [
    ("Cursor consuming extreme CPU and causing battery draining", "High CPU Usage"),  # cur-1986
    ("Windows-Cursor Sign In Error", "Login Failures"),  # cur-2923-zhongteng-2025-03-26
    ("Sign-in error on the desktop app", "Login Failures"),
])
def test_extreme_use_and_a_sign_in_error_are_their_symptoms(text: str, issue: str) -> None:
    assert problem_name(text) == issue


def test_what_names_no_area_before_the_area_is_not_part_of_the_problems_name() -> None:
    # cur-598-Devligue-2024-10-14 (dev): was "Same Issue Login Failures", an issue of its own
    assert problem_name("I have the same issue - log in button doesn't work") == "Login Failures"


@pytest.mark.parametrize(("text", "problem"), [
    # an action that never completes in time is that action's failure, not a slowness
    ("Docker Desktop takes forever to start on my laptop", "Start Failures"),
    ("the app takes ages to load after the update", "Start Failures"),
    ("Since yesterday it is really slow to start up", "Start Failures"),
    ("It takes a long time to log in every morning", "Login Failures"),
    # any other action taking long is still slowness
    ("it takes forever to send a request to our staging API", "Latency"),
    ("The terminal is slow since 0.2024.05", "Latency"),
])
def test_an_area_that_takes_forever_is_that_areas_failure(text: str, problem: str) -> None:
    assert problem_name(text) == problem


@pytest.mark.parametrize("text", [
    "with the exit node on I cant access any site",
    "I can't reach any websites while connected",
    "Internet stops working when I use the exit node",
    "Using the VPN breaks internet access",
])
def test_no_site_reachable_and_no_internet_are_one_problem(text: str) -> None:
    assert problem_name(text) == "Internet Failures"


def test_a_web_site_login_is_still_the_login() -> None:
    assert problem_name("Login loop on the web site") == "Login Failures"
    assert problem_name("Web site login does not work") == "Login Failures"


@pytest.mark.parametrize(("text", "problem"), [
    # the subject names the area; the verb only says how it fails
    ("Database not updated to the new version after restart", "Database Failures"),
    ("My certificate is not loading anymore", "Certificate Failures"),
    ("Autofill not loading on most login forms", "Autofill Failures"),
    # a subject that names no area of its own leaves it to the verb
    ("Docker desktop not running after update", "Start Failures"),
])
def test_a_subject_naming_an_area_is_what_fails(text: str, problem: str) -> None:
    assert problem_name(text) == problem


@pytest.mark.parametrize(("text", "problem"), [
    # a known area the text names comes before a word a phrase makes an area of
    ('"Could not get any response" from hosts with SSL issues', "Certificate Failures"),
    ("Requests never get a response when the cert is self-signed, a certificate issue",
     "Certificate Failures"),
    # with no known area, the phrase's own word names it
    ("Latest app version won't let me connect", "Connect Failures"),
])
def test_a_known_area_comes_before_a_word_made_an_area(text: str, problem: str) -> None:
    assert problem_name(text) == problem


@pytest.mark.parametrize(("text", "problem"), [
    ("The app window is not show after I open it", "Start Failures"),
    ("the main window doesn't appear after the update", "Start Failures"),
    ("the window does not show up.", "Start Failures"),
])
def test_an_app_whose_window_does_not_show_has_not_started(text: str, problem: str) -> None:
    assert problem_name(text) == problem


def test_an_app_that_does_not_show_something_in_it_has_started() -> None:
    assert problem_name("the app does not show my collections") is None


@pytest.mark.parametrize(("text", "problem"), [
    ("I have the same issue with my self-signed cert on my dev server.", "Certificate Failures"),
    ("There is a problem with the database since the update", "Database Failures"),
    ("Anyone else having trouble with autofill on Firefox?", "Autofill Failures"),
])
def test_a_problem_with_an_area_named_by_its_noun_is_that_areas(text: str, problem: str) -> None:
    assert problem_name(text) == problem


@pytest.mark.parametrize("text", [
    "I have issues with the latest update",  # after the update, not the update failing
    "a problem with the login page design",  # the area is not what the problem is of
])
def test_a_problem_with_something_else_is_not_an_areas(text: str) -> None:
    assert problem_name(text) is None


@pytest.mark.parametrize(("text", "problem"), [
    ("When I try to sign in, it won't let me past the browser page", "Login Failures"),
    ("When trying to log in to the app I get this error: host is blocked", "Login Failures"),
    ("When I try to open the app nothing happens", "Start Failures"),
    ("when we try to sync the vault it fails with a 500", "Sync Failures"),
])
def test_an_attempt_at_an_areas_action_that_fails_is_its_failure(text: str, problem: str) -> None:
    assert problem_name(text) == problem


@pytest.mark.parametrize("text", [
    "when I try to log in it asks for my password",  # no failure said
    "When I try to send a request it fails",  # not an area of the table: left to other readings
])
def test_an_attempt_without_its_failure_or_area_is_no_problem_of_an_area(text: str) -> None:
    assert problem_name(text) is None


@pytest.mark.parametrize("text", [
    "It's unbelievable that the performance issue has been open for months",
    "Poor performance since 4.2 on my M1",
])
def test_a_performance_problem_is_latency_kept_in_the_customers_words(text: str) -> None:
    from memory.extraction.symptoms import find_problem

    found = find_problem(text)
    assert found is not None and found.name == "Latency"
    assert symptom_name(text) is None  # the rules name it as written; resolution canonically


def test_a_performance_problem_denied_is_not_said() -> None:
    assert problem_name("this is not a performance issue") is None


@pytest.mark.parametrize(("text", "problem"), [
    ("Since the update Docker takes forever to start.", "Start Failures"),
    ("The app takes ages to load every morning.", "Start Failures"),
    ("Sending a request takes forever.", None),
])
def test_the_action_that_takes_too_long_is_named_for_the_symptom_reading(
        text: str, problem: str | None) -> None:
    from memory.extraction.symptoms import slow_action

    assert slow_action(text) == problem
