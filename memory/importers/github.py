"""GitHub issues and pull requests: the REST JSON that ``gh api --paginate
repos/OWNER/REPO/issues?state=all`` writes (pages of issue objects, or JSON Lines of them), each
optionally with an ``events`` list (``GET …/issues/{number}/events`` or ``…/timeline``).

What becomes what:

* ``repository_url`` + ``number`` → the item ``owner/repo#number``; ``title``; ``html_url`` its URL;
  ``user.login`` its reporter;
* ``state`` → ``open`` / ``closed`` (a pull request merged: ``merged``). A close with
  ``state_reason`` ``not_planned`` is ``not planned``, ``duplicate`` (or a ``marked_as_duplicate``
  event) is ``duplicate``; a close whose labels or milestone name an ended status (GitHub's
  default ``duplicate``, ``invalid``, ``wontfix`` labels; a triage milestone such as
  ``incomplete``) takes that name — all ended without being done;
* ``assignees`` and the ``assigned`` / ``unassigned`` events → assignees;
* in the body: "blocked by #N" / "depends on #N" → ``DEPENDS_ON``; "blocks #N" reversed;
  "duplicate of #N" → ``DUPLICATE_OF``; "replaces" / "supersedes #N" → ``REPLACES``; "related to"
  / "see also #N" → ``RELATES_TO``; "part of" / "tracked by #N" → tracked by; a task list of issues
  (``- [ ] #N``) makes the issue a tracking issue that ``TRACKS`` each of them;
* ``closed`` / ``reopened`` events → status changes at their time; without events, ``closed_at``.

Labels and milestones are words in the episode. Labeled, milestoned and renamed events carry no
fact and make no episode. GitHub writes every time in UTC with ``Z``; one without an offset is
read as UTC.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from memory.importers.model import (
    Change,
    Item,
    ItemLink,
    LinkKind,
    Party,
    Problem,
    ReadResult,
    optional_time,
    parse_time,
)
from memory.importers.reading import first_of_shape, json_records
from memory.ontology import ENDED_STATUSES

EXPECTED = "GitHub issues REST JSON: issue objects with number, title, state and html_url"
TOOL = "github"

_REF = r"(?:(?P<repo>[\w.-]+/[\w.-]+)#|https://github\.com/(?P<urlrepo>[\w.-]+/[\w.-]+)/(?:issues|pull)/|#)(?P<number>\d+)"
# One pass over a body for every phrase (bodies are long; one alternation is several times faster
# than a pattern per phrase): the phrase's words → the link it states.
_PHRASE_KINDS: dict[str, LinkKind] = {
    "blocked by": LinkKind.DEPENDS_ON, "depends on": LinkKind.DEPENDS_ON,
    "waiting on": LinkKind.DEPENDS_ON, "blocks": LinkKind.BLOCKS,
    "duplicate of": LinkKind.DUPLICATE_OF, "replaces": LinkKind.REPLACES,
    "supersedes": LinkKind.REPLACES, "replaced by": LinkKind.REPLACED_BY,
    "superseded by": LinkKind.REPLACED_BY, "related to": LinkKind.RELATES,
    "relates to": LinkKind.RELATES, "see also": LinkKind.RELATES,
    "part of": LinkKind.TRACKED_BY, "tracked by": LinkKind.TRACKED_BY,
    "parent": LinkKind.TRACKED_BY, "parent issue": LinkKind.TRACKED_BY,
}
_PHRASES = re.compile(
    r"\b(?P<phrase>blocked\s+by|depends\s+on|waiting\s+on|blocks|duplicate\s+of|replaces|"
    r"supersedes|(?:replaced|superseded)\s+by|related\s+to|relates\s+to|see\s+also|part\s+of|"
    r"tracked\s+by|parent(?:\s+issue)?(?=\s*:))\s*:?\s*" + _REF, re.I)
_TASK = re.compile(rf"^\s*[-*]\s+\[[ xX]\]\s+{_REF}\s*$", re.M)
_EVENTS = frozenset({"closed", "reopened", "assigned", "unassigned", "marked_as_duplicate",
                     "unmarked_as_duplicate"})
"""The events that change what is recorded (labels, milestones and renames are words only)."""
_REASONS = {"not_planned": "not planned", "duplicate": "duplicate", "completed": "closed"}


def looks_like_issue(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("number"), int)
            and "html_url" in value and "state" in value)


def read(payload: bytes, **_: Any) -> ReadResult:
    records = json_records(payload, EXPECTED, wrappers=("items",))
    first_of_shape(records, looks_like_issue, EXPECTED)
    result = ReadResult()
    for position, value in records:
        if isinstance(value, Problem):
            result.problems.append(value)
            continue
        if not looks_like_issue(value):
            result.problems.append(Problem(position, "not an issue object (needs number, "
                                                     "state and html_url)"))
            continue
        try:
            result.items.append(_item(value, position))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            reason = f"missing field {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
            result.problems.append(Problem(position, reason, item=f"#{value.get('number')}"))
    return result


def _repo(issue: dict[str, Any]) -> str:
    url = str(issue.get("repository_url") or "")
    if "/repos/" in url:
        return url.split("/repos/", 1)[1].strip("/")
    match = re.match(r"https://github\.com/([^/]+/[^/]+)/", str(issue.get("html_url") or ""))
    return match.group(1) if match else ""


def _key(repo: str, number: int | str) -> str:
    return f"{repo}#{number}" if repo else f"#{number}"


STAFF_ASSOCIATIONS = frozenset({"MEMBER", "OWNER", "COLLABORATOR"})
"""GitHub's ``author_association`` of the repository's own people (an organization's members,
its owner, invited collaborators): their words are the project's, not a user's report."""


def _login(user: Any) -> Party | None:
    if isinstance(user, dict) and user.get("login"):
        return Party(str(user["login"]))
    return None


def references(text: str, repo: str) -> tuple[list[ItemLink], list[str]]:
    """(links stated in phrases, issues listed in a task list) of an issue body."""
    if "#" not in text and "github.com/" not in text:
        return [], []  # no reference at all: most bodies
    links = [ItemLink(_PHRASE_KINDS[" ".join(match.group("phrase").lower().split())],
                      _ref_key(match, repo))
             for match in _PHRASES.finditer(text)]
    tasks = [_ref_key(match, repo) for match in _TASK.finditer(text)]
    return list(dict.fromkeys(links)), list(dict.fromkeys(tasks))


def _ref_key(match: re.Match[str], repo: str) -> str:
    return _key(match.group("repo") or match.group("urlrepo") or repo, match.group("number"))


def _closed_status(issue: dict[str, Any], reason: str | None, duplicate: bool) -> str:
    if duplicate:
        return "duplicate"
    if reason in _REASONS and reason != "completed":
        return _REASONS[reason]
    if isinstance(issue.get("pull_request"), dict) and issue["pull_request"].get("merged_at"):
        return "merged"
    names = [str(label.get("name", "")) for label in issue.get("labels") or []
             if isinstance(label, dict)]
    milestone = issue.get("milestone") if isinstance(issue.get("milestone"), dict) else {}
    for name in [*names, str((milestone or {}).get("title") or "")]:
        if name.strip().lower() in ENDED_STATUSES:
            return name.strip().lower()
    return "closed"


def _item(issue: dict[str, Any], position: str) -> Item:
    repo = _repo(issue)
    number = issue["number"]
    key = _key(repo, number)
    created_at = parse_time(issue["created_at"])
    body = str(issue.get("body") or "")
    links, tasks = references(body, repo)
    links += [ItemLink(LinkKind.TRACKS, task) for task in tasks]
    events = sorted((e for e in issue.get("events") or [] if isinstance(e, dict)
                     and e.get("event") in _EVENTS and e.get("created_at")),
                    key=lambda e: (str(e["created_at"]), str(e.get("id", ""))))

    # Assignees at creation: the current ones with the events undone.
    assignees = [p for p in (_login(a) for a in issue.get("assignees") or []) if p]
    for event in reversed(events):
        person = _login(event.get("assignee"))
        if person is None:
            continue
        if event.get("event") == "assigned" and person in assignees:
            assignees.remove(person)
        elif event.get("event") == "unassigned" and person not in assignees:
            assignees.append(person)

    reporter = _login(issue.get("user"))
    if reporter is not None and str(issue.get("author_association") or "") in STAFF_ASSOCIATIONS:
        reporter = replace(reporter, role="agent")  # the project's own people
    changes = [Change(at=created_at, key="created", actor=reporter, created=True,
                      status="open", assignees_added=tuple(assignees),
                      links_added=tuple(links))]
    closed = False
    duplicate = False
    closes = [e for e in events if e.get("event") == "closed"]
    for event in events:
        kind = event.get("event")
        at = parse_time(event["created_at"])
        actor = _login(event.get("actor"))
        change_key = f"event:{event.get('id') or f'{kind}:{event['created_at']}'}"
        if kind == "closed":
            closed = True
            last = event is closes[-1]
            status = (_closed_status(issue, event.get("state_reason") or
                                     (issue.get("state_reason") if last else None), duplicate)
                      if last else "closed")
            changes.append(Change(at=at, key=change_key, actor=actor, status=status))
        elif kind == "reopened":
            closed = False
            changes.append(Change(at=at, key=change_key, actor=actor, status="open"))
        elif kind == "marked_as_duplicate":
            duplicate = True
            if closed:
                changes.append(Change(at=at, key=change_key, actor=actor, status="duplicate"))
        elif kind == "unmarked_as_duplicate":
            duplicate = False
        elif kind in ("assigned", "unassigned"):
            person = _login(event.get("assignee"))
            if person is not None:
                changes.append(Change(
                    at=at, key=change_key, actor=actor,
                    assignees_added=(person,) if kind == "assigned" else (),
                    assignees_removed=(person,) if kind == "unassigned" else ()))
    closed_at = optional_time(issue.get("closed_at"))
    if not closes and issue.get("state") == "closed" and closed_at is not None:
        # No events given: the close is known from the issue itself.
        changes.append(Change(at=closed_at, key="closed", actor=_login(issue.get("closed_by")),
                              status=_closed_status(issue, issue.get("state_reason"), False)))
    labels = tuple(str(label.get("name")) for label in issue.get("labels") or []
                   if isinstance(label, dict) and label.get("name"))
    milestone = issue.get("milestone") if isinstance(issue.get("milestone"), dict) else None
    if milestone and milestone.get("title"):
        labels += (f"milestone {milestone['title']}",)
    return Item(
        tool=TOOL,
        key=key,
        title=str(issue.get("title") or ""),
        created_at=created_at,
        url=str(issue.get("html_url") or ""),
        reporters=(reporter,) if reporter else (),
        tracker=bool(tasks),
        labels=labels,
        changes=changes,
        position=position,
    )
