"""Ingestion: idempotent, and every bad line is reported with its line, field and reason while
the good lines are still stored — never a half-written episode, never a traceback."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.ingestion import MAX_CONTENT_BYTES, ingest_records, read_records
from memory.models import Episode, Graph
from tests.conftest import jsonl
from tests.poisons import POISONS

GOOD = {
    "external_id": "alice-1",
    "author": "Alice",
    "reference_time": "2026-11-23T09:00:00+00:00",
    "content": "The API migration is blocked.",
}


def run_ingest(tmp_path: Path, payload: bytes, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "episodes.jsonl"
    path.write_bytes(payload)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command("ingest", str(path), "--graph", "project-atlas", "--no-process", *args,
                     stdout=out, stderr=err)
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def line(**changes: Any) -> dict[str, Any]:
    record = {**GOOD, **changes}
    return {k: v for k, v in record.items() if v is not None}


@pytest.mark.django_db
def test_a_good_file_is_stored_and_reingesting_it_stores_nothing_new(graph: Graph,
                                                                     tmp_path: Path) -> None:
    payload = jsonl([line(), line(external_id="bob-1", author="Bob")])

    assert run_ingest(tmp_path, payload) == (0, "stored 2, duplicates 0, rejected 0\n", "")
    assert run_ingest(tmp_path, payload) == (0, "stored 0, duplicates 2, rejected 0\n", "")
    assert Episode.objects.filter(graph=graph).count() == 2


@pytest.mark.django_db
def test_records_without_external_id_are_deduplicated_by_content(graph: Graph) -> None:
    record = line(external_id=None)
    first = ingest_records(graph, [(1, record), (2, record)], process=False)
    again = ingest_records(graph, [(1, record)], process=False)

    assert (first.stored, first.duplicates) == (1, 1)
    assert (again.stored, again.duplicates) == (0, 1)


@pytest.mark.django_db
def test_an_items_title_is_kept_with_its_entity_and_a_title_that_is_not_text_is_refused(
    graph: Graph,
) -> None:
    item = {"name": "Bug 446261", "type": "WorkItem",
            "title": "Clear Private Data should  also reset last directory saved to"}
    report = ingest_records(graph, [
        (1, line(external_id="titled", entities=[item])),
        (2, line(external_id="not-text", entities=[{**item, "title": 446261}])),
        (3, line(external_id="too-long", entities=[{**item, "title": "x" * 301}])),
    ], process=False)

    (stored,) = Episode.objects.filter(graph=graph)
    assert stored.supplied["entities"] == [{
        "name": "Bug 446261", "type": "WorkItem",
        "title": "Clear Private Data should also reset last directory saved to"}]
    assert [(r.line, r.field) for r in report.results if r.status == "rejected"] == [
        (2, "entities[0].title"), (3, "entities[0].title")]


@pytest.mark.django_db
def test_an_items_labels_and_priority_are_kept_as_metadata_and_wrong_shapes_refused(
    graph: Graph,
) -> None:
    item = {"name": "Bug 452258", "type": "WorkItem", "title": "Ask whether…",
            "labels": ["perf", " testcase "], "priority": "P3"}
    report = ingest_records(graph, [
        (1, line(external_id="labelled", entities=[item])),
        (2, line(external_id="not-a-list", entities=[{**item, "labels": "perf"}])),
        (3, line(external_id="not-text", entities=[{**item, "priority": 3}])),
    ], process=False)

    (stored,) = Episode.objects.filter(graph=graph)
    assert stored.supplied["entities"] == [{
        "name": "Bug 452258", "type": "WorkItem", "title": "Ask whether…",
        "labels": ["perf", "testcase"], "priority": "P3"}]
    assert [(r.line, r.field) for r in report.results if r.status == "rejected"] == [
        (2, "entities[0].labels"), (3, "entities[0].priority")]


@pytest.mark.django_db
def test_a_json_array_is_read_like_json_lines(graph: Graph) -> None:
    payload = json.dumps([line(), line(external_id="x2")]).encode()

    report = ingest_records(graph, read_records(payload), process=False)

    assert report.stored == 2


@pytest.mark.django_db
def test_a_message_written_as_name_colon_text_takes_name_as_author(graph: Graph) -> None:
    record = line(type="message", author=None, content="Bob: I'm waiting on the auth refactor.")

    ingest_records(graph, [(1, record)], process=False)

    assert Episode.objects.get(graph=graph).author == "Bob"


BAD_LINES: list[tuple[str, bytes, str]] = [
    ("malformed JSON", b'{"author": "Alice", ', "line 2: line: malformed JSON"),
    ("missing reference_time", json.dumps(line(reference_time=None)).encode(),
     "line 2: reference_time: is required"),
    ("timestamp without offset", json.dumps(line(reference_time="2026-11-23T09:00:00")).encode(),
     "line 2: reference_time: '2026-11-23T09:00:00' has no UTC offset"),
    ("impossible UTC offset", json.dumps(line(reference_time="0164-05-07T06:10:34+21:05")).encode(),
     "line 2: reference_time: '0164-05-07T06:10:34+21:05' has a UTC offset beyond ±15:59"),
    ("unparseable timestamp", json.dumps(line(reference_time="next tuesday")).encode(),
     "line 2: reference_time: 'next tuesday' is not an ISO 8601 timestamp"),
    ("unknown type", json.dumps(line(type="audio")).encode(),
     "line 2: type: unknown type 'audio'; use one of text, message, json"),
    ("empty content", json.dumps(line(content="   ")).encode(), "line 2: content: is empty"),
    ("data not an object", json.dumps(line(type="json", content=None, data=[1, 2])).encode(),
     "line 2: data: must be a JSON object for json episodes"),
    ("unknown relation", json.dumps(line(facts=[
        {"source": "API Migration", "relation": "ADMIRES", "target": "Auth Service"}
    ])).encode(), "line 2: facts[0].relation: unknown relation 'ADMIRES'; known relations: "),
    ("self-loop fact", json.dumps(line(facts=[
        {"source": "API Migration", "relation": "DEPENDS_ON", "target": "the API migration"}
    ])).encode(), "line 2: facts[0]: a fact cannot link 'API Migration' to itself"),
    ("oversized content", json.dumps(line(content="x" * (MAX_CONTENT_BYTES + 1))).encode(),
     "line 2: content: is 65,537 bytes; the limit is 65,536 bytes (64 KB)"),
    ("non-UTF-8 bytes", b'{"author": "Al\xffice"}',
     "line 2: line: not valid UTF-8 (invalid start byte at byte 14)"),
    ("not an object", b"[1, 2]", "line 2: line: must be a JSON object"),
    ("unknown entity type", json.dumps(line(entities=[{"name": "X", "type": "Planet"}])).encode(),
     "line 2: entities[0].type: unknown entity type 'Planet'"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("case", "bad", "message"), BAD_LINES, ids=[c[0] for c in BAD_LINES])
def test_a_bad_line_is_reported_and_the_good_lines_are_still_stored(
    graph: Graph, tmp_path: Path, case: str, bad: bytes, message: str
) -> None:
    good_before = json.dumps(line(external_id="before")).encode()
    good_after = json.dumps(line(external_id="after")).encode()

    code, out, err = run_ingest(tmp_path, b"\n".join([good_before, bad, good_after]))

    assert code == 1
    assert out == "stored 2, duplicates 0, rejected 1\n"
    assert err.startswith(message), err
    assert "Traceback" not in err
    assert sorted(Episode.objects.filter(graph=graph).values_list("external_id", flat=True)) == [
        "after", "before"
    ]


@pytest.mark.django_db
def test_an_unknown_graph_needs_create(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_bytes(jsonl([line()]))

    with pytest.raises(CommandError, match="unknown graph 'nowhere'; pass --create"):
        call_command("ingest", str(path), "--graph", "nowhere", "--no-process")

    call_command("ingest", str(path), "--graph", "nowhere", "--create", "--no-process",
                 stdout=io.StringIO())
    assert Graph.objects.get(slug="nowhere").episodes.count() == 1


@pytest.mark.django_db
def test_a_graph_that_allows_relates_to_keeps_unknown_relations(graph: Graph) -> None:
    graph.ontology = {"allow_relates_to": True}
    graph.save()
    record = line(facts=[{"source": "Alice", "relation": "ADMIRES", "target": "Bob"}])

    report = ingest_records(graph, [(1, record)], process=False)

    assert report.stored == 1
    assert Episode.objects.get().supplied["facts"][0]["relation"] == "RELATES_TO"


@pytest.mark.django_db
def test_blocks_is_stored_as_the_reversed_depends_on(graph: Graph) -> None:
    record = line(facts=[{"source": "Auth Refactor", "relation": "BLOCKS",
                          "target": "API Migration"}])

    ingest_records(graph, [(1, record)], process=False)

    fact = Episode.objects.get().supplied["facts"][0]
    assert (fact["source"], fact["relation"], fact["target"]) == (
        "API Migration", "DEPENDS_ON", "Auth Refactor"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(("case", "poisoned", "field", "reason"), POISONS,
                         ids=[p[0] for p in POISONS])
def test_a_poisoned_line_is_rejected_with_its_field_and_every_good_line_is_stored(
    graph: Graph, tmp_path: Path, case: str, poisoned: str, field: str, reason: str
) -> None:
    good = [json.dumps(line(external_id=f"good-{n}")).encode() for n in range(4)]

    code, out, err = run_ingest(tmp_path, b"\n".join([*good[:2], poisoned.encode(), *good[2:]]))

    assert (code, out) == (1, "stored 4, duplicates 0, rejected 1\n")
    assert err.startswith(f"line 3: {field}: {reason}"), err
    assert "Traceback" not in err
    assert Episode.objects.filter(graph=graph).count() == 4


@pytest.mark.django_db
@pytest.mark.parametrize(("case", "poisoned", "field", "reason"), POISONS,
                         ids=[p[0] for p in POISONS])
def test_a_poisoned_item_of_a_json_array_spoils_only_itself(
    graph: Graph, case: str, poisoned: str, field: str, reason: str
) -> None:
    good = [json.dumps(line(external_id=f"good-{n}")) for n in range(2)]
    payload = f"[{good[0]}, {poisoned}, {good[1]}]".encode()

    report = ingest_records(graph, read_records(payload), process=False)

    assert (report.stored, report.rejected) == (2, 1)
    rejected = report.results[1]
    assert (rejected.line, rejected.field) == (2, field)
    assert rejected.reason.startswith(reason)


@pytest.mark.django_db
def test_the_database_refuses_a_second_copy_of_an_episode_without_external_id(
    graph: Graph,
) -> None:
    from django.db import IntegrityError, transaction

    ingest_records(graph, [(1, line(external_id=None))], process=False)
    first = Episode.objects.get()

    with pytest.raises(IntegrityError), transaction.atomic():
        Episode.objects.create(graph=graph, content=first.content, content_hash=first.content_hash,
                               reference_time=first.reference_time)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_identical_batches_without_external_ids_store_each_episode_once() -> None:
    """20 requests post the same 200 records at once: 200 episodes, whoever wins each."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection, connections

    from tests.conftest import require

    require(connection.vendor == "postgresql", "concurrent writers need PostgreSQL")
    graph = Graph.objects.create(slug="race", name="Race")
    records = [line(external_id=None, content=f"Update {n}: the work item is on track.")
               for n in range(200)]

    def post(_: int) -> tuple[int, int]:
        try:
            report = ingest_records(graph, list(enumerate(records, start=1)), process=False)
            return report.stored, report.duplicates
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=20) as pool:
        outcomes = list(pool.map(post, range(20)))

    assert Episode.objects.filter(graph=graph).count() == 200
    assert sum(stored for stored, _ in outcomes) == 200
    assert sum(duplicates for _, duplicates in outcomes) == 19 * 200


@pytest.mark.django_db
@pytest.mark.parametrize("shape", ["jsonl", "array"])
def test_a_utf8_byte_order_mark_at_the_start_of_a_file_is_not_part_of_line_1(
    graph: Graph, shape: str
) -> None:
    """Windows editors save UTF-8 with a byte-order mark; it is not content."""
    records = [line(external_id="one"), line(external_id="two")]
    body = jsonl(records) if shape == "jsonl" else json.dumps(records).encode()

    report = ingest_records(graph, read_records(b"\xef\xbb\xbf" + body), process=False)

    assert (report.stored, report.rejected) == (2, 0), report.results


@pytest.mark.django_db
def test_an_author_role_is_stored_by_its_name_or_as_the_corpus_calls_it(graph: Graph) -> None:
    report = ingest_records(graph, [
        (1, line(external_id="agent", author="dannyneira", author_role="agent")),
        (2, line(external_id="corpus", author="hackenstacks", role="customer")),
        (3, line(external_id="desk", author="Kim", role="end-user")),
        (4, line(external_id="none", author="Alice")),
        (5, line(external_id="own-role", author="Bob", role="maintainer of the docs")),
        (6, line(external_id="bad", author="Eve", author_role="boss")),
    ], process=False)

    roles = dict(Episode.objects.filter(graph=graph).values_list("external_id", "author_role"))
    assert roles == {"agent": "agent", "corpus": "customer", "desk": "customer", "none": "",
                     "own-role": ""}  # a record's own "role" of another kind is ignored
    assert [(r.line, r.field) for r in report.results if r.status == "rejected"] == [
        (6, "author_role")]


@pytest.mark.django_db
def test_a_record_without_a_role_hashes_as_before(graph: Graph) -> None:
    record = line(external_id=None)
    ingest_records(graph, [(1, record)], process=False)

    again = ingest_records(graph, [(1, {**record, "role": None})], process=False)

    assert again.duplicates == 1


@pytest.mark.django_db
def test_a_support_threads_title_line_titles_its_thread(graph: Graph) -> None:
    # warp-8587-hackenstacks-2026-02-06: "# Web Site Login Loop #8587"
    url = "https://github.com/warpdotdev/warp/issues/8587"
    record = line(external_id=None, author="hackenstacks", source="support:warpdotdev/warp",
                  url=url, content="# Web Site Login Loop #8587\n\n### Describe the bug\n\n"
                                   "I have tried to login with google.")
    ingest_records(graph, [(1, record)], process=False)
    again = ingest_records(graph, [(1, record)], process=False)

    stored = Episode.objects.get(graph=graph)
    assert stored.supplied == {"entities": [{"name": "warpdotdev/warp#8587", "type": "WorkItem",
                                             "title": "Web Site Login Loop"}], "facts": []}
    assert again.duplicates == 1  # the title is read from the content: the hash is the record's
