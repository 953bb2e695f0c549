"""Slack: a workspace export zip — fixture files written from Slack's help article "How to read
Slack data exports" and its message reference (fixtures/README.md), zipped by the test."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from memory.importers import slack
from memory.importers.model import WrongFormat
from memory.models import Episode, Graph
from tests.memory.importers.conftest import FIXTURES, ImportFn, facts_of

EXPORT = FIXTURES / "slack-export"
THREAD = "#support thread 1793005200.000200"


def zipped(directory: Path = EXPORT, *, extra: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(directory.rglob("*.json")):
            archive.write(path, path.relative_to(directory).as_posix())
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_messages_are_read_with_authors_from_users_json_and_joins_left_out() -> None:
    items = {i.key: i for i in slack.read(zipped()).items}

    thread = items[THREAD]
    assert [(c.actor.name, c.created) for c in thread.changes] == [
        ("Ray Stantz", True), ("Egon Spengler", False), ("Winston Zeddemore", False)]
    assert thread.source == "#support"
    assert [p.name for p in thread.reporters] == ["Ray Stantz"]
    assert thread.changes[1].text == "On it. Same as incident 42 " \
                                     "(https://status.example.com/incidents/42)?"
    assert "&" in thread.changes[2].text and "&amp;" not in thread.changes[2].text
    assert not any("joined" in c.text for i in items.values() for c in i.changes)
    bot = next(i for i in items.values() if i.source == "#general")
    assert bot.changes[0].actor.name == "deploybot"


def test_a_message_outside_a_thread_is_only_its_words() -> None:
    items = {i.key: i for i in slack.read(zipped()).items}
    reminder = items["#support thread 1793016000.000500"]
    assert reminder.reporters == ()
    assert reminder.changes[0].text == "Reminder: #general has the on-call rota."


@pytest.mark.django_db
def test_a_threads_replies_are_one_thread_and_link_back(graph: Graph,
                                                          run_import: ImportFn) -> None:
    report = run_import(graph, "slack", zipped(),
                        options={"base_url": "https://acme.slack.com"})
    assert (report.stored, report.rejected) == (5, 0)

    replies = Episode.objects.filter(graph=graph, source="#support").order_by("reference_time")
    assert [e.author for e in replies] == ["Ray Stantz", "Egon Spengler", "Winston Zeddemore",
                                           "Ray Stantz"]
    assert replies[0].url == "https://acme.slack.com/archives/C024BE91L/p1793005200000200"
    thread_reports = {e.pk for e in replies[:3]}
    fact = facts_of(graph, "REPORTED")[("Ray Stantz", THREAD)]
    assert {e.pk for e in fact.episodes.all()} == thread_reports
    assert not Episode.objects.filter(graph=graph, external_id__contains="1793016000"
                                      ).get().supplied["facts"]


def test_a_zip_that_is_not_a_slack_export_is_refused_saying_what_it_holds() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("report.csv", "a,b\n1,2\n")
        archive.writestr("notes/readme.txt", "hello")
    with pytest.raises(WrongFormat) as error:
        slack.read(buffer.getvalue())
    assert "a zip of 2 files (report.csv, notes/readme.txt)" in str(error.value)
    with pytest.raises(WrongFormat, match="JSON, not a zip"):
        slack.read(b'[{"type": "message"}]')
    with pytest.raises(WrongFormat, match="not a zip"):
        slack.read(b"plain text")


def test_a_broken_day_file_is_reported_and_the_rest_read() -> None:
    result = slack.read(zipped(extra={"support/2026-11-04.json": b"[{not json"}))
    assert [p.position for p in result.problems] == ["support/2026-11-04.json"]
    assert THREAD in {i.key for i in result.items}
