"""The one mapping layer: tool-independent items and changes → episode records with structured
facts (the ``manage.py ingest`` record format), one episode per change at the time it happened.

What each part of an item becomes (the ontology's names):

* the item: an entity named by its key (``Bug 1388990``, ``ATL-12``), typed ``Item.type``;
* its reporters: ``reporter REPORTED item``, restated by every episode of the item that changes
  its status, assignees or what it depends on (not by a tracker's bookkeeping: adding a child to
  a [meta] bug, a see-also). That is the thread: ``REPORTED`` links by target, so an item's
  episodes share one signature that no other item has — its status changes, assignee changes
  and link changes cluster together, while statuses (``HAS_STATUS`` links nothing) and labels
  (no facts) never become hubs. A final status ends the thread (the resolution rules end
  ``REPORTED``), and a final item's later changes do not restate it, so a finished item leaves
  the board (a reopened one comes back);
* a status: ``item HAS_STATUS status`` (single-valued: the new one closes the old);
* an assignee: ``person RESPONSIBLE_FOR item``; unassigned: the same fact with ``invalid_at``;
* a link: ``DEPENDS_ON`` (blocks reversed), ``TRACKS`` (a tracking item's dependencies: a [meta]
  bug's or an epic's children), ``DUPLICATE_OF``, ``REPLACES``, ``RELATES_TO``; a removed link:
  the same fact with only ``invalid_at``, which ends it at that time. Links that join two lines
  of work (depends, duplicate, replaces) also restate the other item's reporters when the export
  has it, so two items a person linked are one thread even when only one side recorded the link.

Labels, priority, milestones and components are words in the episode, never facts.

What people wrote (``Change.text``: a ticket's description, a comment, a chat message) is the
episode's content, and the record asks for it to be read (``read_text``): the text extractor
finds the problem in the words, beside the facts the tool states. A change with words joins its
item's thread like a status change does (a customer's reply is part of their ticket). Facts a
tool keeps in fields (``Change.statements``: a custom field mapped to an Issue, a plan) are
recorded as given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.importers.model import Change, Item, ItemLink, LinkKind, Party
from memory.ontology import default_ontology

# link kind → (relation, whether the item carrying the link is the fact's source, whether the
# link joins the two items' threads)
LINK_RELATIONS: dict[LinkKind, tuple[str, bool, bool]] = {
    LinkKind.DEPENDS_ON: ("DEPENDS_ON", True, True),
    LinkKind.BLOCKS: ("DEPENDS_ON", False, True),
    LinkKind.TRACKS: ("TRACKS", True, False),
    LinkKind.TRACKED_BY: ("TRACKS", False, False),
    LinkKind.DUPLICATE_OF: ("DUPLICATE_OF", True, True),
    LinkKind.DUPLICATED_BY: ("DUPLICATE_OF", False, True),
    LinkKind.REPLACES: ("REPLACES", True, True),
    LinkKind.REPLACED_BY: ("REPLACES", False, True),
    LinkKind.RELATES: ("RELATES_TO", True, False),
}

_LINK_WORDS: dict[LinkKind, str] = {
    LinkKind.DEPENDS_ON: "depends on",
    LinkKind.BLOCKS: "blocks",
    LinkKind.TRACKS: "tracks",
    LinkKind.TRACKED_BY: "is tracked by",
    LinkKind.DUPLICATE_OF: "is a duplicate of",
    LinkKind.DUPLICATED_BY: "is duplicated by",
    LinkKind.REPLACES: "replaces",
    LinkKind.REPLACED_BY: "is replaced by",
    LinkKind.RELATES: "relates to",
}

MAX_TITLE_CHARS = 300


@dataclass(frozen=True)
class MappedEpisode:
    position: str
    """Where its change came from (``line 4, change 7``), for reports."""
    item: str
    record: dict[str, Any]


def effective_kind(link: ItemLink, item: Item, trackers: Mapping[str, bool]) -> LinkKind:
    """A tracking item is a parent, never something work waits on, nor waiting itself: its
    dependencies are what it tracks (a [meta] bug's depends_on, an epic's children), and an item
    whose dependencies list a tracking item tracks it (a meta of metas) — from either side."""
    if link.kind == LinkKind.DEPENDS_ON and (item.tracker or trackers.get(link.other)):
        return LinkKind.TRACKS
    if link.kind == LinkKind.BLOCKS and (item.tracker or trackers.get(link.other)):
        return LinkKind.TRACKED_BY
    return link.kind


def map_items(items: Sequence[Item], *, since: datetime | None = None,
              is_final: Callable[[str], bool] | None = None) -> list[MappedEpisode]:
    """Every change of every item (from ``since`` on) as an episode record, in time order.

    ``is_final`` tells a final status (done or ended: the graph's ontology); an item's episodes
    stop restating its thread once it is final — its thread ended with it — and start again if
    it is reopened."""
    final = is_final or default_ontology().is_final_status
    known = {item.key: item for item in items}
    trackers = {item.key: item.tracker for item in items}
    history = {item.key: status_history(item) for item in items}

    def open_at(key: str, moment: datetime) -> bool:
        if known[key].created_at > moment:
            return False  # not there yet (a link stated before the other item existed)
        status = status_at(history[key], moment)
        return status is None or not final(status)

    mapped: list[tuple[datetime, str, int, MappedEpisode]] = []
    for item in items:
        for number, change in enumerate(item.changes, start=1):
            if since is not None and change.at < since:
                continue
            record = episode_record(item, change, known, trackers, open_at)
            if record is None:
                continue
            position = f"{item.position}, change {number}" if item.position else f"change {number}"
            mapped.append((change.at, item.key, number,
                           MappedEpisode(position=position, item=item.key, record=record)))
    # Time order: the time rules then see each item's history as it happened.
    mapped.sort(key=lambda entry: entry[:3])
    return [entry[3] for entry in mapped]


def status_history(item: Item) -> list[tuple[datetime, str]]:
    return sorted((change.at, change.status) for change in item.changes if change.status)


def status_at(history: list[tuple[datetime, str]], moment: datetime) -> str | None:
    """The item's status just after ``moment`` (the changes made then included)."""
    current = None
    for at, status in history:
        if at > moment:
            break
        current = status
    return current


def episode_record(
    item: Item,
    change: Change,
    known: Mapping[str, Item],
    trackers: Mapping[str, bool],
    open_at: Callable[[str, datetime], bool] | None = None,
) -> dict[str, Any] | None:
    """One change as an ingest record, or None when it says nothing the product records."""
    if not change.has_facts and not change.text.strip():
        return None
    when = change.at.isoformat()
    facts: list[dict[str, Any]] = []
    sentences: list[str] = []
    threads: list[Item] = []
    if (change.created or change.status or change.assignees_added or change.assignees_removed
            or change.statements or change.text.strip()):
        threads.append(item)

    if change.created:
        sentences.append(f"{_name(change.actor) or 'Someone'} opened {item.key}.")
    if change.status:
        facts.append(_fact(item.key, item.type, "HAS_STATUS", change.status, "Status",
                           f"{item.key} is {change.status}."))
        sentences.append(f"{item.key} is now {change.status}.")
    for person in change.assignees_added:
        facts.append(_fact(person.name, person.type, "RESPONSIBLE_FOR", item.key, item.type,
                           f"{item.key} is assigned to {person.name}."))
        sentences.append(f"{item.key} is assigned to {person.name}.")
    for person in change.assignees_removed:
        facts.append(_fact(person.name, person.type, "RESPONSIBLE_FOR", item.key, item.type,
                           f"{person.name} is no longer assigned to {item.key}.",
                           invalid_at=when))
        sentences.append(f"{person.name} is no longer assigned to {item.key}.")
    for link, removed in [*((link, False) for link in change.links_added),
                          *((link, True) for link in change.links_removed)]:
        if link.other == item.key:
            continue  # a tool's self-link says nothing
        kind = effective_kind(link, item, trackers)
        relation, item_is_source, joins = LINK_RELATIONS[kind]
        other_type = known[link.other].type if link.other in known else item.type
        words = _LINK_WORDS[kind]
        sentence = (f"{item.key} no longer {words} {link.other}." if removed
                    else f"{item.key} {words} {link.other}.")
        source, source_type, target, target_type = (
            (item.key, item.type, link.other, other_type) if item_is_source
            else (link.other, other_type, item.key, item.type))
        fact = _fact(source, source_type, relation, target, target_type, sentence,
                     invalid_at=when if removed else None)
        other = known.get(link.other)
        if not removed and other is not None and other.created_at > change.at:
            # An export without link history (a CSV) states the link at this item's creation;
            # it cannot hold before the other item existed.
            fact["valid_at"] = other.created_at.isoformat()
        facts.append(fact)
        sentences.append(sentence)
        if joins and not removed:
            # Two lines of work joined: both threads (a tracker's or a see-also's bookkeeping
            # joins nothing: a [meta] bug adding its hundredth child is not its history).
            threads.append(item)
            if link.other in known:
                threads.append(known[link.other])
    for statement in change.statements:
        words = statement.relation.lower().replace("_", " ")
        sentence = (f"{statement.source.name} no longer {words} {statement.target.name}."
                    if statement.ended else
                    f"{statement.source.name} {words} {statement.target.name}.")
        facts.append(_fact(statement.source.name, statement.source.type, statement.relation,
                           statement.target.name, statement.target.type, sentence,
                           invalid_at=when if statement.ended else None))
    if not facts and not change.created and not change.text.strip():
        return None
    thread_facts: list[dict[str, Any]] = []
    seen: set[str] = set()
    for thread_item in threads:
        if thread_item.key in seen or (open_at and not open_at(thread_item.key, change.at)):
            continue
        seen.add(thread_item.key)
        for reporter in thread_item.reporters:
            thread_facts.append(_fact(reporter.name, reporter.type, "REPORTED",
                                      thread_item.key, thread_item.type,
                                      f"{reporter.name} reported {thread_item.key}."))
    # The thread first: a final status in the same change then ends it, never the reverse.
    facts = thread_facts + facts
    if not facts and not change.text.strip():
        return None  # nothing to record, and an episode without facts would be read as text
    if change.note:
        sentences.append(change.note)
    # The item is named only where facts are about it (a chat message outside any thread is
    # only its words: no entity for it).
    title = item.title[:MAX_TITLE_CHARS]
    entities: list[dict[str, Any]] = []
    if facts:
        # The item's title rides along for the prose: summaries say "Bug 446261 “Clear Private
        # Data…”", never a bare key (the entity is still named by its key).
        entities.append({"name": item.key, "type": item.type, **({"title": title} if title.strip()
                                                                 else {}),
                         # What tells one item from another (metadata, never facts).
                         **({"labels": list(item.labels)} if item.labels else {}),
                         **({"priority": item.priority} if item.priority else {})})
    if change.actor is not None:
        entities.append({"name": change.actor.name, "type": change.actor.type})
    details = []
    if item.labels:
        details.append("labels: " + ", ".join(item.labels))
    if item.priority:
        details.append(f"priority: {item.priority}")
    text = change.text.strip()
    if text:
        # The words as written (the extractor reads them): the subject above a description.
        content = f"{title}\n\n{text}" if change.created and title else text
    else:
        content = f"{item.key}: {title}\n" + " ".join(sentences)
    if details:
        content += "\n(" + "; ".join(details) + ")"
    record: dict[str, Any] = {
        "external_id": f"{item.tool}:{item.key}:{change.key}"[:255],
        "reference_time": when,
        "author": _name(change.actor),
        "source": (item.source or item.tool)[:100],
        "url": item.url,
        "type": "text",
        "content": content,
        "entities": entities,
        "facts": facts,
    }
    if change.actor is not None and change.actor.role:
        record["author_role"] = change.actor.role  # absent otherwise: hashes stay as they were
    if text and facts:
        record["read_text"] = True  # without facts, the words are read anyway
    return record


def _name(party: Party | None) -> str:
    return party.name if party is not None else ""


def _fact(source: str, source_type: str, relation: str, target: str, target_type: str,
          sentence: str, *, invalid_at: str | None = None) -> dict[str, Any]:
    fact: dict[str, Any] = {"source": source, "source_type": source_type, "relation": relation,
                            "target": target, "target_type": target_type, "fact": sentence}
    if invalid_at is not None:
        fact["invalid_at"] = invalid_at
    return fact


def links_between(before: Iterable[str], after: Iterable[str]) -> tuple[list[str], list[str]]:
    """(added, removed) between two lists of keys, each in a stable order."""
    old, new = list(dict.fromkeys(before)), list(dict.fromkeys(after))
    return [k for k in new if k not in old], [k for k in old if k not in new]
