"""Per-graph settings: defaults in code, overrides in ``Graph.settings`` / ``Graph.ontology``.

Every run records the settings it used, so the audit shows which thresholds produced which
clusters."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from memory.models import Graph
from memory.ontology import Ontology, build_ontology

DEFAULTS: dict[str, Any] = {
    # Clustering (see memory.engine.clustering.ClusteringSettings for what each one means).
    "window_days": None,
    # Pipeline orchestration.
    "debounce_seconds": 30,
    # The model (when one is configured): tokens in and out per calendar month, None for no
    # limit (memory.spend); how long a rules reading, published at once, may wait for the
    # model's reading to replace it, so that the model reads many updates in one call
    # (memory.processing.model_queue): 30 hours, as the board does not wait for it — a little
    # over a day, so a team's updates of one day share a call with the next day's, written
    # at about the same hour (README, "What the model costs").
    "monthly_token_budget": None,
    "model_wait_seconds": 108_000,
}

_ontology_cache: dict[tuple[int, str], Ontology] = {}


def graph_settings(graph: Graph) -> dict[str, Any]:
    return {**defaults(), **(graph.settings or {})}


def defaults() -> dict[str, Any]:
    """The defaults, with those the deployment configures: ``stalled_after_weeks`` (an item in
    one state for at least this many weeks is an observation of its own, memory.engine.stalled;
    0 turns them off) from the ``STALLED_AFTER_WEEKS`` setting."""
    return {**DEFAULTS, "stalled_after_weeks": settings.STALLED_AFTER_WEEKS}


def ontology_for(graph: Graph) -> Ontology:
    """The graph's ontology (default plus its overrides), cached per override content."""
    import json

    key = (graph.pk or 0, json.dumps(graph.ontology or {}, sort_keys=True))
    if key not in _ontology_cache:
        _ontology_cache[key] = build_ontology(graph.ontology or None)
    return _ontology_cache[key]
