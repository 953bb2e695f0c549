"""Clustering: episodes sharing signatures form clusters (DESIGN §4 step 4). Deterministic, no ML.

Contract
--------
``cluster_episodes(rows, linking, episode_authors, settings=None, *, keep_state=False)
-> ClusteringResult``

``rows``
    A sequence of ``(episode_id, fact_id, source_id, relation, target_id)`` tuples, one per
    (episode, current fact it supports), straight from SQL. It is iterated several times, so an
    iterator is materialized first. Their order does not matter.
``linking``
    relation name → linking mode (``pair``, ``target``, ``chain`` or ``none``; unknown relations
    link nothing), or ``target:<RELATION>`` for a relation that links by target as that one
    does, sharing its signature (an agent's ``ANSWERED`` a thread links with the customers'
    ``REPORTED`` it): ``ontology.linking()``.
``episode_authors``
    episode id → the author's entity id (or ``None``); only read for hub candidates. Either a
    mapping or a function from episode ids to such a mapping, called once with the hub
    candidates' episodes when there are any (so a caller reading authors from a database reads
    those only, not a whole graph's).
``settings``
    ``ClusteringSettings`` (defaults below; ``ClusteringSettings.from_mapping`` reads a graph's
    stored overrides).

``keep_state``
    Also keep what clustering again after a change needs (``ClusteringResult.state``, read by
    ``memory.engine.incremental_clustering.recluster``): every episode's component, the hub
    verdicts with their candidates' episodes and authors.

Returns ``ClusteringResult(clusters, audit)``: clusters ordered by their smallest episode id, each
with sorted episode and fact ids and its links; ``audit`` is a JSON-able dict of what was decided
and why (hub candidates with their figures, splits) for ``PipelineRun.audit``.

Algorithm
---------
1. Each row becomes a signature (``pair``: source, relation, target; ``target``: relation, target;
   ``chain``: two, ``(CHAIN, target)`` and ``(CHAIN, source)``, so that what waits on X, what X
   waits on and what tracks X share X's signature and a dependency tree is linked end to end);
   a signature shared by two or more episodes links them.
2. Hub suppression. Boilerplate restated in many updates would chain everything into one giant
   component, but a real backbone (ten workstreams waiting on one refactor) is the pattern we
   want. A signature is a *candidate* when it is on at least
   ``max(hub_min_episodes, min(ceil(hub_min_share * episodes), hub_candidate_cap))`` episodes.
   Only candidates get the costlier signals:

   * *aside*: in how many of its multi-fact episodes the fact shares no entity with the rest of
     that episode's facts. The author's own entity does not count as shared (every first-person
     fact touches the author), nor do other facts with the same signature; episodes whose only
     facts carry this signature are not counted either way;
   * *restated*: the share of its episodes that restate a fact another of them already stated
     (``1 - facts / episodes``). Boilerplate, a standard footer, a standing ownership are one
     statement repeated; a backbone is many different facts pointing at one target (ten
     workstreams each ``DEPENDS_ON`` the refactor), and stays a backbone even in updates that
     say nothing else about the waiting work;
   * *bridging* (suspects only): into how many connected components its episodes fall on the
     episode graph without the suspects (every other signature stays: a backbone links
     legitimately, while two boilerplate sentences restated together must not make each other
     look harmless).

   A candidate is suppressed when it is an aside in at least ``hub_aside_ratio`` of its
   multi-fact episodes (or the only fact of every episode it is in: a heading that nothing else
   was read from is connected to nothing in any of its updates), **and** restated in at least
   ``hub_min_restated_share`` of its episodes, **and** its episodes fall into at least
   ``hub_min_bridged_groups`` otherwise separate components. A backbone is kept because it is
   connected to the rest of the updates that state it (``X DEPENDS_ON Auth`` shares X with
   ``Alice RESPONSIBLE_FOR X``) or, failing that, because it is not one statement restated (ten
   workstreams each waiting on the refactor, even in updates that say nothing else); an aside
   whose episodes are connected anyway is kept because it chains nothing together.
   Suppressed signatures link nothing; their boilerplate facts (each restated in at least
   ``hub_min_episodes`` updates) are left out of every cluster's evidence, while a fact that
   only shares the signature stays evidence where its update is clustered. Every candidate is
   in the audit with its figures (episodes, share, facts, restated share, multi-fact, aside
   and alone episodes, bridged groups) and the reason for its verdict.
3. The episode graph (vertices = episodes in id order, one star per signature) is built in
   igraph; connected components with at least ``min_cluster_episodes`` episodes are clusters.
4. A component above ``max_cluster_episodes`` is split along its structure, never by time or
   by density: its dependency trees (work items joined by ``DEPENDS_ON``/``TRACKS``, whichever
   way) and its issues (``REPORTED``/``AFFECTS``/``PRECEDED_BY``) each become a part, an update
   going with the structure most of its facts are about and an update about none with the
   structure its shared signatures lead to (``structural_parts``). A component with one
   structure (one tree, one issue, or none: an ownership restated for months) stays whole,
   however big: splitting it would only make look-alike copies of one pattern. Parts below
   ``min_cluster_episodes`` are dropped. Every oversized component is in the audit.

Same input, same output, whatever order the rows come in: vertices are numbered by episode id,
every list is sorted, and a split places updates by votes whose ties go to the smallest id.

Cost: one pass over the rows to group them by signature (about what building the bare episode
graph costs), a pass over the rows of hub candidates' episodes, and one more to gather each
cluster's facts; everything else is per shared signature or per cluster. The cyclic garbage
collector is paused for the call (see ``paused_gc``). Benchmarks: ``python -m
memory.bench.synthetic`` (this function alone); ``manage.py bench_pipeline`` (with loading, against
the floor, inside whole runs on a database).
"""

from __future__ import annotations

import gc
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, NamedTuple

import igraph

from memory.engine.structure import ISSUE_AS_SOURCE, ISSUE_AS_TARGET, TREE_RELATIONS
from memory.engine.types import (
    ANY_SOURCE,
    CHAIN_KEY,
    Cluster,
    Link,
    Row,
    Signature,
    SignatureKey,
)

AuthorLookup = Mapping[int, int | None] | Callable[[Collection[int]], Mapping[int, int | None]]
"""Episode authors, as a mapping or as a function giving those of the episodes it is asked
about."""

PAIR = "pair"
TARGET = "target"
CHAIN = "chain"


@dataclass(frozen=True, slots=True)
class ClusteringSettings:
    min_cluster_episodes: int = 2
    """A component needs this many episodes to be a cluster (DESIGN: at least 2)."""
    hub_min_episodes: int = 5
    """The floor: a signature on fewer episodes is never a hub, so small graphs are unaffected."""
    hub_min_share: float = 0.05
    """A signature on this share of the input's episodes is a hub candidate..."""
    hub_candidate_cap: int = 200
    """...and so is one on this many episodes, however big the graph (a share of 100,000
    episodes would let a 4,000-update boilerplate through unexamined)."""
    hub_aside_ratio: float = 0.5
    """Suppress a candidate that is an aside in at least this share of its multi-fact episodes..."""
    hub_min_restated_share: float = 0.5
    """...and at least this share of its episodes restate a fact another of them already stated
    (boilerplate is one statement repeated; a backbone is many facts pointing at one target)..."""
    hub_min_bridged_groups: int = 2
    """...and whose episodes fall into at least this many otherwise separate components. 2 means:
    it would merge at least two unrelated groups."""
    max_cluster_episodes: int = 50
    """The size cap: a bigger component is split along its structure, if it has more than one
    (separate dependency trees, separate issues); otherwise it stays whole."""

    def __post_init__(self) -> None:
        checks = {
            "min_cluster_episodes": self.min_cluster_episodes >= 2,
            "hub_min_episodes": self.hub_min_episodes >= 2,
            "hub_min_share": 0.0 < self.hub_min_share <= 1.0,
            "hub_candidate_cap": self.hub_candidate_cap >= 2,
            "hub_aside_ratio": 0.0 <= self.hub_aside_ratio <= 1.0,
            "hub_min_restated_share": 0.0 <= self.hub_min_restated_share <= 1.0,
            "hub_min_bridged_groups": self.hub_min_bridged_groups >= 1,
            "max_cluster_episodes": self.max_cluster_episodes >= self.min_cluster_episodes,
        }
        for name, ok in checks.items():
            if not ok:
                value = getattr(self, name)
                raise ValueError(f"clustering setting {name} is out of range: {value}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> ClusteringSettings:
        """The defaults overridden by the known keys of ``values`` (a graph's stored settings may
        hold other keys too; those are ignored). Wrong types raise ``ValueError``."""
        if not values:
            return cls()
        given: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in values:
                continue
            value = values[f.name]
            expected = int if f.type == "int" else float
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"clustering setting {f.name} must be a number")
            if expected is int and value != int(value):
                raise ValueError(f"clustering setting {f.name} must be an integer")
            given[f.name] = expected(value)
        return cls(**given)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def hub_threshold(self, episode_count: int) -> int:
        by_share = math.ceil(self.hub_min_share * episode_count)
        return max(self.hub_min_episodes, min(by_share, self.hub_candidate_cap))


@dataclass(frozen=True, slots=True)
class ClusteringResult:
    clusters: tuple[Cluster, ...]
    audit: dict[str, Any]
    suppressed_fact_ids: frozenset[int] = frozenset()
    """The boilerplate: facts left out of every cluster's evidence (and out of the graph that
    structure analysis follows)."""
    state: ClusteringState | None = field(default=None, compare=False, repr=False)
    """What the next run needs to recluster only the components its changes touch
    (``memory.engine.incremental_clustering``); kept only when asked (``keep_state``)."""


@dataclass(frozen=True, slots=True)
class ClusteringState:
    """A clustering's by-products that an incremental one reads: the settings and linking it
    ran with, every episode's component (keyed by its smallest episode id, singletons too),
    the hub verdicts with the episodes of every candidate and suspect, and the authors that
    judging them read."""

    settings: ClusteringSettings
    linking: tuple[tuple[str, str], ...]
    verdicts: tuple[HubVerdict, ...]
    component_of: dict[int, int]
    candidate_episodes: frozenset[int]
    suspect_episodes: dict[SignatureKey, frozenset[int]]
    authors: dict[int, int | None]
    link_sizes: Counter[int]
    """How many shared signatures are on each number of episodes: whether another hub
    threshold (the graph grew) would make other candidates."""


@dataclass(frozen=True, slots=True)
class HubVerdict:
    """What was decided about one hub candidate, with the figures that decided it."""

    signature: Signature
    episodes: int
    share: float
    fact_count: int
    multi_fact_episodes: int
    aside_episodes: int
    alone_episodes: int
    """Episodes in which its facts are the only ones (a heading with nothing else read)."""
    bridged_groups: int | None
    """For asides only: the components its episodes fall into on the graph without any aside
    candidate (``None`` for a candidate connected to the rest of its updates)."""
    suppressed: bool
    reason: str

    @property
    def restated_share(self) -> float:
        return 1 - self.fact_count / self.episodes

    @property
    def aside_ratio(self) -> float | None:
        """Asides among its multi-fact episodes; 1 when it is alone in every episode."""
        if not self.multi_fact_episodes:
            return 1.0 if self.alone_episodes else None
        return self.aside_episodes / self.multi_fact_episodes

    def as_dict(self) -> dict[str, Any]:
        ratio = self.aside_ratio
        return {
            "signature": self.signature.as_dict(),
            "episodes": self.episodes,
            "share": round(self.share, 4),
            "facts": self.fact_count,
            "restated_share": round(self.restated_share, 4),
            "multi_fact_episodes": self.multi_fact_episodes,
            "aside_episodes": self.aside_episodes,
            "alone_episodes": self.alone_episodes,
            "aside_ratio": None if ratio is None else round(ratio, 4),
            "bridged_groups": self.bridged_groups,
            "suppressed": self.suppressed,
            "reason": self.reason,
        }


def cluster_episodes(
    rows: Sequence[Row],
    linking: Mapping[str, str],
    episode_authors: AuthorLookup,
    settings: ClusteringSettings | None = None,
    *,
    keep_state: bool = False,
) -> ClusteringResult:
    settings = settings or ClusteringSettings()
    if not isinstance(rows, list | tuple):
        rows = list(rows)
    with paused_gc():
        return _cluster(rows, linking, episode_authors, settings, keep_state=keep_state)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for one clustering. It allocates hundreds of
    thousands of small containers and no reference cycles, so the collector's repeated scans of
    the growing heap are pure cost (a fifth of the run at 400,000 rows); reference counting
    still frees everything."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _cluster(
    rows: Sequence[Row],
    linking: Mapping[str, str],
    episode_authors: AuthorLookup,
    settings: ClusteringSettings,
    *,
    keep_state: bool = False,
) -> ClusteringResult:
    authors_read: dict[int, int | None] = {}
    if keep_state:
        episode_authors = _recording(episode_authors, authors_read)
    index = SignatureIndex.build(rows, linking)
    episodes = sorted({row[0] for row in rows})
    vertex_of = {episode: vertex for vertex, episode in enumerate(episodes)}
    links = index.shared_links()
    shared_count = len(links)
    link_sizes = Counter(len(link.episode_ids) for link in links.values()) if keep_state else None

    threshold = settings.hub_threshold(len(episodes))
    candidates = {k: link for k, link in links.items() if len(link.episode_ids) >= threshold}
    graph = igraph.Graph(n=len(episodes), edges=star_edges(links, vertex_of, skip=candidates))

    verdicts: list[HubVerdict] = []
    if candidates:
        verdicts = judge_hub_candidates(
            candidates, rows, linking, episode_authors, graph, vertex_of, settings
        )
    suppressed_facts: set[int] = set()
    for verdict in verdicts:
        if verdict.suppressed:
            links.pop(verdict.signature.key)
            suppressed_facts.update(boilerplate_facts(index.rows(verdict.signature.key),
                                                      settings))

    membership = component_membership(graph)
    groups = collect_components(membership, episodes, settings)
    parts, splits = split_oversized(groups, links, membership, vertex_of, rows,
                                    suppressed_facts, settings)
    clusters = assemble_clusters(parts, rows, links, index, suppressed_facts)

    audit = {
        "episodes": len(episodes),
        "rows": len(rows),
        "signatures": len(index.first),
        "shared_signatures": shared_count,
        "hub_threshold": threshold,
        "hub_candidates": [verdict.as_dict() for verdict in verdicts],
        "suppressed_signatures": sum(1 for verdict in verdicts if verdict.suppressed),
        "suppressed_facts": len(suppressed_facts),
        "components": len(groups),
        "clusters": len(clusters),
        "clustered_episodes": sum(len(cluster.episode_ids) for cluster in clusters),
        "splits": splits,
        "settings": settings.as_dict(),
    }
    state = None
    if keep_state:
        state = ClusteringState(
            settings=settings, linking=tuple(sorted(linking.items())), verdicts=tuple(verdicts),
            component_of=canonical_components(membership, episodes),
            candidate_episodes=frozenset(e for link in candidates.values()
                                         for e in link.episode_ids),
            suspect_episodes={v.signature.key: frozenset(candidates[v.signature.key].episode_ids)
                              for v in verdicts if v.bridged_groups is not None},
            authors=authors_read,
            link_sizes=link_sizes or Counter(),
        )
    return ClusteringResult(clusters=clusters, audit=audit,
                            suppressed_fact_ids=frozenset(suppressed_facts), state=state)


def _recording(lookup: AuthorLookup, into: dict[int, int | None]) -> AuthorLookup:
    """The author lookup, noting every author it gives (what the hub verdicts read)."""

    def authors(episode_ids: Collection[int]) -> Mapping[int, int | None]:
        found = (dict(lookup(episode_ids)) if callable(lookup)
                 else {episode: lookup.get(episode) for episode in episode_ids})
        into.update(found)
        return found

    return authors


def canonical_components(membership: Sequence[int], episodes: Sequence[int]) -> dict[int, int]:
    """Episode → its component, named by the component's smallest episode id (``episodes`` in
    ascending order): names that do not depend on how igraph numbered the components."""
    first: dict[int, int] = {}
    claim = first.setdefault
    return {episode: claim(component, episode)
            for episode, component in zip(episodes, membership, strict=True)}


def boilerplate_facts(rows: Sequence[Row], settings: ClusteringSettings) -> set[int]:
    """The facts of a suppressed signature that are its boilerplate: each restated in at least
    ``hub_min_episodes`` updates. A fact that merely shares the suppressed signature ("the SSO
    rollout is blocked on the security review", said once, next to a footer restating that the
    launch depends on it) still links nothing through it, but stays evidence where its update is
    clustered, and a chain followed through the graph still finds it."""
    episodes: dict[int, set[int]] = defaultdict(set)
    for row in rows:
        episodes[row[1]].add(row[0])
    return {fact for fact, eps in episodes.items() if len(eps) >= settings.hub_min_episodes}


@dataclass(frozen=True, slots=True)
class SignatureIndex:
    """The rows carrying each signature: the first one in ``first``, any others in ``more``.

    Building it is the one loop over every row that cannot be avoided, so it allocates no more
    than the floor does: most signatures occur once, and only repeated ones get a list."""

    first: dict[SignatureKey, Row]
    more: dict[SignatureKey, list[Row]]

    @classmethod
    def build(cls, rows: Sequence[Row], linking: Mapping[str, str]) -> SignatureIndex:
        pair = {rel for rel, mode in linking.items() if mode == PAIR}
        target = target_keys(linking)
        chain = {rel for rel, mode in linking.items() if mode == CHAIN}
        first: dict[SignatureKey, Row] = {}
        claim = first.setdefault
        repeated_keys: list[SignatureKey] = []
        repeated_rows: list[Row] = []
        for row in rows:
            relation = row[3]
            if relation in pair:
                key: SignatureKey = (row[2], relation, row[4])
            elif relation in target:
                key = (ANY_SOURCE, target[relation], row[4])
            elif relation in chain:
                # Both ends: what waits on X and what X waits on (or tracks X) share X's key,
                # so an update saying X is blocked upstream joins the chain waiting on X.
                key = (ANY_SOURCE, CHAIN_KEY, row[2])
                if claim(key, row) is not row:
                    repeated_keys.append(key)
                    repeated_rows.append(row)
                key = (ANY_SOURCE, CHAIN_KEY, row[4])
            else:
                continue  # ``none`` relations link nothing
            if claim(key, row) is not row:
                repeated_keys.append(key)
                repeated_rows.append(row)
        more: dict[SignatureKey, list[Row]] = defaultdict(list)
        for key, row in zip(repeated_keys, repeated_rows, strict=True):
            more[key].append(row)
        return cls(first=first, more=dict(more))

    def rows(self, key: SignatureKey) -> list[Row]:
        return [self.first[key], *self.more.get(key, ())]

    def shared_links(self) -> dict[SignatureKey, Link]:
        """signature → its link over all its episodes, for signatures on two episodes or more."""
        links: dict[SignatureKey, Link] = {}
        first = self.first
        episodes: tuple[int, ...]
        facts: tuple[int, ...]
        for key, later in self.more.items():
            head = first[key]
            if len(later) == 1:  # the common case, without building sets
                other = later[0]
                a, b = head[0], other[0]
                if a == b:
                    continue
                fa, fb = head[1], other[1]
                episodes = (a, b) if a < b else (b, a)
                facts = (fa,) if fa == fb else ((fa, fb) if fa < fb else (fb, fa))
            else:
                episode_set = {row[0] for row in later}
                episode_set.add(head[0])
                if len(episode_set) < 2:
                    continue
                fact_set = {row[1] for row in later}
                fact_set.add(head[1])
                episodes, facts = tuple(sorted(episode_set)), tuple(sorted(fact_set))
            links[key] = Link(source_of(key), key[1], key[2], episodes, facts)
        return links


def target_keys(linking: Mapping[str, str]) -> dict[str, str]:
    """Each ``target`` relation → the relation its signature is keyed by: its own, or the one
    it links as (``target:REPORTED``)."""
    keys = {}
    for relation, mode in linking.items():
        kind, _, links_as = mode.partition(":")
        if kind == TARGET:
            keys[relation] = links_as or relation
    return keys


def signatures_of(row: Row, linking: Mapping[str, str]) -> tuple[SignatureKey, ...]:
    """The signature keys a row carries: one, two for a ``chain`` relation (its source's and
    its target's), none for a ``none`` relation."""
    mode = linking.get(row[3])
    if mode == PAIR:
        return ((row[2], row[3], row[4]),)
    if mode is not None and mode.partition(":")[0] == TARGET:
        return ((ANY_SOURCE, mode.partition(":")[2] or row[3], row[4]),)
    if mode == CHAIN:
        return ((ANY_SOURCE, CHAIN_KEY, row[2]), (ANY_SOURCE, CHAIN_KEY, row[4]))
    return ()


def source_of(key: SignatureKey) -> int | None:
    return None if key[0] == ANY_SOURCE else key[0]


def star_edges(
    links: Mapping[SignatureKey, Link],
    vertex_of: Mapping[int, int],
    skip: Collection[SignatureKey] | None = None,
) -> list[tuple[int, int]]:
    """One star per signature (its first episode to each other): the connectivity of a clique
    at the cost of a path."""
    edges: list[tuple[int, int]] = []
    for key, link in links.items():
        if skip and key in skip:
            continue
        episodes = link.episode_ids
        hub = vertex_of[episodes[0]]
        if len(episodes) == 2:
            edges.append((hub, vertex_of[episodes[1]]))
        else:
            edges.extend((hub, vertex_of[episode]) for episode in episodes[1:])
    return edges


def judge_hub_candidates(
    candidates: Mapping[SignatureKey, Link],
    rows: Sequence[Row],
    linking: Mapping[str, str],
    episode_authors: AuthorLookup,
    graph: igraph.Graph,
    vertex_of: Mapping[int, int],
    settings: ClusteringSettings,
) -> list[HubVerdict]:
    """Decide every hub candidate, adding the edges of those kept to ``graph`` (which holds the
    non-candidate edges). Verdicts are sorted by episode count (desc), then signature.

    Asides and restatement are measured first; only the candidates that are both (the suspects)
    get the bridging test, on the graph holding every other candidate: a backbone connects
    legitimately, but two boilerplate sentences restated together must not make each other look
    harmless."""
    candidate_episodes = {e for link in candidates.values() for e in link.episode_ids}
    rows_of = rows_of_episodes(rows, candidate_episodes)
    authors = (episode_authors(candidate_episodes) if callable(episode_authors)
               else episode_authors)

    def measure(ignored: Collection[SignatureKey]) -> dict[SignatureKey, tuple[int, int, int]]:
        return {
            key: count_asides(key, link.episode_ids, rows_of, linking, authors,
                              ignored=ignored)
            for key, link in candidates.items()
        }

    def restated_asides(
        asides: Mapping[SignatureKey, tuple[int, int, int]]
    ) -> set[SignatureKey]:
        return {
            key for key, counts in asides.items()
            if is_aside(counts, settings)
            and restated_share(candidates[key]) >= settings.hub_min_restated_share
        }

    asides = measure(())
    suspects = restated_asides(asides)
    if suspects:
        # Measured again without the boilerplate: a real ownership restated next to boilerplate
        # lines is not an aside just because the boilerplate shares nothing with it.
        asides = measure(suspects)
        suspects = restated_asides(asides)
    graph.add_edges(star_edges(candidates, vertex_of, skip=suspects))
    membership = component_membership(graph) if suspects else []

    verdicts = []
    for key in sorted(candidates, key=lambda k: (-len(candidates[k].episode_ids), k)):
        link = candidates[key]
        multi, aside, alone = asides[key]
        groups = None
        if key in suspects:
            groups = len({membership[vertex_of[episode]] for episode in link.episode_ids})
        verdict = HubVerdict(
            signature=Signature.from_key(key),
            episodes=len(link.episode_ids),
            share=len(link.episode_ids) / len(vertex_of),
            fact_count=len(link.fact_ids),
            multi_fact_episodes=multi,
            aside_episodes=aside,
            alone_episodes=alone,
            bridged_groups=groups,
            suppressed=False,
            reason="",
        )
        suppressed, reason = decide_hub(verdict, settings)
        verdicts.append(replace(verdict, suppressed=suppressed, reason=reason))
    kept_suspects = {
        v.signature.key for v in verdicts if v.signature.key in suspects and not v.suppressed
    }
    graph.add_edges(star_edges({key: candidates[key] for key in kept_suspects}, vertex_of))
    return verdicts


def restated_share(link: Link) -> float:
    """The share of a signature's episodes that restate a fact another of them already stated:
    near 1 for boilerplate (one fact, many updates), 0 when every update brings its own fact
    (ten different workstreams each ``DEPENDS_ON`` the same refactor)."""
    return 1 - len(link.fact_ids) / len(link.episode_ids)


def rows_of_episodes(rows: Sequence[Row], wanted: set[int]) -> dict[int, list[Row]]:
    rows_of: dict[int, list[Row]] = defaultdict(list)
    # Filter in a comprehension first: candidates' episodes are usually a small share of rows.
    for row in [row for row in rows if row[0] in wanted]:
        rows_of[row[0]].append(row)
    return rows_of


def count_asides(
    key: SignatureKey,
    episodes: Sequence[int],
    rows_of: Mapping[int, list[Row]],
    linking: Mapping[str, str],
    episode_authors: Mapping[int, int | None],
    ignored: Collection[SignatureKey] = (),
) -> tuple[int, int, int]:
    """(multi-fact episodes, those in which the signature is an aside, episodes in which it is
    the only fact). Facts whose signature is ``ignored`` (other suspected boilerplate) are not
    "the rest of the update"."""
    multi = aside = alone = 0
    for episode in episodes:
        own: set[int | None] = set()
        others: set[int | None] = set()
        for row in rows_of[episode]:
            signatures = signatures_of(row, linking)
            if key in signatures:
                into = own
            elif signatures and all(s in ignored for s in signatures):
                continue
            else:
                into = others
            into.add(row[2])
            into.add(row[4])
        if not others:
            alone += 1
            continue
        multi += 1
        # Every first-person fact touches the author: that is no connection.
        author = episode_authors.get(episode)
        own.discard(author)
        others.discard(author)
        if own.isdisjoint(others):
            aside += 1
    return multi, aside, alone


def is_aside(counts: tuple[int, int, int], settings: ClusteringSettings) -> bool:
    """An aside in at least ``hub_aside_ratio`` of its multi-fact updates; a signature that is
    the only fact of every update it is in (a heading nothing else was read from) is connected
    to nothing in any of them, so it counts as an aside too."""
    multi, aside, alone = counts
    if not multi:
        return alone > 0
    return aside / multi >= settings.hub_aside_ratio


def decide_hub(verdict: HubVerdict, settings: ClusteringSettings) -> tuple[bool, str]:
    """(suppressed?, the reason in words) from a candidate's figures."""
    multi, aside, alone = (verdict.multi_fact_episodes, verdict.aside_episodes,
                           verdict.alone_episodes)
    if not is_aside((multi, aside, alone), settings):
        return False, (
            f"kept: connected to the rest of its update in {multi - aside} of {multi} "
            "multi-fact episodes"
        )
    if verdict.restated_share < settings.hub_min_restated_share:
        return False, (
            f"kept: an aside, but {verdict.fact_count} different facts over {verdict.episodes} "
            "episodes: many things pointing at one target, not one statement restated"
        )
    groups = verdict.bridged_groups
    where = f"an aside in {aside} of {multi} multi-fact episodes, alone in {alone}"
    if groups is None or groups < settings.hub_min_bridged_groups:
        return False, (
            f"kept: a restated aside ({where}), but its episodes are connected without it"
        )
    return True, (
        f"suppressed: a restated aside ({verdict.fact_count} facts over {verdict.episodes} "
        f"episodes, {where}), bridging {groups} otherwise separate groups"
    )


def component_membership(graph: igraph.Graph) -> list[int]:
    """vertex → its connected component. igraph's C call directly: ``connected_components()``
    wraps it in a ``VertexClustering`` whose bookkeeping is Python loops over every vertex."""
    return igraph.GraphBase.connected_components(graph, "weak")


def collect_components(
    membership: Sequence[int], episodes: Sequence[int], settings: ClusteringSettings
) -> dict[int, list[int]]:
    """component id → its episode ids (ascending), for components big enough to be clusters."""
    sizes = Counter(membership)
    minimum = settings.min_cluster_episodes
    groups: dict[int, list[int]] = {}
    for vertex, component in enumerate(membership):
        if sizes[component] >= minimum:
            groups.setdefault(component, []).append(episodes[vertex])
    return groups


class Part(NamedTuple):
    """A future cluster: its episodes and, when it came out of a split, the component's key."""

    episodes: tuple[int, ...]
    split_from: int | None


def split_oversized(
    groups: Mapping[int, list[int]],
    links: Mapping[SignatureKey, Link],
    membership: Sequence[int],
    vertex_of: Mapping[int, int],
    rows: Sequence[Row],
    suppressed_facts: Collection[int],
    settings: ClusteringSettings,
) -> tuple[list[Part], list[dict[str, Any]]]:
    """The parts that become clusters (ordered by smallest episode) and the audit of splits."""
    cap = settings.max_cluster_episodes
    oversized = {c for c, episodes in groups.items() if len(episodes) > cap}
    parts = [Part(tuple(eps), None) for c, eps in groups.items() if c not in oversized]
    splits: list[dict[str, Any]] = []
    if oversized:
        links_of: dict[int, list[Link]] = defaultdict(list)
        for link in links.values():
            component = membership[vertex_of[link.episode_ids[0]]]
            if component in oversized:
                links_of[component].append(link)
        rows_of = rows_of_episodes(rows, {e for c in oversized for e in groups[c]})
        for component in sorted(oversized, key=lambda c: groups[c][0]):
            pieces, audit = split_component(
                groups[component], links_of[component], rows_of, suppressed_facts, settings
            )
            parts.extend(pieces)
            splits.append(audit)
    parts.sort(key=lambda part: part.episodes[0])
    return parts, splits


def split_component(
    episodes: list[int],
    links: list[Link],
    rows_of: Mapping[int, list[Row]],
    suppressed_facts: Collection[int],
    settings: ClusteringSettings,
) -> tuple[list[Part], dict[str, Any]]:
    """An oversized component cut along its structure (``structural_parts``), or kept whole
    when it has one structure: a split never turns one pattern into look-alike copies."""
    audit: dict[str, Any] = {"component": episodes[0], "episodes": len(episodes)}
    pieces = structural_parts(episodes, links, rows_of, suppressed_facts)
    if pieces is None:
        audit.update(method="none", parts=[len(episodes)], dropped_parts=[],
                     dropped_episodes=0, still_oversized=[len(episodes)], cut_signatures=0,
                     reason="one structure: no separate dependency trees or issues to cut along")
        return [Part(tuple(episodes), None)], audit
    minimum = settings.min_cluster_episodes
    kept = [piece for piece in pieces if len(piece) >= minimum]
    dropped = [piece for piece in pieces if len(piece) < minimum]
    piece_of = {episode: i for i, piece in enumerate(pieces) for episode in piece}
    cut = sum(1 for link in links if len({piece_of[e] for e in link.episode_ids}) > 1)
    audit.update(
        method="structure",
        parts=[len(piece) for piece in kept],
        dropped_parts=[len(piece) for piece in dropped],
        dropped_episodes=sum(len(piece) for piece in dropped),
        still_oversized=[len(p) for p in kept if len(p) > settings.max_cluster_episodes],
        cut_signatures=cut,
    )
    return [Part(tuple(piece), episodes[0]) for piece in kept], audit


def structural_parts(
    episodes: list[int],
    links: list[Link],
    rows_of: Mapping[int, list[Row]],
    suppressed_facts: Collection[int],
) -> list[list[int]] | None:
    """The component's episodes grouped by the structure they describe, or ``None`` when it
    describes one structure only.

    A structure is a dependency tree (work items joined by ``DEPENDS_ON`` or ``TRACKS``, in
    either direction: items waiting on a shared blocker are one tree, however many roots it
    has) or an issue (what its ``REPORTED``, ``RESEMBLES``, ``AFFECTS`` and ``PRECEDED_BY``
    facts are about).
    An episode goes with the structure most of its facts are about (ties: the structure whose
    smallest entity id is smallest); an episode about none (an ownership restated, a status)
    goes with the structure most of its shared signatures lead to, found layer by layer from
    the episodes already placed. Time plays no part: one pattern restated over months stays
    one part."""
    parent: dict[int, int] = {}

    def find(node: int) -> int:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:  # the smaller id as the root: the group's key is its smallest entity
            parent[max(ra, rb)] = min(ra, rb)

    anchors_of: dict[int, list[int]] = {}
    for episode in episodes:
        found = []
        for row in rows_of.get(episode, ()):
            if row[1] in suppressed_facts:
                continue
            relation = row[3]
            if relation in TREE_RELATIONS:
                union(row[2], row[4])
                found.append(row[2])
            elif relation in ISSUE_AS_TARGET:
                found.append(row[4])
            elif relation in ISSUE_AS_SOURCE:
                found.append(row[2])
        if found:
            anchors_of[episode] = found
    structures = {find(anchor) for found in anchors_of.values() for anchor in found}
    if len(structures) < 2:
        return None
    placed: dict[int, int] = {}
    for episode, found in anchors_of.items():
        placed[episode] = most_voted(Counter(find(anchor) for anchor in found))
    links_of: dict[int, list[int]] = defaultdict(list)
    for index, link in enumerate(links):
        for episode in link.episode_ids:
            links_of[episode].append(index)
    pending = [episode for episode in episodes if episode not in placed]
    while pending:
        # One layer at a time, from what was placed before the layer: the result does not
        # depend on the order in which the pending episodes are visited.
        leads: dict[int, int] = {}
        for index, link in enumerate(links):
            votes = Counter(placed[e] for e in link.episode_ids if e in placed)
            if votes:
                leads[index] = most_voted(votes)
        layer = {}
        for episode in pending:
            votes = Counter(leads[i] for i in links_of.get(episode, ()) if i in leads)
            if votes:
                layer[episode] = most_voted(votes)
        if not layer:
            break
        placed.update(layer)
        pending = [episode for episode in pending if episode not in layer]
    by_structure: dict[int, list[int]] = defaultdict(list)
    for episode in episodes:  # ascending, so each part is too
        if episode in placed:
            by_structure[placed[episode]].append(episode)
    if len(by_structure) < 2:
        return None
    return sorted(by_structure.values(), key=lambda part: part[0])


def link_sort_key(link: Link) -> SignatureKey:
    source = ANY_SOURCE if link.source_id is None else link.source_id
    return (source, link.relation, link.target_id)


def most_voted(votes: Counter[int]) -> int:
    """The key with the most votes; ties go to the smallest key."""
    return min(votes, key=lambda key: (-votes[key], key))


def assemble_clusters(
    parts: Sequence[Part],
    rows: Sequence[Row],
    links: Mapping[SignatureKey, Link],
    index: SignatureIndex,
    suppressed_facts: set[int],
) -> tuple[Cluster, ...]:
    part_of = {episode: i for i, part in enumerate(parts) for episode in part.episodes}
    facts: list[set[int]] = [set() for _ in parts]
    add_to = [fact_set.add for fact_set in facts]
    get_part = part_of.get
    for row in rows:
        part = get_part(row[0])
        if part is not None:
            add_to[part](row[1])
    links_of = links_by_part(parts, part_of, links, index)
    return tuple(
        Cluster(
            episode_ids=part.episodes,
            fact_ids=tuple(sorted(facts[i] - suppressed_facts if suppressed_facts else facts[i])),
            links=tuple(links_of[i]),
            split_from=part.split_from,
        )
        for i, part in enumerate(parts)
    )


def links_by_part(
    parts: Sequence[Part],
    part_of: Mapping[int, int],
    links: Mapping[SignatureKey, Link],
    index: SignatureIndex,
) -> list[list[Link]]:
    """For each part, the signatures joining two or more of its episodes, in canonical order."""
    found: list[list[Link]] = [[] for _ in parts]
    get_part = part_of.get
    for key, link in links.items():
        first = get_part(link.episode_ids[0])
        if first is not None and parts[first].split_from is None:
            # An unsplit component is one part: the whole signature lies inside it.
            found[first].append(link)
            continue
        # Inside a split component (or a dropped piece of one) a signature may be cut.
        spread: dict[int, list[int]] = defaultdict(list)
        for episode in link.episode_ids:
            part = part_of.get(episode)
            if part is not None:
                spread[part].append(episode)
        for part, inside in spread.items():
            if len(inside) == len(link.episode_ids):
                found[part].append(link)
            elif len(inside) > 1:
                found[part].append(restrict_link(key, inside, index))
    # Canonical order part by part: a few links each, cheaper than sorting all of them at once.
    for part_links in found:
        part_links.sort(key=link_sort_key)
    return found


def restrict_link(key: SignatureKey, episodes: list[int], index: SignatureIndex) -> Link:
    inside = set(episodes)
    facts = sorted({row[1] for row in index.rows(key) if row[0] in inside})
    return Link(source_of(key), key[1], key[2], tuple(episodes), tuple(facts))
