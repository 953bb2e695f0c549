"""The GitHub importer on the real sample (100 webcompat/web-bugs issues with their events,
MPL-2.0, see fixtures/README.md) and on small issues written here."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from memory.importers import github
from memory.importers.model import ItemLink, LinkKind, WrongFormat
from memory.models import Episode, Graph, Observation
from tests.memory.importers.conftest import ImportFn, facts_of, fixture_bytes

SAMPLE = "github-webcompat-issues.jsonl"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def issue(number: int, **fields: object) -> dict:
    return {"number": number, "title": f"Issue {number}", "state": "open",
            "html_url": f"https://github.com/acme/shop/issues/{number}",
            "repository_url": "https://api.github.com/repos/acme/shop",
            "user": {"login": "alice"}, "created_at": "2026-11-02T09:00:00Z", **fields}


def lines(*issues: dict) -> bytes:
    return "\n".join(json.dumps(i) for i in issues).encode()


@pytest.fixture
def imported(graph: Graph, run_import: ImportFn) -> Graph:
    report = run_import(graph, "github", fixture_bytes(SAMPLE))
    assert report.summary() == "stored 160, duplicates 0, rejected 0"
    return graph


@pytest.mark.django_db
def test_each_issue_has_its_status_as_its_events_left_it(imported: Graph) -> None:
    status = {source: f.target.name
              for (source, _), f in facts_of(imported, "HAS_STATUS", current=True).items()}

    assert len(status) == 100
    assert status["webcompat/web-bugs#71058"] == "open"
    assert status["webcompat/web-bugs#71034"] == "duplicate"  # marked as a duplicate, closed
    assert status["webcompat/web-bugs#71043"] == "worksforme"  # its triage milestone
    assert sum(1 for s in status.values() if s == "open") == 40
    closed = facts_of(imported, "HAS_STATUS")[("webcompat/web-bugs#71043", "worksforme")]
    assert closed.valid_at == at("2021-04-19T14:27:08+00:00")


@pytest.mark.django_db
def test_closed_issues_leave_the_board(imported: Graph, run_import: ImportFn) -> None:
    """Every closed issue's thread ended with it: no observation is built on a closed item."""
    from memory.pipeline import run_pipeline

    run_pipeline(imported)
    reporters = facts_of(imported, "REPORTED", current=True)
    open_issues = {source for (source, _), f in facts_of(imported, "HAS_STATUS",
                                                          current=True).items()
                   if f.target.name == "open"}

    assert {item for (_, item) in reporters} == open_issues
    for observation in Observation.objects.filter(graph=imported, status="active"):
        names = {e.name for e in observation.entities.all()}
        assert names <= open_issues | {p for (p, _) in reporters} | {"open"}, names


@pytest.mark.django_db
def test_every_episode_links_back_to_its_issue(imported: Graph) -> None:
    episode = Episode.objects.get(graph=imported,
                                  external_id="github:webcompat/web-bugs#71058:created")

    assert episode.url == "https://github.com/webcompat/web-bugs/issues/71058"
    assert episode.author == "Terepin"
    assert "www.zssk.sk - site is not usable" in episode.content


def test_links_in_the_body_keep_their_direction() -> None:
    body = ("Blocked by #12 and depends on acme/api#3.\nBlocks #14. Duplicate of #9.\n"
            "Supersedes https://github.com/acme/shop/issues/2 — see also #5")

    links, tasks = github.references(body, "acme/shop")
    assert links == [ItemLink(LinkKind.DEPENDS_ON, "acme/shop#12"),
                     ItemLink(LinkKind.DEPENDS_ON, "acme/api#3"),
                     ItemLink(LinkKind.BLOCKS, "acme/shop#14"),
                     ItemLink(LinkKind.DUPLICATE_OF, "acme/shop#9"),
                     ItemLink(LinkKind.REPLACES, "acme/shop#2"),
                     ItemLink(LinkKind.RELATES, "acme/shop#5")]
    assert tasks == []


@pytest.mark.django_db
def test_a_task_list_makes_a_tracking_issue(graph: Graph, run_import: ImportFn) -> None:
    tracker = issue(1, body="Launch checklist\n- [ ] #2\n- [x] #3\n")
    run_import(graph, "github", lines(tracker, issue(2), issue(3)))

    assert set(facts_of(graph, "TRACKS")) == {("acme/shop#1", "acme/shop#2"),
                                              ("acme/shop#1", "acme/shop#3")}
    assert not facts_of(graph, "DEPENDS_ON")


@pytest.mark.django_db
def test_linked_issues_share_one_thread(graph: Graph, run_import: ImportFn) -> None:
    """"Blocked by #2", stated only on #1: #1's episode restates #2's reporter, so both items'
    histories are one observation."""
    from memory.pipeline import run_pipeline

    blocked = issue(1, body="Blocked by #2", events=[
        {"id": 11, "event": "assigned", "created_at": "2026-11-03T09:00:00Z",
         "assignee": {"login": "carol"}, "actor": {"login": "alice"}}],
        assignees=[{"login": "carol"}])
    blocker = issue(2, user={"login": "bob"}, created_at="2026-11-01T09:00:00Z", events=[
        {"id": 21, "event": "assigned", "created_at": "2026-11-04T09:00:00Z",
         "assignee": {"login": "dan"}, "actor": {"login": "bob"}}],
        assignees=[{"login": "dan"}])
    run_import(graph, "github", lines(blocked, blocker))
    run_pipeline(graph)

    observation = Observation.objects.get(graph=graph, status="active")
    assert observation.episodes.count() == 4
    assert facts_of(graph, "DEPENDS_ON", current=True).keys() == {("acme/shop#1",
                                                                   "acme/shop#2")}


def test_a_close_that_was_not_planned_ends_the_issue_without_done() -> None:
    closed = issue(4, state="closed", state_reason="not_planned",
                   closed_at="2026-11-05T09:00:00Z", events=[])

    item = github.read(lines(closed)).items[0]
    assert [(c.at, c.status) for c in item.changes] == [
        (at("2026-11-02T09:00:00+00:00"), "open"), (at("2026-11-05T09:00:00+00:00"),
                                                    "not planned")]


def test_a_merged_pull_request_is_merged() -> None:
    pull = issue(5, state="closed", closed_at="2026-11-05T09:00:00Z",
                 pull_request={"merged_at": "2026-11-05T09:00:00Z"})

    assert github.read(lines(pull)).items[0].changes[-1].status == "merged"


def test_a_bugzilla_export_is_refused_naming_both_formats() -> None:
    with pytest.raises(WrongFormat) as refused:
        github.read(fixture_bytes("bugzilla-bugs.jsonl"))

    assert str(refused.value) == (
        "expected GitHub issues REST JSON: issue objects with number, title, state and "
        "html_url; found Bugzilla bugs (objects with id, summary and creation_time)")


def test_pages_from_gh_api_paginate_are_read_item_by_item() -> None:
    pages = json.dumps([issue(1), issue(2)]) + "\n" + json.dumps([issue(3)])

    assert [i.key for i in github.read(pages.encode()).items] == [
        "acme/shop#1", "acme/shop#2", "acme/shop#3"]


def test_a_broken_issue_is_reported_with_its_position_and_the_others_read() -> None:
    broken = issue(2, created_at="yesterday")
    result = github.read(lines(issue(1), broken, {"hello": "world"}, issue(3)))

    assert [i.key for i in result.items] == ["acme/shop#1", "acme/shop#3"]
    assert [(p.position, p.item) for p in result.problems] == [("line 2", "#2"),
                                                               ("line 3", "")]


def test_an_issue_opened_by_the_projects_own_member_is_the_projects_word(
        imported: Graph) -> None:
    # webcompat/web-bugs#71057: "author_association": "MEMBER" (webcompat-bot); #71058: "NONE"
    created = Episode.objects.filter(graph=imported)
    member = created.get(external_id="github:webcompat/web-bugs#71057:created")
    user = created.get(external_id="github:webcompat/web-bugs#71058:created")

    assert (member.author, member.author_role) == ("webcompat-bot", "agent")
    assert (user.author, user.author_role) == ("Terepin", "")


def test_only_members_owners_and_collaborators_are_the_projects_own() -> None:
    for association, role in [("MEMBER", "agent"), ("OWNER", "agent"),
                              ("COLLABORATOR", "agent"), ("CONTRIBUTOR", ""), ("NONE", "")]:
        (item,) = github.read(lines(issue(1, author_association=association))).items
        assert item.changes[0].actor is not None and item.changes[0].actor.role == role
