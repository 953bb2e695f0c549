"""Hostile input, generated: every write path (the v1 API one at a time and in bulk, the v4 API,
and ``read_records`` + ``ingest_records`` under ``manage.py ingest`` and the upload) takes records
whose fields hold NUL characters, lone surrogates, deep nesting, huge and non-finite numbers,
wrong types and extreme or impossible dates. Never a 500; the good records beside a bad one are
stored; the bad one is refused naming its field (or stored: a value that is only odd, such as a
date in year 9999, is not an error)."""

from __future__ import annotations

import json
from typing import Any
from uuid import uuid4

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_for_hypothesis
from hypothesis import strategies as st

from memory.ingestion import ingest_records, read_records
from memory.models import Episode, Graph
from tests.api.conftest import ClientFor

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

DEEP = "[" * 100_000 + "]" * 100_000

HOSTILE_VALUES = [
    # Text the database or the encoder cannot take.
    '"blocked\\u0000on auth"', '"Mall\\ud800ory"', '"\\udfff"', '"x\\u0000"',
    # Nesting, numbers and non-finite values.
    DEEP, '{"a": ' + DEEP + "}", "1e999", "-1e999", "NaN", "Infinity", "9" * 5000,
    "-0", "1.5",
    # Wrong types.
    "null", "true", "[]", "{}", '["a", "b"]', '{"nested": {"deeper": [1, 2, 3]}}', "42",
    # Dates at and past the edges of what a datetime holds, and impossible ones.
    '"9999-12-31T23:59:59+00:00"', '"0001-01-01T00:00:00+00:00"', '"10000-01-01T00:00:00Z"',
    '"2026-02-30T09:00:00+00:00"', '"2026-11-23T09:00:00+99:00"', '"-2026-11-23T09:00:00Z"',
    '"2026-11-23T25:61:00+00:00"', '""', '"   "',
    # Long text.
    json.dumps("x" * 70_000),
]

EPISODE_FIELDS = ["content", "author", "reference_time", "external_id", "type", "data",
                  "facts", "customer", "subject", "url", "source", "thread", "metadata"]
ZEP_FIELDS = ["type", "data", "source_description", "created_at", "metadata",
              "uuid", "role", "name"]

hostile_field = st.tuples(st.sampled_from(EPISODE_FIELDS), st.sampled_from(HOSTILE_VALUES))
hostile_zep_field = st.tuples(st.sampled_from(ZEP_FIELDS), st.sampled_from(HOSTILE_VALUES))
FUZZ = settings_for_hypothesis(max_examples=60, deadline=None, derandomize=True,
                               suppress_health_check=list(HealthCheck))


def good(note: str) -> dict[str, Any]:
    return {"external_id": f"good-{uuid4().hex}", "author": "Alice",
            "reference_time": "2026-11-23T09:00:00+00:00",
            "content": f"The API migration is blocked on the auth refactor ({note})."}


def hostile(fields: list[tuple[str, str]]) -> str:
    """A good record with each of ``fields`` replaced by a raw JSON value (spliced as text:
    100,000-level nesting and lone surrogates cannot be built with ``json.dumps``)."""
    record = good("hostile")
    for name, _ in fields:
        record.pop(name, None)
    text = json.dumps(record)[:-1]
    for name, value in dict(fields).items():
        text += f', "{name}": {value}'
    return text + "}"


def refused_naming_a_field(result: dict[str, Any], fields: list[tuple[str, str]]) -> bool:
    named = {name for name, _ in fields}
    field = (result.get("field") or "").split(".")[0].split("[")[0]
    return result["status"] == "rejected" and field in named and bool(result.get("reason"))


@FUZZ
@given(fields=st.lists(hostile_field, min_size=1, max_size=3, unique_by=lambda f: f[0]))
def test_a_hostile_episode_is_stored_or_a_400_naming_its_field_never_a_500(
    api: ClientFor, owner: Any, graph: Graph, fields: list[tuple[str, str]]
) -> None:
    response = api(owner).post(f"/api/v1/graphs/{graph.slug}/episodes", hostile(fields),
                               content_type="application/json")

    assert response.status_code in (200, 201, 400), response.content[:300]
    if response.status_code == 400:
        error = response.json()["error"]
        assert error["param"] and error["message"], error


@FUZZ
@given(fields=st.lists(hostile_field, min_size=1, max_size=3, unique_by=lambda f: f[0]))
def test_a_hostile_record_in_a_bulk_spoils_only_itself(
    api: ClientFor, owner: Any, graph: Graph, fields: list[tuple[str, str]]
) -> None:
    before = Episode.objects.filter(graph=graph).count()
    body = (f'{{"episodes": [{json.dumps(good("before"))}, {hostile(fields)}, '
            f'{json.dumps(good("after"))}]}}')

    response = api(owner).post(f"/api/v1/graphs/{graph.slug}/episodes/bulk", body,
                               content_type="application/json")

    assert response.status_code == 200, response.content[:300]
    results = response.json()["results"]
    assert [results[0]["status"], results[2]["status"]] == ["stored", "stored"]
    assert results[1]["status"] == "stored" or refused_naming_a_field(results[1], fields)
    stored = sum(result["status"] == "stored" for result in results)
    assert Episode.objects.filter(graph=graph).count() == before + stored


@FUZZ
@given(fields=st.lists(hostile_zep_field, min_size=1, max_size=3, unique_by=lambda f: f[0]))
def test_a_hostile_zep_episode_is_stored_or_a_400_never_a_500(
    api: ClientFor, owner: Any, graph: Graph, fields: list[tuple[str, str]]
) -> None:
    record = {"type": "text", "data": f"The API migration is blocked ({uuid4().hex})."}
    for name, _ in fields:
        record.pop(name, None)
    body = json.dumps(record)[:-1] + "".join(f', "{n}": {v}' for n, v in dict(fields).items())

    response = api(owner).post(f"/api/v4/graphs/{graph.uuid}/episodes", body + "}",
                               content_type="application/json")

    assert response.status_code in (200, 201, 202, 400), response.content[:300]


@FUZZ
@given(fields=st.lists(hostile_field, min_size=1, max_size=3, unique_by=lambda f: f[0]))
def test_a_hostile_line_of_a_file_spoils_only_itself(
    graph: Graph, fields: list[tuple[str, str]]
) -> None:
    before = Episode.objects.filter(graph=graph).count()
    payload = "\n".join([json.dumps(good("line 1")), hostile(fields),
                         json.dumps(good("line 3"))]).encode("utf-8", "surrogatepass")

    report = ingest_records(graph, list(read_records(payload)), process=False)

    statuses = [line.status for line in report.results]
    assert statuses[0] == statuses[-1] == "stored"
    assert Episode.objects.filter(graph=graph).count() == before + report.stored
    refused = [line for line in report.results if line.status == "rejected"]
    assert all(line.reason for line in refused)
