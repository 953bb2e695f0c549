"""Plain data shared by the steps of the observation engine (DESIGN §4, steps 4 to 7).

Everything here is immutable plain data of ints, strings and datetimes (frozen dataclasses, and a
named tuple for the numerous links): the ORM side loads rows into these shapes, the engine
computes, and the results go back as plain data (``as_dict()`` where the result ends up in a
JSONField). Nothing in ``memory.engine`` imports Django.

Contracts
---------
``Row``
    ``(episode_id, fact_id, source_id, relation, target_id)`` — one per (episode, current fact it
    supports), exactly as SQL returns it. Clustering takes a sequence of these, never objects.
``Signature``
    The reduction of a fact used for linking: ``(source, relation, target)`` for ``pair``
    relations, ``(relation, target)`` for ``target`` relations (``source_id`` is ``None``).
``Link``
    A signature joining two or more episodes of a cluster, with those episodes and the facts
    carrying it there: why the episodes belong together.
``Cluster``
    A group of episodes found on the episode graph, with the facts that are its evidence and the
    links (shared signatures) that hold it together. ``key`` is its smallest episode id (clusters
    never share episodes, so the key is unique within one clustering result).
``evidence_fingerprint(episode_ids, fact_ids)``
    sha256 (hex) of the sorted ids: the "untouched" test of reconciliation and the summary cache
    key.
``FactInfo`` / ``EntityInfo`` / ``EpisodeInfo``
    What structure analysis and the summarizers need to know about the rows a cluster cites.
``Summary`` / ``ClaimDraft``
    A name, a summary and claims each citing fact ids; ``validate_summary`` is the check every
    summarizer's output must pass (DESIGN §4 step 7) — the template summarizer's and the model's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any, NamedTuple

Row = tuple[int, int, int, str, int]
"""``(episode_id, fact_id, source_id, relation, target_id)``."""

SignatureKey = tuple[int, str, int]
"""The in-memory form of a signature: ``(source_id, relation, target_id)``, with ``ANY_SOURCE`` as
the source of a ``target``-mode signature. Keys of both kinds compare natively, so sorting them is
cheap and canonical."""

ANY_SOURCE = -1
"""The source of a ``target``-mode signature key (entity ids are positive)."""
CHAIN_KEY = "CHAIN"
"""The relation part of every ``chain`` signature: the ``chain`` relations (``DEPENDS_ON``,
``TRACKS``) share one key per item, so an item's dependencies and its tracking items link."""

MAX_NAME_CHARS = 120
MAX_CLAIM_CHARS = 400
MAX_CLAIMS = 8


@dataclass(frozen=True, slots=True)
class Signature:
    relation: str
    target_id: int
    source_id: int | None = None
    """``None`` for a ``target``-mode signature: any source pointing the relation at the target."""

    @classmethod
    def from_key(cls, key: SignatureKey) -> Signature:
        source = None if key[0] == ANY_SOURCE else key[0]
        return cls(relation=key[1], target_id=key[2], source_id=source)

    @property
    def key(self) -> SignatureKey:
        source = ANY_SOURCE if self.source_id is None else self.source_id
        return (source, self.relation, self.target_id)

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source_id, "relation": self.relation, "target": self.target_id}


class Link(NamedTuple):
    """A signature that connects at least two episodes of a cluster: why they belong together.

    A ``NamedTuple`` rather than a frozen dataclass: a big graph yields tens of thousands of
    links per run, and a named tuple is as immutable and several times cheaper to build."""

    source_id: int | None
    """``None`` for a ``target``-mode signature."""
    relation: str
    target_id: int
    episode_ids: tuple[int, ...]
    fact_ids: tuple[int, ...]
    """The facts carrying the signature in those episodes."""

    @property
    def signature(self) -> Signature:
        return Signature(self.relation, self.target_id, self.source_id)

    def as_dict(self) -> dict[str, Any]:
        # ``Signature.as_dict`` spelled out: this runs for every link of every new observation.
        signature = {"source": self.source_id, "relation": self.relation, "target": self.target_id}
        return {
            "signature": signature,
            "episodes": list(self.episode_ids),
            "facts": list(self.fact_ids),
        }


@dataclass(frozen=True)  # no slots: ``fingerprint`` is cached in the instance dict
class Cluster:
    episode_ids: tuple[int, ...]
    """Sorted ascending."""
    fact_ids: tuple[int, ...]
    """Sorted ascending: every current fact of these episodes except suppressed hubs."""
    links: tuple[Link, ...]
    split_from: int | None = None
    """The smallest episode id of the oversized component this cluster was split from."""
    ended_fact_ids: tuple[int, ...] = ()
    """Those of ``fact_ids`` that no longer hold but are part of the pattern: the reports a
    customer ended ("resolved for us") while the issue goes on for others."""
    anchor: int | None = None
    """For a cluster that is not a group of linked updates but a view of one item (a stalled
    item): the item's entity id. Its key is then ``-anchor``, apart from every other key."""

    @property
    def key(self) -> int:
        return -self.anchor if self.anchor is not None else self.episode_ids[0]

    @cached_property
    def fingerprint(self) -> str:
        """``evidence_fingerprint`` of its episodes and facts, computed once and when first
        read (so not inside clustering): a run reads it two or three times per cluster."""
        return evidence_fingerprint(self.episode_ids, self.fact_ids, self.ended_fact_ids)

    @cached_property
    def facts_fingerprint(self) -> str:
        """``facts_fingerprint`` of its facts: equal when only the updates restating them
        differ (a restatement, which changes no version)."""
        return facts_fingerprint(self.fact_ids, self.ended_fact_ids)

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "episodes": list(self.episode_ids),
            "facts": list(self.fact_ids),
            "links": [link.as_dict() for link in self.links],
            "split_from": self.split_from,
            "ended_facts": list(self.ended_fact_ids),
            "fingerprint": self.fingerprint,
        }


def evidence_fingerprint(
    episode_ids: Iterable[int], fact_ids: Iterable[int], ended_fact_ids: Iterable[int] = ()
) -> str:
    """The sha256 (hex) of the sorted episode and fact ids (and of the ended ones among the
    facts, when there are any): equal evidence, equal fingerprint, whatever order the ids come
    in. Keys the summary cache and the "untouched" decision."""
    episodes = ",".join(map(str, sorted(set(episode_ids))))
    facts = ",".join(map(str, sorted(set(fact_ids))))
    text = f"episodes:{episodes}|facts:{facts}"
    ended = sorted(set(ended_fact_ids))
    if ended:  # absent otherwise, so that fingerprints stored before it stay equal
        text += "|ended:" + ",".join(map(str, ended))
    return hashlib.sha256(text.encode()).hexdigest()


def facts_fingerprint(fact_ids: Iterable[int], ended_fact_ids: Iterable[int] = ()) -> str:
    """The sha256 (hex) of the sorted fact ids and of the ended ones: the facts of a pattern
    and whether each still holds, whatever updates restate them."""
    facts = ",".join(map(str, sorted(set(fact_ids))))
    ended = ",".join(map(str, sorted(set(ended_fact_ids))))
    return hashlib.sha256(f"facts:{facts}|ended:{ended}".encode()).hexdigest()


# The three below are named tuples, not dataclasses: a full run at 100,000 episodes builds
# ~500,000 of them, and a frozen dataclass's ``__init__`` costs five times a tuple's.


class FactInfo(NamedTuple):
    id: int
    source_id: int
    relation: str
    target_id: int
    episode_ids: tuple[int, ...]
    valid_at: datetime | None = None
    """Optional: the pipeline leaves it out (no step of the engine reads it)."""


class EntityInfo(NamedTuple):
    id: int
    name: str
    type: str
    title: str = ""
    """What a tracker calls the item its key names (``Bug 446261`` → "Clear Private Data should
    also reset last directory saved to"): prose reads the title, the name stays the key."""
    labels: tuple[str, ...] = ()
    """The tracker's labels, keywords and milestone of the item, as its importer kept them
    (episode metadata, never facts): what tells one stalled item from another."""
    priority: str = ""
    """The tracker's priority field of the item ("P1"), where it has one."""


class EpisodeInfo(NamedTuple):
    id: int
    reference_time: datetime
    author: str = ""
    author_entity_id: int | None = None


@dataclass(frozen=True, slots=True)
class ClaimDraft:
    text: str
    fact_ids: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "facts": list(self.fact_ids)}


@dataclass(frozen=True, slots=True)
class Summary:
    name: str
    summary: str
    claims: tuple[ClaimDraft, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "summary": self.summary,
            "claims": [claim.as_dict() for claim in self.claims],
        }


def validate_summary(summary: Summary, cluster_fact_ids: Iterable[int]) -> list[str]:
    """The problems that make a summary unpublishable (empty list = valid): every claim cites at
    least one fact, only facts of the cluster, and every length is bounded."""
    allowed = set(cluster_fact_ids)
    problems: list[str] = []
    if not summary.name.strip():
        problems.append("name is empty")
    if len(summary.name) > MAX_NAME_CHARS:
        problems.append(f"name is longer than {MAX_NAME_CHARS} characters")
    if not summary.claims:
        problems.append("there are no claims")
    if len(summary.claims) > MAX_CLAIMS:
        problems.append(f"more than {MAX_CLAIMS} claims")
    for position, claim in enumerate(summary.claims):
        if not claim.text.strip():
            problems.append(f"claim {position} is empty")
        if len(claim.text) > MAX_CLAIM_CHARS:
            problems.append(f"claim {position} is longer than {MAX_CLAIM_CHARS} characters")
        if not claim.fact_ids:
            problems.append(f"claim {position} cites no fact")
        foreign = sorted(set(claim.fact_ids) - allowed)
        if foreign:
            problems.append(f"claim {position} cites facts outside the cluster: {foreign}")
    return problems
