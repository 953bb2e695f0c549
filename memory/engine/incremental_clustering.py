"""Clustering again after a change, over the components the change touches only. Pure, no ORM.

A run that follows another mostly sees a few updates added, restated or closed: clustering the
whole graph again (a pass over ~540,000 rows at 100,000 updates, then igraph, splits and
assembling) redraws thousands of components that cannot have changed. ``recluster`` takes the
last clustering (``cluster_episodes(..., keep_state=True)``) and the rows added and removed since,
and clusters again only the *region*: the last clustering's components holding an update whose
rows changed or an update carrying a signature a changed row carries. Every other component keeps
its clusters. The result is the one ``cluster_episodes`` gives on the same rows — clusters, the
boilerplate left out and the audit (``tests/memory/engine/test_incremental_clustering.py``
compares them on seeded graphs changed several times).

Why the region is enough: two updates are linked by a signature both carry. A signature no
changed row carries is carried by the same rows as before, so an update of the region linked by
it to another was linked to it before: the other was in the same component, so in the region.
An update linked by a signature a changed row carries is in the region by construction.

When it declines (``None``: the caller clusters everything): hub judgments could change. They
are global — a candidate is a signature on ``hub_threshold`` updates, judged by the rows of all its
updates, by their authors, and (a suspect) by how many components its updates fall into. So:
other settings or linking; another threshold (the graph's size moved it) with a signature on a
number of updates between the two; a changed row carrying
a candidate's signature or making a new candidate; a changed row in an update of a candidate; an
author of a candidate's update changed; a suspect kept (its edges would join the components it is
counted over); a suspect whose new count of components changes its verdict. The counts are
updated from the region alone: its old components among the suspect's updates give way to its new
ones.

Contract
--------
``recluster(rows, linking, episode_authors, settings, previous, added, removed)
-> ClusteringResult | None``
    ``rows``: this run's rows (every one); ``previous``: the last clustering, with its state;
    ``added`` / ``removed``: the rows in ``rows`` not in the last run's, and the reverse. The
    result carries its own state, for the run after.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import chain
from typing import Any

import igraph

from memory.engine.clustering import (
    AuthorLookup,
    ClusteringResult,
    ClusteringSettings,
    ClusteringState,
    HubVerdict,
    SignatureIndex,
    assemble_clusters,
    canonical_components,
    collect_components,
    component_membership,
    decide_hub,
    signatures_of,
    split_oversized,
    star_edges,
)
from memory.engine.types import ANY_SOURCE, Row, SignatureKey


def recluster(
    rows: Sequence[Row],
    linking: Mapping[str, str],
    episode_authors: AuthorLookup,
    settings: ClusteringSettings,
    previous: ClusteringResult,
    added: Collection[Row],
    removed: Collection[Row],
) -> ClusteringResult | None:
    state = previous.state
    if (
        state is None
        or state.settings != settings
        or state.linking != tuple(sorted(linking.items()))
    ):
        return None
    if any(v.bridged_groups is not None and not v.suppressed for v in state.verdicts):
        return None  # a kept suspect: its edges join the components it is counted over
    changed_episodes = {row[0] for row in chain(added, removed)}
    if not changed_episodes.isdisjoint(state.candidate_episodes):
        return None
    keys = {key for row in chain(added, removed) for key in signatures_of(row, linking)}
    candidates = {v.signature.key for v in state.verdicts}
    if not keys.isdisjoint(candidates):
        return None
    now, then = _episodes_by_key(rows, keys, linking, added, removed)

    component_of = state.component_of
    seeds = changed_episodes.union(*now.values(), *then.values())
    touched = {component_of[e] for e in seeds if e in component_of}
    region = {e for e, component in component_of.items() if component in touched}
    region.update(seeds)
    region_rows = [row for row in rows if row[0] in region]
    episodes = sorted({row[0] for row in region_rows})
    before = sum(1 for e in region if e in component_of)
    episode_count = previous.audit["episodes"] - before + len(episodes)
    sizes = Counter(state.link_sizes)
    for key in keys:
        if len(then[key]) > 1:
            sizes[len(then[key])] -= 1
        if len(now[key]) > 1:
            sizes[len(now[key])] += 1
    threshold = settings.hub_threshold(episode_count)
    if threshold != previous.audit["hub_threshold"]:
        # The graph's size moved the threshold: the same candidates only if no signature's
        # number of updates lies between the two.
        low, high = sorted((threshold, previous.audit["hub_threshold"]))
        if any(count > 0 and low <= size < high for size, count in sizes.items()):
            return None
    if any(len(found) >= threshold for found in now.values()):
        return None  # a new hub candidate
    if state.authors and _authors(episode_authors, state.authors.keys()) != state.authors:
        return None

    # The region clustered as the whole graph would: the same boilerplate left out.
    suppressed_keys = {v.signature.key for v in state.verdicts if v.suppressed}
    suppressed_facts = set(previous.suppressed_fact_ids)
    index = SignatureIndex.build(region_rows, linking)
    vertex_of = {episode: vertex for vertex, episode in enumerate(episodes)}
    links = index.shared_links()
    for key in suppressed_keys:
        links.pop(key, None)
    graph = igraph.Graph(n=len(episodes), edges=star_edges(links, vertex_of))
    membership = component_membership(graph)
    groups = collect_components(membership, episodes, settings)
    parts, splits = split_oversized(
        groups, links, membership, vertex_of, region_rows, suppressed_facts, settings
    )
    fresh = assemble_clusters(parts, region_rows, links, index, suppressed_facts)
    new_component_of = canonical_components(membership, episodes)

    verdicts = _verdicts(state, touched, new_component_of, episode_count, settings)
    if verdicts is None:
        return None

    kept = [c for c in previous.clusters if component_of[c.episode_ids[0]] not in touched]
    clusters = tuple(sorted([*kept, *fresh], key=lambda cluster: cluster.episode_ids[0]))
    old_sizes: dict[int, int] = defaultdict(int)
    for e in region:
        if e in component_of:
            old_sizes[component_of[e]] += 1
    minimum = settings.min_cluster_episodes
    audit: dict[str, Any] = dict(previous.audit)
    audit.update(
        episodes=episode_count,
        hub_threshold=threshold,
        rows=len(rows),
        signatures=audit["signatures"] + sum(bool(now[k]) - bool(then[k]) for k in keys),
        shared_signatures=audit["shared_signatures"]
        + sum((len(now[k]) > 1) - (len(then[k]) > 1) for k in keys),
        hub_candidates=[v.as_dict() for v in verdicts],
        components=audit["components"]
        - sum(1 for size in old_sizes.values() if size >= minimum)
        + len(groups),
        clusters=len(clusters),
        clustered_episodes=sum(len(cluster.episode_ids) for cluster in clusters),
        splits=sorted(
            [*(s for s in previous.audit["splits"] if s["component"] not in touched), *splits],
            key=lambda split: split["component"],
        ),
    )
    component_of = {e: c for e, c in component_of.items() if c not in touched}
    component_of.update(new_component_of)
    return ClusteringResult(
        clusters=clusters,
        audit=audit,
        suppressed_fact_ids=previous.suppressed_fact_ids,
        state=replace(state, verdicts=verdicts, component_of=component_of, link_sizes=+sizes),
    )


def _episodes_by_key(
    rows: Sequence[Row],
    keys: set[SignatureKey],
    linking: Mapping[str, str],
    added: Collection[Row],
    removed: Collection[Row],
) -> tuple[dict[SignatureKey, set[int]], dict[SignatureKey, set[int]]]:
    """For each changed signature, the updates carrying it now and before the change (read from
    the rows naming the entities of the changed signatures only)."""
    ends = {end for key in keys for end in (key[0], key[2]) if end != ANY_SOURCE}
    near = [row for row in rows if row[2] in ends or row[4] in ends]
    now: dict[SignatureKey, set[int]] = {key: set() for key in keys}
    then: dict[SignatureKey, set[int]] = {key: set() for key in keys}
    new = set(added)
    for row in near:
        for key in signatures_of(row, linking):
            if key in now:
                now[key].add(row[0])
                if row not in new:
                    then[key].add(row[0])
    for row in removed:
        for key in signatures_of(row, linking):
            if key in then:
                then[key].add(row[0])
    return now, then


def _authors(lookup: AuthorLookup, episodes: Iterable[int]) -> dict[int, int | None]:
    wanted = set(episodes)
    if callable(lookup):
        return dict(lookup(wanted))
    return {episode: lookup.get(episode) for episode in wanted}


def _verdicts(
    state: ClusteringState,
    touched: set[int],
    new_component_of: Mapping[int, int],
    episode_count: int,
    settings: ClusteringSettings,
) -> tuple[HubVerdict, ...] | None:
    """The hub verdicts with this graph's share and, for suspects, the components their updates
    fall into now; ``None`` when a suspect's verdict would change."""
    verdicts = []
    for verdict in state.verdicts:
        verdict = replace(verdict, share=verdict.episodes / episode_count)
        if verdict.bridged_groups is not None:
            episodes = state.suspect_episodes[verdict.signature.key]
            gone = {state.component_of[e] for e in episodes if state.component_of[e] in touched}
            came = {new_component_of[e] for e in episodes if e in new_component_of}
            groups = verdict.bridged_groups - len(gone) + len(came)
            suppressed, reason = decide_hub(replace(verdict, bridged_groups=groups), settings)
            if suppressed != verdict.suppressed:
                return None
            verdict = replace(verdict, bridged_groups=groups, reason=reason)
        verdicts.append(verdict)
    return tuple(verdicts)
