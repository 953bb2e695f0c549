"""The rules extractor: pure text in, entities/facts/closures out (no database)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memory.extraction import ExtractedClosure, ExtractedEntity, Extraction, rules
from memory.extraction.rules import RULES_EXTRACTOR, extract_with_rules, issue_name
from memory.ontology import build_ontology, default_ontology

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)
README = Path(__file__).resolve().parents[2] / "README.md"
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


def test_every_row_of_the_table_is_read_and_the_readme_counts_them_all() -> None:
    rows = [line for line in (rules.__doc__ or "").splitlines() if re.match(r"^\| \d+ \|", line)]
    promised = re.search(r"(\d+) phrasings it understands", README.read_text())

    assert len(PHRASINGS) == len(rows)  # no row of the table is skipped as unreadable
    assert promised is not None, "the README no longer says how many phrasings there are"
    assert len(PHRASINGS) == int(promised[1])
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


def test_the_extraction_names_its_extractor_and_its_author_as_written() -> None:
    # a login keeps its case (the audit's finding 8: "dannyneira", never "Dannyneira")
    extraction = extract("The API migration is blocked.", author="alice")

    assert extraction.extractor == RULES_EXTRACTOR == "rules@1"
    assert extraction.author == ExtractedEntity("alice", "Person")


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


# ------------------------------------------------- real text: the misreads of issue #17, as rules


def names(extraction: Extraction) -> set[str]:
    return {e.name for e in extraction.entities}


def test_a_quoted_title_is_no_claim_and_its_words_no_dependency() -> None:
    for text in ("Amend target policy to require codegen support",
                 '"Amend target policy to require codegen support" rust-lang/compiler-team#123'):
        extraction = extract(text)
        assert not [f for f in extraction.facts if f.relation == "DEPENDS_ON"], text
        assert "Codegen Support" not in names(extraction)


def test_a_speaker_is_no_part_of_the_entity_and_the_clause_they_report_is_read() -> None:
    extraction = extract("Farah says the warehouse migration slipped again.", author="Alice")

    assert signatures(extraction) == {("Warehouse Migration", "HAS_STATUS", "Slipped")}
    assert not any("Farah" in name for name in names(extraction) - {"Farah"})


def test_a_recurring_headings_words_are_never_a_blocker_and_its_status_goes_to_each_item() -> None:
    extraction = extract(
        "## MCPs blocked on unresolved concerns\n"
        '- "Add hygiene attributes" compiler-team#692\n'
        '- "Amend target policy" compiler-team#123\n'
    )

    assert signatures(extraction) == {
        ("Add hygiene attributes (compiler-team#692)", "HAS_STATUS", "Blocked"),
        ("Amend target policy (compiler-team#123)", "HAS_STATUS", "Blocked"),
    }
    assert "Unresolved Concerns" not in names(extraction)
    assert {f.sentence for f in extraction.facts} == {
        '"Add hygiene attributes" compiler-team#692', '"Amend target policy" compiler-team#123'}


@pytest.mark.parametrize(
    "text",
    ["The search revamp is blocked on Reviewer.", "Waiting on the reviewer.",
     "The release is blocked on MCVE.", "The Probably is blocked.",
     "The fix is probably blocked on the reviewer."],
)
def test_fragments_are_never_blockers(text: str) -> None:
    extraction = extract(text)

    assert not [f for f in extraction.facts if f.relation == "DEPENDS_ON"]
    assert not names(extraction) & {"Reviewer", "MCVE", "Probably", "The Probably"}


def test_a_tweets_subject_is_no_customer_and_its_author_is() -> None:
    extraction = extract("1000 of my subscribers can not log in", author="Acme Corp",
                         author_type="Customer")

    assert signatures(extraction) == {("Acme Corp", "REPORTED", "Login Failures")}
    assert not any("Subscribers" in name for name in names(extraction))


@pytest.mark.parametrize(
    ("text", "author", "author_type", "expected"),
    [
        ("KEP-4671 is owned by sig-scheduling", "Alice", None,
         {("sig-scheduling", "RESPONSIBLE_FOR", "KEP-4671")}),
        ('Bug 1234 (foo) "Crash on start": now depends on bug 5678', "Alice", None,
         {("Crash on start (Bug 1234)", "DEPENDS_ON", "Bug 5678")}),
        ("unable to log in", "Acme Corp", "Customer",
         {("Acme Corp", "REPORTED", "Login Failures")}),
        ("can't get into my account", "Acme Corp", "Customer",
         {("Acme Corp", "REPORTED", "Login Failures")}),
        ("the app is laggy since the update", "Acme Corp", "Customer",
         {("Acme Corp", "REPORTED", "Latency"), ("Latency", "AFFECTS", "App"),
          ("Latency", "PRECEDED_BY", "Update")}),
        ("PR #1234 is blocked on 11.0.1", "Alice", None,
         {("#1234", "DEPENDS_ON", "11.0.1"), ("#1234", "HAS_STATUS", "Blocked")}),
    ],
)
def test_the_phrasings_that_yielded_nothing_now_yield_their_facts(
    text: str, author: str, author_type: str | None, expected: set[Signature]
) -> None:
    extraction = extract(text, author=author, author_type=author_type)

    assert signatures(extraction) == expected


# ------------------------------------------------------------------- precision: grammar decides


@pytest.mark.parametrize(
    "text",
    [
        "Is the API migration blocked?",
        "Is the API migration blocked",
        "Does anyone know if the billing migration is done",
        "If the review slips, the release will be at risk.",
        "Maybe the search revamp is blocked.",
        "I think the export feature is blocked.",
        "We should ship the billing migration.",
        "The API migration is not blocked.",
        "Run `the export is blocked` in a shell.",
        "See https://example.com/the-export-is-blocked for details.",
    ],
)
def test_questions_hypotheticals_negations_code_and_links_assert_nothing(text: str) -> None:
    assert extract(text).facts == []


def test_not_blocked_anymore_ends_the_dependencies_it_names() -> None:
    extraction = extract("The payments integration is not blocked on the auth refactor anymore.")

    assert [(c.source, c.relation, c.target) for c in extraction.closures] == [
        ("Payments Integration", "DEPENDS_ON", "Auth Refactor")]


@pytest.mark.parametrize(
    "phrase",
    ["Farah says the warehouse", "it", "the probably broken build", "again",
     "Fixed bug in the parser", "both Windows and macOS machines", "this mismatch caused failures"],
)
def test_entity_names_are_noun_phrases(phrase: str) -> None:
    assert rules._noun_phrase(phrase) is None


@pytest.mark.parametrize(
    "phrase", ["the auth service refactor", "sig-scheduling", "Node 20 upgrade", "11.0.1",
               "the search and indexing project"],
)
def test_noun_phrases_are_names(phrase: str) -> None:
    assert rules._noun_phrase(phrase) is not None


def test_reported_speech_names_no_owner_for_the_author() -> None:
    extraction = extract("Bob said that the billing migration is blocked.", author="Alice")

    assert signatures(extraction) == {("Billing Migration", "HAS_STATUS", "Blocked")}


# -------------------------------------------------------------------- identifiers are entities


def test_identifiers_are_entities_of_their_type_with_their_titles_as_display_names() -> None:
    extraction = extract(
        '"Add hygiene attributes" compiler-team#692 is blocked on PROJ-12.\n'
        "/assign @alice\n"
    )

    assert types(extraction) == {
        "Alice": "Person", "Add hygiene attributes (compiler-team#692)": "WorkItem",
        "PROJ-12": "WorkItem", "Blocked": "Status"}


def test_closing_keywords_in_a_pull_request_make_the_issue_wait_on_it() -> None:
    extraction = extract(
        "Fix wrong directories in PATH on Windows #7482\n\n"
        "This fixes an accidental regression.\n\nCloses #7475, fixes rust-lang/cargo#7400\n",
        author="alexcrichton",
    )

    assert signatures(extraction) == {
        ("#7475", "DEPENDS_ON", "Fix wrong directories in PATH on Windows (#7482)"),
        ("rust-lang/cargo#7400", "DEPENDS_ON", "Fix wrong directories in PATH on Windows (#7482)"),
    }


def test_slash_commands_assign_and_close_the_threads_item() -> None:
    extraction = extract("Summary API tests on node e2e #52203\n\n/assign @dashpole\n/sig node\n"
                         "/close\n", author="derekwaynecarr")

    assert signatures(extraction) == {
        ("@dashpole", "RESPONSIBLE_FOR", "Summary API tests on node e2e (#52203)"),
        ("sig node", "RESPONSIBLE_FOR", "Summary API tests on node e2e (#52203)"),
        ("Summary API tests on node e2e (#52203)", "HAS_STATUS", "Closed"),
    }


def test_an_issue_title_that_says_what_is_wrong_is_its_authors_report() -> None:
    extraction = extract("# Autofill no longer works on Chrome #11050\n\nAutofill does not work.",
                         author="cyberfox1", author_type="Customer")

    assert signatures(extraction) == {
        ("cyberfox1", "REPORTED", "Autofill no longer works on Chrome (#11050)"),
        ("Autofill no longer works on Chrome (#11050)", "AFFECTS", "Chrome"),
    }


def test_a_customers_title_in_words_of_a_known_problem_is_a_report() -> None:
    extraction = extract("# Application Not Letting Me Log In #9262", author="kensai",
                         author_type="Customer")

    assert signatures(extraction) == {
        ("kensai", "REPORTED", "Application Not Letting Me Log In (#9262)")}


def test_a_customers_sentence_that_states_a_problem_reports_it_and_what_it_affects() -> None:
    extraction = extract("I noticed MagicDNS stops working after there is IP change.",
                         author="ana", author_type="Customer")

    assert signatures(extraction) == {("ana", "REPORTED", "MagicDNS Stops Working"),
                                      ("MagicDNS Stops Working", "AFFECTS", "MagicDNS")}


def test_a_title_in_unknown_words_takes_the_bodys_first_known_problem_too() -> None:
    extraction = extract("# docker desktop wsl distro stopped #9385\n\n"
                         "After update, docker could not run. Docker could not run again.",
                         author="zhangmx", author_type="Customer")

    assert [f.target for f in extraction.facts if f.relation == "REPORTED"] == [
        "docker desktop wsl distro stopped (#9385)", "docker could not run"]


def test_a_teammate_who_sees_a_problem_reports_it_as_a_person() -> None:
    # The labelling guide's REPORTED: "a person states they have/hit/see the problem" — the
    # customer type comes from the author's metadata, not from these words.
    extraction = extract("I noticed MagicDNS stops working after there is IP change.",
                         author="Alice")

    assert [(f.source, f.source_type, f.relation) for f in extraction.facts
            if f.relation == "REPORTED"] == [("Alice", "Person", "REPORTED")]


@pytest.mark.parametrize(("title", "expected"), [
    # k8s-95357-harche-2020-10-07
    ("NodeProblemDetector [NodeFeature:NodeProblemDetector] is flaky #95357",
     ("NodeProblemDetector", "HAS_STATUS", "Flaky")),
    ("MirrorPodWithGracePeriod test flaking in 5% of runs #93210",
     ("MirrorPodWithGracePeriod Test", "HAS_STATUS", "Flaky")),
    ("Summary API test fails on arm64 #100", ("Summary API Test", "HAS_STATUS", "Failing")),
])
def test_a_tracker_title_that_says_a_test_flakes_gives_its_status(
        title: str, expected: Signature) -> None:
    assert expected in signatures(extract(f"# {title}\n\nSee the grid.", author="harche"))


@pytest.mark.parametrize("title", [
    "Docker fails to start #1",  # a product's symptom
    "E2E_Node flaky suite is not showing results #52203",  # "flaky" names the suite
])
def test_a_title_that_only_mentions_failing_or_flaky_gives_no_status(title: str) -> None:
    extraction = extract(f"# {title}\n\nDetails.", author="dashpole")

    assert [f for f in extraction.facts if f.relation == "HAS_STATUS"] == []


def test_closing_keywords_may_list_their_items_with_slashes() -> None:
    # ra-pr-9128
    extraction = extract("Fix attribute macros #9128\n\nFixes https://github.com/rust-analyzer/"
                         "rust-analyzer/issues/8964 / https://github.com/la10736/rstest/issues/"
                         "120", author="jonas-schievink")

    assert ("la10736/rstest#120", "DEPENDS_ON", "Fix attribute macros (#9128)") in signatures(
        extraction)


def test_a_pull_requests_title_reports_nothing() -> None:
    assert extract("Fix test failure in the parser on Linux #5557", author="ehuss").facts == []


# ----------------------------------------------------------------- documents with structure


def test_an_agenda_yields_facts_per_item_each_citing_its_own_line() -> None:
    extraction = extract(
        "### openjs-foundation/cross-project-council\n\n"
        "* Request for legal Advice [#335](https://github.com/openjs-foundation/cross-project-council/issues/335)\n"
        "  * ACTION: Michael to comment and then close.\n\n"
        "* Add post-graduation checklist [#386](https://github.com/openjs-foundation/cross-project-council/pull/386)\n"
        "  * Needs more reviews\n\n"
        "* doc: move COC proposal to stage 3 [#379](https://github.com/openjs-foundation/cross-project-council/pull/379)\n"
        "  * Blocked on [#432](https://github.com/openjs-foundation/cross-project-council/issues/432)\n"
        "  * Joe landed.\n",
        author="",
    )

    item = "openjs-foundation/cross-project-council#{}"
    assert {(f.source, f.relation, f.target, f.sentence) for f in extraction.facts} == {
        ("Michael", "RESPONSIBLE_FOR", f"Request for legal Advice ({item.format(335)})",
         "ACTION: Michael to comment and then close."),
        (f"Add post-graduation checklist ({item.format(386)})", "HAS_STATUS", "In Review",
         "Needs more reviews"),
        (item.format(379), "DEPENDS_ON", item.format(432),
         "Blocked on [#432](https://github.com/openjs-foundation/cross-project-council/issues/432)"),
        (item.format(379), "HAS_STATUS", "Merged", "Joe landed."),
    }
    assert "Openjs-foundation/cross-project-council" not in names(extraction)


_ITEM_1472 = ("* Improve the onboarding [#1472](https://github.com/openjs-foundation/"
              "cross-project-council/issues/1472)\n")


@pytest.mark.parametrize(("line", "people"), [
    # cpc-meetings-2025-2025-06-09-s8: "Robin" is a word too, but beside "Kilye" it is a name
    ("Robin and Kilye to look into it and come back with a recommendation.", {"Robin", "Kilye"}),
    # lang-minutes-2021-09-28-s35: a name that is a word, asked to do something
    ("Mark to comment on issue", {"Mark"}),
    # lang-minutes-2021-01-26-s6: a lower-case handle after the action item's label
    ("ACTION ITEM: scottmcm to cancel FCP, per the resolution below", {"scottmcm"}),
    # cpc-meetings-2020-2020-11-17-s7, cpc-meetings-2024-2024-06-11-s8: work under way
    ("Brian has working draft, want a few more attorney reviews.", {"Brian"}),
    ("Ben created a draft Google form for potential applicants.", {"Ben"}),
    # lang-minutes-2021-06-01-s22: volunteering for the item
    ("Josh: doing it", {"Josh"}),
])
def test_an_action_item_makes_its_people_responsible_for_the_item_above(
        line: str, people: set[str]) -> None:
    extraction = extract(f"## Agenda\n\n{_ITEM_1472}  * {line}\n", author="")

    assert {f.source for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"} == people
    assert {f.target for f in extraction.facts} == {
        "Improve the onboarding (openjs-foundation/cross-project-council#1472)"}


@pytest.mark.parametrize("line", ["Time to merge this", "Plan to ship it next week",
                                  "Hope to see it soon"])
def test_a_line_that_only_looks_like_an_action_item_names_no_one(line: str) -> None:
    assert extract(f"## Agenda\n\n{_ITEM_1472}  * {line}\n", author="").facts == []


def test_minutes_that_open_on_an_items_section_read_its_action_items() -> None:
    # lang-minutes-2021-09-28-s35: the episode starts at the item's heading, not a tracker title
    extraction = extract('### "Determine how to handle casting of arbitrary discriminants" '
                         "rust#88621\n\n* Meeting consensus:\n    * Mark to comment on issue\n",
                         author="")

    assert signatures(extraction) == {
        ("Mark", "RESPONSIBLE_FOR",
         "Determine how to handle casting of arbitrary discriminants (rust#88621)")}


def test_a_tracker_title_is_no_agenda_for_x_to_lines() -> None:
    extraction = extract("# Docker crashes on start #12\n\nDocker to start", author="bob")

    assert [f for f in extraction.facts if f.relation == "RESPONSIBLE_FOR"] == []


def test_who_reports_first_under_a_teams_heading_is_a_member_of_the_team() -> None:
    # ethpm-allcoredevs-el-meetings-meeting-132-s14 (shortened): Tim Beiko moderates
    extraction = extract("## Besu\n\n**Gary Schulte**\n* We have PRs. We are working on that."
                         "\n\n**Tim Beiko**\n* Got it. And Nethermind?\n", author="")

    assert [f for f in signatures(extraction) if f[1] == "MEMBER_OF"] == [
        ("Gary Schulte", "MEMBER_OF", "Besu")]


def test_a_one_word_team_heading_is_no_lettered_section() -> None:
    # ethpm-allcoredevs-cl-meetings-call-028-s11: "### Parity" is the team, not section "P"
    extraction = extract("### Parity\n\n**Wei**\n\n* working on the state transition\n",
                         author="")

    assert ("Wei", "MEMBER_OF", "Parity") in signatures(extraction)
    assert ("Parity", "RESPONSIBLE_FOR", "State Transition") in signatures(extraction)


@pytest.mark.parametrize(("line", "expected"), [
    # cpc-meetings-2021-2021-04-13-s8
    ("* Improving Diversity and Inclusion at the OpenJSF [#699](https://github.com/"
     "openjs-foundation/cross-project-council/issues/699) Tobie to coordinate some follow up "
     "meetings.", ("Tobie", "RESPONSIBLE_FOR", "openjs-foundation/cross-project-council#699")),
    # cpc-meetings-2024-2024-06-11-s8
    ("* Create new Ecosystem Sustainability Program [#1277](https://github.com/"
     "openjs-foundation/cross-project-council/issues/1277) Can be closed, there was a town hall "
     "meeting.", ("openjs-foundation/cross-project-council#1277", "HAS_STATUS", "Closed")),
])
def test_an_agenda_line_reads_what_follows_its_reference_as_about_that_item(
        line: str, expected: Signature) -> None:
    assert expected in signatures(extract(f"## Agenda\n\n{line}\n", author=""))


def test_a_status_said_before_a_list_is_read_apart_from_the_list() -> None:
    # ethpm-allcoredevs-cl-meetings-call-041-s16
    extraction = extract("## Teku\n\n* Gossip sub 1.1 is done, fork choice, state transition "
                         "and validator changes are done.\n", author="")

    assert {f for f in signatures(extraction) if f[1] == "HAS_STATUS"} == {
        ("Gossip Sub 1.1", "HAS_STATUS", "Done"), ("Validator Changes", "HAS_STATUS", "Done")}


@pytest.mark.parametrize(("text", "expected"), [
    ("**Alex**: I will spec the Gwei change.", ("Alex", "RESPONSIBLE_FOR", "Gwei Change")),
    # ethpm-allcoredevs-cl-meetings-call-052-s18
    ("**Aditya Asgaonkar**: I'll be making a release for the weak subjectivity server that "
     "everyone is encouraged to run.", ("Aditya Asgaonkar", "RESPONSIBLE_FOR",
                                        "Release for the Weak Subjectivity Server")),
])
def test_a_transcripts_speaker_is_responsible_for_the_work_they_say_they_will_do(
        text: str, expected: Signature) -> None:
    assert signatures(extract(text, author="")) == {expected}


def test_we_will_names_no_one() -> None:
    assert extract("**Danny**: We will ship the new API.", author="").facts == []


@pytest.mark.parametrize("line", [
    # cpc-meetings-2019-2019-09-17-s6
    "discussed https://github.com/openjs-foundation/cross-project-council/pull/321 which covers "
    "this.",
    "This is covered by https://github.com/openjs-foundation/cross-project-council/pull/321",
])
def test_an_item_waits_on_the_change_that_covers_it(line: str) -> None:
    extraction = extract(f"## Agenda\n\n{_ITEM_1472}  * {line}\n", author="")

    assert signatures(extraction) == {(
        "Improve the onboarding (openjs-foundation/cross-project-council#1472)", "DEPENDS_ON",
        "openjs-foundation/cross-project-council#321")}


def test_a_teams_done_items_give_their_status_and_no_responsibility() -> None:
    # ethpm-allcoredevs-cl-meetings-call-039-s22 (GUIDE §8.10)
    extraction = extract("## TXRX\n\n* Released Client benchmark last week, profiled all "
                         "Genesis clients and published a small report\n", author="")

    assert signatures(extraction) == {("Client Benchmark", "HAS_STATUS", "Released")}


@pytest.mark.parametrize("line", [
    "v 0.12 update is going well.",  # ethpm-allcoredevs-cl-meetings-call-041-s16
    "v 0.12 update is almost complete.",
])
def test_work_going_well_or_almost_done_is_in_progress(line: str) -> None:
    extraction = extract(f"## Teku\n\n* {line}\n", author="")

    assert ("V 0.12 Update", "HAS_STATUS", "In Progress") in signatures(extraction)


def test_a_heading_that_gives_a_talk_and_its_speaker_makes_them_responsible() -> None:
    # ethpm-breakout-room-meetings-leanconsensus-meeting-03-s7
    extraction = extract("## Pres 04: Gossipsub V2 by @ppopth\n\n| Topic | Details |\n"
                         "| --- | --- |\n| V2 | Peers send IANNOUNCE |\n", author="")

    assert signatures(extraction) == {("@ppopth", "RESPONSIBLE_FOR", "Gossipsub V2")}


def test_an_action_item_in_parentheses_is_read() -> None:
    # lang-minutes-2021-09-28-s35
    extraction = extract('### "Determine how to handle casting" rust#88621\n\n* Niko would like '
                         'to see a "full matrix" of what is allowed (Niko to comment)\n',
                         author="")

    assert signatures(extraction) == {
        ("Niko", "RESPONSIBLE_FOR", "Determine how to handle casting (rust#88621)")}


def test_a_heading_that_names_a_team_speaks_for_the_lines_under_it() -> None:
    extraction = extract("## 2.3 Lighthouse\n\n- Working on the discv5 implementation.\n",
                         author="")

    assert signatures(extraction) == {
        ("Lighthouse", "RESPONSIBLE_FOR", "discv5 Implementation")}


# ------------------------------------------------------------------------ support language


def test_the_customer_comes_from_a_ticket_header_not_from_we() -> None:
    extraction = extract("Ticket from Globex: our users can't log in since the update.",
                         author="support-bot")

    assert signatures(extraction) == {
        ("Globex", "REPORTED", "Login Failures"), ("Login Failures", "PRECEDED_BY", "Update")}
    assert types(extraction)["Globex"] == "Customer"


def test_a_signature_names_the_customer_of_an_anonymous_ticket() -> None:
    extraction = extract("The dashboard is down!\n\nThanks,\nJane Doe", author="")

    assert ("Jane Doe", "REPORTED", "Outages") in signatures(extraction)


@pytest.mark.parametrize(
    "text",
    ["Exports time out.", "Exports keep timing out.", "Exports timed out again.",
     "We get a timeout on exports."],
)
def test_every_paraphrase_of_a_timeout_is_one_issue(text: str) -> None:
    extraction = extract(text, author="Acme Corp", author_type="Customer")

    assert ("Acme Corp", "REPORTED", "Timeout Errors") in signatures(extraction)


def test_a_problem_started_after_an_event_is_preceded_by_it_never_caused() -> None:
    extraction = extract("The timeouts started after the Tuesday deploy.", author="Acme Corp",
                         author_type="Customer")

    assert ("Timeout Errors", "PRECEDED_BY", "Tuesday Deploy") in signatures(extraction)
    assert not [f for f in extraction.facts if "CAUSE" in f.relation]


def test_still_failing_restates_the_report() -> None:
    first = extract("Our exports keep failing.", author="Acme Corp", author_type="Customer")
    again = extract("Our exports are still failing.", author="Acme Corp", author_type="Customer")

    assert signatures(first) == signatures(again)


@pytest.mark.parametrize(
    ("text", "target"),
    [("It's working again, thanks!", None), ("The timeouts are resolved for us.",
                                              "Timeout Errors"),
     ("That fixed it, all good now.", None)],
)
def test_a_customers_all_clear_ends_only_that_customers_report(
    text: str, target: str | None
) -> None:
    extraction = extract(text, author="Acme Corp", author_type="Customer")

    assert [(c.source, c.relation, c.target) for c in extraction.closures] == [
        ("Acme Corp", "REPORTED", target)]
    assert not [f for f in extraction.facts if f.relation == "HAS_STATUS"]


def test_a_problem_in_the_customers_words_affects_the_product_it_names() -> None:
    extraction = extract("Docker Desktop fails to start after the Windows update.",
                         author="rbox", author_type="Customer")

    assert signatures(extraction) == {
        ("rbox", "REPORTED", "Docker Desktop Fails to Start"),
        ("Docker Desktop Fails to Start", "AFFECTS", "Docker Desktop"),
        ("Docker Desktop Fails to Start", "PRECEDED_BY", "Windows Update"),
    }


# Real sentences of the corpus's dev split (tests/corpus, batch "original"), by episode id.


@pytest.mark.parametrize(("text", "expected"), [
    # dfm-1813-gkalele-2017-07-03 (the corpus's "Same here..." dropped: the thread's problem)
    ("Docker Desktop is unusable.", {("gkalele", "REPORTED", "Docker Desktop Unusable"),
                                     ("Docker Desktop Unusable", "AFFECTS", "Docker Desktop")}),
    # ts-8314-sspreitzer-2023-06-09, shortened: "does no longer work"
    ("The MagicDNS client does no longer work.", {
        ("gkalele", "REPORTED", "MagicDNS Client Does No Longer Work"),
        ("MagicDNS Client Does No Longer Work", "AFFECTS", "MagicDNS Client")}),
    # warp-5244-kamel3d-2024-08-21: the title, as customers type it
    ("warp wont log in", {("gkalele", "REPORTED", "Warp Won't Log in")}),
])
def test_a_named_product_that_fails_is_what_the_problem_affects(
        text: str, expected: set[Signature]) -> None:
    extraction = extract(text, author="gkalele", author_type="Customer")

    assert signatures(extraction) == expected


@pytest.mark.parametrize("text", [
    "But autofill doesn't work.",  # bw-11384-lplohmann-2024-10-04
    "Even the terminal won't open up anymore.",  # warp-5647-ayushgupta0010-2025-01-05
])
def test_a_feature_said_in_lower_case_is_reported_but_is_no_product(text: str) -> None:
    extraction = extract(text, author="lplohmann", author_type="Customer")

    assert [f.relation for f in extraction.facts] == ["REPORTED"]


@pytest.mark.parametrize(("title", "product"), [
    ("MagicDNS not working - pings crashing tailnet #17086", "MagicDNS"),  # ts-17086-psarchives
    ("'com.docker.hyperkit' process has a very high CPU utilisation #1131",
     "Com.docker.hyperkit"),  # dfm-1131-Matt298-2017-01-12
    ("Client Update from 1.36.0 to 1.36.1 broke MagicDNS #7257", "MagicDNS"),  # ts-7257
    ("E2E_Node flaky suite is not showing results #52203",
     "E2E_Node Flaky Suite"),  # k8s-52203-dashpole-2017-09-08
    ("Not receiving 2FA email when logging into desktop app #16834",
     "Desktop App"),  # bw-16834-marcontheball-2025-10-10
])
def test_a_report_title_affects_the_product_it_names(title: str, product: str) -> None:
    extraction = extract(f"# {title}\n\nDetails below.", author="psarchives")

    assert [(f.relation, f.target) for f in extraction.facts if f.relation == "AFFECTS"] == [
        ("AFFECTS", product)]


@pytest.mark.parametrize("title", [
    "MagicDNS only works partially #884",  # ts-884-sylr-2020-11-01
    "login issue #6305",  # warp-6305-Nawinkumar97-2025-04-12
    "Hyperkit non-insignificant amount of CPU while idle #887",  # dfm-887-cpuguy83
    "hight memory when warp was started #5861",  # warp-5861-haibaradc-2025-02-20
])
def test_a_support_title_that_names_a_problem_area_is_a_report(title: str) -> None:
    extraction = extract(f"# {title}\n\nDetails below.", author="sylr")

    assert [f.relation for f in extraction.facts if f.relation == "REPORTED"] == ["REPORTED"]


def test_an_update_that_broke_a_product_precedes_the_problem() -> None:
    # ts-7257-gitlankford-2023-02-11
    extraction = extract("# Client Update from 1.36.0 to 1.36.1 broke MagicDNS #7257\n\nx",
                         author="gitlankford")

    issue = "Client Update from 1.36.0 to 1.36.1 broke MagicDNS (#7257)"
    assert signatures(extraction) == {
        ("gitlankford", "REPORTED", issue), (issue, "AFFECTS", "MagicDNS"),
        (issue, "PRECEDED_BY", "Client Update From 1.36.0 to 1.36.1")}


def test_a_report_title_about_a_feature_in_lower_case_affects_nothing() -> None:
    extraction = extract("# Autofill not working #11384\n\nDetails below.", author="magicWF")

    assert [f.relation for f in extraction.facts] == ["REPORTED"]


def test_a_quantity_of_memory_is_a_symptom_not_a_product_used() -> None:
    # warp-2611-sullo-2023-02-05
    extraction = extract("Warp uses a significant amount of memory for a terminal.",
                         author="sullo", author_type="Customer")

    assert not [f for f in extraction.facts if f.relation == "USES"]
    assert signatures(extract("We use the reporting API.", author="sullo",
                              author_type="Customer")) == {("sullo", "USES", "Reporting API")}


def test_a_product_that_eats_memory_is_the_customers_memory_problem() -> None:
    # warp-2611-sullo-2023-02-05
    extraction = extract("Warp uses a significant amount of memory.", author="sullo",
                         author_type="Customer")

    assert signatures(extraction) == {("sullo", "REPORTED", "Memory Usage"),
                                      ("Memory Usage", "AFFECTS", "Warp")}


def test_what_the_customer_noticed_is_what_they_report() -> None:
    # ts-13473-pandas9-2024-09-15
    extraction = extract("ISP has dynamic IP and changes every day or so, I noticed MagicDNS "
                         "stops working after there is IP change", author="pandas9",
                         author_type="Customer")

    assert signatures(extraction) == {("pandas9", "REPORTED", "MagicDNS Stops Working"),
                                      ("MagicDNS Stops Working", "AFFECTS", "MagicDNS")}


def test_an_adverb_before_a_subjectless_status_changes_nothing() -> None:
    # lang-minutes-2021-05-25-s22
    extraction = extract("## Agenda\n\n* RFC [rfcs#2316](https://github.com/rust-lang/rfcs/pull/"
                         "2316)\n  - Primarily blocked on concerns about learnability\n",
                         author="")

    assert ("RFC (rust-lang/rfcs#2316)", "HAS_STATUS", "Blocked") in signatures(extraction)


def test_the_same_problem_named_is_reported_in_those_words() -> None:
    # dfw-1485-Mohjive-2018-02-05
    extraction = extract("I have the same issue of Docker stuck in starting. I have uninstalled "
                         "and installed docker several times.", author="Mohjive",
                         author_type="Customer")

    assert signatures(extraction) == {("Mohjive", "REPORTED", "Docker Stuck in Starting")}


def test_the_same_problem_in_the_same_circumstances_names_no_problem() -> None:
    # dfm-3724-Martouta-2019-06-25: the thread's problem, not named here
    assert extract("I have the same problem with the same version of macOS and Docker Desktop.",
                   author="Martouta", author_type="Customer").facts == []


def test_a_change_named_by_its_kind_alone_is_no_entity_but_a_named_one_is() -> None:
    # ethpm-allcoredevs-cl-meetings-call-050-s18: which PR?
    assert extract("## Teku\n\n- Merged PR that reduced memory consumption by half a gig.\n",
                   author="").facts == []
    assert ("Checkout Flow", "DEPENDS_ON", "Auth PR") in signatures(
        extract("The checkout flow is blocked on the auth PR.", author="Alice"))


def test_errors_read_off_the_logs_are_no_report() -> None:
    # dfw-1485-jasonbivins-2018-01-09: an agent reading a customer's diagnostics
    extraction = extract("I see WMI and VMMS errors in the logs, try restarting Windows and then "
                         "trying again.", author="jasonbivins")

    assert extraction.facts == []


def test_a_pull_request_titled_fix_with_a_number_fixes_that_number() -> None:
    # ra-pr-1189: "Fix #1178 #1189" is pull request #1189, which resolves #1178
    extraction = extract("Fix #1178 #1189\n\nThis PR improves / fixes mbe.", author="edwin0cheng")

    assert ("#1178", "DEPENDS_ON", "Fix #1178 (#1189)") in signatures(extraction)


def test_the_platform_a_problem_happens_on_is_not_what_it_affects() -> None:
    # dfw-9639-johan974-2020-11-28
    extraction = extract("Docker version 2.5.0.1 doesn't work on my windows 10 pro.",
                         author="johan974", author_type="Customer")

    assert ("Docker Version 2.5.0.1 Doesn't Work", "AFFECTS", "Docker Version 2.5.0.1") in (
        signatures(extraction))
    assert not [f for f in extraction.facts if "Windows" in f.target]


# ----------------------------------------------------------------------------- status language


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#12 is blocked by #34.", {("#12", "DEPENDS_ON", "#34"),
                                    ("#12", "HAS_STATUS", "Blocked")}),
        ("#12 is blocked on #34.", {("#12", "DEPENDS_ON", "#34"),
                                    ("#12", "HAS_STATUS", "Blocked")}),
        ("#12 is waiting on #34.", {("#12", "DEPENDS_ON", "#34")}),
        ("#12 is waiting for review.", {("#12", "HAS_STATUS", "In Review")}),
        ("#12 needs review.", {("#12", "HAS_STATUS", "In Review")}),
        ("#12 slipped.", {("#12", "HAS_STATUS", "Slipped")}),
        ("#12 is at risk.", {("#12", "HAS_STATUS", "At Risk")}),
        ("#12 is postponed.", {("#12", "HAS_STATUS", "Postponed")}),
        ("#12 is fixed by #34.", {("#12", "DEPENDS_ON", "#34"), ("#12", "HAS_STATUS", "Fixed")}),
        ("#12 was merged.", {("#12", "HAS_STATUS", "Merged")}),
        ("#12 shipped.", {("#12", "HAS_STATUS", "Done")}),
        ("#12 was reverted.", {("#12", "HAS_STATUS", "Reverted")}),
        ("#12 is no longer blocked.", {("#12", "HAS_STATUS", "Unblocked")}),
    ],
)
def test_each_status_phrase_maps_to_the_ontology(text: str, expected: set[Signature]) -> None:
    assert signatures(extract(text)) == expected


def test_no_longer_blocked_closes_the_items_dependencies() -> None:
    extraction = extract("#12 is no longer blocked.")

    assert [(c.source, c.relation, c.target) for c in extraction.closures] == [
        ("#12", "DEPENDS_ON", None)]


# ---------------------------------------------------------------------- text it cannot read


def test_text_the_rules_cannot_read_says_so() -> None:
    extraction = extract("Lunch was great today. See you all on Friday!")

    assert extraction.facts == [] and extraction.unread == rules.UNREAD_RULES


def test_text_in_another_language_says_its_language_is_not_supported() -> None:
    extraction = extract("Die Anmeldung funktioniert seit dem letzten Update nicht mehr.")

    assert extraction.facts == [] and extraction.unread == rules.UNREAD_LANGUAGE


def test_text_with_facts_has_no_reason_for_having_none() -> None:
    assert extract("The API migration is blocked.").unread is None


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01\x02\xff binary \ufffd\ufffd junk \x7f",
        "| status | item |\n|---|---|\n| blocked | the API migration |\n",
        "```\nthe API migration is blocked\n```\n",
        "🎉🔥 The API migration is blocked 🚀🚀",
        "\u05d4\u05de\u05e2\u05d1\u05e8 \u05ea\u05e7\u05d5\u05e2 \u202eThe API migration\u202c",
        "((((((((((((((((((((((((((((((((((((((((((((((",
        "is blocked by " * 2000,
        "The " + "very " * 5000 + "long migration is blocked.",
        ("- item\n" + "  " * 50) * 200,
        "#" * 10000,
        "a" * 65536,
    ],
)
def test_any_input_gives_a_result_never_an_exception(text: str) -> None:
    extraction = extract(text)

    assert isinstance(extraction, Extraction)
    assert all(len(f.source) < 300 and len(f.target) < 300 for f in extraction.facts)


def test_the_worst_case_reads_a_bounded_number_of_sentences(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """64 KB of one long line of clauses that every pattern half-matches: lines are cut and a
    sentence longer than MAX_SENTENCE_LENGTH is not read, so the clause matching runs on a
    bounded amount of text whatever the input (no wall clock: the work is counted)."""
    calls: list[int] = []
    read_clause = rules._Reader._read_clause

    def counted(self: rules._Reader, clause: rules._Clause, previous: object) -> None:
        calls.append(len(clause.text))
        read_clause(self, clause, previous)  # type: ignore[arg-type]

    monkeypatch.setattr(rules._Reader, "_read_clause", counted)
    text = "The migration is blocked by the refactor and " * 1500

    extract(text[:65536])

    assert sum(calls) <= rules.MAX_SENTENCE_LENGTH * 2
    assert all(length <= rules.MAX_SENTENCE_LENGTH for length in calls)
