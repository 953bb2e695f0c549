"""A person's line of a round of updates: their name as a label, then what they are doing, one
activity after another ("Rod: working on the build, looking into npm smoke-testing"; issue #17).

Stand-ups and "round the table" sections of minutes write each person's update as a label and a
list of activities separated by commas or semicolons. Each activity that is a progressive verb
of work with its object ("working on the build", "looking into npm smoke-testing", "making
libuv threadpool more scalable") makes the person responsible for the work its object names
(GUIDE §10: ongoing work is the person's). The grammar decides, not the source:

* the label is a name ("Rod:", "Jeremiah Senkpiel (TSC):"), never a common word ("Note:",
  "Update:"); the reader checks it names a person;
* an activity is a verb of work in its ``-ing`` form at the start of its part of the line
  (``_WORK_VERBS``): being somewhere, talking or thinking ("attending", "discussing",
  "presenting", "thinking about") is no work, and neither is a part without a verb ("vacation");
* the object is a noun phrase, cut where a purpose, a result or a place begins ("a github bot
  for the org" → "a github bot", "npm static analysis working" → "npm static analysis"); routine
  work on unnamed things ("reviewing pull requests", "triaging some issues") names no item;
* a question, a hypothetical ("would", "if"), a negation or a plan of the line's speaker in
  the first person ("I'm going to …") is read elsewhere or not at all.

Pure functions over a line's masked words; ``read_activities`` (called by the rules reader)
names the entities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.extraction.readings import reading

if TYPE_CHECKING:
    from memory.extraction.rules import _Reader

_LABEL = re.compile(
    r"^\W{0,3}(?P<who>zzref\d+zz|@?[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)?|@[a-z][\w.-]*)\W{0,3}"
    r"(?:\s*\([^()]{1,40}\))?\s*:\s+(?P<rest>\S.*)$"
)
"""A person's label opening their line: "Rod:", "**Ben**:", "Jeremiah Senkpiel (TSC):",
"@alanshaw:"."""
_WORK_VERBS = frozenset(
    {
        "working",
        "looking",
        "investigating",
        "writing",
        "building",
        "implementing",
        "fixing",
        "drafting",
        "preparing",
        "finishing",
        "finalizing",
        "finalising",
        "developing",
        "making",
        "getting",
        "adding",
        "updating",
        "migrating",
        "porting",
        "rewriting",
        "refactoring",
        "organizing",
        "organising",
        "coordinating",
        "leading",
        "creating",
        "designing",
        "documenting",
        "debugging",
        "improving",
        "converting",
        "setting",
    }
)
"""Verbs whose progressive says someone is doing a piece of work on their object."""
_PARTICLE = {
    "working": r"(?:on|towards?)",
    "looking": r"into",
    "setting": r"up",
}
"""The particle a verb needs to be work: "working on X", "looking into X" (never "looking at
X", a glance; "looking forward to"), "setting up X"."""
_PART = re.compile(
    r"^(?:(?:I\s+)?(?:have|'ve)\s+been\s+)?(?:also\s+|still\s+|now\s+)?(?P<verb>[A-Za-z]+ing)"
    r"\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
"""An activity: "working on the build", "still fixing …", "Have been working on the draft
schedule" (the speaker's own work so far, still theirs)."""
_SPLIT = re.compile(r"\s*[,;]\s+(?:and\s+)?|\s+and\s+(?=(?:also\s+|still\s+)?[a-z]+ing\b)")
_NOT_ASSERTED = re.compile(
    r"\?\s*$|\b(?:would|could|might|should|if|whether|not|never|no longer|n't)\b", re.IGNORECASE
)
_OBJECT_END = re.compile(
    r"\s+(?:to|so|so that|in order|in|for|from|with|by|because|since|which|that|as|at|into"
    r"|more|less|working|done|merged|landed|ready|going|started|again|this|next|soon)\b.*$"
    r"|\s*[(:–—].*$|\s+-\s.*$",
    re.IGNORECASE,
)
_SERIAL = re.compile(r"^(?:getting|making|improving|finishing|adding|updating|fixing)\s+", re.I)
"""A second verb whose object is the work ("working on getting npm static analysis working")."""
_DETERMINER = re.compile(r"^(?:the|a|an|some|our|my|his|her|their|more|further)\s+", re.I)
_ROUTINE = frozenset(
    {
        "issues",
        "issue",
        "prs",
        "pr",
        "pull requests",
        "pull request",
        "bugs",
        "tickets",
        "things",
        "stuff",
        "work",
        "reviews",
        "comments",
        "feedback",
        "it",
        "this",
        "that",
        "them",
        "sure",
        "progress",
    }
)
"""Objects that name no item: routine work on unnamed things ("reviewing pull requests",
"triaging some issues"), a pronoun, or "making sure", "making progress"."""


_NOT_NAMES = frozenset(
    {
        "note", "notes", "update", "updates", "status", "summary", "action", "actions", "todo",
        "next", "done", "blocked", "agenda", "decision", "decisions", "outcome", "result",
        "conclusion", "question", "answer", "context", "background", "goal", "goals", "problem",
        "solution", "proposal", "owner", "plan", "plans", "progress", "current", "ongoing",
        "this week", "last week", "today", "yesterday", "team", "everyone", "all", "general",
    }
)
"""Labels of the notes' own parts, which name no one ("Note: working on the docs")."""


@dataclass(frozen=True)
class Activities:
    who: str
    """The label's name as written ("Rod", "@alanshaw")."""
    works: tuple[str, ...]
    """The objects of the activities, in order, as noun phrases to name."""
    completed: tuple[tuple[str, str], ...] = ()
    """(object, status word) of the parts that say work was completed ("merged UInt8Array
    Buffer changes into the next branch"): finished work is no one's to do (GUIDE §10), but
    the item has the status."""


_COMPLETED = re.compile(
    r"^(?P<verb>merged|landed|released|shipped|published|deployed|fixed)\s+(?P<object>.+)$",
    re.IGNORECASE,
)


def find_activities(text: str) -> Activities | None:
    """The activities of a person's labelled update line (module docstring), or None: no
    label, or no activity names work."""
    found = _LABEL.match(text.strip())
    if (
        found is None
        or found["who"].lower() in _NOT_NAMES
        or _NOT_ASSERTED.search(found["rest"])
    ):
        return None
    works: list[str] = []
    completed: list[tuple[str, str]] = []
    for part in _SPLIT.split(_strip_parentheses(found["rest"]).strip(" .")):
        work = activity_object(part)
        if work is not None and work not in works:
            works.append(work)
        done = _COMPLETED.match(part.strip())
        if done is not None and (item := _object(done["object"])) is not None:
            completed.append((item, done["verb"].lower()))
    if not works and not completed:
        return None
    return Activities(found["who"], tuple(works), tuple(completed))


def activity_object(part: str) -> str | None:
    """The work one activity's object names ("working on the build" → "the build"), or None
    when the part is no progressive verb of work with a named object."""
    found = _PART.match(part.strip())
    if found is None:
        return None
    verb = found["verb"].lower()
    if verb not in _WORK_VERBS:
        return None
    rest = found["rest"]
    particle = _PARTICLE.get(verb)
    if particle is not None:
        after = re.match(rf"{particle}\s+(?P<object>.+)$", rest, re.IGNORECASE)
        if after is None:
            return None
        rest = after["object"]
    rest = _SERIAL.sub("", rest, count=1)
    if re.match(r"[a-z]+ing\b", rest):
        return None  # "looking into improving …": the work is a verb, no thing named
    return _object(rest)


def _object(rest: str) -> str | None:
    """An object's words cut where a purpose, a result or a place begins; None when they name
    no item (``_ROUTINE``) or are a clause (more than eight words)."""
    work = _OBJECT_END.sub("", rest).strip(" .,*_")
    bare = _DETERMINER.sub("", work).lower()
    words = bare.split(" ")
    if not bare or bare in _ROUTINE or words[-1] in _ROUTINE or words[0] in {"sure", "progress"}:
        return None
    if len(work.split(" ")) > 8:
        return None  # a clause, not an item's name
    return work


def _strip_parentheses(text: str) -> str:
    """The line without its asides ("doing some libuv work (uv_os_homedir, which landed …)"),
    so that an aside's commas split nothing."""
    return re.sub(r"\([^()]*\)", "", text)


@reading("activities")
def read_activities(r: _Reader, sentence: str) -> None:
    """A person's labelled update line (``find_activities``): the person is responsible for
    each piece of work its activities name. Only in notes: never in a tracker's thread or a
    customer's message; a label that names no person ("Note:", "Windows:") reads nothing."""
    from memory.extraction.minutes_reading import _committed
    from memory.extraction.rules import RESPONSIBLE_FOR

    if (r.own is not None and not r.own_is_section) or (
        r.author is not None and r.author.type == "Customer"
    ):
        return
    found = find_activities(r.masked.text)
    if found is None:
        return
    label = r.masked.references.get(found.who)
    if label is not None and label.type not in {"Person", "Team"}:
        return  # "[libp2p-mplex#87](…): fixed …": a work item's line, no one's update
    clause = r._bare_clause(sentence)
    people = _committed(r, found.who, clause, labelled=False)
    if not people:
        return
    said = {
        (record.source.name, record.target.name.lower())
        for record in r.records
        if record.relation == RESPONSIBLE_FOR and record.sentence == sentence
        and record.target is not None and hasattr(record.source, "name")
    }
    for work in found.works:
        item = r.thing(work, clause)
        if item is None or item.type not in {"WorkItem", "Service", "Product"}:
            continue
        for person in people:
            if (person.name, item.name.lower()) not in said:
                r.fact(person, RESPONSIBLE_FOR, item, clause)
    for words, verb in found.completed:
        item = r.thing(words, clause)
        if item is not None and item.type == "WorkItem":
            r.status(item, verb, clause, reported=False)
