"""Reading export files: JSON (Lines, arrays, wrapped lists) and CSV, with the position of every
record, and what a file looks like when it is not what an importer expected."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

from memory.importers.model import Problem, WrongFormat

Record = tuple[str, Any]
"""``(position, parsed object)``; the object is a ``Problem`` when the record could not be read."""


def decode(payload: bytes, expected: str) -> str:
    if payload.startswith(b"\xef\xbb\xbf"):  # a byte order mark (spreadsheets write one)
        payload = payload[3:]
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WrongFormat(expected, f"a file that is not UTF-8 text (byte {exc.start})") from None


def json_records(payload: bytes, expected: str, wrappers: tuple[str, ...] = ()) -> list[Record]:
    """Records of JSON Lines, of one JSON array, or of one object wrapping a list under one of
    ``wrappers`` (``{"bugs": [...]}``, ``{"issues": [...]}``); a line that is not JSON is a
    problem at its line. Several pages (``gh api --paginate`` writes one array a page, a line
    each) are read one after another. Lines are parsed as bytes, each decoded on its own:
    decoding a whole export first costs as much again."""
    if payload.startswith(b"\xef\xbb\xbf"):
        payload = payload[3:]
    lines = payload.split(b"\n")
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        raise WrongFormat(expected, "an empty file")
    if not _parses(first):
        # Not JSON Lines: one JSON document spread over lines (an API answer, pretty-printed).
        try:
            whole = json.loads(payload)
        except UnicodeDecodeError as exc:
            raise WrongFormat(expected, f"a file that is not UTF-8 text (byte {exc.start})"
                              ) from None
        except json.JSONDecodeError as exc:
            raise WrongFormat(expected, f"text that is not JSON ({exc.msg} at line "
                                        f"{exc.lineno})") from None
        return list(_unwrap(whole, wrappers, "item"))
    records: list[Record] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except UnicodeDecodeError as exc:
            records.append((f"line {number}", Problem(f"line {number}",
                                                      f"not UTF-8 text (byte {exc.start})")))
            continue
        except json.JSONDecodeError as exc:
            records.append((f"line {number}", Problem(f"line {number}",
                                                      f"malformed JSON: {exc.msg}")))
            continue
        # A page of items on one line (``gh api --paginate`` without --jq) is read item by item.
        if isinstance(value, list) or (isinstance(value, dict) and _wrapped(value, wrappers)):
            records.extend((f"line {number}, {pos}", obj)
                           for pos, obj in _unwrap(value, wrappers, "item"))
        else:
            records.append((f"line {number}", value))
    return records


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _wrapped(value: dict[str, Any], wrappers: tuple[str, ...]) -> str | None:
    return next((key for key in wrappers if isinstance(value.get(key), list)), None)


def _unwrap(value: Any, wrappers: tuple[str, ...], label: str) -> Iterator[Record]:
    if isinstance(value, dict):
        key = _wrapped(value, wrappers)
        if key is not None:
            value = value[key]
        else:
            yield (f"{label} 1", value)
            return
    if isinstance(value, list):
        for index, item in enumerate(value, start=1):
            yield (f"{label} {index}", item)
    else:
        yield (f"{label} 1", value)


def csv_rows(payload: bytes, expected: str,
             required: tuple[str, ...]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The header and each data row with its position (``row 2`` is the first one after the
    header, as a spreadsheet numbers it). Refuses a file without the ``required`` columns."""
    text = decode(payload, expected)
    if not text.strip():
        raise WrongFormat(expected, "an empty file")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [name.strip() for name in next(reader)]
    except (StopIteration, csv.Error):
        raise WrongFormat(expected, "no CSV header") from None
    missing = [name for name in required if name not in header]
    if missing:
        raise WrongFormat(expected, describe_csv(header, missing))
    rows: list[tuple[str, list[str]]] = []
    try:
        for number, row in enumerate(reader, start=2):
            if any(cell.strip() for cell in row):
                rows.append((f"row {number}", row))
    except csv.Error as exc:
        rows.append((f"row {reader.line_num}", [f"\0{exc}"]))
    return header, rows


def describe_csv(header: list[str], missing: list[str]) -> str:
    shown = ", ".join(header[:6]) + (", …" if len(header) > 6 else "")
    if header and header[0].lstrip().startswith(("{", "[")):
        return "JSON, not CSV"
    return f"CSV columns {shown} (no {', '.join(missing)})"


def describe(value: Any) -> str:
    """What a record looks like, in words, for a wrong-format error."""
    if isinstance(value, Problem):
        return f"text that is not JSON ({value.reason})"
    if not isinstance(value, dict):
        return f"a JSON {type(value).__name__}, not an object"
    keys = set(value)
    if {"number", "html_url"} <= keys:
        return "GitHub issues (objects with number and html_url)"
    if {"id", "summary", "creation_time"} <= keys:
        return "Bugzilla bugs (objects with id, summary and creation_time)"
    if {"key", "fields"} <= keys:
        return "Jira issues (objects with key and fields)"
    if {"reference_time"} <= keys:
        return "episodes in our JSON Lines format (use manage.py ingest)"
    shown = ", ".join(sorted(keys)[:6]) + (", …" if len(keys) > 6 else "")
    return f"JSON objects with fields {shown}" if keys else "empty JSON objects"


def first_of_shape(records: list[Record], looks_right: Callable[[Any], bool],
                   expected: str) -> None:
    """Refuse the whole file when no record has the expected shape."""
    if not records:
        raise WrongFormat(expected, "no records")
    if not any(looks_right(value) for _, value in records):
        raise WrongFormat(expected, describe(records[0][1]))
