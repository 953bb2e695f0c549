"""Pictures drawn on the server (DESIGN §7): igraph computes the layout, this module turns it into
boxes, circles and paths in SVG user units, and the page template writes the SVG — so every
label goes through the template's escaping. Deterministic: the same structure always draws the
same picture."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import igraph

from memory.models import Episode

LABEL_CHARS = 25
"""A box label longer than this is shortened with "…" (the full name is in its tooltip)."""
EPISODE_NODES = 60
"""At most this many episodes are drawn; the list under the picture has them all."""


@dataclass(frozen=True, slots=True)
class Node:
    key: str
    label: str
    title: str
    x: float
    y: float
    sublabel: str = ""
    kind: str = ""
    """A CSS class: ``root``, ``direct``, ``downstream``..."""
    anchor: str = ""
    """A fragment on the page the node links to, if any."""

    @property
    def text_x(self) -> float:
        return self.x + 12

    @property
    def left(self) -> float:
        """For a node drawn centred on (x, y) with the diagram's node width."""
        return self.x - SIGNATURE_W / 2

    @property
    def top(self) -> float:
        return self.y - SIGNATURE_H / 2


@dataclass(frozen=True, slots=True)
class Edge:
    path: str
    title: str
    kind: str = ""


@dataclass(frozen=True, slots=True)
class Diagram:
    width: float
    height: float
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    node_width: float = 0
    node_height: float = 0
    radius: float = 0
    truncated: int = 0
    """How many nodes were left out."""

    @property
    def view_box(self) -> str:
        return f"0 0 {self.width:.0f} {self.height:.0f}"


def shorten(text: str, limit: int = LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- The dependency chain ---------------------------------------------------------------------

BOX_W, BOX_H, COL_GAP, ROW_GAP, PAD = 204.0, 54.0, 72.0, 22.0, 12.0


def _layers_to_sinks(count: int, edges: Sequence[tuple[int, int]]) -> list[int] | None:
    """Layer of each node so that what everything waits on is in the last column and each
    item sits one column before what it waits on; ``None`` for a chain with a cycle (igraph then
    breaks the cycle itself)."""
    graph = igraph.Graph(n=count, edges=list(edges), directed=True)
    if not graph.is_dag():
        return None
    distance = [0] * count
    for node in reversed(graph.topological_sorting()):
        successors = graph.successors(node)
        distance[node] = 1 + max((distance[s] for s in successors), default=-1)
    deepest = max(distance, default=0)
    return [deepest - d for d in distance]


def dependency_diagram(structure: Mapping[str, Any]) -> Diagram | None:
    """The ``DEPENDS_ON`` chain, read left to right: each item points at what it waits on, the
    root blockers in the last column."""
    dependency = structure.get("dependency") or {}
    raw_edges = dependency.get("edges") or []
    if not raw_edges:
        return None
    names: Mapping[str, str] = structure.get("names") or {}
    roots = dependency.get("root_blockers") or []
    root_ids = {m for root in roots for m in root["members"]}
    direct_ids = {d["entity"] for root in roots for d in root.get("direct", [])}
    owners: dict[int, list[str]] = {}
    for root in roots:
        for member in root["members"]:
            owners[member] = [names.get(str(o["entity"]), "") for o in root.get("owners", [])]
        for d in (*root.get("direct", []), *root.get("downstream", [])):
            owners[d["entity"]] = [names.get(str(o["entity"]), "") for o in d.get("owners", [])]

    ids = sorted({e for edge in raw_edges for e in (edge["waiting"], edge["waited_on"])})
    index = {entity: i for i, entity in enumerate(ids)}
    pairs = [(index[e["waiting"]], index[e["waited_on"]]) for e in raw_edges]
    graph = igraph.Graph(n=len(ids), edges=pairs, directed=True)
    layout = graph.layout_sugiyama(layers=_layers_to_sinks(len(ids), pairs))
    coords = layout.coords[: len(ids)]  # the rest are dummy vertices on long edges

    columns = [c[1] for c in coords]
    rows = [c[0] for c in coords]
    low_row = min(rows)
    height_rows = max(rows) - low_row + 1

    def position(i: int) -> tuple[float, float]:
        return (PAD + columns[i] * (BOX_W + COL_GAP),
                PAD + (rows[i] - low_row) * (BOX_H + ROW_GAP))

    nodes = []
    for entity, i in index.items():
        x, y = position(i)
        name = names.get(str(entity), f"entity {entity}")
        owner = ", ".join(o for o in owners.get(entity, []) if o)
        kind = "root" if entity in root_ids else "direct" if entity in direct_ids else "waiting"
        nodes.append(Node(
            key=str(entity), label=shorten(name), title=name + (f" — {owner}" if owner else ""),
            x=x, y=y, sublabel=shorten(owner, LABEL_CHARS + 4), kind=kind,
        ))
    edges = []
    for edge, (a, b) in zip(raw_edges, pairs, strict=True):
        (ax, ay), (bx, by) = position(a), position(b)
        waiting = names.get(str(edge["waiting"]), "")
        waited = names.get(str(edge["waited_on"]), "")
        edges.append(Edge(path=_connector(ax, ay, bx, by), title=f"{waiting} waits on {waited}",
                          kind="to-root" if edge["waited_on"] in root_ids else ""))
    width = PAD * 2 + (max(columns) + 1) * BOX_W + max(columns) * COL_GAP
    height = PAD * 2 + height_rows * BOX_H + (height_rows - 1) * ROW_GAP
    return Diagram(width=width, height=height, nodes=nodes, edges=edges,
                   node_width=BOX_W, node_height=BOX_H)


def _connector(ax: float, ay: float, bx: float, by: float) -> str:
    """A curve from the right side of box A to the left side of box B (or, when B is not to the
    right — a cycle — a loop over the top)."""
    start_x, start_y = ax + BOX_W, ay + BOX_H / 2
    end_x, end_y = bx, by + BOX_H / 2
    if end_x > start_x:
        bend = (end_x - start_x) / 2
        return (f"M{start_x:.1f},{start_y:.1f} C{start_x + bend:.1f},{start_y:.1f} "
                f"{end_x - bend:.1f},{end_y:.1f} {end_x - 4:.1f},{end_y:.1f}")
    top = min(ay, by) - 10
    return (f"M{ax + BOX_W / 2:.1f},{ay:.1f} C{ax + BOX_W / 2:.1f},{top - 30:.1f} "
            f"{bx + BOX_W / 2:.1f},{top - 30:.1f} {bx + BOX_W / 2:.1f},{by - 4:.1f}")


# --- The cluster's episode graph --------------------------------------------------------------

EPISODE_ROW, NODE_R, GRAPH_PAD = 36.0, 13.0, 16.0
EPISODE_COLUMN, LINK_GAP = 200.0, 140.0
SIGNATURE_W, SIGNATURE_H = 300.0, 28.0
GRAPH_W = GRAPH_PAD * 2 + EPISODE_COLUMN + LINK_GAP + SIGNATURE_W


def initials(author: str) -> str:
    parts = [p for p in author.replace(".", " ").split() if p]
    if not parts:
        return "?"
    return (parts[0][0] + (parts[-1][0] if len(parts) > 1 else "")).upper()


def episode_graph_diagram(
    episodes: Sequence[Episode], links: Sequence[Mapping[str, Any]],
    signature_texts: Sequence[str],
) -> Diagram | None:
    """The cluster's episode graph with its shared signatures drawn as nodes of their own: the
    episodes in a column on the left (in time order), the signatures on the right, a line from
    each episode to every signature it shares. Two episodes are linked in the episode graph
    exactly when they meet at a signature; drawing the signature once instead of an edge per
    pair keeps a signature shared by ten updates from becoming a forty-five-edge hairball.
    igraph's two-layer Sugiyama layout orders the signatures to cross as few lines as possible."""
    shown = list(episodes[:EPISODE_NODES])
    if len(shown) < 2 or not links:
        return None
    index = {e.pk: i for i, e in enumerate(shown)}
    count = len(shown)
    pairs: list[tuple[int, int]] = []
    for position, link in enumerate(links):
        pairs.extend((index[e], count + position) for e in link.get("episodes", []) if e in index)
    graph = igraph.Graph(n=count + len(links), edges=pairs, directed=True)
    # Episodes keep their time order (layer 0 is fixed by giving igraph their order as the
    # starting positions); the signatures' order comes from the crossing minimisation.
    layout = graph.layout_sugiyama(layers=[0] * count + [1] * len(links))
    sig_rank = sorted(range(len(links)), key=lambda s: (layout.coords[count + s][0], s))
    height = GRAPH_PAD * 2 + max(count * EPISODE_ROW, len(links) * (SIGNATURE_H + 12))
    episode_y = [GRAPH_PAD + EPISODE_ROW * (i + 0.5)
                 + (height - 2 * GRAPH_PAD - count * EPISODE_ROW) / 2 for i in range(count)]
    slot = (height - 2 * GRAPH_PAD) / len(links)
    signature_y = {s: GRAPH_PAD + slot * (rank + 0.5) for rank, s in enumerate(sig_rank)}
    episode_x = GRAPH_PAD + NODE_R
    signature_x = GRAPH_PAD + EPISODE_COLUMN + LINK_GAP + SIGNATURE_W / 2

    nodes = []
    # Updates of several years carry their years ("Sun 20 Jul 2008" and "Mon 9 Dec 2019", not
    # "Sun 20 Jul" and "Mon 9 Dec": a tracker's history spans a decade).
    form = "%a %-d %b" if len({row.reference_time.year for row in shown}) == 1 else "%a %-d %b %Y"
    for i, row in enumerate(shown):
        when = row.reference_time.strftime(form)
        nodes.append(Node(
            key=f"e{row.pk}", label=initials(row.author), x=episode_x, y=episode_y[i],
            kind="episode", sublabel=shorten(f"{row.author or 'Unknown'} · {when}", 24),
            title=f"{row.author or 'Unknown'}, {when}: {shorten(row.text, 90)}",
            anchor=f"episode-{row.uuid}",
        ))
    for s, text in enumerate(signature_texts):
        nodes.append(Node(key=f"s{s}", label=shorten(text, 42), title=text, x=signature_x,
                          y=signature_y[s], kind="signature"))
    edges = []
    start_x = GRAPH_PAD + EPISODE_COLUMN
    end_x = signature_x - SIGNATURE_W / 2
    for a, b in pairs:
        y1, y2 = episode_y[a], signature_y[b - count]
        bend = (end_x - start_x) / 2
        edges.append(Edge(
            path=(f"M{start_x:.1f},{y1:.1f} C{start_x + bend:.1f},{y1:.1f} "
                  f"{end_x - bend:.1f},{y2:.1f} {end_x:.1f},{y2:.1f}"),
            title=f"{shown[a].author or 'Unknown'}: {signature_texts[b - count]}",
        ))
    return Diagram(width=GRAPH_W, height=height, nodes=nodes, edges=edges, radius=NODE_R,
                   node_width=SIGNATURE_W, node_height=SIGNATURE_H,
                   truncated=max(0, len(episodes) - len(shown)))
