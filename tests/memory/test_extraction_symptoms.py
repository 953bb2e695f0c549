"""Symptoms: one canonical issue however the customer says it (lemmas + a synonym table)."""

from __future__ import annotations

import pytest

from memory.extraction.symptoms import SYMPTOMS, find_symptom, symptom_name


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
