"""The rules extractor: pure text in, entities/facts/closures out (no database)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from memory.extraction import ExtractedClosure, ExtractedEntity, Extraction, rules
from memory.extraction.rules import RULES_EXTRACTOR, extract_with_rules, issue_name
from memory.ontology import build_ontology, default_ontology

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)
CUSTOMER_CATEGORIES = {"plan", "support", "event"}

Signature = tuple[str, str, str]


def extract(text: str, author: str = "Alice", **kwargs: object) -> Extraction:
    kwargs.setdefault("reference_time", REFERENCE_TIME)
    return extract_with_rules(text, author=author, **kwargs)  # type: ignore[arg-type]


def signatures(extraction: Extraction) -> set[Signature]:
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def without_status(extraction: Extraction) -> set[Signature]:
    return {s for s in signatures(extraction) if s[1] != "HAS_STATUS"}


def types(extraction: Extraction) -> dict[str, str]:
    return {e.name: e.type for e in extraction.entities}


# ----------------------------------------------------------------- the phrasings table (docstring)

_ROW = re.compile(r"^\| (?P<n>\d+) \| (?P<category>[\w-]+) \| (?P<text>.+?) \| (?P<facts>.+) \|$")
_RELATIONS = "|".join(default_ontology().relations)
_FACT = re.compile(
    rf"^(?P<closes>closes )?(?P<source>.+?) (?P<relation>{_RELATIONS}) (?P<target>.+?)"
    r"(?: @(?P<date>\d{4}-\d{2}-\d{2}))?$"
)


@dataclass(frozen=True)
class Phrasing:
    number: int
    category: str
    text: str
    facts: list[tuple[str, str, str, date | None]]
    closures: list[tuple[str, str, str]]

    @property
    def author(self) -> tuple[str, str]:
        return ("Acme Corp", "Customer") if self.category in CUSTOMER_CATEGORIES else (
            "Alice", "Person")


def _phrasings() -> list[Phrasing]:
    """The rows of the table in ``rules.__doc__``: the documentation is the test data."""
    rows = []
    for line in (rules.__doc__ or "").splitlines():
        row = _ROW.match(line)
        if row is None:
            continue
        facts, closures = [], []
        for said in row["facts"].split("; "):
            if said == "—":
                continue
            fact = _FACT.match(said)
            assert fact is not None, f"row {row['n']}: cannot read {said!r}"
            if fact["closes"]:
                closures.append((fact["source"], fact["relation"], fact["target"]))
            else:
                when = date.fromisoformat(fact["date"]) if fact["date"] else None
                facts.append((fact["source"], fact["relation"], fact["target"], when))
        rows.append(Phrasing(int(row["n"]), row["category"], row["text"], facts, closures))
    return rows


PHRASINGS = _phrasings()


def test_the_docstring_documents_at_least_thirty_phrasings_across_both_users() -> None:
    assert len(PHRASINGS) >= 30
    assert [p.number for p in PHRASINGS] == list(range(1, len(PHRASINGS) + 1))
    assert {p.category for p in PHRASINGS} >= {
        "ownership", "membership", "dependency", "status", "completion", "unblocked", "plan",
        "support", "event", "usage", "none",
    }


@pytest.mark.parametrize("phrasing", PHRASINGS, ids=lambda p: f"{p.number}-{p.category}")
def test_each_documented_phrasing_produces_exactly_its_facts(phrasing: Phrasing) -> None:
    author, author_type = phrasing.author
    extraction = extract(phrasing.text, author=author, author_type=author_type)

    produced = sorted(
        (f.source, f.relation, f.target, f.valid_at.date() if f.valid_at else None)
        for f in extraction.facts
    )
    closed = sorted((c.source, c.relation, c.target or "*") for c in extraction.closures)
    assert produced == sorted(phrasing.facts, key=str)
    assert closed == sorted(phrasing.closures)


# ------------------------------------------------------------------ the acceptance case (DESIGN §1)


def test_alices_update_names_her_blocked_migration_and_the_backend_teams_refactor() -> None:
    extraction = extract(
        "The API migration is blocked. I'm waiting on the auth service refactor, which the "
        "backend team owns.",
        author="Alice",
    )

    assert without_status(extraction) == {
        ("Alice", "RESPONSIBLE_FOR", "API Migration"),
        ("API Migration", "DEPENDS_ON", "Auth Service Refactor"),
        ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
    }
    assert ("API Migration", "HAS_STATUS", "Blocked") in signatures(extraction)
    assert types(extraction) == {
        "Alice": "Person", "API Migration": "WorkItem", "Auth Service Refactor": "WorkItem",
        "Backend Team": "Team", "Blocked": "Status",
    }


def test_bobs_update_waits_on_the_same_refactor_from_the_backend_team() -> None:
    extraction = extract(
        "The payments integration is stalled. I'm also waiting on the auth service refactor "
        "from the backend team.",
        author="Bob",
    )

    assert without_status(extraction) == {
        ("Bob", "RESPONSIBLE_FOR", "Payments Integration"),
        ("Payments Integration", "DEPENDS_ON", "Auth Service Refactor"),
        ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
    }
    assert ("Payments Integration", "HAS_STATUS", "Stalled") in signatures(extraction)
    assert types(extraction)["Stalled"] == "Status"


def test_claras_update_waits_on_bobs_work_without_making_it_hers() -> None:
    extraction = extract(
        "The checkout flow can't move forward because the payments integration isn't ready. "
        "That work belongs to Bob.",
        author="Clara",
    )

    assert without_status(extraction) == {
        ("Clara", "RESPONSIBLE_FOR", "Checkout Flow"),
        ("Checkout Flow", "DEPENDS_ON", "Payments Integration"),
        ("Bob", "RESPONSIBLE_FOR", "Payments Integration"),
    }
    statuses = {s for s in signatures(extraction) if s[1] == "HAS_STATUS"}
    assert statuses == {("Checkout Flow", "HAS_STATUS", "Blocked")}
    assert types(extraction) == {
        "Clara": "Person", "Checkout Flow": "WorkItem", "Payments Integration": "WorkItem",
        "Bob": "Person", "Blocked": "Status",
    }


def test_the_backend_team_shipping_the_refactor_marks_it_done_and_theirs() -> None:
    extraction = extract("The backend team shipped the auth service refactor.", author="Dana")

    assert signatures(extraction) == {
        ("Backend Team", "RESPONSIBLE_FOR", "Auth Service Refactor"),
        ("Auth Service Refactor", "HAS_STATUS", "Done"),
    }


def test_a_customers_plan_change_carries_the_date_it_gives() -> None:
    extraction = extract(
        "We upgraded to Enterprise on 2026-04-28.", author="Acme Corp", author_type="Customer"
    )

    [fact] = extraction.facts
    assert (fact.source, fact.source_type, fact.relation, fact.target, fact.target_type) == (
        "Acme Corp", "Customer", "ON_PLAN", "Enterprise", "Plan")
    assert fact.valid_at == datetime(2026, 4, 28, tzinfo=UTC)


def test_a_customer_named_in_the_third_person_is_on_the_plan_without_the_word_plan() -> None:
    extraction = extract("Acme Corp is on the Standard plan.", author="Acme Corp")

    [fact] = extraction.facts
    assert (fact.source, fact.relation, fact.target, fact.valid_at) == (
        "Acme Corp", "ON_PLAN", "Standard", None)


class _AlwaysIntersects(frozenset[str]):
    """A gate that lets everything through."""

    def isdisjoint(self, other: object) -> bool:
        return False


def test_the_speed_gates_never_change_what_is_extracted(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [(p.text, *p.author) for p in PHRASINGS] + [
        (text, "Alice", "Person") for text in (
            "Working on docs and reviews this week.",
            "The release is blocked by legal (see ticket).",
            "We've been waiting for the data migration since April 2, 2026.",
            "Since the nightly backfill, exports fail with timeouts for all users.",
        )
    ]
    gated = [extract(text, author=author, author_type=kind) for text, author, kind in texts]

    everything = _AlwaysIntersects()
    monkeypatch.setattr(rules, "_PATTERNS", tuple(r._replace(gate=None) for r in rules._PATTERNS))
    for gate in ("_FILLER_WORDS", "_ADVERBIAL_WORDS", "_EVENT_WORDS"):
        monkeypatch.setattr(rules, gate, everything)
    monkeypatch.setattr(rules, "_DIGIT", re.compile(""))
    ungated = [extract(text, author=author, author_type=kind) for text, author, kind in texts]

    assert gated == ungated


# -------------------------------------------------------------------------------- the author


def test_the_extraction_names_its_extractor_and_author() -> None:
    extraction = extract("The API migration is blocked.", author="alice")

    assert extraction.extractor == RULES_EXTRACTOR == "rules@1"
    assert extraction.author == ExtractedEntity("Alice", "Person")


@pytest.mark.parametrize("name", ["Acme Corp", "Initech Inc.", "Globex Ltd", "Hooli Labs"])
def test_an_organisation_as_author_is_a_customer(name: str) -> None:
    assert extract("Hello.", author=name).author == ExtractedEntity(name, "Customer")


def test_an_author_the_graph_knows_as_a_customer_is_a_customer() -> None:
    extraction = extract("Hello.", author="Globex", known_entities={"globex": "Customer"})

    assert extraction.author == ExtractedEntity("Globex", "Customer")


def test_an_anonymous_episode_has_no_author_and_makes_nobody_responsible() -> None:
    extraction = extract("The API migration is blocked. I'm waiting on the auth refactor.",
                         author="")

    assert extraction.author is None
    assert signatures(extraction) == {
        ("API Migration", "HAS_STATUS", "Blocked"),
        ("API Migration", "DEPENDS_ON", "Auth Refactor"),
    }


# ------------------------------------------------------------------------ interpretation rules


def test_first_person_waiting_attaches_to_the_authors_work_item() -> None:
    extraction = extract(
        "The search revamp is at risk. We're waiting on the indexing service.", author="Erin"
    )

    assert ("Search Revamp", "DEPENDS_ON", "Indexing Service") in signatures(extraction)


def test_first_person_waiting_before_the_status_still_finds_the_authors_work_item() -> None:
    extraction = extract(
        "I'm waiting on the auth service refactor, so the API migration is blocked."
    )

    assert ("API Migration", "DEPENDS_ON", "Auth Service Refactor") in signatures(extraction)


def test_first_person_waiting_without_a_work_item_is_dropped_with_a_note() -> None:
    extraction = extract("I'm waiting on the auth service refactor.")

    assert extraction.facts == []
    assert any("no work item" in note for note in extraction.dropped)


def test_an_explicit_owner_anywhere_in_the_episode_wins_over_the_author() -> None:
    extraction = extract("The payments integration is blocked. Bob owns it.", author="Alice")

    assert ("Alice", "RESPONSIBLE_FOR", "Payments Integration") not in signatures(extraction)
    assert ("Bob", "RESPONSIBLE_FOR", "Payments Integration") in signatures(extraction)


def test_a_customer_reporting_a_status_does_not_become_responsible_for_the_work() -> None:
    extraction = extract("The SSO rollout is delayed.", author="Acme Corp")

    assert signatures(extraction) == {("SSO Rollout", "HAS_STATUS", "Delayed")}


def test_a_reason_clause_gives_no_status_and_no_ownership_to_the_item_it_names() -> None:
    extraction = extract(
        "The checkout flow can't move forward because the payments integration isn't ready."
    )

    assert not {s for s in signatures(extraction) if s[0] == "Payments Integration"}
    assert ("Alice", "RESPONSIBLE_FOR", "Payments Integration") not in signatures(extraction)


def test_a_status_is_single_valued_and_the_last_one_said_wins() -> None:
    extraction = extract("The API migration was blocked. Now it is in progress.")

    statuses = [f for f in extraction.facts if f.relation == "HAS_STATUS"]
    assert [(f.source, f.target) for f in statuses] == [("API Migration", "In Progress")]


def test_a_completion_word_on_an_issue_means_resolved() -> None:
    extraction = extract("The timeout errors are fixed.", author="Acme Corp")

    assert signatures(extraction) == {("Timeout Errors", "HAS_STATUS", "Resolved")}


def test_every_generic_completion_word_on_a_work_item_means_done() -> None:
    for word in ("completed", "finished", "launched", "delivered", "live", "shipped"):
        extraction = extract(f"The export feature is {word}.", author="Acme Corp")
        assert signatures(extraction) == {("Export Feature", "HAS_STATUS", "Done")}, word


def test_a_trackers_own_completion_states_keep_their_word() -> None:
    for word, status in (("merged", "Merged"), ("closed", "Closed"), ("released", "Released"),
                         ("fixed", "Fixed"), ("landed", "Merged")):
        extraction = extract(f"The export feature is {word}.", author="Acme Corp")
        assert signatures(extraction) == {("Export Feature", "HAS_STATUS", status)}, word


def test_a_graphs_own_completion_word_means_done() -> None:
    ontology = build_ontology({"completion_statuses": ["deployed"]})

    extraction = extract("The export feature is deployed.", ontology=ontology,
                         author="Acme Corp")

    assert signatures(extraction) == {("Export Feature", "HAS_STATUS", "Done")}


def test_it_with_nothing_before_it_refers_to_nothing() -> None:
    extraction = extract("Bob owns it.")

    assert extraction.facts == []
    assert any("refer to" in note for note in extraction.dropped)


def test_a_fact_the_ontology_does_not_allow_is_dropped_with_a_note() -> None:
    extraction = extract("We upgraded to Enterprise.", author="Alice")  # a Person has no plan

    assert extraction.facts == []
    assert any("does not fit the ontology" in note for note in extraction.dropped)


def test_a_self_loop_is_dropped_with_a_note() -> None:
    extraction = extract("The auth service refactor depends on the auth service refactor.")

    assert extraction.facts == []
    assert any("self-loop" in note for note in extraction.dropped)


def test_text_it_does_not_understand_yields_no_facts() -> None:
    extraction = extract("Lunch was great today. See you all on Friday!")

    assert extraction.facts == []
    assert extraction.closures == []
    assert extraction.entities == [ExtractedEntity("Alice", "Person")]


@pytest.mark.parametrize(
    "text",
    ["", "   \n\n", "!!!", "asdf qwer zxcv", "- \n* \n1. ", "The the the is is blocked by by."],
)
def test_garbage_yields_no_facts(text: str) -> None:
    assert extract(text).facts == []


def test_known_entities_type_names_the_text_alone_cannot() -> None:
    extraction = extract(
        "Phoenix is blocked by Atlas.",
        author="Acme Corp",
        known_entities={"phoenix": "WorkItem", "atlas": "Service"},
    )

    assert signatures(extraction) == {
        ("Phoenix", "DEPENDS_ON", "Atlas"), ("Phoenix", "HAS_STATUS", "Blocked")}
    assert types(extraction)["Atlas"] == "Service"


def test_a_named_third_party_reporting_an_issue_is_a_customer() -> None:
    extraction = extract("Globex reported timeout errors in the billing dashboard.")

    assert types(extraction)["Globex"] == "Customer"
    assert types(extraction)["Billing Dashboard"] == "Product"


def test_a_person_can_report_an_issue_in_the_first_person() -> None:
    extraction = extract("We're seeing 502 errors on the checkout page.", author="Alice")

    assert signatures(extraction) == {
        ("Alice", "REPORTED", "502 Errors"), ("502 Errors", "AFFECTS", "Checkout Page")}


def test_an_issue_in_a_persons_episode_without_a_reporter_is_nobodys_report() -> None:
    extraction = extract("The timeouts started after the nightly backfill.", author="Alice")

    assert signatures(extraction) == {("Timeout Errors", "PRECEDED_BY", "Nightly Backfill")}
    assert types(extraction)["Nightly Backfill"] == "Event"


def test_no_longer_waiting_without_a_work_item_is_dropped_not_invented() -> None:
    extraction = extract("I'm no longer waiting on the auth service refactor.")

    assert extraction.closures == []
    assert any("no work item" in note for note in extraction.dropped)


def test_an_unblocked_item_closes_all_its_dependencies() -> None:
    extraction = extract("The checkout flow is unblocked.")

    assert extraction.closures == [
        ExtractedClosure("Checkout Flow", "WorkItem", "DEPENDS_ON", None, None,
                         "The checkout flow is unblocked.")
    ]


# ----------------------------------------------------------------------------- issue names


@pytest.mark.parametrize(
    ("phrase", "name"),
    [
        ("502 errors", "502 Errors"),
        ("a 502 error", "502 Errors"),
        ("HTTP 502s", "502 Errors"),
        ("502 Bad Gateway", "502 Errors"),
        ("intermittent 500s", "500 Errors"),
        ("timeouts", "Timeout Errors"),
        ("timeout errors", "Timeout Errors"),
        ("a time-out", "Timeout Errors"),
        ("login errors", "Login Failures"),
        ("a login bug", "Login Bugs"),
        ("frequent crashes", "Crashes"),
        ("high latency", "Latency"),
        ("the payments integration", None),
    ],
)
def test_issue_names_match_however_the_error_is_said(phrase: str, name: str | None) -> None:
    assert issue_name(phrase) == name


def test_requests_timing_out_is_the_same_issue_as_timeout_errors() -> None:
    said_one_way = extract("Requests time out on the export.", author="Acme Corp")
    said_another = extract("We get timeout errors on the export.", author="Acme Corp")

    assert signatures(said_one_way) == signatures(said_another)


# ------------------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("on 2026-04-28", date(2026, 4, 28)),
        ("on April 28", date(2026, 4, 28)),
        ("on Apr 28th", date(2026, 4, 28)),
        ("on April 28, 2025", date(2025, 4, 28)),
        ("on 28 April", date(2026, 4, 28)),
        ("on December 30", date(2025, 12, 30)),  # after the reference time: last year's
    ],
)
def test_an_explicit_date_becomes_valid_at_midnight(said: str, day: date) -> None:
    extraction = extract(f"We moved to the Pro plan {said}.", author="Acme Corp")

    [fact] = extraction.facts
    assert fact.valid_at == datetime(day.year, day.month, day.day, tzinfo=UTC)


def test_a_date_takes_the_reference_times_zone() -> None:
    paris = timezone(timedelta(hours=2))
    extraction = extract("The SSO rollout is delayed since March 3.",
                         reference_time=datetime(2026, 5, 8, 9, tzinfo=paris))

    status = next(f for f in extraction.facts if f.relation == "HAS_STATUS")
    assert status.valid_at == datetime(2026, 3, 3, tzinfo=paris)


def test_a_naive_reference_time_gives_dates_in_utc() -> None:
    extraction = extract("We moved to the Pro plan on May 1.", author="Acme Corp",
                         reference_time=datetime(2026, 5, 8))

    assert extraction.facts[0].valid_at == datetime(2026, 5, 1, tzinfo=UTC)


def test_facts_without_an_explicit_date_have_no_valid_at() -> None:
    extraction = extract("The API migration is blocked. Initech moved to the Pro plan last month.")

    assert all(f.valid_at is None for f in extraction.facts)


def test_an_impossible_date_gives_no_valid_at() -> None:
    extraction = extract("We moved to the Pro plan on February 30.", author="Acme Corp")

    assert [(f.target, f.valid_at) for f in extraction.facts] == [("Pro", None)]


# ------------------------------------------------------------------------ sentences and shape


def test_each_fact_records_the_whole_sentence_it_came_from() -> None:
    extraction = extract("- The API migration is blocked\n* Bob owns the payments integration!")

    assert {f.sentence for f in extraction.facts} == {
        "The API migration is blocked", "Bob owns the payments integration!"}


def test_an_abbreviation_does_not_end_a_sentence() -> None:
    extraction = extract("Initech Inc. moved to the Pro plan.")

    assert signatures(extraction) == {("Initech Inc", "ON_PLAN", "Pro")}


def test_clauses_joined_by_and_are_read_separately() -> None:
    extraction = extract("The API migration is blocked and the checkout flow is on hold.")

    assert {s for s in signatures(extraction) if s[1] == "HAS_STATUS"} == {
        ("API Migration", "HAS_STATUS", "Blocked"), ("Checkout Flow", "HAS_STATUS", "On Hold")}


def test_an_and_inside_a_name_does_not_split_the_clause() -> None:
    extraction = extract("The search and indexing project is stalled.")

    assert ("Search and Indexing Project", "HAS_STATUS", "Stalled") in signatures(extraction)


def test_entities_list_everyone_mentioned_in_facts_and_closures() -> None:
    extraction = extract(
        "The API migration is back on track. I'm no longer waiting on the auth service refactor."
    )

    assert extraction.entities == [
        ExtractedEntity("Alice", "Person"),
        ExtractedEntity("API Migration", "WorkItem"),
        ExtractedEntity("On Track", "Status"),
        ExtractedEntity("Auth Service Refactor", "WorkItem"),
    ]


def test_the_same_text_always_gives_the_same_extraction() -> None:
    text = ("The checkout flow can't move forward because the payments integration isn't ready. "
            "That work belongs to Bob.")

    assert extract(text, author="Clara") == extract(text, author="Clara")
