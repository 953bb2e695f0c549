"""A status said without its subject under the item it is about: "* Has been merged, nothing to
discuss this week." under "* http: refactor headersTimeout … [#41263](…)" (issue #17).

Agenda notes list each item with its reference and put what happened to it on the lines under
it, the subject left out because the item above is the subject. The rules reader's
``about_context`` reading takes the shapes "can land", "Joe landed", "Needs more reviews"; this
module reads the rest by grammar: a clause of the line (split at commas and semicolons) that
is only a passive or bare participle of a status verb, with an optional "it"/"this"/"the PR",
auxiliary and adverb — "Has been merged", "issue now closed", "Merged last week", "Already
landed in 18.x", "was reverted". The item must be one a reference above names (the reader's
context), never a heading's words.

A line that lists one item by its reference with its status beside it, opening an aside or
after a dash ("<link to a PR> (Approved, wait on merge)", "#13 - merged"), gives that item the
status the same way.

Work under way is said the same ways: in the passive with its subject ("Developer survey being
developed", "The guide is being written by Alice": in progress, and "by" names who does it) or
without it under the item ("Discussion/work ongoing in github issue", "Work in progress").

A line recording that no one objected ("No objections to adding to the License List.", "No
concerns/objections from the TSC members") under such an item says the group accepted it.

Nothing under a negation or a plan ("not merged yet", "will be merged", "should be closed",
"to be released"), in a question, or in a clause with a subject of its own ("Anna closed her
PR": another item).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memory.extraction import ExtractedEntity
from memory.extraction.readings import reading

if TYPE_CHECKING:
    from memory.extraction.rules import _Reader

_STATUS_CLAUSE = re.compile(
    r"^(?:(?:it|this|that|the (?:pr|issue|pull request|change|proposal|rfc|item)|pr|issue)\s+)?"
    r"(?:(?:has|have|had)\s+)?(?:(?:is|was|are|were|got|been|now|already|since|just|finally"
    r"|successfully)\s+){0,3}"
    r"(?P<status>merged|landed|closed|released|shipped|published|approved|accepted|rejected"
    r"|reverted|fixed|resolved|postponed|deferred|completed|done)"
    r"(?:\s+(?:(?:in|on|into|as of|since|for|upstream|already|now|last \w+|this \w+|yesterday"
    r"|today|earlier)\b.*)?)?$",
    re.IGNORECASE,
)
_NOT_ASSERTED = re.compile(
    r"\b(?:not|never|no|n't|yet to|will|would|should|could|can|might|may|must|to be|needs? to"
    r"|if|once|when|until|whether)\b|\?",
    re.IGNORECASE,
)
_REFERENCE_STATUS = re.compile(
    r"^\W*(?P<ref>zzref\d+zz)(?:\s*[:\-–—]\s*[^()]{0,100}?)?\s*"
    r"(?:\(\s*(?P<inside>[^()]{1,80})\)|[\-–—:]\s+(?P<after>[^()]{1,80}))\W*$"
)
"""A line that lists an item by its reference with its status beside it: "<link to PR 667>
(Approved, wait on merge)", "#123 – merged"."""
_STATUS_FIRST = re.compile(
    r"^(?P<status>merged|landed|closed|released|shipped|approved|accepted|rejected|reverted"
    r"|done|in progress|wip|in review|under review|blocked|on hold|postponed|deferred)\b"
    r"(?!\s+(?:by|if|when|once|until)\b)",
    re.IGNORECASE,
)
_BEING = re.compile(
    r"^(?P<np>[^,;:()]{3,80}?)\s+(?:(?:is|are)\s+)?(?:(?:currently|still|now|actively|also)\s+)?"
    r"being\s+(?P<verb>worked on|developed|written|drafted|implemented|built|prepared|finali[sz]ed"
    r"|updated|reviewed|tested|fixed|investigated|addressed|looked into|migrated|rolled out"
    r"|rewritten|refactored|designed|documented)"
    r"(?:\s+by\s+(?P<by>zzref\d+zz|@?[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)?"
    r"(?:(?:\s*,\s*|\s+and\s+)@?[A-Z][\w.'’-]*)*))?(?:\s|$|[,.;])",
)
"""Work under way in the passive: "Developer survey being developed, testing out content."
(nodejs-tsc-meetings-2018-09-12-s8), "The migration guide is being written by Alice"."""
_UNDER_WAY = re.compile(
    r"^(?:(?:(?:discussion/)?work|progress)\s+(?:is\s+)?(?:still\s+)?(?:ongoing|in progress"
    r"|under ?way)\b|(?:still\s+)?(?:ongoing|in progress|under ?way|being worked on"
    r"|work in progress|wip)$)",
    re.IGNORECASE,
)
"""A subjectless line saying the item above is under way: "Discussion/work ongoing in github
issue" (nodejs-tsc-meetings-2018-06-20-s7), "Work in progress", "Being worked on"."""
_CLAUSES = re.compile(r"\s*[,;]\s*|\s+-\s+|\.\s+")


def subjectless_status(line: str) -> str | None:
    """The status word a line says of the item above it (module docstring), else None."""
    for clause in _CLAUSES.split(line.strip(" .*_")):
        clause = clause.strip(" .*_")
        if not clause or _NOT_ASSERTED.search(clause):
            continue
        found = _STATUS_CLAUSE.match(clause)
        if found is not None:
            return found["status"].lower()
        if _UNDER_WAY.match(clause):
            return "in progress"
    return None


def being_done(line: str) -> tuple[str, str, str | None] | None:
    """(noun phrase, status, who) of work said to be under way in the passive ("Developer survey
    being developed", "The guide is being written by Alice"): in progress, or in review for
    "being reviewed"; None under a negation, a plan, a question or a condition."""
    text = line.strip(" *_")
    found = _BEING.match(text)
    if found is None or _NOT_ASSERTED.search(text[: found.end()]):
        return None
    status = "in review" if found["verb"] == "reviewed" else "in progress"
    return found["np"].strip(), status, found["by"]


def listed_status(line: str) -> tuple[str, str] | None:
    """(reference placeholder, status word) of a line that lists one item by its reference
    with a status beside it (``_REFERENCE_STATUS``: "zzref0zz (Approved, wait on merge)"),
    else None: the status must open the aside ("(not merged)", "(needs review)" say none)."""
    found = _REFERENCE_STATUS.match(line.strip())
    if found is None:
        return None
    aside = (found["inside"] or found["after"] or "").strip(" *_")
    status = _STATUS_FIRST.match(aside)
    if status is None or "?" in aside:
        return None
    return found["ref"], status["status"].lower()


_NO_OBJECTION = re.compile(
    r"(?:^|[,;]\s*|\.\s+)(?:there (?:were|was) )?no (?:(?:further|other|more|remaining)\s+)?"
    r"(?:objections?|concerns?(?:\s*(?:/|or|and)\s*objections?)?|blocking concerns|blockers)"
    r"(?=\s+(?:to|from|raised|on|for|with)\b|\s*[.,;]|\s*$)",
    re.IGNORECASE,
)
_NOT_SETTLED = re.compile(
    r"\?|\b(?:if|unless|whether|yet|so far|until|pending|assuming|as long as)\b", re.IGNORECASE
)


def no_objection(line: str) -> bool:
    """Whether a line under an item records that no one objected ("No objections to adding to
    the License List.", "Removed from the agenda, no objections to the bot user", "No
    concerns/objections from the 11 TSC members"): the item was accepted. Never a question
    ("Any objections?", "No objections?"), a condition ("if there are no objections, …"), a
    call still open ("no objections yet", "so far", "pending …"), or objections raised."""
    return _NO_OBJECTION.search(line.strip(" *_-")) is not None and not _NOT_SETTLED.search(line)


_OPENING_NAME = re.compile(r"^\W{0,3}(?P<name>[A-Z][\w'’-]+)\s*[,:]\s")


def _reported_by_someone(line: str) -> bool:
    """Whether a line opens with the person who reports it ("Kris, no objections from the
    board, legal did review …"): their account of another body's answer, not the meeting's
    own acceptance."""
    from memory.extraction.rules import _names_a_person

    found = _OPENING_NAME.match(line.strip())
    return found is not None and _names_a_person(found["name"], bare=True)


@reading("item_status")
def read_item_status(r: _Reader, sentence: str) -> None:
    """A subjectless status line under an item a reference names (``subjectless_status``):
    the item has that status. Only in notes, never a tracker's own thread (read by its rules)
    or a customer's message."""
    if (r.own is not None and not r.own_is_section) or (
        r.author is not None and r.author.type == "Customer"
    ):
        return
    being = being_done(r.masked.text)
    if being is not None:
        _read_being(r, sentence, *being)
        return
    listed = listed_status(r.masked.text)
    reference = r.masked.references.get(listed[0]) if listed is not None else None
    if listed is not None and reference is not None and reference.type == "WorkItem":
        # "https://github.com/spdx/meetings/pull/667 (Approved, wait on merge)"
        item = ExtractedEntity(reference.name, "WorkItem")
        r.status(item, listed[1], r._bare_clause(sentence), reported=False)
        return
    if r.context is None or r.context_is_own or r.context.type != "WorkItem":
        return
    if no_objection(r.masked.text) and not _reported_by_someone(r.masked.text):
        # "No objections to adding to the License List." under #1273: the group accepted it
        with r.readings.running("no_objection"):
            r.status(r.context, "accepted", r._bare_clause(sentence), reported=False)
        return
    word = subjectless_status(r.masked.text)
    if word is None:
        return
    r.status(r.context, word, r._bare_clause(sentence), reported=False)


def _read_being(r: _Reader, sentence: str, words: str, status: str, who: str | None) -> None:
    """``being_done``'s item has the status; the people "by" names are responsible for it."""
    from memory.extraction.minutes_reading import _committed
    from memory.extraction.rules import RESPONSIBLE_FOR

    clause = r._bare_clause(sentence)
    item = r.thing(words, clause)
    if item is None or item.type not in {"WorkItem", "Service", "Product"}:
        return
    r.status(item, status, clause, reported=False)
    for person in _committed(r, who.rstrip("."), clause, labelled=False) if who else []:
        r.fact(person, RESPONSIBLE_FOR, item, clause)
