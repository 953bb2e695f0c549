"""The approaches the product is compared with, side by side on the same rows (pure functions).

* ``networkx_clusters`` — the same clustering written the way most people would: the same
  signatures, the same hub decisions (the signatures our clustering suppressed are passed in),
  every pair of episodes sharing a signature as a networkx edge, ``connected_components``, and
  oversized components split with networkx's Louvain (seeded).
* ``co_mention_clusters`` — the "topic" approach the seeds warn about: two episodes are linked
  when they mention any same entity (status values excepted), whatever the relation.
* ``floor_components`` — the least any signature clustering must do: episodes to vertices, a
  star per shared signature, igraph's connected components. No hubs, no splits, no output
  (``floor_cluster_count`` counts its components of two or more episodes).

Rows are ``(episode_id, fact_id, source_id, relation, target_id)`` as the pipeline loads them.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence

import igraph

from memory.engine.types import ANY_SOURCE, CHAIN_KEY, Row, SignatureKey

NETWORKX_MISSING = (
    "the networkx comparison needs networkx: pip install -e '.[bench]' "
    "(the test extras include it)"
)


def signature_episodes(
    rows: Sequence[Row], linking: Mapping[str, str]
) -> dict[SignatureKey, set[int]]:
    """signature → the episodes carrying it (``pair``: the triple; ``target``: relation and
    target; ``chain``: ``CHAIN`` and target, and ``CHAIN`` and source; ``none`` relations link
    nothing)."""
    found: dict[SignatureKey, set[int]] = defaultdict(set)
    for episode, _fact, source, relation, target in rows:
        mode = linking.get(relation)
        if mode == "pair":
            found[(source, relation, target)].add(episode)
        elif mode == "target":
            found[(ANY_SOURCE, relation, target)].add(episode)
        elif mode == "chain":
            found[(ANY_SOURCE, CHAIN_KEY, target)].add(episode)
            found[(ANY_SOURCE, CHAIN_KEY, source)].add(episode)
    return found


def networkx_clusters(
    rows: Sequence[Row],
    linking: Mapping[str, str],
    suppressed: Collection[SignatureKey],
    *,
    max_cluster_episodes: int = 50,
    min_cluster_episodes: int = 2,
    seed: int = 42,
) -> list[list[int]]:
    try:
        import networkx as nx
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError(NETWORKX_MISSING) from exc
    graph = nx.Graph()
    graph.add_nodes_from({row[0] for row in rows})
    for key, episodes in signature_episodes(rows, linking).items():
        if key in suppressed or len(episodes) < 2:
            continue
        graph.add_edges_from(itertools.combinations(sorted(episodes), 2))
    clusters: list[list[int]] = []
    for component in nx.connected_components(graph):
        if len(component) > max_cluster_episodes:
            parts = nx.community.louvain_communities(graph.subgraph(component), seed=seed)
        else:
            parts = [component]
        clusters.extend(sorted(part) for part in parts if len(part) >= min_cluster_episodes)
    return sorted(clusters)


def co_mention_clusters(
    rows: Sequence[Row], ignored_entities: Collection[int] = ()
) -> list[list[int]]:
    """Connected components of "mentions a same entity" (union–find over entity first-seen)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first_episode: dict[int, int] = {}
    for episode, _fact, source, _relation, target in rows:
        parent.setdefault(episode, episode)
        for entity in (source, target):
            if entity in ignored_entities:
                continue
            other = first_episode.setdefault(entity, episode)
            if other != episode:
                a, b = find(other), find(episode)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = defaultdict(list)
    for episode in parent:
        groups[find(episode)].append(episode)
    return sorted(sorted(g) for g in groups.values() if len(g) >= 2)


def floor_components(rows: Sequence[Row], linking: Mapping[str, str]) -> list[int]:
    """The least any signature clustering must do: map episodes to vertices (in id order), link
    episodes that share a signature (a star each) and take the connected components (igraph's C
    call, without the ``VertexClustering`` wrapper): each vertex's component. No hubs, no
    splits, no output. The floor of ``manage.py bench`` and of ``manage.py bench_pipeline``."""
    pair = {rel for rel, mode in linking.items() if mode == "pair"}
    target = {rel for rel, mode in linking.items() if mode == "target"}
    chain = {rel for rel, mode in linking.items() if mode == "chain"}
    episodes = sorted({row[0] for row in rows})
    vertex_of = {episode: vertex for vertex, episode in enumerate(episodes)}
    first: dict[SignatureKey, int] = {}
    setdefault = first.setdefault
    edges: list[tuple[int, int]] = []
    for episode, _fact, source, relation, target_id in rows:
        if relation in pair:
            key: SignatureKey = (source, relation, target_id)
        elif relation in target:
            key = (ANY_SOURCE, relation, target_id)
        elif relation in chain:
            vertex = vertex_of[episode]
            hub = setdefault((ANY_SOURCE, CHAIN_KEY, source), vertex)
            if hub != vertex:
                edges.append((hub, vertex))
            key = (ANY_SOURCE, CHAIN_KEY, target_id)
        else:
            continue
        vertex = vertex_of[episode]
        hub = setdefault(key, vertex)
        if hub != vertex:
            edges.append((hub, vertex))
    graph = igraph.Graph(n=len(episodes), edges=edges)
    return igraph.GraphBase.connected_components(graph, "weak")


def floor_cluster_count(rows: Sequence[Row], linking: Mapping[str, str]) -> int:
    """The floor and a count of its components with two or more episodes (what the side by
    side reports)."""
    sizes: dict[int, int] = defaultdict(int)
    for component in floor_components(rows, linking):
        sizes[component] += 1
    return sum(1 for size in sizes.values() if size >= 2)
