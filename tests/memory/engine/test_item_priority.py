"""How urgent a tracker says an item is: its priority field, or a priority label, and a
severity label; nothing said, last."""

from __future__ import annotations

from memory.engine.item_priority import UNKNOWN, priority_word, urgency


def test_a_bugzilla_priority_ranks_by_its_number() -> None:
    assert urgency("P1") < urgency("P3") < urgency("") == (UNKNOWN, UNKNOWN)
    assert priority_word("P3", ["perf", "testcase"]) == "P3"


def test_github_priority_and_severity_labels_rank_critical_first() -> None:
    critical = urgency("", ["engine-gecko", "priority-critical"])
    important = urgency("", ["priority-important", "severity-critical"])
    normal = urgency("", ["priority-normal"])
    unlabelled = urgency("", ["browser-firefox", "milestone needstriage"])

    assert critical < important < normal < unlabelled
    assert important == (2, 1)
    assert priority_word("", ["priority-critical"]) == "critical"
    assert priority_word("", ["browser-firefox"]) == ""


def test_the_priority_field_wins_over_a_label() -> None:
    assert urgency("P4", ["priority-critical"]) == (4, UNKNOWN)
    assert urgency("--", ["priority-low"])[0] == 4  # Bugzilla's "no priority" says nothing
