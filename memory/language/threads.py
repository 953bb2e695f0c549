"""The tracker item an episode belongs to, from the address it was imported with.

A comment in an issue thread rarely names its issue ("/close", "I am looking into it", "Fixes
#12" in a pull request whose body has no title line): a reader knows it from the page. An
importer or a JSON Lines record gives that page as the episode's ``url``
(``https://github.com/o/r/issues/12#issuecomment-…``, ``https://jira.example/browse/ATL-12``);
this module turns it into the item's reference, named as a link to it is anywhere else
(``owner/repo#12``, as the GitHub importer names its items too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.language.references import Reference, mask

# A change under review, not an issue: GitHub's pull requests, GitLab's merge requests.
_CHANGE_REQUEST = re.compile(r"^https?://[^/\s]+/[^\s#?]+/(?:pull|pulls|merge_requests)/\d+", re.I)
_NUMBERED = re.compile(r"^(?P<repo>[\w.-]+(?:/[\w.-]+)?)?#(?P<number>\d+)$")


def thread_item(url: str | None) -> Reference | None:
    """The issue, pull request or ticket an address names (a link to one of its comments names
    it too), as a ``WorkItem`` reference: ``owner/repo#12`` for an item of a GitHub or GitLab
    repository, ``ATL-12`` for a Jira ticket. ``None`` for an address that names no tracker item
    (a file, a forum, a chat)."""
    text = (url or "").strip()
    if not text.startswith(("http://", "https://")) or len(text) > 500:
        return None
    masked = mask(text)
    if masked.text.strip() not in masked.references:
        return None  # the address is not one link to a tracker item
    reference = masked.references[masked.text.strip()]
    if reference.type != "WorkItem":
        return None
    return Reference(reference.key, "WorkItem")


@dataclass(frozen=True)
class Thread:
    """The tracker item an episode belongs to, as its address names it."""

    item: Reference
    change: bool = False
    """A pull or merge request (a change under review), not an issue: its title says what it
    changes, never what is wrong."""


def thread_of_address(url: str | None) -> Thread | None:
    """The thread an address names (see ``thread_item``), and whether it is a change request."""
    item = thread_item(url)
    if item is None:
        return None
    return Thread(item, bool(_CHANGE_REQUEST.match((url or "").strip())))


def same_item(key: str, other: str) -> bool:
    """Whether two references name the same item: ``#12`` written in ``owner/repo``'s own text
    and ``owner/repo#12`` (an address of it) do; ``#12`` and ``#13`` or another repository's
    ``#12`` do not."""
    if key == other:
        return True
    one, two = _NUMBERED.match(key), _NUMBERED.match(other)
    if one is None or two is None or one["number"] != two["number"]:
        return False
    return not one["repo"] or not two["repo"] or one["repo"].lower() == two["repo"].lower()
