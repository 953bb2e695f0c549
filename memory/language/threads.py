"""The tracker item an episode belongs to, from the address it was imported with.

A comment in an issue thread rarely names its issue ("/close", "I am looking into it", "Fixes
#12" in a pull request whose body has no title line): a reader knows it from the page. An
importer or a JSON Lines record gives that page as the episode's ``url``
(``https://github.com/o/r/issues/12#issuecomment-…``, ``https://jira.example/browse/ATL-12``);
this module turns it into the item's reference, written as the tracker's own text writes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.language.references import Reference, mask

# A change under review, not an issue: GitHub's pull requests, GitLab's merge requests.
_CHANGE_REQUEST = re.compile(r"^https?://[^/\s]+/[^\s#?]+/(?:pull|pulls|merge_requests)/\d+", re.I)
# A GitHub or GitLab item of a repository: its own text calls it "#12", as its title line does.
_REPOSITORY_ITEM = re.compile(r"^[\w.-]+/[\w.-]+#(?P<number>\d+)$")


def thread_item(url: str | None) -> Reference | None:
    """The issue, pull request or ticket an address names (a link to one of its comments names
    it too), as a ``WorkItem`` reference: ``#12`` for an item of a GitHub repository (how the
    repository's title lines and cross-references write it), ``ATL-12`` for a Jira ticket.
    ``None`` for an address that names no tracker item (a file, a forum, a chat)."""
    text = (url or "").strip()
    if not text.startswith(("http://", "https://")) or len(text) > 500:
        return None
    masked = mask(text)
    if masked.text.strip() not in masked.references:
        return None  # the address is not one link to a tracker item
    reference = masked.references[masked.text.strip()]
    if reference.type != "WorkItem":
        return None
    number = _REPOSITORY_ITEM.match(reference.key)
    key = f"#{number['number']}" if number is not None else reference.key
    return Reference(key, "WorkItem")


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
