"""Time rules (DESIGN §3), as pure decisions over fact spans.

Supersession is scoped, never graph-wide. A new fact may close an old one only when
  (a) they share source and a relation declared single-valued (a customer's plan, a status),
  (b) a resolution rule applies (a work item reported done ends the DEPENDS_ON facts pointing at
      it), or
  (c) the episode says so explicitly ("no longer waiting on X").
A backfilled episode (older ``valid_at``) never closes a newer fact: it is recorded as history
that ended when the newer fact began.

The functions here take and return plain spans; ``memory.processing`` loads the spans a new fact
can touch and writes the decisions back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class Span:
    """A fact as the time rules see it (world-time interval, still believed or not)."""

    key: object
    source_id: int
    relation: str
    target_id: int
    valid_at: datetime
    invalid_at: datetime | None = None
    expired: bool = False
    rank: tuple[int, int] = (0, 0)
    """Creation order, the tie-break between spans that begin at the same moment: stored facts
    by id, then the ones being made, in the order made."""

    def holds_at(self, moment: datetime) -> bool:
        return self.valid_at <= moment and (self.invalid_at is None or moment < self.invalid_at)


@dataclass(frozen=True)
class Closing:
    """End ``span`` at ``at`` (world time)."""

    span: Span
    at: datetime


@dataclass(frozen=True)
class SingleValuedDecision:
    closings: tuple[Closing, ...]
    """Older values that the new one replaces from its ``valid_at`` on."""
    new_ends_at: datetime | None
    """Set when a newer value is already known: the new (backfilled) fact ends where it begins."""
    new_ended_by: Span | None


def decide_single_valued(new: Span, same_source_relation: list[Span]) -> SingleValuedDecision:
    """Scope: facts with the new fact's source and (single-valued) relation, any target."""
    others = [s for s in same_source_relation if not s.expired and s.target_id != new.target_id]
    closings = tuple(
        Closing(s, new.valid_at)
        for s in others
        if s.valid_at < new.valid_at and (s.invalid_at is None or s.invalid_at > new.valid_at)
    )
    later = [s for s in others if s.valid_at > new.valid_at]
    if not later:
        return SingleValuedDecision(closings, None, None)
    nearest = min(later, key=lambda s: (s.valid_at, s.rank))
    return SingleValuedDecision(closings, nearest.valid_at, nearest)


def decide_resolution(done_at: datetime, dependents: list[Span]) -> tuple[Closing, ...]:
    """A work item done at ``done_at`` ends the open DEPENDS_ON facts pointing at it — only those
    that began before the completion (a backfilled "done" cannot end a newer dependency)."""
    return tuple(
        Closing(s, done_at)
        for s in dependents
        if not s.expired and s.invalid_at is None and s.valid_at <= done_at
    )


def decide_explicit(at: datetime, matching: list[Span]) -> tuple[Closing, ...]:
    """"No longer waiting on X": end the open matching facts that began before the statement."""
    return tuple(
        Closing(s, at)
        for s in matching
        if not s.expired and s.invalid_at is None and s.valid_at <= at
    )
