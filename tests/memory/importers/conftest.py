"""Fixtures of the importer tests: the export files, and importing one into a graph with the
episodes processed in-process (as in the embedded default)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory.importers.runs import ImportReport, import_export
from memory.models import Fact, Graph

FIXTURES = Path(__file__).parent / "fixtures"
ImportFn = Callable[..., ImportReport]


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@pytest.fixture
def run_import(django_capture_on_commit_callbacks: Any) -> ImportFn:
    def run(graph: Graph, fmt: str, payload: bytes, **kwargs: Any) -> ImportReport:
        with django_capture_on_commit_callbacks(execute=True):
            return import_export(graph, fmt, payload, **kwargs)

    return run


def facts_of(graph: Graph, relation: str, *, current: bool | None = None
             ) -> dict[tuple[str, str], Fact]:
    """(source name, target name) → fact; ``current`` narrows to open (True) or ended facts."""
    # Not the rows a revision replaced (expired without an end): every fact as last known.
    query = Fact.objects.filter(graph=graph, relation=relation).exclude(
        expired_at__isnull=False, invalid_at__isnull=True)
    if current is True:
        query = query.filter(invalid_at__isnull=True)
    elif current is False:
        query = query.filter(invalid_at__isnull=False)
    return {(f.source.name, f.target.name): f for f in query.select_related("source", "target")}
