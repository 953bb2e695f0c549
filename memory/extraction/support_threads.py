"""What a message in a support thread says of the thread itself: that it duplicates another
thread, that it is closed.

A support tracker's staff close threads in their own words, and the thread is the item they speak
of: "Duplicate of #1780" (Warp), "Duplicate of #5591." (Postman), "Duplicate of #4513."
(Signal), "This is the same issue as #4612, so we're going to close this one out" (Warp) — the
thread ``DUPLICATE_OF`` the other, read with the tracker grammar of
``memory.extraction.trackers`` (the predicate about the thread's own item, never after a guess or
a negation); "We're closing this issue because it doesn't contain enough information" (Docker for
Mac and for Windows), "Closing this one for now due to inactivity" (Tailscale), "Closing this for
now, let us know …" (Cursor), "I'm closing this now as it's not really a bug" (Mullvad), "This
issue will now be closed." (Bitwarden) — the thread ``HAS_STATUS closed``.

A guess is no claim (GUIDE §1): "it seems like it is a duplicate of this one: <link>" states
nothing — unless the same message closes the thread, acting on the guess ("… This issue will now
be closed.", Bitwarden): then the duplicate is stated. A closing put to the reader ("Feel free to
close this"), asked ("Can we close this?"), conditioned ("We'll close this if …") or denied
("not closing") is none.
"""

from __future__ import annotations

import re

from memory.extraction import ExtractedFact
from memory.extraction.trackers import read_item_links
from memory.language.references import Reference, mask

_I = re.IGNORECASE
# A sentence ends at . ! ? followed by space; a line is its own sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# A clause of a sentence: "…, so we're going to close this one out and keep …".
_CLAUSE = re.compile(r"\s*(?:[,;]|\s-\s)\s*(?:(?:and|so|but|therefore|hence)\s+)?", _I)
# The closer speaks of the thread: "(I'm|We're|I'll|…) (now) (going to) close/closing this (one|
# issue) (out)", "Closing this (for now)", "This issue will (now) be closed".
_CLOSES = re.compile(
    r"^(?:(?:i'?m|i am|we'?re|we are|i'?ll|we'?ll|i will|we will)\s+(?:now\s+)?"
    r"(?:going to\s+)?)?(?:close|closing)\s+(?:this|it)\b(?:\s+(?:issue|one|ticket|thread"
    r"|report|bug))?(?:\s+out)?(?P<rest>.*)$"
    r"|^this\s+(?:issue|one|ticket|thread|report|bug)\s+(?:will|is going to)\s+(?:now\s+)?"
    r"be\s+closed\b(?P<rest2>.*)$",
    _I,
)
# What makes a closing no act: a condition or a plan that waits on something.
_NOT_NOW = re.compile(r"\b(?:if|unless|once|until|when|after|whether)\b", _I)
# A guess a staff member acts on by closing (GUIDE §1's exception): "it seems like it is a
# duplicate of <link>", "looks like a dupe of #5".
_GUESSED_DUPLICATE = re.compile(
    r"\b(?:seems?|looks?)(?: like| to be)?(?: (?:it|this)(?: issue)? (?:is|was))?"
    r" (?:an? )?(?:exact )?(?:duplicate|dupe|dup) of(?: (?:this|that) one:?| issue)? "
    r"(?P<ref>zzref\d+zz)", _I)


def _sentences(text: str) -> list[str]:
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not stripped or stripped.startswith(">"):
            continue  # code, a quoted earlier message
        found += [s.strip() for s in _SENTENCE_END.split(stripped.lstrip("#*- ")) if s.strip()]
    return found


def closes_thread(sentence: str) -> bool:
    """Whether the sentence is its writer closing the thread it is written in (see the module
    docstring): "We're closing this issue because …", "Closing this one for now due to
    inactivity.", "so we're going to close this one out"."""
    if sentence.rstrip().endswith("?"):
        return False
    for clause in _CLAUSE.split(sentence.strip()):
        found = _CLOSES.match(clause.strip())
        if found is not None and not _NOT_NOW.search(found["rest"] or found["rest2"] or ""):
            return True
    return False


def read_thread_statements(text: str, thread: str) -> list[ExtractedFact]:
    """The facts a message of thread ``thread`` (``owner/repo#12``) states about it: the thread
    ``DUPLICATE_OF`` another, ``HAS_STATUS closed`` — each citing its sentence."""
    own = Reference(thread, "WorkItem")
    sentences = _sentences(text)
    closing = [s for s in sentences if closes_thread(s)]
    facts: list[ExtractedFact] = []
    seen: set[tuple[str, str, str]] = set()

    repository = thread.partition("#")[0]

    def add(source: str, relation: str, target: str, target_type: str, sentence: str) -> None:
        if target_type == "WorkItem" and target.startswith("#") and repository:
            target = f"{repository}{target}"  # "#1780" in warpdotdev/warp: its own tracker's
        if (source, relation, target) not in seen:
            seen.add((source, relation, target))
            facts.append(ExtractedFact(source, "WorkItem", relation, target, target_type,
                                       sentence))

    for sentence in sentences:
        masked = mask(sentence)
        for link in read_item_links(masked, own):
            if link.relation == "DUPLICATE_OF":
                add(link.source, "DUPLICATE_OF", link.target, "WorkItem", sentence)
        if closing:
            for guess in _GUESSED_DUPLICATE.finditer(masked.text):
                reference = masked.references.get(guess["ref"])
                if reference is not None and reference.type == "WorkItem" and (
                        not reference.comment) and reference.key != thread:
                    add(thread, "DUPLICATE_OF", reference.key, "WorkItem", sentence)
    for sentence in closing:
        add(thread, "HAS_STATUS", "Closed", "Status", sentence)
    return facts
