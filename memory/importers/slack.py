"""Slack: a workspace or channel export (the zip Slack's "Export data" writes: ``users.json``,
``channels.json`` and a folder per channel of ``<YYYY-MM-DD>.json`` message lists).

What becomes what:

* each message → one episode at its ``ts``, its ``text`` the episode's words (mentions, channel
  links and URLs written as Slack shows them), its author resolved from ``users.json``
  (``real_name``, else the display name, else ``name``) as a person; the channel ``#name`` is its
  ``source``;
* a thread (a message with replies: ``thread_ts``) → an item ``#channel thread <ts>`` whose
  starter reported it; every reply restates that, so a thread's messages are one thread in the
  episode graph (the text extractor finds the problems in the words);
* a message outside any thread is only its words;
* joins, leaves, topic and purpose changes and other bookkeeping subtypes make no episode; bot
  messages keep their ``username``.

Links back: pass the workspace's address (``--base-url https://acme.slack.com``) for each
message's permalink (``/archives/<channel id>/p<ts>``). Times are Unix seconds, so UTC.
"""

from __future__ import annotations

import html
import io
import json
import re
import zipfile
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from memory.importers.model import Change, Item, Party, Problem, ReadResult, WrongFormat

EXPECTED = ("a Slack export zip: users.json, channels.json and a folder of <YYYY-MM-DD>.json "
            "message files per channel")
TOOL = "slack"
MAX_UNCOMPRESSED = 2 * 1024**3
"""A zip that says it unpacks to more is refused before anything is read."""
MAX_FILES = 200_000
_DAY_FILE = re.compile(r"^(?:.*/)?([^/]+)/(\d{4}-\d{2}-\d{2})\.json$")
_SKIPPED_SUBTYPES = frozenset({
    "channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name",
    "channel_archive", "channel_unarchive", "group_join", "group_leave", "group_topic",
    "group_purpose", "group_name", "pinned_item", "unpinned_item", "reminder_add",
    "bot_add", "bot_remove", "tombstone", "message_deleted", "message_changed",
})
_MENTION = re.compile(r"<@([A-Z0-9]+)(?:\|([^>]+))?>")
_CHANNEL = re.compile(r"<#([A-Z0-9]+)(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto):[^>|]+)(?:\|([^>]+))?>")
_SPECIAL = re.compile(r"<!(here|channel|everyone)(?:\|[^>]*)?>")


def read(payload: bytes, *, base_url: str | None = None, **_: Any) -> ReadResult:
    archive = _open(payload)
    names = archive.namelist()
    days = sorted((m.group(1), m.group(2), name) for name in names
                  if (m := _DAY_FILE.match(name)))
    if not days:
        listed = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        raise WrongFormat(EXPECTED, f"a zip of {len(names)} files ({listed}) with no "
                                    "<channel>/<YYYY-MM-DD>.json file")
    result = ReadResult()
    users = _users(archive, names, result)
    channels = _channels(archive, names, result)
    threads: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for channel, _day, name in days:
        try:
            messages = json.loads(archive.read(name).decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            result.problems.append(Problem(name, f"not a JSON list of messages: {exc}"))
            continue
        if not isinstance(messages, list):
            result.problems.append(Problem(name, "not a JSON list of messages"))
            continue
        for index, message in enumerate(messages, start=1):
            position = f"{name}, message {index}"
            if not isinstance(message, dict) or not _ts(message.get("ts")):
                result.problems.append(Problem(position, "not a message (needs ts)"))
                continue
            subtype = message.get("subtype")
            if (isinstance(subtype, str) and subtype in _SKIPPED_SUBTYPES) or message.get(
                    "type", "message") != "message":
                continue
            thread = str(message.get("thread_ts") or message["ts"])
            threads[(channel, thread)].append((position, message))
    for (channel, thread_ts), messages in sorted(threads.items()):
        try:
            result.items.append(_item(channel, thread_ts, messages, users, channels, base_url))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            # A message with fields of the wrong kind spoils its thread only.
            result.problems.append(Problem(messages[0][0], f"unreadable thread: {exc}"))
    return result


def _open(payload: bytes) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload))
    except zipfile.BadZipFile:
        start = payload[:1].decode("latin-1", "replace")
        found = ("JSON, not a zip (export the workspace from Slack: Settings → Import/Export)"
                 if start in "[{" else "a file that is not a zip")
        raise WrongFormat(EXPECTED, found) from None
    infos = archive.infolist()
    if len(infos) > MAX_FILES or sum(i.file_size for i in infos) > MAX_UNCOMPRESSED:
        raise WrongFormat(EXPECTED, f"a zip of {len(infos)} files that unpacks to more than "
                                    f"{MAX_UNCOMPRESSED // 1024**3} GB")
    return archive


def _json_list(archive: zipfile.ZipFile, names: list[str], wanted: tuple[str, ...],
               result: ReadResult) -> list[dict[str, Any]]:
    for name in names:
        if name.rsplit("/", 1)[-1] in wanted:
            try:
                value = json.loads(archive.read(name).decode("utf-8-sig"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                result.problems.append(Problem(name, f"not JSON: {exc}"))
                return []
            return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
    return []


def _users(archive: zipfile.ZipFile, names: list[str], result: ReadResult) -> dict[str, str]:
    users = {}
    for user in _json_list(archive, names, ("users.json", "org_users.json"), result):
        profile = user.get("profile")
        if not isinstance(profile, dict):
            profile = {}
        name = (user.get("real_name") or profile.get("real_name") or profile.get("display_name")
                or user.get("name"))
        if user.get("id") and name:
            users[str(user["id"])] = str(name)
    return users


def _channels(archive: zipfile.ZipFile, names: list[str], result: ReadResult) -> dict[str, str]:
    """Channel (folder) name → its id, for permalinks."""
    found = {}
    for wanted in (("channels.json",), ("groups.json",), ("mpims.json",), ("dms.json",)):
        for channel in _json_list(archive, names, wanted, result):
            if channel.get("name") and channel.get("id"):
                found[str(channel["name"])] = str(channel["id"])
    return found


def _ts(value: Any) -> datetime | None:
    try:
        return datetime.fromtimestamp(float(value), tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def _author(message: dict[str, Any], users: dict[str, str]) -> Party | None:
    user = message.get("user")
    profile = message.get("user_profile")
    if not isinstance(profile, dict):
        profile = {}
    name = (users.get(str(user)) if user else None) or profile.get("real_name") or \
        message.get("username") or (f"Slack user {user}" if user else None)
    return Party(str(name), "Person") if name else None


def words(text: str, users: dict[str, str]) -> str:
    """Slack's markup as Slack shows it: ``<@U1>`` → ``@Name``, ``<#C1|general>`` →
    ``#general``, ``<https://x|label>`` → ``label (https://x)``, entities unescaped."""
    text = _MENTION.sub(lambda m: "@" + (users.get(m.group(1)) or m.group(2) or m.group(1)),
                        text)
    text = _CHANNEL.sub(lambda m: "#" + (m.group(2) or m.group(1)), text)
    text = _LINK.sub(lambda m: f"{m.group(2)} ({m.group(1)})" if m.group(2) else m.group(1),
                     text)
    text = _SPECIAL.sub(lambda m: "@" + m.group(1), text)
    return html.unescape(text).strip()


def _item(channel: str, thread_ts: str, messages: list[tuple[str, dict[str, Any]]],
          users: dict[str, str], channels: dict[str, str], base_url: str | None) -> Item:
    messages = sorted(messages, key=lambda pm: float(pm[1]["ts"]))
    starter = next((m for _, m in messages if str(m["ts"]) == thread_ts), messages[0][1])
    started = _ts(starter["ts"])
    if started is None:
        raise ValueError(f"thread {thread_ts}: no time")
    threaded = len(messages) > 1 or bool(starter.get("reply_count"))
    author = _author(starter, users)
    changes = []
    for _, message in messages:
        at = _ts(message["ts"])
        text = words(str(message.get("text") or ""), users)
        files = [str(f.get("name") or f.get("title")) for f in message.get("files") or []
                 if isinstance(f, dict) and (f.get("name") or f.get("title"))]
        if files:
            text = (text + "\n" if text else "") + "(files: " + ", ".join(files) + ")"
        if at is None or not text:
            continue
        changes.append(Change(at=at, key=str(message["ts"]), actor=_author(message, users),
                              created=str(message["ts"]) == thread_ts, text=text))
    channel_id = channels.get(channel, "")
    url = ""
    if base_url and channel_id:
        url = f"{base_url.rstrip('/')}/archives/{channel_id}/p{thread_ts.replace('.', '')}"
    return Item(
        # No title: a thread's first words are its first episode already.
        tool=TOOL, key=f"#{channel} thread {thread_ts}", title="", created_at=started,
        url=url, reporters=(author,) if threaded and author else (), changes=changes,
        source=f"#{channel}",
    )
