"""Which reading of the rules extractor produced a fact: its provenance inside the extractor.

A *reading* is a rule or cue family of ``memory.extraction.rules`` — a pattern's handler
(``blocked_by``, ``owns``), a line reader (``closing_keywords``, ``about_context``) or a minutes
hook (``decision``, ``commitment``). While the reader runs one, its name is on a stack; a fact
recorded meanwhile carries the path of the stack (``about_context>status``: a status said about
the item above, read by the ``status`` pattern). ``manage.py bench_extraction --by-reading``
counts true and false positives per reading, which says which readings generalise and which
were fitted to a few episodes. The path is internal: it is no part of the stored fact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

RETIRED = frozenset(
    {
        "covered_by",  # "discussed #321 which covers this": 3 matches, one openjs-cpc episode
        "done_by",  # "pnkfelix opened …" under an agenda item: one rust-lang-team episode
        "heading_by",  # "## Pres 04: Gossipsub V2 by @ppopth": one ethereum-pm episode
        "speaks_for",  # "Shahan advised that they…" under "## Artemis": one ethereum-pm episode
        "team_speaker",  # "**Ben**" first under a team's heading: ethereum-pm only (3 episodes)
        "flaky_title",  # a test's Flaky status from an issue title: kubernetes only (2 episodes)
        "filed",  # "I filed #20247": one kubernetes episode
        "working_on",  # "While investigating #11300": rust-analyzer only (2 episodes)
    }
)
"""Readings that record nothing (issue #17's precision round, ``bench_extraction
--by-reading``): on the dev split every match they made came from one or two episodes or one
source — fitted to those episodes, with no evidence they read other text right. The code that
recognises them stays (a team heading still says who "we" is under it); a reading comes back
once several dev episodes of more than one source justify it."""

UNTAGGED = "untagged"
"""What a fact no reading claims is counted as (one added after the rules, say)."""


class ReadingStack:
    """The readings running, outermost first."""

    def __init__(self) -> None:
        self._names: list[str] = []

    @contextmanager
    def running(self, name: str) -> Iterator[None]:
        self._names.append(name)
        try:
            yield
        finally:
            self._names.pop()

    def retired(self) -> bool:
        """Whether a running reading is one of ``RETIRED``: what it reads is not recorded."""
        return not RETIRED.isdisjoint(self._names)

    def path(self) -> str:
        """``outer>inner`` without repeats (a reading that calls itself is one reading)."""
        names: list[str] = []
        for name in self._names:
            if not names or names[-1] != name:
                names.append(name)
        return ">".join(names) or UNTAGGED


class _Reads(Protocol):
    readings: ReadingStack


P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound=_Reads)


def reading(
    name: str,
) -> Callable[[Callable[Concatenate[S, P], R]], Callable[Concatenate[S, P], R]]:
    """Decorate a method of the reader (or a hook taking the reader first): what it records
    is tagged with ``name``."""

    def decorate(function: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
        @wraps(function)
        def run(reader: S, *args: P.args, **kwargs: P.kwargs) -> R:
            with reader.readings.running(name):
                return function(reader, *args, **kwargs)

        return run

    return decorate


def reading_of(fact: Any) -> str:
    """The reading a fact came from (``UNTAGGED`` when none says)."""
    return getattr(fact, "reading", "") or UNTAGGED
