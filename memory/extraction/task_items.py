"""Action items by their form: a task-list box ("- [ ] @bob review the migration plan") or a line
of an action-items section, with its owner, whose work no item above names (issue #17).

``memory.extraction.minutes_reading.read_commitment`` reads an action item when its object is
work by name ("a proposal", "the spec") or when it sits under an agenda item; under an "Action
items" heading of its own, "Alice: update the onboarding guide" has neither, and the action's
object is the only thing the line can be about. This module reads, where that reader found no
responsibility:

* **an open task** ("- [ ] …") as an action item, as a line of an action-items section is: its
  owner first ("Alice: update …", "@bob review …", "Alice to update …") or after it ("Update the
  changelog (Carol)", "… - @carol"). A ticked box ("- [x] …") is work done, no one's to do
  (GUIDE §10: finished work is no responsibility);
* **a handle that leads an imperative** ("@bob review the migration plan") in a task or an
  action-items section: the handle is the owner;
* **the action's object as the item** when nothing above names one (no reference, no agenda
  item: the heading is the section's label): "update the onboarding guide" → Onboarding Guide.
  The object must name a thing, never a person, a pronoun or a quantity ("ping the client
  teams", "follow up with Bob", "look into it" name no work).

The owner must be named (a handle or a name), never "we", "all", "everyone", "TBD". A question
or a hypothetical ("if Bob takes it") commits no one (``find_commitment``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memory.extraction import ExtractedEntity
from memory.extraction.minutes import (
    Commitment,
    action_item_line,
    find_commitment,
    in_action_section,
    names_work,
)
from memory.extraction.readings import reading
from memory.language.words import lemma, tag

if TYPE_CHECKING:
    from memory.extraction.rules import _Reader
    from memory.language.documents import Passage

_HANDLE_FIRST = re.compile(
    r"^(?P<who>zzref\d+zz(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*[&+/]\s*)zzref\d+zz)*)\s*"
    r"(?P<verb>[a-z]+)\b(?P<rest>.*)$"
)
"""Handles before an imperative, no colon: "@bob review the migration plan" (masked)."""
_NO_ONE = re.compile(
    r"^\W*(?:we|us|all|everyone|everybody|anyone|someone|somebody|tbd|tba|n/?a|none|nobody"
    r"|the group|the team|team|group)\W*(?:\s|$)",
    re.IGNORECASE,
)
_NOT_AN_ITEM = re.compile(
    r"^(?:with|to|about|on|in|at|for|from|by|up|back|out|it|this|that|them|him|her|everyone"
    r"|people|folks|all|some|any|more|a few|a couple|the rest)\b",
    re.IGNORECASE,
)
"""Objects that name no work: a person or people after a preposition ("follow up with Bob"),
a pronoun ("look into it"), a quantity ("some of them")."""
_OWNER_AFTER = re.compile(
    r"^(?:update|write|draft|fix|file|open|send|share|review|document|prepare|schedule|create"
    r"|add|land|merge|close|finish|publish|post|set up|follow up on|investigate|implement"
    r"|organi[sz]e|coordinate|propose|summari[sz]e|test|check|confirm|ping|reply to|contact)"
    r"\s+(?:the|a|an|our|this|that|their|zzref\d+zz)\b[^()—–]{1,80}?"
    r"(?:\(\s*(?:zzref\d+zz|@?[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)?)\s*\)"
    r"|\s+[—–-]{1,2}\s+(?:zzref\d+zz|@?[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)?))$",
    re.IGNORECASE,
)
"""An action item anywhere in a list: an imperative of work, its object, and its owner in
parentheses ("Update the changelog (Carol)") or, a handle only, after a dash ("Draft the
migration guide - @carol"; ``action_item_line`` takes no plain name after a dash, which names
a presenter as often); never an agenda topic and its presenter ("Release
process update (Carol)", "Discuss the roadmap (Carol)": no imperative of work)."""
_LIGHT_VERB = re.compile(
    r"^(?:a\s+)?(?:(?:first|quick|closer|final|second)\s+)?(?:look|stab|pass|crack|glance)"
    r"\s+(?:at|on|over|into)\s+",
    re.IGNORECASE,
)
"""A light verb's object: "take a look at the FAQ" → the FAQ."""
_HYPOTHETICAL = re.compile(r"\b(?:if|whether|would|could|might|maybe|perhaps)\b|\?\s*$", re.I)


def task_action(text: str) -> str | None:
    """An action item's words as a labelled commitment ("AI - Alice to update the guide"), for
    a line of an open task or an action-items section (module docstring), or None when the line
    names no owner."""
    line = text.strip(" *_.")
    if not line or _HYPOTHETICAL.search(line):
        return None
    handle = _HANDLE_FIRST.match(line)
    if handle is not None:
        verb = handle["verb"]
        if verb != "to" and lemma(verb) == verb and tag(verb) in {"VB", "VBP", "NN"}:
            return f"AI - {handle['who']} to {verb}{handle['rest']}"
    return action_item_line(line)


def task_commitment(text: str) -> Commitment | None:
    """The commitment of a task or an action-items line (``task_action``), never one whose owner
    is no one in particular ("We to …", "All: review …", "TBD")."""
    labelled = task_action(text)
    if labelled is None:
        return None
    found = find_commitment(labelled)
    if found is None or not found.who or _NO_ONE.match(found.who):
        return None
    return found


def object_item(work: str) -> str | None:
    """The action's object as the item's words, when it can name one ("the onboarding guide"),
    else None (``_NOT_AN_ITEM``; a clause: more than eight words)."""
    words = _LIGHT_VERB.sub("", work.strip(" .,;:*_"))
    words = re.split(r"\s+(?:to|so|so that|in order to|because|which|that|and then|then)\s+|[,;(]",
                     words, maxsplit=1)[0].strip()
    if not words or _NOT_AN_ITEM.match(words) or len(words.split(" ")) > 8:
        return None
    return words


@reading("action_item")
def read_action_item(r: _Reader, text: str, sentence: str, passage: Passage) -> None:
    """An open task or an action-items line (module docstring): its owners are responsible for
    the item a reference in it names, else the item above it, else the action's object. Only in
    notes (never a tracker's thread, whose "- [ ] Tests added" is a pull request's checklist)
    and only where the minutes reader found no responsibility (the caller checks)."""
    from memory.extraction.minutes_reading import (
        _committed,
        agenda_item,
        parent_item,
    )
    from memory.extraction.rules import PLACEHOLDER_REF, RESPONSIBLE_FOR

    if (r.own is not None and not r.own_is_section) or (
        r.author is not None and r.author.type == "Customer"
    ):
        return
    section = in_action_section(passage.headings, passage.parents)
    if passage.task != "open" and not section and not (
        passage.item and _OWNER_AFTER.match(r.masked.text.strip(" *_."))
    ):
        return
    commitment = task_commitment(r.masked.text)
    if commitment is None:
        return
    clause = r._bare_clause(sentence)
    people = [
        p
        for p in _committed(r, commitment.who, clause, labelled=True)
        if not _NO_ONE.match(p.name.lstrip("@"))  # "@all: take a look at …"
    ]
    if not people:
        return
    references = [
        ref
        for word in PLACEHOLDER_REF.findall(commitment.rest)
        if (ref := r.masked.references.get(word)) is not None and ref.type == "WorkItem"
    ]
    item = ExtractedEntity(references[0].name, "WorkItem") if references else None
    if item is None and names_work(commitment.work):
        item = r.thing(commitment.work, clause)  # "review the migration plan": work by name
    item = item or r.context or parent_item(passage) or agenda_item(r, passage)
    if item is None and (words := object_item(commitment.work)) is not None:
        item = r.thing(words, clause)
    if item is None or item.type not in {"WorkItem", "Service", "Product"}:
        return
    for person in people:
        r.fact(person, RESPONSIBLE_FOR, item, clause)
