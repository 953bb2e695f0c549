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
