"""Processing episodes end to end on the database: extraction, resolution and the time rules
(DESIGN §3), with tests that read like the seed."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory.models import Entity, Episode, Fact, Graph
from memory.selectors import (
    current_facts,
    fact_as_dict,
    facts_known_at,
    facts_valid_at,
    with_evidence,
)
from tests.conftest import IngestFn
from tests.fake_openai import FakeOpenAI
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401
from tests.scenarios import SEED, SHIPPED


def signatures(graph: Graph, external_id: str, *, with_status: bool = False) -> set[tuple]:
    episode = Episode.objects.get(graph=graph, external_id=external_id)
    return {
        (f.source.name, f.relation, f.target.name)
        for f in Fact.objects.filter(evidence__episode=episode).select_related("source", "target")
        if with_status or f.relation != "HAS_STATUS"
    }


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.django_db
def test_the_seed_updates_become_exactly_the_seed_signatures(graph: Graph, ingest: IngestFn):
    report = ingest(graph, SEED)

    assert report.summary() == "stored 3, duplicates 0, rejected 0"
    assert signatures(graph, "alice") == {
        ("Alice", "RESPONSIBLE_FOR", "API Migration"),
        ("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
        ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
    }
    assert signatures(graph, "bob") == {
        ("Bob", "RESPONSIBLE_FOR", "Payments Integration"),
        ("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
        ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
    }
    assert signatures(graph, "clara") == {
        ("Clara", "RESPONSIBLE_FOR", "Checkout Flow"),
        ("Checkout Flow", "DEPENDS_ON", "Payments Integration"),
        ("Bob", "RESPONSIBLE_FOR", "Payments Integration"),
    }
    statuses = {s for e in ("alice", "bob", "clara")
                for s in signatures(graph, e, with_status=True) if s[1] == "HAS_STATUS"}
    assert statuses == {("API Migration", "HAS_STATUS", "Blocked"),
                        ("Payments Integration", "HAS_STATUS", "Stalled"),
                        ("Checkout Flow", "HAS_STATUS", "Blocked")}


@pytest.mark.django_db
def test_a_fact_restated_by_another_episode_is_one_fact_with_two_episodes(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED)

    owned = Fact.objects.get(graph=graph, source__name="Backend Team",
                             target__name="Auth Service Refactor")
    assert sorted(owned.episodes.values_list("external_id", flat=True)) == ["alice", "bob"]
    assert owned.valid_at == at("2026-11-23T09:00:00+00:00")
    assert Entity.objects.filter(graph=graph, name="Auth Service Refactor").count() == 1


@pytest.mark.django_db
def test_every_fact_records_its_extractor_sentence_and_episode(graph: Graph,
                                                              ingest: IngestFn) -> None:
    ingest(graph, SEED[:1])

    fact = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert fact.extractor == "rules@1"
    assert fact.sentence == ("I'm waiting on the auth service refactor, which the backend team "
                             "owns.")
    assert fact.evidence.get().episode.external_id == "alice"
    assert Episode.objects.get(external_id="alice").status == Episode.Status.PROCESSED


@pytest.mark.django_db
def test_shipping_the_refactor_ends_both_dependencies_pointing_at_it(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED)
    ingest(graph, [SHIPPED], now=at("2026-12-02T10:05:00+00:00"))

    ended = Fact.objects.filter(graph=graph, relation="DEPENDS_ON",
                                target__name="Auth Service Refactor")
    assert ended.count() == 2
    done = Fact.objects.get(graph=graph, relation="HAS_STATUS",
                            source__name="Auth Service Refactor")
    for fact in ended:
        assert fact.invalid_at == at("2026-12-02T10:00:00+00:00")
        assert fact.expired_at == at("2026-12-02T10:05:00+00:00")
        assert (fact.close_reason, fact.closed_by_fact) == (Fact.CloseReason.RESOLUTION, done)
        assert fact.closed_by_episode.external_id == "ship"
    still = Fact.objects.get(graph=graph, relation="DEPENDS_ON", source__name="Checkout Flow")
    assert still.is_open


PLAN_HISTORY = [
    {"external_id": "jan", "author": "Acme Corp", "reference_time": "2026-01-01T12:00:00+00:00",
     "content": "Acme Corp is on the Standard plan."},
    {"external_id": "may", "author": "Acme Corp", "reference_time": "2026-05-08T12:00:00+00:00",
     "content": "We upgraded to Enterprise on 2026-04-28."},
]


@pytest.fixture
def plan_history(graph: Graph, ingest: IngestFn) -> Graph:
    ingest(graph, PLAN_HISTORY[:1], now=at("2026-01-01T12:00:00+00:00"))
    ingest(graph, PLAN_HISTORY[1:], now=at("2026-05-08T12:30:00+00:00"))
    return graph


def plans(facts) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.target.name for f in facts if f.relation == "ON_PLAN"]


@pytest.mark.django_db
def test_an_upgrade_closes_the_old_plan_on_the_day_it_happened(plan_history: Graph) -> None:
    standard = Fact.objects.get(graph=plan_history, target__name="Standard")

    assert standard.invalid_at == at("2026-04-28T00:00:00+00:00")
    assert standard.expired_at == at("2026-05-08T12:30:00+00:00")
    assert standard.close_reason == Fact.CloseReason.SINGLE_VALUED
    assert standard.closed_by_fact.target.name == "Enterprise"


@pytest.mark.django_db
def test_the_plan_as_of_a_date_and_as_known_at_a_date(plan_history: Graph) -> None:
    assert plans(facts_valid_at(plan_history, at("2026-04-01T00:00:00+00:00"))) == ["Standard"]
    assert plans(facts_valid_at(plan_history, at("2026-05-01T00:00:00+00:00"))) == ["Enterprise"]
    # On May 1st the system had not heard of the upgrade yet.
    assert plans(facts_known_at(plan_history, at("2026-05-01T00:00:00+00:00"))) == ["Standard"]
    assert plans(current_facts(plan_history)) == ["Enterprise"]


@pytest.mark.django_db
def test_a_backfilled_older_episode_never_closes_a_newer_fact(plan_history: Graph,
                                                              ingest: IngestFn) -> None:
    ingest(plan_history, [{"external_id": "backfill", "author": "Acme Corp",
                           "reference_time": "2026-02-01T12:00:00+00:00",
                           "content": "We moved to the Pro plan."}],
           now=at("2026-06-01T00:00:00+00:00"))

    enterprise = Fact.objects.get(graph=plan_history, target__name="Enterprise")
    pro = Fact.objects.get(graph=plan_history, target__name="Pro")
    assert enterprise.is_open
    assert pro.invalid_at == at("2026-04-28T00:00:00+00:00")
    assert pro.expired_at is None
    assert plans(current_facts(plan_history)) == ["Enterprise"]
    assert plans(facts_valid_at(plan_history, at("2026-03-01T00:00:00+00:00"))) == ["Pro"]


@pytest.mark.django_db
def test_no_longer_waiting_ends_the_dependency_explicitly(graph: Graph, ingest: IngestFn) -> None:
    ingest(graph, SEED[:1])
    ingest(graph, [{"external_id": "later", "author": "Alice",
                    "reference_time": "2026-11-30T09:00:00+00:00",
                    "content": "The API migration is no longer blocked on the auth service "
                               "refactor."}])

    fact = Fact.objects.get(graph=graph, relation="DEPENDS_ON")
    assert fact.invalid_at == at("2026-11-30T09:00:00+00:00")
    assert fact.close_reason == Fact.CloseReason.EXPLICIT
    assert fact.closed_by_episode.external_id == "later"


@pytest.mark.django_db
def test_supersession_is_scoped_to_its_source(graph: Graph, ingest: IngestFn) -> None:
    ingest(graph, [
        {"author": "Acme Corp", "reference_time": "2026-01-01T00:00:00+00:00",
         "content": "Acme Corp is on the Standard plan."},
        {"author": "Globex Inc", "reference_time": "2026-02-01T00:00:00+00:00",
         "content": "We upgraded to the Enterprise plan."},
    ])

    assert sorted(plans(current_facts(graph))) == ["Enterprise", "Standard"]


@pytest.mark.django_db
def test_text_the_rules_do_not_understand_yields_no_facts_but_the_episode_is_kept(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, [{"external_id": "chat", "author": "Alice",
                    "reference_time": "2026-11-23T09:00:00+00:00",
                    "content": "Lunch was great today. See you all on Friday!"}])

    episode = Episode.objects.get(external_id="chat")
    assert episode.status == Episode.Status.PROCESSED
    assert not Fact.objects.filter(graph=graph).exists()


@pytest.mark.django_db
def test_structured_facts_are_used_as_given(graph: Graph, ingest: IngestFn) -> None:
    ingest(graph, [{"external_id": "jira-1", "author": "Jira", "type": "json",
                    "reference_time": "2026-11-23T09:00:00+00:00",
                    "data": {"key": "PAY-12", "title": "Payments integration"},
                    "facts": [{"source": "Payments Integration", "relation": "blocked by",
                               "target": "Auth Service Refactor",
                               "fact": "PAY-12 is blocked by AUTH-3",
                               "valid_at": "2026-11-20T00:00:00+00:00"}]}])

    fact = Fact.objects.select_related("source", "target").get(graph=graph)
    assert (fact.source.name, fact.relation, fact.target.name) == (
        "Payments Integration", "DEPENDS_ON", "Auth Service Refactor")
    assert (fact.source.type, fact.target.type) == ("WorkItem", "WorkItem")
    assert fact.valid_at == at("2026-11-20T00:00:00+00:00")
    assert (fact.sentence, fact.extractor) == ("PAY-12 is blocked by AUTH-3", "structured@1")


@pytest.mark.django_db
def test_processing_an_episode_twice_changes_nothing(graph: Graph, ingest: IngestFn) -> None:
    from memory.processing import process_episode

    ingest(graph, SEED)
    before = list(Fact.objects.values_list("pk", "invalid_at", "expired_at"))

    assert process_episode(Episode.objects.get(external_id="bob").pk) == "skipped"
    assert list(Fact.objects.values_list("pk", "invalid_at", "expired_at")) == before


def dependencies(facts) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(f.source.name, f.valid_at.date().isoformat()) for f in facts
            if f.relation == "DEPENDS_ON"]


@pytest.mark.django_db
def test_a_backfill_that_restates_a_fact_earlier_revises_it_without_rewriting_what_was_known(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, SEED[:1], now=at("2026-11-23T12:00:00+00:00"))
    before_the_backfill = at("2026-11-30T00:00:00+00:00")
    known_then = [fact_as_dict(f) for f in with_evidence(
        facts_known_at(graph, before_the_backfill, valid_at=at("2026-11-20T00:00:00+00:00")))]
    ingest(graph, [{"external_id": "old-note", "author": "Alice",
                    "reference_time": "2026-11-16T09:00:00+00:00",
                    "content": "The API migration depends on the auth service refactor."}],
           now=at("2026-12-01T09:00:00+00:00"))

    # What the system believed on Nov 30th about Nov 20th is unchanged: no dependency yet.
    assert dependencies(facts_known_at(graph, before_the_backfill,
                                       valid_at=at("2026-11-20T00:00:00+00:00"))) == []
    assert [fact_as_dict(f) for f in with_evidence(facts_known_at(
        graph, before_the_backfill, valid_at=at("2026-11-20T00:00:00+00:00")))] == known_then
    assert dependencies(facts_known_at(graph, before_the_backfill)) == [
        ("API Migration", "2026-11-23")]
    # Today's knowledge: it held since the 16th, on both episodes' word.
    [current] = [f for f in current_facts(graph) if f.relation == "DEPENDS_ON"]
    assert current.valid_at == at("2026-11-16T09:00:00+00:00")
    assert current.created_at == at("2026-12-01T09:00:00+00:00")
    assert sorted(current.episodes.values_list("external_id", flat=True)) == [
        "alice", "old-note"]
    assert dependencies(facts_valid_at(graph, at("2026-11-20T00:00:00+00:00"))) == [
        ("API Migration", "2026-11-16")]
    # The row recorded first is expired, not rewritten, and says what revised it.
    recorded_first = Fact.objects.get(graph=graph, relation="DEPENDS_ON",
                                      valid_at=at("2026-11-23T09:00:00+00:00"))
    assert recorded_first.invalid_at is None
    assert recorded_first.expired_at == at("2026-12-01T09:00:00+00:00")
    assert recorded_first.close_reason == Fact.CloseReason.REVISED
    assert recorded_first.closed_by_fact == current
    assert recorded_first.closed_by_episode.external_id == "old-note"
    assert list(recorded_first.episodes.values_list("external_id", flat=True)) == ["alice"]


@pytest.mark.django_db
def test_a_backfilled_dependency_on_work_already_shipped_ends_when_it_shipped(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, [SEED[0], SHIPPED])
    ingest(graph, [{"external_id": "late", "author": "Bob",
                    "reference_time": "2026-11-25T09:00:00+00:00",
                    "content": "The payments integration is blocked on the auth service "
                               "refactor."}], now=at("2026-12-05T09:00:00+00:00"))

    late = Fact.objects.get(graph=graph, relation="DEPENDS_ON", source__name="Payments Integration")
    assert late.invalid_at == at("2026-12-02T10:00:00+00:00")
    assert late.close_reason == Fact.CloseReason.RESOLUTION
    assert late.closed_by_fact.target.name == "Done"
    assert late.expired_at is None  # learned already ended: never believed open


REPORTS_OF_502 = [
    {"author": "Acme Corp", "source": "zendesk", "reference_time": "2026-11-23T09:00:00+00:00",
     "content": "We're seeing 502 errors on the checkout page since the Tuesday deploy."},
    {"author": "Globex Inc", "source": "zendesk", "reference_time": "2026-11-24T09:00:00+00:00",
     "content": "We get 502 errors on the checkout page after the Tuesday deploy."},
]


def open_reporters(graph: Graph) -> list[str]:
    return sorted(current_facts(graph).filter(relation="REPORTED")
                  .values_list("source__name", flat=True))


def open_issue_facts(graph: Graph) -> set[str]:
    return set(current_facts(graph).filter(relation__in=["AFFECTS", "PRECEDED_BY"])
               .values_list("relation", flat=True))


@pytest.mark.django_db
def test_a_customer_saying_an_issue_is_resolved_ends_their_own_report_only(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, [*REPORTS_OF_502, {
        "author": "Globex Inc", "source": "zendesk", "reference_time": "2026-11-27T09:00:00+00:00",
        "content": "The 502 errors on the checkout page are resolved. Thanks!"}])

    assert open_reporters(graph) == ["Acme Corp"]
    globex = Fact.objects.get(graph=graph, relation="REPORTED", source__name="Globex Inc")
    assert globex.invalid_at == at("2026-11-27T09:00:00+00:00")
    assert globex.close_reason == Fact.CloseReason.EXPLICIT
    assert globex.closed_by_episode.author == "Globex Inc"
    # The issue is not resolved for Acme: what it affects and followed still holds, and the
    # issue was given no status of "resolved" on Globex's word.
    assert open_issue_facts(graph) == {"AFFECTS", "PRECEDED_BY"}
    assert not Fact.objects.filter(graph=graph, relation="HAS_STATUS").exists()


@pytest.mark.django_db
def test_a_customer_who_never_reported_the_issue_ends_nobodys_report(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, [*REPORTS_OF_502, {
        "author": "Initech", "source": "zendesk", "reference_time": "2026-11-27T09:00:00+00:00",
        "content": "The 502 errors on the checkout page are resolved. Thanks!"}])

    assert open_reporters(graph) == ["Acme Corp", "Globex Inc"]
    assert open_issue_facts(graph) == {"AFFECTS", "PRECEDED_BY"}


@pytest.mark.django_db
def test_once_every_reporter_says_it_is_resolved_the_issue_ends(
    graph: Graph, ingest: IngestFn
) -> None:
    resolved = "The 502 errors on the checkout page are resolved."
    ingest(graph, [*REPORTS_OF_502,
                   {"author": "Globex Inc", "source": "zendesk", "content": resolved,
                    "reference_time": "2026-11-27T09:00:00+00:00"},
                   {"author": "Acme Corp", "source": "zendesk", "content": resolved,
                    "reference_time": "2026-11-28T09:00:00+00:00"}])

    assert open_reporters(graph) == []
    assert open_issue_facts(graph) == set()
    for fact in Fact.objects.filter(graph=graph, relation__in=["AFFECTS", "PRECEDED_BY"]):
        assert fact.invalid_at == at("2026-11-28T09:00:00+00:00")
        assert fact.close_reason == Fact.CloseReason.RESOLUTION
        assert fact.closed_by_episode.author == "Acme Corp"


@pytest.mark.django_db
def test_the_vendor_saying_an_issue_is_fixed_ends_every_report_and_what_it_followed(
    graph: Graph, ingest: IngestFn
) -> None:
    ingest(graph, [*REPORTS_OF_502, {
        "author": "Dana", "source": "status-page", "reference_time": "2026-11-27T09:00:00+00:00",
        "content": "The 502 errors on the checkout page are resolved."}])

    ended = Fact.objects.filter(graph=graph, relation__in=["REPORTED", "AFFECTS", "PRECEDED_BY"])
    assert ended.count() >= 4
    for fact in ended:
        assert fact.invalid_at == at("2026-11-27T09:00:00+00:00"), fact
        assert fact.close_reason == Fact.CloseReason.RESOLUTION


def closure_of_report(customer: str, sentence: str) -> dict:
    """A model's reading of "works again, thanks" from a customer: their report ends."""
    return {"entities": [], "facts": [], "closures": [{
        "source": customer, "source_type": "Customer", "relation": "REPORTED",
        "target": "502 Errors", "target_type": "Issue", "sentence": sentence}]}


@pytest.mark.django_db
def test_a_customers_closure_of_their_report_ends_the_issue_only_with_the_last_report(
    graph: Graph, ingest: IngestFn, fake_openai: FakeOpenAI, settings: object
) -> None:
    ingest(graph, REPORTS_OF_502)  # read by the rules (the fake model extracts nothing)
    settings.LLM_EXTRACTION = True  # type: ignore[attr-defined]
    works = "Checkout works again, thank you."

    fake_openai.reply_json(closure_of_report("Globex Inc", works))
    ingest(graph, [{"author": "Globex Inc", "source": "zendesk", "content": works,
                    "reference_time": "2026-11-27T09:00:00+00:00"}])

    assert open_reporters(graph) == ["Acme Corp"]
    assert open_issue_facts(graph) == {"AFFECTS", "PRECEDED_BY"}

    fake_openai.reply_json(closure_of_report("Acme Corp", works))
    ingest(graph, [{"author": "Acme Corp", "source": "zendesk", "content": works,
                    "reference_time": "2026-11-28T09:00:00+00:00"}])

    assert open_reporters(graph) == []
    assert open_issue_facts(graph) == set()
