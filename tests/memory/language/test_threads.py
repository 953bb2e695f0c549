"""The tracker item an episode belongs to, from the address it was imported with."""

from __future__ import annotations

import pytest

from memory.language.references import Reference
from memory.language.threads import same_item, thread_item, thread_of_address


@pytest.mark.parametrize(("url", "key"), [
    ("https://github.com/rust-lang/cargo/pull/8950", "rust-lang/cargo#8950"),  # cargo-pr-8950
    # a comment's address names its thread (k8s-63752-dims-2018-05-13)
    ("https://github.com/kubernetes/kubernetes/issues/63752#issuecomment-388617431",
     "kubernetes/kubernetes#63752"),
    ("https://gitlab.com/org/repo/-/issues/5", "org/repo#5"),
    ("https://acme.atlassian.net/browse/OPS-12", "OPS-12"),
    ("https://bugzilla.mozilla.org/show_bug.cgi?id=1387512", "Bug 1387512"),
])
def test_an_address_of_an_issue_or_pull_request_names_its_item_as_a_link_to_it_is_named(
        url: str, key: str) -> None:
    assert thread_item(url) == Reference(key, "WorkItem")


@pytest.mark.parametrize("url", [
    "",
    None,
    "https://github.com/ethereum/pm/blob/cea5a16/AllCoreDevs-EL-Meetings/Meeting%2044.md",
    "https://discuss.example.org/t/a-forum-post/123",
    "see https://github.com/rust-lang/cargo/pull/8950",  # not an address
])
def test_an_address_of_no_tracker_item_names_no_thread(url: str | None) -> None:
    assert thread_item(url) is None


def test_a_pull_request_is_a_change_and_an_issue_is_not() -> None:
    pull = thread_of_address("https://github.com/astral-sh/uv/pull/9507")
    issue = thread_of_address("https://github.com/golang/go/issues/25574")

    assert pull is not None and pull.change and pull.item.key == "astral-sh/uv#9507"
    assert issue is not None and not issue.change


@pytest.mark.parametrize(("key", "other", "same"), [
    ("#12", "kubernetes/kubernetes#12", True),  # the repository's own shorthand
    ("kubernetes/kubernetes#12", "Kubernetes/kubernetes#12", True),
    ("#12", "kubernetes/kubernetes#13", False),
    ("rust-lang/rust#12", "kubernetes/kubernetes#12", False),
    ("OPS-12", "OPS-12", True),
    ("OPS-12", "#12", False),
])
def test_a_repositorys_shorthand_and_its_full_reference_name_the_same_item(
        key: str, other: str, same: bool) -> None:
    assert same_item(key, other) is same
