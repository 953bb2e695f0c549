"""A support message's one problem: its main problem, its thread's, or its brand's issue its
words share most."""

from __future__ import annotations

from collections import Counter

import pytest

from memory.extraction import ExtractedEntity, ExtractedFact, Extraction
from memory.support_issues import (
    cited_sentence,
    closest_issue,
    content_words,
    joined_by_words,
    joins_thread,
    keep_only,
    main_problem,
    problem_words,
    reported_issues,
    resemblance_sentence,
    threads_reported,
)


def message(*facts: ExtractedFact, author: str = "kim") -> Extraction:
    return Extraction(extractor="rules@1", entities=[], facts=list(facts), closures=[],
                      author=ExtractedEntity(author, "Customer"))


def reported(target: str, target_type: str = "Issue", source: str = "kim") -> ExtractedFact:
    return ExtractedFact(source, "Customer", "REPORTED", target, target_type, "s")


PROFILES = {
    "High CPU Usage (acme)": Counter(["cpu", "hyperkit", "idle", "fan"]),
    "Start Failures (acme)": Counter(["start", "stuck", "starting", "reset", "hyperkit"]),
}


def test_content_words_leave_out_function_words_addresses_and_the_brands_name() -> None:
    words = content_words("Same here: Acme's hyperkit spins the fans, see "
                          "https://github.com/acme/app/issues/3 @bob", ["acme"])
    assert words == ["hyperkit", "spin", "fan"]


def test_a_message_joins_the_brands_issue_its_words_share_most() -> None:
    match = closest_issue("The fan never stops. Hyperkit eats the CPU even when idle.",
                          PROFILES, "acme")
    assert match is not None
    assert match.issue == "High CPU Usage (acme)"
    assert set(match.words) == {"cpu", "fan", "idle", "hyperkit"}
    assert match.sentence == "Hyperkit eats the CPU even when idle."


def test_a_message_sharing_one_word_or_only_words_every_issue_uses_joins_none() -> None:
    assert closest_issue("Hyperkit again.", PROFILES, "acme") is None
    assert closest_issue("Same here, any update?", PROFILES, "acme") is None


def test_one_word_joins_only_when_it_is_the_area_one_issue_is_named_by() -> None:
    match = closest_issue("Look at the CPU graph again.", PROFILES, "acme")
    assert match is not None and (match.issue, match.words) == ("High CPU Usage (acme)",
                                                                ("cpu",))
    # a word only one issue's reports use, yet not what it is named by: not enough alone
    assert closest_issue("The fan again.", PROFILES, "acme") is None


def test_one_word_joins_when_it_names_the_issue_and_most_of_its_reports_say_it() -> None:
    # a brand of three issues: "database" weighs little alone (the start reports mention it
    # once), yet it is what the database issue is named by and what all its reports say
    profiles = {"Database Failures (chat)": Counter({"database": 3, "corrupt": 1}),
                "Start Failures (chat)": Counter({"start": 4, "database": 1, "splash": 2}),
                "Sync Failures (chat)": Counter({"sync": 3, "contact": 2})}
    match = closest_issue("Still getting that database error every morning since last week.",
                          profiles, "chat")
    assert match is not None and (match.issue, match.words) == ("Database Failures (chat)",
                                                                ("database",))


def test_one_word_naming_an_issue_one_report_says_is_not_enough() -> None:
    profiles = {"Database Failures (chat)": Counter({"database": 1, "corrupt": 1}),
                "Start Failures (chat)": Counter({"start": 4, "database": 1, "splash": 2}),
                "Sync Failures (chat)": Counter({"sync": 3, "contact": 2})}
    assert closest_issue("Still getting that database error every morning since last week.",
                         profiles, "chat") is None


def test_two_issues_equally_typical_of_a_message_go_to_the_one_sharing_more_words() -> None:
    profiles = {"2FA Failures (vault)": Counter(["enter"]),
                "Autofill Failures (vault)": Counter({"password": 2, "edge": 1, "page": 1})}
    match = closest_issue("Same here on Edge: on some pages only the username gets entered.",
                          profiles, "vault")
    assert match is not None and (match.issue, match.words) == ("Autofill Failures (vault)",
                                                                ("edge", "page"))


def test_a_message_sharing_as_much_with_two_issues_joins_neither() -> None:
    profiles = {"A (acme)": Counter(["fan", "noise"]), "B (acme)": Counter(["fan", "noise"])}
    assert closest_issue("The fan noise is back", profiles, "acme") is None


def test_a_candidate_with_no_words_yet_is_no_candidate() -> None:
    threads = {"acme/app#3": Counter(), "acme/app#9": Counter(["certificate", "server"])}
    match = closest_issue("The server certificate is rejected.", threads, "acme", named=False)
    assert match is not None and match.issue == "acme/app#9"
    assert closest_issue("The server certificate is rejected.", {"acme/app#3": Counter()},
                         "acme", named=False) is None


def test_the_issues_own_name_says_what_its_reports_agree_fails() -> None:
    profiles = {"MagicDNS Failures (acme)": Counter(["exit", "node"]),
                "Internet Failures (acme)": Counter(["exit", "node"])}
    match = closest_issue("Turning off the exit node brings the internet back", profiles, "acme")
    assert match is not None and match.issue == "Internet Failures (acme)"


def test_the_main_problem_is_the_first_named_as_a_known_problem() -> None:
    issues = ["Docker Version 2.5 Doesn't Work (acme)", "Start Failures (acme)",
              "High CPU Usage (acme)"]
    assert main_problem(issues, "acme") == "Start Failures (acme)"
    assert main_problem(["it broke again (acme)"], "acme") == "it broke again (acme)"
    assert main_problem([], "acme") is None


def test_a_messages_other_problems_are_dropped_with_their_facts() -> None:
    extraction = message(
        reported("Start Failures (acme)"), reported("High CPU Usage (acme)"),
        ExtractedFact("High CPU Usage (acme)", "Issue", "AFFECTS", "Hyperkit (acme)",
                      "Product", "s"))
    kept = keep_only(extraction, "Start Failures (acme)", reported_issues(extraction))
    assert reported_issues(kept) == ["Start Failures (acme)"]
    assert [f.relation for f in kept.facts] == ["REPORTED"]


def test_the_authors_reports_are_read_whatever_the_case_of_their_name() -> None:
    extraction = message(reported("Start Failures (acme)", source="Kim"),
                         reported("acme/app#12", "WorkItem"), reported("Lee", source="lee"))
    assert reported_issues(extraction) == ["Start Failures (acme)"]
    assert threads_reported(extraction) == ["acme/app#12"]


def test_a_message_joined_by_its_words_resembles_the_issue_beside_its_thread() -> None:
    match = closest_issue("Hyperkit eats the CPU when idle", PROFILES, "acme")
    assert match is not None and set(match.words) == {"cpu", "hyperkit", "idle"}
    joined = joined_by_words(message(reported("acme/app#12", "WorkItem")), match)
    assert [(f.relation, f.target, f.sentence) for f in joined.facts] == [
        ("REPORTED", "acme/app#12", "s"),
        ("RESEMBLES", "High CPU Usage (acme)",
         f"Hyperkit eats the CPU when idle [shares: {', '.join(match.words)}]")]


def test_a_resemblances_evidence_cites_the_messages_sentence_and_the_words_shared() -> None:
    match = closest_issue("The fan never stops. Hyperkit eats the CPU even when idle.",
                          PROFILES, "acme")
    assert match is not None
    evidence = resemblance_sentence(match)
    assert evidence.startswith("Hyperkit eats the CPU even when idle. [shares: ")
    assert cited_sentence(evidence) == "Hyperkit eats the CPU even when idle."
    assert cited_sentence("Same here.") == "Same here."
    assert cited_sentence("Same here. [in acme/app#30, which resembles X]") == "Same here."


def test_a_message_joining_a_thread_by_its_words_resembles_it_citing_its_sentence() -> None:
    threads = {"acme/app#3": Counter(["certificate", "server", "proxy"]),
               "acme/app#9": Counter(["theme", "font"])}
    match = closest_issue("Self-signed certificate rejected. The server has a valid one.",
                          threads, "acme", named=False)
    assert match is not None and match.issue == "acme/app#3"
    joined = joins_thread(message(reported("Certificate Failures (acme)")), match)
    assert [(f.relation, f.target, f.target_type, cited_sentence(f.sentence))
            for f in joined.facts] == [
        ("REPORTED", "Certificate Failures (acme)", "Issue", "s"),
        ("RESEMBLES", "acme/app#3", "WorkItem", "Self-signed certificate rejected.")]


# --- Through the product ---------------------------------------------------------------------


def ticket(n: int, author: str, text: str, thread: int | None = None,
           source: str = "support:acme/app") -> dict[str, str]:
    record = {"external_id": f"t{n}", "author": author, "source": source, "content": text,
              "reference_time": f"2026-11-{10 + n:02d}T09:00:00+00:00"}
    if thread is not None:
        record["url"] = f"https://github.com/acme/app/issues/{thread}"
    return record


def groups_of(graph) -> list[list[str]]:  # type: ignore[no-untyped-def]
    from memory.models import Observation

    return sorted(sorted(e.external_id for e in o.episodes.all())
                  for o in Observation.objects.filter(graph=graph, status="active"))


@pytest.mark.django_db
def test_a_message_in_no_known_words_joins_its_brands_issue_by_the_words_it_shares(
        graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "Hyperkit has high CPU usage while idle, the fan spins all day."),
        ticket(2, "lee", "Sync stalls on start."),
        ticket(3, "sam", "Hyperkit spins the fan when the machine is idle."),
        ticket(4, "ann", "Thanks, all good now."),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t3"]]
    fact = Fact.objects.get(graph=graph, source__name__iexact="sam", target__type="Issue")
    assert (fact.relation, fact.target.name) == ("RESEMBLES", "High CPU Usage (acme/app)")
    assert fact.evidence.get().sentence == (
        "Hyperkit spins the fan when the machine is idle. [shares: fan, hyperkit, idle, spin]")


@pytest.mark.django_db
def test_a_message_joined_by_its_words_is_no_report_of_the_issue(graph, ingest) -> None:
    from memory.models import Fact

    ingest(graph, [
        ticket(1, "kim", "Hyperkit has high CPU usage while idle, the fan spins all day."),
        ticket(2, "sam", "Hyperkit spins the fan when the machine is idle."),
    ])

    reporters = Fact.objects.filter(graph=graph, relation="REPORTED",
                                    target__name="High CPU Usage (acme/app)")
    assert [f.source.name.lower() for f in reporters] == ["kim"]


@pytest.mark.django_db
def test_words_never_join_a_message_to_another_brands_issue(graph, ingest) -> None:
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "Hyperkit has high CPU usage while idle, the fan spins all day.",
               source="zendesk:Nimbus"),
        ticket(2, "lee", "Hyperkit has high CPU usage while idle.", source="zendesk:Nimbus"),
        ticket(3, "sam", "Hyperkit spins the fan when the machine is idle.",
               source="zendesk:Cirrus"),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t2"]]


@pytest.mark.django_db
def test_a_later_message_naming_another_problem_in_a_thread_stays_the_threads(
        graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "# Docker stuck in starting state #12", thread=12),
        ticket(2, "lee", "Same here, and now CPU usage is at 100% too.", thread=12),
        ticket(3, "sam", "# High CPU usage while idle #30", thread=30),
        ticket(4, "ann", "High CPU usage here too.", thread=30),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t2"], ["t3", "t4"]]
    assert not Fact.objects.filter(graph=graph, source__name__iexact="lee",
                                   target__name="High CPU Usage (acme/app)").exists()


@pytest.mark.django_db
def test_a_message_stating_two_problems_reports_its_main_one(graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [ticket(1, "kim", "Docker won't start. I also can't log in to the hub.")])
    run_pipeline(graph)

    reports = Fact.objects.filter(graph=graph, source__name__iexact="kim",
                                  relation="REPORTED", target__type="Issue")
    reported_ = set(reports.values_list("target__name", flat=True))
    assert reported_ == {"Start Failures (acme/app)"}


@pytest.mark.django_db
def test_a_customer_saying_their_problem_is_resolved_is_not_joined_to_it_again(
        graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "Our exports keep failing."),
        ticket(2, "lee", "We keep seeing export failures."),
        ticket(3, "kim", "The export failures are resolved."),
    ])
    run_pipeline(graph)

    kims = Fact.objects.filter(graph=graph, source__name__iexact="kim", relation="REPORTED")
    assert [f.invalid_at is not None for f in kims] == [True]


@pytest.mark.django_db
def test_same_here_in_a_thread_whose_problem_came_earlier_in_the_same_import_joins_it(
        graph, ingest) -> None:
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "# Docker stuck in starting state #12", thread=12),
        ticket(2, "lee", "Same here.", thread=12),
        ticket(3, "sam", "# Docker won't start after the update #40", thread=40),
        ticket(4, "ann", "can confirm", thread=40),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t2", "t3", "t4"]]


@pytest.mark.django_db
def test_same_here_in_a_thread_reports_the_threads_problem_in_the_customers_words(
        graph, ingest) -> None:
    from memory.models import Fact

    ingest(graph, [
        ticket(1, "kim", "# Docker stuck in starting state #12", thread=12),
        ticket(2, "lee", "Same here. Any update?", thread=12),
    ])

    fact = Fact.objects.get(graph=graph, source__name__iexact="lee", target__type="Issue")
    assert (fact.relation, fact.target.name) == ("REPORTED", "Start Failures (acme/app)")
    assert fact.evidence.get().sentence == "Same here."


@pytest.mark.django_db
def test_a_thread_whose_first_message_joined_an_issue_by_its_words_takes_its_same_here_along(
        graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "Hyperkit has high CPU usage while idle, the fan spins all day."),
        ticket(2, "sam", "Hyperkit spins the fan when the machine is idle.", thread=30),
        ticket(3, "lee", "Same here.", thread=30),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t2", "t3"]]
    # "Same here." goes where its thread goes, yet no rule read the problem in the thread: it
    # resembles the issue as its thread does, and reports none
    fact = Fact.objects.get(graph=graph, source__name__iexact="lee", target__type="Issue")
    assert (fact.relation, fact.target.name) == ("RESEMBLES", "High CPU Usage (acme/app)")
    assert fact.evidence.get().sentence == (
        "Same here. [in acme/app#30, which resembles High CPU Usage (acme/app)]")


@pytest.mark.django_db
def test_a_report_joins_an_earlier_thread_no_rule_placed_whose_words_it_shares(
        graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "The proxy rejects the server certificate, self-signed.", thread=3),
        ticket(2, "lee", "Dark theme resets on restart.", thread=5),
        ticket(3, "sam", "# Certificate errors with a self-signed server certificate #9",
               thread=9),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t3"]]
    fact = Fact.objects.get(graph=graph, source__name__iexact="sam",
                            target__name="acme/app#3")
    assert fact.relation == "RESEMBLES"
    assert "self-signed server certificate" in fact.evidence.get().sentence
    assert fact.evidence.get().sentence.endswith("[shares: certificate, self-sign, server]")


@pytest.mark.django_db
def test_a_message_no_rule_reads_joins_an_earlier_unread_thread_whose_words_it_shares(
        graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "The proxy rejects the server certificate, self-signed.", thread=3),
        ticket(2, "lee", "Dark theme resets on restart.", thread=5),
        ticket(3, "sam", "Our proxy rejects every self-signed server certificate.", thread=8),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t3"]]
    fact = Fact.objects.get(graph=graph, source__name__iexact="sam", target__name="acme/app#3")
    assert fact.relation == "RESEMBLES"
    assert fact.evidence.get().sentence == (
        "Our proxy rejects every self-signed server certificate. "
        "[shares: certificate, proxy, reject, self-sign, server]")


@pytest.mark.django_db
def test_a_message_no_rule_reads_never_joins_another_brands_unread_thread(graph, ingest) -> None:
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "The proxy rejects the server certificate, self-signed.", thread=3,
               source="zendesk:Nimbus"),
        ticket(2, "sam", "Our proxy rejects every self-signed server certificate.", thread=8,
               source="zendesk:Cirrus"),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == []


@pytest.mark.django_db
def test_an_earlier_imports_threads_and_their_carried_problems_are_read_from_the_graph(
        graph, ingest) -> None:
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "The proxy rejects the server certificate, self-signed.", thread=3),
        ticket(2, "ann", "Hyperkit has high CPU usage while idle, the fan spins all day."),
        ticket(3, "sam", "Hyperkit spins the fan when the machine is idle.", thread=30),
    ])
    ingest(graph, [
        ticket(4, "lee", "# Certificate errors with a self-signed server certificate #9",
               thread=9),
        ticket(5, "bob", "Same here.", thread=30),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == [["t1", "t4"], ["t2", "t3", "t5"]]


@pytest.mark.django_db
def test_a_report_after_a_thread_of_no_words_is_read_as_ever(graph, ingest) -> None:
    from memory.models import Episode

    ingest(graph, [
        ticket(1, "kim", "Same problem here still present....", thread=3),
        ticket(2, "sam", "# Certificate errors with a self-signed server certificate #9",
               thread=9),
    ])

    assert set(Episode.objects.filter(graph=graph).values_list("status", flat=True)) == {
        "processed"}


@pytest.mark.django_db
def test_a_report_never_joins_another_brands_thread(graph, ingest) -> None:
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "The proxy rejects the server certificate, self-signed.", thread=3,
               source="zendesk:Nimbus"),
        ticket(2, "sam", "# Certificate errors with a self-signed server certificate #9",
               thread=9, source="zendesk:Cirrus"),
    ])
    run_pipeline(graph)

    assert groups_of(graph) == []


@pytest.mark.django_db
def test_a_message_saying_where_the_threads_problem_stands_does_not_report_it(
        graph, ingest) -> None:
    from memory.models import Fact

    ingest(graph, [
        ticket(1, "kim", "Our exports keep failing.", thread=7),
        ticket(2, "lee", "The export failures are resolved.", thread=7),
    ])

    assert not Fact.objects.filter(graph=graph, source__name__iexact="lee",
                                   relation="REPORTED", target__type="Issue").exists()


def test_words_of_one_area_are_one_word_when_messages_are_matched() -> None:
    assert problem_words("It won't launch after boot; the cert is rejected", ["acme"]) == [
        "start", "start", "certificate", "reject"]
    # "log" is a log file as often as a login: left as it is
    assert problem_words("I attached the logs") == ["attach", "log"]


def test_a_message_naming_an_issues_area_in_other_words_joins_it() -> None:
    # "launches" and "boot" say what "Start Failures" is named by
    match = closest_issue("Hyperkit launches then nothing, every boot.", PROFILES, "acme")
    assert match is not None and match.issue == "Start Failures (acme)"


def test_a_word_spelled_in_two_is_one_word_when_messages_are_matched() -> None:
    assert problem_words("Custom DNS works again with Magic DNS disabled", ["tailscale"]) == [
        "custom", "dns", "magicdns", "disable"]


def test_a_message_spelling_the_issues_area_in_two_words_joins_it() -> None:
    profiles = {"MagicDNS Failures (acme)": Counter(["resolve", "hostname"]),
                "Internet Failures (acme)": Counter(["exit", "node"])}
    match = closest_issue("Happens on Catalina too; custom resolvers work with Magic DNS off.",
                          profiles, "acme")
    assert match is not None and match.issue == "MagicDNS Failures (acme)"


@pytest.mark.django_db
def test_a_message_naming_only_the_area_its_issues_reports_all_say_resembles_that_issue(
        graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "Database error on every launch since the update.", thread=1),
        ticket(2, "lee", "The app keeps showing a database error, the chats are gone.",
               thread=2),
        ticket(3, "ann", "It won't start: the splash screen hangs, a database migration runs.",
               thread=3),
        ticket(4, "sam", "Anyone know when the database thing gets sorted out?", thread=4),
    ])
    run_pipeline(graph)

    fact = Fact.objects.get(graph=graph, source__name__iexact="sam", target__type="Issue")
    assert (fact.relation, fact.target.name) == ("RESEMBLES", "Database Failures (acme/app)")
    assert fact.evidence.get().sentence == (
        "Anyone know when the database thing gets sorted out? [shares: database]")
    assert ["t1", "t2", "t4"] in groups_of(graph)
