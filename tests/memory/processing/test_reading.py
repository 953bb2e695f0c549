"""Reading an episode: given facts as they are, and — when the record asks — its words too."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.ingestion import InvalidEpisode, parse_episode
from memory.models import Episode
from memory.ontology import default_ontology
from memory.processing.reading import extract_episode

WHEN = "2026-11-23T09:00:00+00:00"
TICKET = {"source": "Acme Corp", "source_type": "Customer", "relation": "REPORTED",
          "target": "Ticket #7", "target_type": "WorkItem", "fact": "Acme Corp opened #7."}


def episode(**record: object) -> Episode:
    parsed = parse_episode({"reference_time": WHEN, "author": "Acme Corp", "source": "zendesk",
                            "content": "Our exports fail with timeout errors.", **record},
                           default_ontology())
    return Episode(author=parsed.author, source=parsed.source, content=parsed.content,
                   supplied=parsed.supplied, reference_time=datetime(2026, 11, 23, tzinfo=UTC))


def triples(episode_: Episode) -> set[tuple[str, str, str]]:
    extraction = extract_episode(episode_, default_ontology(), {})
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_given_facts_are_used_as_they_are_and_the_words_left_unread() -> None:
    assert triples(episode(facts=[TICKET])) == {("Acme Corp", "REPORTED", "Ticket #7")}


def test_read_text_records_what_the_words_say_beside_the_given_facts() -> None:
    read = episode(facts=[TICKET], read_text=True)

    found = triples(read)
    assert ("Acme Corp", "REPORTED", "Ticket #7") in found
    assert any(r == "REPORTED" and s == "Acme Corp" and "Timeout" in t for s, r, t in found)
    extraction = extract_episode(read, default_ontology(), {})
    assert extraction.extractor == "structured@1+rules@1"


def test_read_text_must_be_a_boolean() -> None:
    with pytest.raises(InvalidEpisode) as error:
        episode(facts=[TICKET], read_text="yes")
    assert error.value.field == "read_text"


def test_read_text_without_given_facts_changes_nothing_stored() -> None:
    assert episode(read_text=True).supplied is None


def test_a_customers_message_in_a_tracker_names_the_trackers_product_it_was_using() -> None:
    # pm-10800-dajneem23-2022-03-29: the address says which product's tracker it is
    message = Episode(author="dajneem23", source="support:postmanlabs/postman-app-support",
                      content="i'm stuck in white screen when open postman",
                      url="https://github.com/postmanlabs/postman-app-support/issues/10800",
                      reference_time=datetime(2022, 3, 29, tzinfo=UTC))

    found = triples(message)

    assert any(r == "AFFECTS" and t == "Postman" for _, r, t in found)
