"""Support semantics: a message's brand, and the problems and products it names as its brand's."""

from __future__ import annotations

import pytest

from memory.extraction import ExtractedClosure, ExtractedEntity, ExtractedFact, Extraction
from memory.support import brand_of, scope_to_brand, scoped


@pytest.mark.parametrize(("source", "brand"), [
    ("support:warpdotdev/warp", "warpdotdev/warp"),
    ("support:docker/for-mac", "docker/for-*"), ("support:docker/for-win", "docker/for-*"),
    ("support:acme/app-windows", "acme/app-*"), ("support:bitwarden/clients", "bitwarden/clients"),
    ("zendesk:Acme Mobile", "Acme Mobile"),
    ("AppleSupport", "AppleSupport"),
    ("zendesk", None), ("Support", None), ("email", None), ("", None), ("zendesk:", None),
    ("https://desk.example/tickets", None),
])
def test_the_brand_is_after_the_channel_or_the_source_itself_unless_a_channel(
        source: str, brand: str | None) -> None:
    assert brand_of(source) == brand


def test_a_name_is_made_its_brands_unless_it_already_says_the_brand() -> None:
    assert scoped("Login Failures", "Warp") == "Login Failures (Warp)"
    assert scoped("Warp Login", "Warp") == "Warp Login"
    assert scoped("Login Failures", None) == "Login Failures"


def test_only_problems_and_products_belong_to_a_brand() -> None:
    extraction = Extraction(
        extractor="rules@1",
        entities=[ExtractedEntity("Sync", "Product"), ExtractedEntity("Acme", "Customer")],
        facts=[ExtractedFact("Acme", "Customer", "REPORTED", "Sync Failures", "Issue", "s"),
               ExtractedFact("Sync Failures", "Issue", "AFFECTS", "Sync", "Product", "s"),
               ExtractedFact("Sync Failures", "Issue", "PRECEDED_BY", "Nightly Backfill",
                             "Event", "s")],
        closures=[ExtractedClosure("Acme", "Customer", "REPORTED", "Sync Failures", "Issue",
                                   "s")],
        author=ExtractedEntity("Acme", "Customer"))

    scoped_ = scope_to_brand(extraction, "Bitwarden")
    assert [(f.source, f.target) for f in scoped_.facts] == [
        ("Acme", "Sync Failures (Bitwarden)"),
        ("Sync Failures (Bitwarden)", "Sync (Bitwarden)"),
        ("Sync Failures (Bitwarden)", "Nightly Backfill")]
    assert [e.name for e in scoped_.entities] == ["Sync (Bitwarden)", "Acme"]
    assert scoped_.closures[0].target == "Sync Failures (Bitwarden)"
    assert scope_to_brand(extraction, None) is extraction


# --- Through the product: two brands, one symptom ---------------------------------------------


def ticket(n: int, customer: str, source: str, text: str) -> dict:
    return {"external_id": f"t{n}", "author": customer, "source": source, "content": text,
            "reference_time": f"2026-11-{10 + n:02d}T09:00:00+00:00"}


@pytest.mark.django_db
def test_the_same_symptom_at_two_brands_is_two_problems_each_recurring(graph, ingest) -> None:
    from memory.models import Entity, Observation
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "Acme Corp", "zendesk:Nimbus", "Our exports keep failing."),
        ticket(2, "Globex", "zendesk:Nimbus", "We keep seeing export failures."),
        ticket(3, "Initech", "zendesk:Cirrus", "Our exports keep failing."),
        ticket(4, "Hooli", "zendesk:Cirrus", "We keep seeing export failures."),
    ])
    run_pipeline(graph)

    issues = set(Entity.objects.filter(graph=graph, type="Issue").values_list("name", flat=True))
    assert issues == {"Export Failures (Nimbus)", "Export Failures (Cirrus)"}
    groups = [sorted(e.external_id for e in o.episodes.all())
              for o in Observation.objects.filter(graph=graph, status="active")]
    assert sorted(groups) == [["t1", "t2"], ["t3", "t4"]]


@pytest.mark.parametrize(("url", "thread"), [
    ("https://github.com/docker/for-mac/issues/3357", "docker/for-mac#3357"),
    ("https://github.com/docker/for-mac/issues/3357#issuecomment-1", "docker/for-mac#3357"),
    ("https://help.example.com/tickets/1001/", "https://help.example.com/tickets/1001"),
    ("help.example.com/tickets/1001", None), ("", None),
])
def test_a_messages_thread_is_named_by_its_address(url: str, thread: str | None) -> None:
    from memory.support import thread_of

    assert thread_of(url) == thread


@pytest.mark.django_db
def test_customers_messages_of_one_ticket_are_one_thread_whatever_their_words(
        graph, ingest) -> None:
    from memory.models import Observation
    from memory.pipeline import run_pipeline

    url = "https://github.com/acme/app/issues/12"
    ingest(graph, [
        {**ticket(1, "kim", "support:acme/app", "Sync stalls on start."), "url": url},
        {**ticket(2, "lee", "support:acme/app", "Same here, on 4.2 too."),
         "url": url + "#issuecomment-9"},
        {**ticket(3, "sam", "support:acme/app", "Same here."),
         "url": "https://github.com/acme/app/issues/13"},
    ])
    run_pipeline(graph)

    groups = [sorted(e.external_id for e in o.episodes.all())
              for o in Observation.objects.filter(graph=graph, status="active")]
    assert groups == [["t1", "t2"]]


@pytest.mark.django_db
def test_an_importers_episode_is_not_given_a_thread_from_its_address(graph, ingest) -> None:
    from memory.models import Fact

    ingest(graph, [{**ticket(1, "Acme Corp", "zendesk", "Thanks, all good."),
                    "url": "https://acme.zendesk.com/agent/tickets/7", "facts": [],
                    "entities": [{"name": "Acme Corp", "type": "Customer"}]}])
    assert not Fact.objects.filter(graph=graph, relation="REPORTED").exists()


@pytest.mark.parametrize(("text", "threads"), [
    ("Duplicate of #1780", ["acme/app#1780"]),
    ("Thanks! This is the same issue as https://github.com/acme/app/issues/46 so closing.",
     ["acme/app#46"]),
    ("It seems like it is a duplicate of this one: https://github.com/acme/app/issues/8\n\nBye",
     ["acme/app#8"]),
    ("Discussed in several issues already (such as #27, #15)", ["acme/app#27", "acme/app#15"]),
    ("I fixed #12 yesterday, see the changelog.", []),
    ("Duplicate of #12", []),  # the message's own thread
])
def test_a_message_that_says_its_problem_is_another_threads_names_that_thread(
        text: str, threads: list[str]) -> None:
    from memory.support import same_problem_threads

    assert [t for t, _ in same_problem_threads(text, "acme/app#12")] == threads


@pytest.mark.django_db
def test_a_thread_closed_as_a_duplicate_joins_the_problem_it_duplicates(graph, ingest) -> None:
    from memory.models import Fact, Observation
    from memory.pipeline import run_pipeline

    ingest(graph, [
        {**ticket(1, "kim", "support:acme/app", "Sync stalls on start."),
         "url": "https://github.com/acme/app/issues/12"},
        {**ticket(2, "lee", "support:acme/app", "Same here, on 4.2 too."),
         "url": "https://github.com/acme/app/issues/12#issuecomment-9"},
        {**ticket(3, "sam", "support:acme/app", "Duplicate of #12"),
         "url": "https://github.com/acme/app/issues/30"},
    ])
    run_pipeline(graph)

    groups = [sorted(e.external_id for e in o.episodes.all())
              for o in Observation.objects.filter(graph=graph, status="active")]
    assert groups == [["t1", "t2", "t3"]]
    # what the words say is the thread's, citing the line; that Sam's message joins #12 is
    # the thread's membership, which cites no words
    said = Fact.objects.get(graph=graph, relation="DUPLICATE_OF")
    assert (said.source.name, said.target.name, said.sentence) == (
        "acme/app#30", "acme/app#12", "Duplicate of #12")
    joined = Fact.objects.get(graph=graph, source__name="sam", target__name="acme/app#12")
    assert joined.sentence == "sam wrote in acme/app#30, which points at acme/app#12."


def test_one_problem_in_different_words_resolves_to_one_issue_of_the_brand() -> None:
    from memory.support import by_problem

    titles = ["Unable to auto-fill the selected item on this page (#2364)",
              "Autofill not working in Browser v2025.10.0 (#17096) (Bitwarden)",
              "Autofill Doesn't Work (#11475)"]
    extraction = Extraction(extractor="rules@1", entities=[], facts=[
        ExtractedFact("ana", "Customer", "REPORTED", title, "Issue", title) for title in titles])

    resolved = by_problem(extraction, "Bitwarden")

    assert {f.target for f in resolved.facts} == {"Autofill Failures (Bitwarden)"}
    assert [f.sentence for f in resolved.facts] == titles  # the evidence keeps the words


def test_the_brands_own_name_is_no_area_of_it() -> None:
    from memory.support import problem_of

    assert problem_of("Docker Stopped Working (#1813)", "docker/for-mac") is None
    assert problem_of("Tailscale Internet is breaking (#15745)", "tailscale/tailscale") == (
        "Internet Failures")


def test_an_issue_in_no_known_words_or_given_by_name_keeps_its_name() -> None:
    from memory.support import by_problem

    extraction = Extraction(extractor="rules@1", entities=[], facts=[
        ExtractedFact("ana", "Customer", "REPORTED", "Vault export hangs halfway (#4410)",
                      "Issue", "s"),
        ExtractedFact("ana", "Customer", "REPORTED", "sync timeouts (Nimbus)", "Issue", "s")])

    resolved = by_problem(extraction, "Nimbus", given=["sync timeouts"])

    assert [f.target for f in resolved.facts] == [
        "Vault export hangs halfway (#4410)", "sync timeouts (Nimbus)"]


@pytest.mark.django_db
def test_customers_naming_one_problem_differently_meet_in_one_observation(graph, ingest) -> None:
    from memory.models import Entity, Observation
    from memory.pipeline import run_pipeline

    ingest(graph, [
        {**ticket(1, "kim", "support:acme/app", "# Autofill no longer works on Chrome #12"),
         "url": "https://github.com/acme/app/issues/12"},
        {**ticket(2, "lee", "support:acme/app", "# Unable to auto-fill #30"),
         "url": "https://github.com/acme/app/issues/30"},
        {**ticket(3, "sam", "support:acme/app", "# Sync stalls on start #31"),
         "url": "https://github.com/acme/app/issues/31"},
    ])
    run_pipeline(graph)

    groups = [sorted(e.external_id for e in o.episodes.all())
              for o in Observation.objects.filter(graph=graph, status="active")]
    assert groups == [["t1", "t2"]]
    assert Entity.objects.filter(graph=graph, name="Autofill Failures (acme/app)").exists()


def test_a_link_to_another_issue_of_the_tracker_points_at_its_thread() -> None:
    from memory.support import same_problem_threads

    text = "installing this fixed image\nhttps://github.com/acme/app/issues/26#issuecomment-5"
    assert [t for t, _ in same_problem_threads(text, "acme/app#12")] == ["acme/app#26"]
    assert same_problem_threads("see https://github.com/other/lib/issues/3", "acme/app#12") == []


def test_a_message_pointing_at_other_threads_joins_them_as_metadata_not_as_a_report() -> None:
    # dfm-3677-Miksu82-2019-05-20: "discussed in several issues already (such as #2707, #1592)"
    from memory.support import thread_membership, with_thread

    text = "I know this has been discussed in several issues already (such as #2707, #1592)."
    url = "https://github.com/docker/for-mac/issues/3677"

    extraction = with_thread(Extraction(extractor="rules@1", entities=[], facts=[]),
                             "Miksu82", url, text)

    assert [(f.target, f.sentence) for f in extraction.facts] == [
        ("docker/for-mac#3677", "Miksu82 wrote in docker/for-mac#3677."),
        ("docker/for-mac#2707", "Miksu82 wrote in docker/for-mac#3677, which points at "
                                "docker/for-mac#2707."),
        ("docker/for-mac#1592", "Miksu82 wrote in docker/for-mac#3677, which points at "
                                "docker/for-mac#1592.")]
    assert all(thread_membership(f, "Miksu82", url) for f in extraction.facts)


def test_what_staff_say_of_the_thread_is_read_as_the_threads() -> None:
    # warp-6305-dannyneira-2026-04-09
    from memory.support import thread_membership, with_thread

    url = "https://github.com/warpdotdev/warp/issues/6305"
    extraction = with_thread(Extraction(extractor="rules@1", entities=[], facts=[]),
                             "dannyneira", url, "Duplicate of #1780")

    read = [f for f in extraction.facts if not thread_membership(f, "dannyneira", url)]
    assert [(f.source, f.relation, f.target, f.sentence) for f in read] == [
        ("warpdotdev/warp#6305", "DUPLICATE_OF", "warpdotdev/warp#1780", "Duplicate of #1780")]


def test_a_report_citing_the_words_is_never_taken_for_membership() -> None:
    from memory.support import thread_membership

    fact = ExtractedFact("kim", "Customer", "REPORTED", "acme/app#12", "WorkItem",
                         "I have the same issue as #12")
    assert not thread_membership(fact, "kim", "https://github.com/acme/app/issues/30")


def test_an_update_named_by_its_kind_alone_is_the_brands_and_a_named_event_is_shared() -> None:
    # pm-7934-Blacksmiss-2020-01-24 "Issue came up after update.", cur-1986-SurgeODDR "Since
    # yesterday's update.": two products' updates, not one event joining their problems
    extraction = Extraction(extractor="rules@1", entities=[], facts=[
        ExtractedFact("blank screen", "Issue", "PRECEDED_BY", "Update", "Event", "s"),
        ExtractedFact("blank screen", "Issue", "PRECEDED_BY", "Windows Update", "Event", "s")])

    scoped_facts = scope_to_brand(extraction, "Postman").facts

    assert [f.target for f in scoped_facts] == ["Update (Postman)", "Windows Update"]


@pytest.mark.django_db
def test_staff_closing_a_thread_ends_its_reports(graph, ingest) -> None:
    # ts-8314-kelivel-2023-10-13: "Closing this one for now due to inactivity."
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        {**ticket(1, "kim", "support:acme/app", "Sync stalls on start."),
         "url": "https://github.com/acme/app/issues/12"},
        {**ticket(2, "lee", "support:acme/app", "Closing this one for now due to inactivity."),
         "url": "https://github.com/acme/app/issues/12#issuecomment-9"},
    ])
    run_pipeline(graph)

    closed = Fact.objects.get(graph=graph, relation="HAS_STATUS", source__name="acme/app#12")
    assert closed.target.name == "Closed"
    assert closed.sentence == "Closing this one for now due to inactivity."
    reports = Fact.objects.filter(graph=graph, relation="REPORTED", target__name="acme/app#12")
    assert reports.exists() and all(f.invalid_at is not None for f in reports)


@pytest.mark.django_db
def test_an_agents_reply_never_makes_them_a_customer_who_reported_the_thread(graph, ingest) -> None:
    # dfw-10348-jmawebco-2021-02-09 and dfw-10348-stephen-turner-2021-02-09 (Docker staff): one
    # customer, not "reported by 2 customers"
    from memory.models import Entity, Fact
    from memory.pipeline import run_pipeline

    url = "https://github.com/docker/for-win/issues/10348"
    ingest(graph, [
        {**ticket(1, "jmawebco", "support:docker/for-win",
                  "# Failed to set version to docker-desktop: exit code: -1 #10348\n\n"
                  "### Actual behavior\nDocker fails to start \n### Expected behavior\n"
                  "Docker to start properly"), "url": url, "role": "customer"},
        {**ticket(2, "stephen-turner", "support:docker/for-win",
                  "This error means that WSL 2 is not installed correctly. Please follow "
                  "Microsoft's instructions at https://aka.ms/wsl2-install"),
         "url": f"{url}#issuecomment-1", "author_role": "agent"},
    ])
    run_pipeline(graph)

    reporters = set(Fact.objects.filter(graph=graph, relation="REPORTED")
                    .values_list("source__name", "source__type"))
    assert reporters == {("jmawebco", "Customer")}
    assert not Entity.objects.filter(graph=graph, name__iexact="stephen-turner",
                                     type="Customer").exists()


def test_what_an_agent_says_of_the_thread_is_read_as_the_vendors_word() -> None:
    # warp-6305-dannyneira-2026-04-09 (Warp staff): "Duplicate of #1780"
    from datetime import UTC, datetime

    from memory.models import Episode
    from memory.ontology import default_ontology
    from memory.processing.reading import extract_episode

    episode = Episode(author="dannyneira", source="support:warpdotdev/warp",
                      content="Duplicate of #1780", author_role="agent",
                      url="https://github.com/warpdotdev/warp/issues/6305#issuecomment-2",
                      reference_time=datetime(2026, 4, 9, tzinfo=UTC))

    extraction = extract_episode(episode, default_ontology(), {}, model=False)

    assert [(f.source, f.relation, f.target) for f in extraction.facts] == [
        ("dannyneira", "ANSWERED", "warpdotdev/warp#6305"),
        ("warpdotdev/warp#6305", "DUPLICATE_OF", "warpdotdev/warp#1780")]
    assert extraction.author is not None and extraction.author.type == "Person"
    assert extraction.author.name == "dannyneira"


def test_without_a_role_a_support_message_is_read_as_a_customers_as_before() -> None:
    from datetime import UTC, datetime

    from memory.models import Episode
    from memory.ontology import default_ontology
    from memory.processing.reading import extract_episode

    episode = Episode(author="dannyneira", source="support:warpdotdev/warp",
                      content="Duplicate of #1780",
                      url="https://github.com/warpdotdev/warp/issues/6305#issuecomment-2",
                      reference_time=datetime(2026, 4, 9, tzinfo=UTC))

    extraction = extract_episode(episode, default_ontology(), {}, model=False)

    assert ("dannyneira", "REPORTED", "warpdotdev/warp#6305") in [
        (f.source, f.relation, f.target) for f in extraction.facts]


@pytest.mark.parametrize(("text", "url", "titled"), [
    ("# Web Site Login Loop #8587\n\nI have tried to login",
     "https://github.com/warpdotdev/warp/issues/8587",
     ("warpdotdev/warp#8587", "Web Site Login Loop")),
    ("# Web Site Login Loop #8587\n\nI have tried to login",
     "https://github.com/warpdotdev/warp/issues/9999", None),  # another item's title
    ("Duplicate of #1780", "https://github.com/warpdotdev/warp/issues/6305", None),
    ("# Web Site Login Loop #8587", "", None),
])
def test_a_threads_title_is_its_first_messages_title_line(
        text: str, url: str, titled: tuple[str, str] | None) -> None:
    from memory.support import thread_title

    assert thread_title(text, url) == titled


@pytest.mark.django_db
def test_a_support_thread_is_shown_by_its_title(graph, ingest) -> None:
    # warp-8587-hackenstacks-2026-02-06: "# Web Site Login Loop #8587"
    from memory.models import Observation
    from memory.pipeline import run_pipeline

    url = "https://github.com/warpdotdev/warp/issues/8587"
    ingest(graph, [
        {**ticket(1, "hackenstacks", "support:warpdotdev/warp",
                  "# Web Site Login Loop #8587\n\nI can't log in, the site loops."), "url": url},
        {**ticket(2, "kim", "support:warpdotdev/warp", "Same here."), "url": f"{url}#c-1"},
    ])
    run_pipeline(graph)

    shown = " ".join(f"{o.name} {o.summary}" for o in Observation.objects.filter(graph=graph))
    assert "warpdotdev/warp#8587 “Web Site Login Loop”" in shown


def test_an_agents_answer_in_a_thread_is_membership_that_cites_no_words() -> None:
    from memory.support import thread_membership, with_thread

    url = "https://github.com/acme/app/issues/12#issuecomment-3"
    extraction = with_thread(Extraction(extractor="rules@1"), "lee", url,
                             "Could you send us your logs?", reporter=False)

    [answered] = extraction.facts
    assert (answered.source, answered.relation, answered.target) == (
        "lee", "ANSWERED", "acme/app#12")
    assert answered.source_type == "Person"
    assert thread_membership(answered, "lee", url)


@pytest.mark.django_db
def test_an_agents_reply_joins_its_threads_observation_as_a_participant_not_a_reporter(
        graph, ingest) -> None:
    # warp-8399 (Warp staff): "Would you mind sending your logs?" in a login thread
    from memory.models import Entity, Observation
    from memory.pipeline import run_pipeline

    first, second = ("https://github.com/acme/app/issues/12",
                     "https://github.com/acme/app/issues/30")
    ingest(graph, [
        {**ticket(1, "kim", "support:acme/app", "I can't log in since this morning."),
         "url": first, "role": "customer"},
        {**ticket(2, "lee", "support:acme/app",
                  "Sorry to hear that. Would you mind sending your logs?"),
         "url": f"{first}#issuecomment-4", "role": "agent"},
        {**ticket(3, "sam", "support:acme/app", "Unable to log in on the desktop app."),
         "url": second, "role": "customer"},
    ])
    run_pipeline(graph)

    [observation] = Observation.objects.filter(graph=graph, status="active")
    assert sorted(e.external_id for e in observation.episodes.all()) == ["t1", "t2", "t3"]
    reporters = {report["reporter"] for issue in observation.structure["recurring"]["issues"]
                 for report in issue["reports"]}
    assert set(Entity.objects.filter(pk__in=reporters).values_list("name", flat=True)) == {
        "kim", "sam"}  # lee answered in kim's thread, reporting nothing
    assert "lee" not in observation.summary


@pytest.mark.django_db
def test_an_agents_answer_ends_when_the_thread_is_closed(graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    url = "https://github.com/acme/app/issues/12"
    ingest(graph, [
        {**ticket(1, "kim", "support:acme/app", "Sync stalls on start."), "url": url,
         "role": "customer"},
        {**ticket(2, "lee", "support:acme/app", "Could you send us your logs?"),
         "url": f"{url}#issuecomment-3", "role": "agent"},
        {**ticket(3, "lee", "support:acme/app", "Closing this one for now due to inactivity."),
         "url": f"{url}#issuecomment-9", "role": "agent"},
    ])
    run_pipeline(graph)

    answers = Fact.objects.filter(graph=graph, relation="ANSWERED", target__name="acme/app#12")
    assert answers.exists() and all(f.invalid_at is not None for f in answers)


@pytest.mark.django_db
def test_an_agent_closing_the_thread_ends_its_customers_reports(graph, ingest) -> None:
    # ts-8314-kelivel-2023-10-13 (role agent): "Closing this one for now due to inactivity."
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    url = "https://github.com/acme/app/issues/12"
    ingest(graph, [
        {**ticket(1, "kim", "support:acme/app", "Sync stalls on start."), "url": url,
         "role": "customer"},
        {**ticket(2, "kelivel", "support:acme/app", "Closing this one for now due to inactivity."),
         "url": f"{url}#issuecomment-9", "role": "agent"},
    ])
    run_pipeline(graph)

    closed = Fact.objects.get(graph=graph, relation="HAS_STATUS", source__name="acme/app#12")
    assert closed.target.name == "Closed"
    reports = Fact.objects.filter(graph=graph, relation="REPORTED")
    assert {f.source.name for f in reports} == {"kim"}
    assert all(f.invalid_at is not None for f in reports)


@pytest.mark.parametrize(("name", "problem"), [
    ("Docker uses too much memory", "High Memory Usage"),  # the symptom table's words
    ("hight memory when warp was started", "High Memory Usage"),  # the amount, as a complaint
    ("hyperkit uses a lot of cpu", "High CPU Usage"),
    ("very high CPU utilisation", "High CPU Usage"),
])
def test_a_resources_amount_is_one_problem_however_the_readings_name_it(
        name: str, problem: str) -> None:
    from memory.support import problem_of

    assert problem_of(name, "acme/app") == problem


@pytest.mark.django_db
def test_two_customers_naming_high_cpu_two_ways_are_one_recurring_issue(graph, ingest) -> None:
    # dfm-1131 and dfm-3499 (dev): "very high CPU utilisation", "uses a lot of cpu"
    from memory.models import Observation
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "kim", "support:acme/app", "We see a very high CPU utilisation."),
        ticket(2, "sam", "support:acme/app", "It uses a lot of CPU even when idle."),
    ])
    run_pipeline(graph)

    [observation] = Observation.objects.filter(graph=graph, status="active")
    assert sorted(e.external_id for e in observation.episodes.all()) == ["t1", "t2"]


@pytest.mark.parametrize(("product", "brand", "itself"), [
    ("Postman", "postmanlabs/postman-app-support", True),
    ("Warp", "warpdotdev/warp", True),
    ("Signal Desktop", "signalapp/Signal-Desktop", True),
    ("Nimbus", "Nimbus", True),
    ("Desktop App", "acme/app", False),
    ("Sync", "Nimbus", False),
])
def test_a_product_named_as_its_brand_is_the_brand_itself(
        product: str, brand: str, itself: bool) -> None:
    from memory.support import is_the_brand

    assert is_the_brand(product, brand) is itself


def test_what_an_issue_does_to_the_brand_itself_links_no_problem_to_another() -> None:
    # pm-3136 and pm-10800 (dev-extra): "Certificate Failures" and "Start Failures" each
    # AFFECTS "Postman" — every problem of the Postman queue affects Postman
    extraction = Extraction(
        extractor="rules@1",
        facts=[ExtractedFact("kim", "Customer", "REPORTED", "Certificate Failures", "Issue", "s"),
               ExtractedFact("Certificate Failures", "Issue", "AFFECTS", "Postman", "Product",
                             "s"),
               ExtractedFact("Certificate Failures", "Issue", "AFFECTS", "Proxy Settings",
                             "Product", "s")],
        author=ExtractedEntity("kim", "Customer"))

    from memory.support import by_problem

    brand = "postmanlabs/postman-app-support"
    stored = by_problem(scope_to_brand(extraction, brand), brand)

    assert [(f.relation, f.target) for f in stored.facts] == [
        ("REPORTED", "Certificate Failures (postmanlabs/postman-app-support)"),
        ("AFFECTS", "Proxy Settings (postmanlabs/postman-app-support)")]


@pytest.mark.django_db
def test_two_problems_of_one_brand_both_affecting_the_brand_stay_two_observations(
        graph, ingest) -> None:
    from memory.models import Fact, Observation
    from memory.pipeline import run_pipeline

    ingest(graph, [
        ticket(1, "Acme Corp", "zendesk:Nimbus", "Nimbus keeps crashing."),
        ticket(2, "Globex", "zendesk:Nimbus", "It crashes every morning."),
        ticket(3, "Initech", "zendesk:Nimbus", "Login fails in Nimbus."),
        ticket(4, "Hooli", "zendesk:Nimbus", "We can't log in."),
    ])
    run_pipeline(graph)

    assert not Fact.objects.filter(graph=graph, relation="AFFECTS", target__name="Nimbus")
    groups = [sorted(e.external_id for e in o.episodes.all())
              for o in Observation.objects.filter(graph=graph, status="active")]
    assert sorted(groups) == [["t1", "t2"], ["t3", "t4"]]
