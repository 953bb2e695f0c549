"""Ingestion: validate incoming episodes, store them idempotently, enqueue their processing.

Used by the ``ingest`` command, the pages and the APIs. Every record is validated completely
before anything is written, so a bad record is reported (with its line, field and reason) and never
leaves a half-written episode; good records are still stored.

The record format (one JSON object per line, or one JSON array of them)::

    {"external_id": "wk48-alice",            # optional idempotency key
     "author": "Alice",
     "reference_time": "2026-11-23T09:00:00+00:00",   # required, ISO 8601 with offset
     "type": "text",                          # text | message | json (default text)
     "content": "The API migration is blocked...",    # text and message
     "data": {...},                           # json episodes: an object
     "source": "weekly-status",
     "url": "https://tracker.example/browse/ATL-12",   # optional: where it lives (http/https)
     "author_role": "agent",                  # optional: customer | agent (also as "role")
     "entities": [{"name": "Alice", "type": "Person"}],          # optional, pre-extracted
                                              # (an importer's item: {"name": "ATL-12",
                                              #  "type": "WorkItem", "title": "Checkout…"})
     "facts": [{"source": "API Migration", "relation": "DEPENDS_ON",
                "target": "Auth Service Refactor", "fact": "...", "valid_at": "...",
                "invalid_at": null, "source_type": "WorkItem", "target_type": "WorkItem"}],
     "read_text": true}                       # optional: read the content too (see below)

Given facts are used as they are and the content is not read again — unless ``read_text`` is
true: then the text extractor (the rules, or the model) also reads the content and its facts are
recorded beside the given ones. Importers set it on what people wrote (a ticket's description, a
comment, a chat message): the help desk states the ticket, its customer and status; the words
state the problem.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from django.db import IntegrityError, transaction
from django.utils import timezone

from memory.graph_settings import ontology_for
from memory.json_input import Unreadable, decode, first_problem
from memory.models import Episode, Graph
from memory.names import normalize_name
from memory.ontology import Ontology
from memory.support import thread_of, thread_title

MAX_CONTENT_BYTES = 64 * 1024
MAX_AUTHOR_LENGTH = 200
MAX_SOURCE_LENGTH = 100
MAX_EXTERNAL_ID_LENGTH = 255
MAX_URL_LENGTH = 500
MAX_TITLE_LENGTH = 300
MAX_FACTS_PER_EPISODE = 200
WRITE_BATCH = 500
MAX_UTC_OFFSET = timedelta(hours=16)

STORED_FIELDS = ("external_id", "author", "reference_time", "type", "source", "content", "data",
                 "entities", "facts")
"""The fields of a record that are stored: a NUL, an unpaired surrogate, an unreadable number or
nesting deeper than ``json_input.MAX_DEPTH`` in one of them rejects the record (other fields are
ignored, whatever they hold)."""

# Zep's convention for chat messages: "Name: text" names its author.
_MESSAGE_AUTHOR = re.compile(r"^\s*([^:\n]{1,80}?)\s*:\s+(\S.*)$", re.DOTALL)

Outcome = Literal["stored", "duplicate", "rejected"]


class InvalidEpisode(ValueError):
    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name
        self.reason = reason


@dataclass(frozen=True)
class EpisodeInput:
    """A validated record, ready to store."""

    reference_time: datetime
    author: str = ""
    type: str = Episode.Type.TEXT
    content: str = ""
    data: dict[str, Any] | None = None
    source: str = ""
    external_id: str | None = None
    supplied: dict[str, Any] | None = None
    url: str = ""
    author_role: str = ""
    thread_title: str = ""
    """The title its first line gives the thread its url names (``support.thread_title``): kept
    with the episode as an importer's item title is, outside the hash (read from the content)."""

    @property
    def stored_supplied(self) -> dict[str, Any] | None:
        """What is stored as given: the given entities and facts, or the thread's title."""
        thread = thread_of(self.url) if self.thread_title else None
        if self.supplied is not None or not thread:
            return self.supplied
        return {"entities": [{"name": thread, "type": "WorkItem", "title": self.thread_title}],
                "facts": []}

    @property
    def content_hash(self) -> str:
        fields: list[Any] = [self.author, self.reference_time.isoformat(), self.type,
                             self.content, self.data, self.source, self.supplied]
        if self.url:  # appended only when given: hashes of records without one stay as they were
            fields.append(self.url)
        if self.author_role:  # likewise
            fields.append({"author_role": self.author_role})
        canonical = json.dumps(
            fields,
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass
class LineResult:
    line: int
    status: Outcome
    episode_uuid: str | None = None
    field: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class IngestReport:
    results: list[LineResult] = field(default_factory=list)
    stored_ids: list[int] = field(default_factory=list)

    def count(self, status: Outcome) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def stored(self) -> int:
        return self.count("stored")

    @property
    def duplicates(self) -> int:
        return self.count("duplicate")

    @property
    def rejected(self) -> int:
        return self.count("rejected")

    def summary(self) -> str:
        return f"stored {self.stored}, duplicates {self.duplicates}, rejected {self.rejected}"


# --- Reading -----------------------------------------------------------------------------------


def read_records(payload: bytes) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, parsed JSON or InvalidEpisode)`` from JSON Lines, or from one JSON
    array (numbered by item). Blank lines are skipped; a line that is not UTF-8 or not JSON is
    yielded as an ``InvalidEpisode`` so the caller reports it and goes on. A UTF-8 byte-order
    mark at the start (Windows editors write one) is not content."""
    payload = payload.removeprefix(codecs.BOM_UTF8)
    stripped = payload.lstrip()
    if stripped.startswith(b"["):
        try:
            items = decode(payload.decode("utf-8"))
        except UnicodeDecodeError as exc:
            yield 1, InvalidEpisode("line", f"not valid UTF-8 ({exc.reason} at byte {exc.start})")
            return
        except json.JSONDecodeError as exc:
            yield 1, InvalidEpisode("line", f"malformed JSON array: {exc.msg} at char {exc.pos}")
            return
        if isinstance(items, list):
            yield from enumerate(items, start=1)
            return
    for number, raw in enumerate(payload.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield number, InvalidEpisode(
                "line", f"not valid UTF-8 ({exc.reason} at byte {exc.start})"
            )
            continue
        try:
            yield number, decode(text)
        except json.JSONDecodeError as exc:
            yield number, InvalidEpisode("line", f"malformed JSON: {exc.msg} at column {exc.colno}")


# --- Validation --------------------------------------------------------------------------------


def parse_timestamp(value: Any, field_name: str) -> datetime:
    if not isinstance(value, str) or not value.strip():
        raise InvalidEpisode(field_name, "must be an ISO 8601 timestamp with an offset")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise InvalidEpisode(
            field_name, f"{value!r} is not an ISO 8601 timestamp (e.g. 2026-11-23T09:00:00+00:00)"
        ) from None
    offset = parsed.utcoffset()
    if parsed.tzinfo is None or offset is None:
        raise InvalidEpisode(
            field_name, f"{value!r} has no UTC offset; add one, e.g. +00:00 or Z"
        )
    # Python accepts offsets up to ±23:59, PostgreSQL only up to ±15:59 (real ones are within
    # -12:00..+14:00): refuse the rest here rather than fail in the database.
    if abs(offset) >= MAX_UTC_OFFSET:
        raise InvalidEpisode(
            field_name, f"{value!r} has a UTC offset beyond ±15:59; real ones are -12:00 to +14:00"
        )
    return parsed


def _optional_string(record: dict[str, Any], name: str, limit: int) -> str:
    value = record.get(name)
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool) and name == "external_id":
        value = str(value)
    if not isinstance(value, str):
        raise InvalidEpisode(name, "must be a string")
    if len(value) > limit:
        raise InvalidEpisode(name, f"is {len(value)} characters; the limit is {limit}")
    return value.strip()


def _check_size(name: str, size: int) -> None:
    if size > MAX_CONTENT_BYTES:
        raise InvalidEpisode(
            name, f"is {size:,} bytes; the limit is {MAX_CONTENT_BYTES:,} bytes (64 KB)"
        )


def parse_episode(record: Any, ontology: Ontology) -> EpisodeInput:
    """Validate one record; raise ``InvalidEpisode`` naming the field and the reason."""
    if isinstance(record, InvalidEpisode):
        raise record
    if isinstance(record, Unreadable):
        raise InvalidEpisode("line", record.reason)
    if not isinstance(record, dict):
        raise InvalidEpisode("line", "must be a JSON object")
    for name in STORED_FIELDS:
        problem = first_problem(record[name], name) if name in record else None
        if problem is not None:
            raise InvalidEpisode(*problem)
    if "reference_time" not in record or record["reference_time"] in (None, ""):
        raise InvalidEpisode("reference_time", "is required (ISO 8601 with offset)")
    reference_time = parse_timestamp(record["reference_time"], "reference_time")

    episode_type = record.get("type") or Episode.Type.TEXT
    if episode_type not in Episode.Type.values:
        raise InvalidEpisode(
            "type", f"unknown type {episode_type!r}; use one of {', '.join(Episode.Type.values)}"
        )
    author = _optional_string(record, "author", MAX_AUTHOR_LENGTH)
    source = _optional_string(record, "source", MAX_SOURCE_LENGTH)
    external_id = _optional_string(record, "external_id", MAX_EXTERNAL_ID_LENGTH) or None
    url = _optional_string(record, "url", MAX_URL_LENGTH)
    if url and not re.match(r"^https?://[^\s/]+", url):
        raise InvalidEpisode("url", "must be an http:// or https:// address")
    author_role = parse_author_role(record)

    content, data = "", None
    if episode_type == Episode.Type.JSON:
        data = record.get("data")
        if not isinstance(data, dict):
            raise InvalidEpisode("data", "must be a JSON object for json episodes")
        _check_size("data", len(json.dumps(data, ensure_ascii=False).encode()))
        if not data:
            raise InvalidEpisode("data", "is empty")
    else:
        given = record.get("content")
        if not isinstance(given, str):
            raise InvalidEpisode("content", "must be a string for text and message episodes")
        content = given
        _check_size("content", len(content.encode()))
        if not content.strip():
            raise InvalidEpisode("content", "is empty")
        if episode_type == Episode.Type.MESSAGE and not author:
            match = _MESSAGE_AUTHOR.match(content)
            if match:
                author = match.group(1).strip()

    supplied = _parse_supplied(record, ontology)
    titled = thread_title(content, url) if supplied is None and content else None
    return EpisodeInput(
        reference_time=reference_time,
        author=author,
        type=episode_type,
        content=content,
        data=data,
        source=source,
        external_id=external_id,
        supplied=supplied,
        url=url,
        author_role=author_role,
        thread_title=titled[1][:MAX_TITLE_LENGTH] if titled else "",
    )


MAX_LABELS = 50
MAX_LABEL_LENGTH = 200


def _item_metadata(where: str, item: Mapping[str, Any]) -> dict[str, Any]:
    """A tracker item's ``labels`` (strings) and ``priority`` (a string), kept as they were
    given: metadata of the episode, never facts (absent when empty: earlier records hash as
    they did)."""
    found: dict[str, Any] = {}
    labels = item.get("labels")
    if labels is not None:
        if not isinstance(labels, list) or len(labels) > MAX_LABELS or not all(
                isinstance(label, str) and len(label) <= MAX_LABEL_LENGTH for label in labels):
            raise InvalidEpisode(f"{where}.labels", f"must be a list of at most {MAX_LABELS} "
                                 f"strings of at most {MAX_LABEL_LENGTH} characters")
        if kept := [" ".join(label.split()) for label in labels if label.strip()]:
            found["labels"] = kept
    priority = item.get("priority")
    if priority is not None:
        if not isinstance(priority, str) or len(priority) > MAX_LABEL_LENGTH:
            raise InvalidEpisode(f"{where}.priority",
                                 f"must be a string of at most {MAX_LABEL_LENGTH} characters")
        if priority.strip():
            found["priority"] = priority.strip()
    return found


AUTHOR_ROLE_ALIASES = {"customer": "customer", "agent": "agent", "end-user": "customer",
                       "end_user": "customer", "requester": "customer", "staff": "agent",
                       "vendor": "agent", "admin": "agent"}
"""The author roles a record may state, and what each is stored as."""


def parse_author_role(record: dict[str, Any]) -> str:
    """The record's ``author_role`` (or ``role``, the support corpus's and many exports' name):
    ``customer`` or ``agent``, empty when not given. An unknown ``author_role`` is refused; an
    unknown ``role`` is ignored (records were free to carry a ``role`` of their own before)."""
    value = record.get("author_role")
    if value not in (None, ""):
        if not isinstance(value, str) or value.strip().lower() not in AUTHOR_ROLE_ALIASES:
            raise InvalidEpisode("author_role", f"unknown role {value!r}; use customer or agent")
        return AUTHOR_ROLE_ALIASES[value.strip().lower()]
    value = record.get("role")
    return AUTHOR_ROLE_ALIASES.get(value.strip().lower(), "") if isinstance(value, str) else ""


def _parse_supplied(record: dict[str, Any], ontology: Ontology) -> dict[str, Any] | None:
    entities_raw = record.get("entities")
    facts_raw = record.get("facts")
    read_text = record.get("read_text")
    if read_text is not None and not isinstance(read_text, bool):
        raise InvalidEpisode("read_text", "must be true or false")
    if entities_raw is None and facts_raw is None:
        return None
    entities = []
    if entities_raw is not None:
        if not isinstance(entities_raw, list):
            raise InvalidEpisode("entities", "must be a list of {name, type}")
        for i, item in enumerate(entities_raw):
            where = f"entities[{i}]"
            if not isinstance(item, dict):
                raise InvalidEpisode(where, "must be an object {name, type}")
            name = item.get("name")
            if not isinstance(name, str) or not name.strip():
                raise InvalidEpisode(f"{where}.name", "is required")
            entity_type = item.get("type")
            if entity_type is not None:
                _check_type(f"{where}.type", entity_type, ontology)
            entity = {"name": name.strip(), "type": entity_type}
            title = item.get("title")
            if title is not None:
                if not isinstance(title, str) or len(title) > MAX_TITLE_LENGTH:
                    raise InvalidEpisode(f"{where}.title",
                                         f"must be a string of at most {MAX_TITLE_LENGTH} "
                                         "characters")
                if title.strip():  # absent otherwise: earlier records hash as they did
                    entity["title"] = " ".join(title.split())
            entity.update(_item_metadata(where, item))
            entities.append(entity)
    facts = []
    if facts_raw is not None:
        if not isinstance(facts_raw, list):
            raise InvalidEpisode("facts", "must be a list of facts")
        if len(facts_raw) > MAX_FACTS_PER_EPISODE:
            raise InvalidEpisode(
                "facts", f"has {len(facts_raw)} facts; the limit is {MAX_FACTS_PER_EPISODE}"
            )
        facts = [_parse_fact(i, item, ontology) for i, item in enumerate(facts_raw)]
    supplied: dict[str, Any] = {"entities": entities, "facts": facts}
    if read_text and facts:
        supplied["read_text"] = True  # absent otherwise: earlier records hash as they did
    return supplied


def _check_type(where: str, value: Any, ontology: Ontology) -> None:
    if value not in ontology.entity_types:
        raise InvalidEpisode(
            where, f"unknown entity type {value!r}; use one of {', '.join(ontology.entity_types)}"
        )


def _parse_fact(index: int, item: Any, ontology: Ontology) -> dict[str, Any]:
    where = f"facts[{index}]"
    if not isinstance(item, dict):
        raise InvalidEpisode(where, "must be an object {source, relation, target, ...}")
    for key in ("source", "relation", "target"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise InvalidEpisode(f"{where}.{key}", "is required")
    source, target = item["source"].strip(), item["target"].strip()
    source_type, target_type = item.get("source_type"), item.get("target_type")
    for key, value in (("source_type", source_type), ("target_type", target_type)):
        if value is not None:
            _check_type(f"{where}.{key}", value, ontology)
    normalized = ontology.normalize_relation(item["relation"])
    if normalized is None:
        if not ontology.allow_relates_to:
            known = ", ".join(r for r in ontology.relations if r != "RELATES_TO")
            raise InvalidEpisode(
                f"{where}.relation",
                f"unknown relation {item['relation']!r}; known relations: {known}",
            )
        normalized = ("RELATES_TO", False)
    relation, reverse = normalized
    if reverse:
        source, target = target, source
        source_type, target_type = target_type, source_type
    if normalize_name(source) == normalize_name(target):
        raise InvalidEpisode(where, f"a fact cannot link {source!r} to itself")
    valid_at = (
        parse_timestamp(item["valid_at"], f"{where}.valid_at") if item.get("valid_at") else None
    )
    invalid_at = (
        parse_timestamp(item["invalid_at"], f"{where}.invalid_at")
        if item.get("invalid_at")
        else None
    )
    if valid_at and invalid_at and invalid_at < valid_at:
        raise InvalidEpisode(f"{where}.invalid_at", "is before valid_at")
    sentence = item.get("fact")
    if sentence is not None and not isinstance(sentence, str):
        raise InvalidEpisode(f"{where}.fact", "must be a string")
    return {
        "source": source,
        "relation": relation,
        "target": target,
        "fact": (sentence or "").strip(),
        "valid_at": valid_at.isoformat() if valid_at else None,
        "invalid_at": invalid_at.isoformat() if invalid_at else None,
        "source_type": source_type,
        "target_type": target_type,
    }


# --- Storing ---------------------------------------------------------------------------------


def ingest_records(
    graph: Graph,
    records: Iterable[tuple[int, Any]],
    *,
    now: datetime | None = None,
    process: bool = True,
) -> IngestReport:
    """Validate and store records; after commit, enqueue each stored episode's processing and
    one pipeline run for the graph. Idempotent: an ``external_id`` already stored in the graph,
    or (without one) an identical record, is reported as a duplicate and stores nothing."""
    ontology = ontology_for(graph)
    report = IngestReport()
    valid: list[tuple[int, EpisodeInput]] = []
    for number, record in records:
        try:
            valid.append((number, parse_episode(record, ontology)))
        except InvalidEpisode as exc:
            report.results.append(LineResult(number, "rejected", field=exc.field,
                                             reason=exc.reason))
    for start in range(0, len(valid), WRITE_BATCH):
        _store_batch(graph, valid[start : start + WRITE_BATCH], report, now or timezone.now())
    report.results.sort(key=lambda r: r.line)
    if process and report.stored_ids:
        from memory.tasks import enqueue_processing

        enqueue_processing(graph.pk, report.stored_ids)
    return report


def _store_batch(
    graph: Graph,
    batch: list[tuple[int, EpisodeInput]],
    report: IngestReport,
    now: datetime,
) -> None:
    external_ids = {item.external_id for _, item in batch if item.external_id}
    hashes = {item.content_hash for _, item in batch if not item.external_id}
    with transaction.atomic():
        known_external = set(
            Episode.objects.filter(graph=graph, external_id__in=external_ids).values_list(
                "external_id", flat=True
            )
        ) if external_ids else set()
        known_hashes = set(
            Episode.objects.filter(
                graph=graph, external_id__isnull=True, content_hash__in=hashes
            ).values_list("content_hash", flat=True)
        ) if hashes else set()
        new: list[tuple[int, Episode]] = []
        for number, item in batch:
            digest = item.content_hash
            if item.external_id:
                if item.external_id in known_external:
                    report.results.append(LineResult(number, "duplicate",
                                                     reason="external_id already stored"))
                    continue
                known_external.add(item.external_id)
            else:
                if digest in known_hashes:
                    report.results.append(LineResult(number, "duplicate",
                                                     reason="identical episode already stored"))
                    continue
                known_hashes.add(digest)
            new.append((number, Episode(
                graph=graph,
                external_id=item.external_id,
                author=item.author,
                source=item.source,
                url=item.url,
                author_role=item.author_role,
                type=item.type,
                content=item.content,
                data=item.data,
                supplied=item.stored_supplied,
                reference_time=item.reference_time,
                ingested_at=now,
                content_hash=digest,
            )))
        try:
            with transaction.atomic():
                Episode.objects.bulk_create([episode for _, episode in new])
            stored = new
        except IntegrityError:
            # Another request stored one of these episodes (the same external id, or the same
            # record without one) between our check and our insert; fall back to one savepoint
            # per episode so the others are still stored.
            stored = []
            for number, episode in new:
                try:
                    with transaction.atomic():
                        episode.save(force_insert=True)
                    stored.append((number, episode))
                except IntegrityError:
                    report.results.append(LineResult(number, "duplicate", reason=(
                        "external_id already stored" if episode.external_id
                        else "identical episode already stored")))
    for number, episode in stored:
        report.results.append(LineResult(number, "stored", episode_uuid=str(episode.uuid)))
        report.stored_ids.append(episode.pk)


def ingest_one(graph: Graph, record: dict[str, Any], **kwargs: Any) -> IngestReport:
    return ingest_records(graph, [(1, record)], **kwargs)
