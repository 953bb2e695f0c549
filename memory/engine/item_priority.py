"""How urgent a tracker says an item is, from the priority and labels its importer kept
(``EntityInfo.priority``/``labels``: episode metadata, never facts). Pure.

Forty issues stalled since the same week read alike; the tracker's own priority ("P1",
GitHub's ``priority-critical`` label) and severity (``severity-critical``) are what tell them
apart, so the board and the weekly review order stalls by them, then by age.

``urgency(priority, labels) -> (priority rank, severity rank)``
    0 (blocker) … 5 (trivial) each, ``UNKNOWN`` when the tracker says nothing: lower first.
``priority_word(priority, labels) -> str``
    "critical", "P2", "" — the word a grouped line counts them by.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

UNKNOWN = 9
"""The rank of an item whose tracker gives no priority (after every ranked one)."""
_WORDS = {
    "blocker": 0,
    "urgent": 1,
    "critical": 1,
    "highest": 1,
    "high": 2,
    "important": 2,
    "major": 2,
    "normal": 3,
    "medium": 3,
    "moderate": 3,
    "minor": 4,
    "low": 4,
    "lowest": 5,
    "trivial": 5,
}
_NUMBERED = re.compile(r"p([0-5])")
"""Bugzilla's and Jira's P1…P5 (P0 the most urgent where a tracker has one)."""
_LABEL = re.compile(r"(priority|prio|severity|sev)[-:/ _]+(\w+)")


def _rank(word: str) -> int | None:
    word = word.strip().lower()
    if (numbered := _NUMBERED.fullmatch(word)) is not None:
        return int(numbered.group(1))
    if word.isdigit() and len(word) == 1:
        return int(word)
    return _WORDS.get(word)


def _labelled(labels: Iterable[str]) -> tuple[dict[str, int], dict[str, str]]:
    """Kind ("priority", "severity") → its best rank among the labels, and the word giving it."""
    ranks: dict[str, int] = {}
    words: dict[str, str] = {}
    for label in labels:
        found = _LABEL.fullmatch(label.strip().lower())
        if found is None:
            continue
        kind = "priority" if found.group(1).startswith("p") else "severity"
        rank = _rank(found.group(2))
        if rank is not None and rank < ranks.get(kind, UNKNOWN + 1):
            ranks[kind], words[kind] = rank, found.group(2)
    return ranks, words


def urgency(priority: str, labels: Iterable[str] = ()) -> tuple[int, int]:
    """(priority rank, severity rank), each ``UNKNOWN`` when not given: the priority field
    first, a ``priority-…`` label otherwise."""
    ranks, _ = _labelled(labels)
    field = _rank(priority) if priority else None
    return (
        field if field is not None else ranks.get("priority", UNKNOWN),
        ranks.get("severity", UNKNOWN),
    )


def priority_word(priority: str, labels: Iterable[str] = ()) -> str:
    """ "P2" (the field as the tracker writes it), "critical" (a ``priority-critical`` label),
    or "" when the tracker gives no priority."""
    if priority and _rank(priority) is not None:
        return priority.strip()
    _, words = _labelled(labels)
    return words.get("priority", "")
