"""What a message of a support thread says of the thread itself (``memory.extraction.
support_threads``), with phrasings from the corpus's dev episodes (ids in the comments)."""

from __future__ import annotations

import pytest

from memory.extraction.support_threads import closes_thread, read_thread_statements


def statements(text: str, thread: str) -> set[tuple[str, str, str]]:
    return {(f.source, f.relation, f.target) for f in read_thread_statements(text, thread)}


@pytest.mark.parametrize(("text", "thread", "original"), [
    ("Duplicate of #1780", "warpdotdev/warp#6305", "warpdotdev/warp#1780"),  # warp-6305
    ("Duplicate of #5591", "postmanlabs/postman-app-support#5772",  # pm-5772-numaanashraf
     "postmanlabs/postman-app-support#5591"),
    ("Duplicate of #4513.", "signalapp/Signal-Desktop#5125",  # sig-5125-Nisc3d
     "signalapp/Signal-Desktop#4513"),
])
def test_staffs_duplicate_of_another_thread_is_the_threads_duplicate(
        text: str, thread: str, original: str) -> None:
    assert statements(text, thread) == {(thread, "DUPLICATE_OF", original)}


def test_the_same_issue_as_another_closed_out_is_a_closed_duplicate() -> None:
    # warp-13509-leesa-ui-w-2026-07-09
    text = ("Hey @sicken-jarvis, thanks for reporting this! This is the same issue as #4612, so "
            "we're going to close this one out and keep the conversation over there.")

    assert statements(text, "warpdotdev/warp#13509") == {
        ("warpdotdev/warp#13509", "DUPLICATE_OF", "warpdotdev/warp#4612"),
        ("warpdotdev/warp#13509", "HAS_STATUS", "Closed")}


def test_a_guessed_duplicate_is_stated_only_when_the_message_closes_the_thread() -> None:
    # bw-8963-sammbw-2024-04-29: the maintainer acts on the guess (GUIDE §1)
    text = ("Thank you for your report, it seems like it is a duplicate of this one: "
            "https://github.com/bitwarden/clients/issues/8651\n\nThis issue will now be closed.")

    assert statements(text, "bitwarden/clients#8963") == {
        ("bitwarden/clients#8963", "DUPLICATE_OF", "bitwarden/clients#8651"),
        ("bitwarden/clients#8963", "HAS_STATUS", "Closed")}


@pytest.mark.parametrize(("text", "thread"), [
    # dfm-5287-thaJeztah-2021-01-22
    ("Looks like a duplicate of https://github.com/docker/for-mac/issues/5116, which also lists "
     "some possible causes", "docker/for-mac#5287"),
    ("Seems to be a duplicate of #571 and #572.", "cursor/cursor#570"),  # cur-570-danperks
    ("This looks like a duplicate of this #10763.",  # pm-10800-DannyDainton
     "postmanlabs/postman-app-support#10800"),
    # dfm-4062-bric3: a customer's guess
    ("this . could be the same issue as this https://github.com/docker/for-mac/issues/2655",
     "docker/for-mac#4062"),
])
def test_a_guess_that_threads_are_the_same_states_nothing(text: str, thread: str) -> None:
    assert statements(text, thread) == set()


@pytest.mark.parametrize("sentence", [
    # dfm-1813-jasonbivins-2017-07-10, dfw-6952-mat007-2020-05-29
    "We're closing this issue because it doesn't contain enough information for us to "
    "investigate the problem.",
    "Closing this one for now due to inactivity.",  # ts-8314-kelivel-2023-10-13
    "Closing this for now, let us know if you run into any trouble",  # cur-1275-truell20
    # mv-837-faern-2020-06-24
    "I'm closing this now as it's not really a bug but rather could be classified as a bit "
    "confusing UX.",
    "This issue will now be closed.",  # bw-8963-sammbw-2024-04-29
])
def test_staff_closing_the_thread_closes_it(sentence: str) -> None:
    assert closes_thread(sentence)
    assert statements(sentence, "acme/app#12") == {("acme/app#12", "HAS_STATUS", "Closed")}


@pytest.mark.parametrize("sentence", [
    "@DannyDainton yes it did, sorry i forgot to close issue, thanks you very much",  # pm-10800
    "Feel free to close this if it works for you.",
    "Can we close this?",
    "We'll close this if there is no response in a week.",
    "I'm not closing this yet.",
])
def test_a_closing_asked_advised_conditioned_or_denied_closes_nothing(sentence: str) -> None:
    assert not closes_thread(sentence)


def test_a_quoted_or_fenced_closing_is_not_the_writers() -> None:
    text = "> Closing this one for now due to inactivity.\n\n```\nclosing this\n```\nStill broken."
    assert statements(text, "acme/app#12") == set()
