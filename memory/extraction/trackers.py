"""How tracker threads say that one item is part of another, or the same as another.

Read on a masked sentence (``memory.language.references.mask``: every tracker reference is one
placeholder word) of an episode that belongs to a tracker item — its title line's, or the one
its address names (``memory.language.threads``):

* ``TRACKS`` (tracking item → item): "… as part of #14039", "This work is part of closing
  <link>", "This addresses part of #1001" — the referenced item tracks the episode's own;
* ``HAS_STATUS approved``: a reviewer's "ACK <commit>" / "utACK <commit>";
* ``DUPLICATE_OF`` (duplicate → original): "Duplicate of #1780", "Dupe of #5", "Closing as a
  duplicate of #12", "This is the same issue as #4612", "#7 is a duplicate of #5"; an item
  closed for another that carries on its work: "Closing this in favor of #12197" (the own item
  is the duplicate), "Replaces <link>" (the linked item is).

Grammar, not a list of sentences: the relation's words must be the sentence's predicate about
its own item (nothing before them but the item, "this"/"it" or a closing verb), so "I have the
same issue as #12" (a customer's report) and "it seems like a duplicate of #12" (a guess) state
no duplicate; a part is the thread's own work ("as part of", "This work is part of"), never
something else it names ("the code that was part of #12"); "not part of #12" is a negation, and
words that hedge or plan just before ("might be part of", "if this is part of") state nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memory.language.references import Masked, Reference
from memory.language.threads import same_item

_I = re.IGNORECASE
_REF = r"zzref\d+zz"
PLACEHOLDER_REF = re.compile(_REF)
# What may stand before the predicate: the item itself, "this"/"it" meaning it, or nothing.
_SUBJECT = (rf"(?:(?P<subject>{_REF})|(?:this|it)(?: (?:issue|bug|one|ticket|pr|pull request"
            r"|report))?)")
_COPULA = r"(?:is|was|has been|looks to be)"
# "Duplicate of #1780", "Closing as a dupe of #5", "This is a duplicate of #12", "#7 duplicates
# #5", "This is the same issue as #4612", "Same problem as #3".
_DUPLICATE = re.compile(
    rf"^(?:(?:closing|closed|close)(?: (?:this|it))?(?: (?:one|issue))?(?: out)? as "
    rf"|{_SUBJECT} (?:{_COPULA} |(?=duplicates\b)))?"
    rf"(?:(?:an? )?(?:exact )?(?:duplicate|dupe|dup) of|duplicates"
    rf"|(?:the )?(?:exact )?same (?:issue|problem|bug|thing|request) as)"
    rf"(?: (?:issue|bug|pr|ticket))? (?P<ref>{_REF})",
    _I,
)
# An item closed for another that carries on its work (GUIDE §3: "Closing this in favor of
# #12197"; kubernetes) — and the other side, a change that "Replaces <link>" (uv).
_IN_FAVOUR = re.compile(
    rf"^(?:/?(?:closing|closed|close)(?: (?:this|it))?(?: (?:one|issue|pr|out))? )?"
    rf"in favou?r of (?:(?:issue|pr|pull request) )?(?P<ref>{_REF})", _I)
_REPLACES = re.compile(
    rf"^(?:this (?:pr |pull request |change )?)?(?:replaces|supersedes) (?:(?:issue|pr) )?"
    rf"(?P<ref>{_REF})", _I)
# A reviewer's approval as Bitcoin Core's projects write it (GUIDE §9; "LGTM", "/lgtm" are read
# by the rules' context statuses): "ACK 20abd52", "utACK <link>", "real-or-random: ACK …" — in
# capitals, so English "ack" is no review; "Concept ACK" and "NACK" approve no code.
_ACK = re.compile(r"^(?:[\w.-]+:\s*)?(?:ut|t|[Ll]ight |[Cc]ode [Rr]eview )?ACK\b")
_CLOSING = re.compile(r"^/?(?:closing|closed|close)\b", _I)
# "… as part of #14039", "This work is part of closing <link>", "addresses part of #1001".
_PART_OF = re.compile(
    rf"\bpart of (?:the work (?:to|for) )?"
    rf"(?:(?:closing|fixing|resolving|addressing|implementing) )?(?:issue )?(?P<ref>{_REF})",
    _I,
)
# Whose part it is: the thread's own work ("… as part of", "Part of …", "This work is part of",
# "This addresses part of"), not something else it names ("the code that was part of #12").
_PART_SUBJECT = re.compile(
    r"(?:^|\bas |\b(?:this|it|this (?:work|change|pr|pull request|patch)|zzref9998zz)"
    r" (?:is|was)(?: also| only)? |\b(?:addresses|implements|fixes|resolves|completes|tackles"
    r"|handles|does)(?: (?:a|one|another))? )$", _I)
# The words of the predicates above: a "title" holding them is the sentence's own words.
_PREDICATE = re.compile(
    r"\b(?:part of|duplicates?|dupe|dup|same \w+ as|in favou?r of|replaces|supersedes)\b", _I)
# What makes the words before a predicate assert nothing: a negation ("is not part of"), a
# guess, a plan, a wish, a condition ("might be part of", "if this is part of").
_UNASSERTED = re.compile(
    r"(?:\bnot|n't|\bnever|\bno longer|\bmay|\bmight|\bcould|\bwould|\bshould|\bwill|\bmaybe"
    r"|\bperhaps|\bprobably|\bpossibly|\bseems?|\blooks? like|\bi think|\bif|\bunless"
    r"|\bwhether|\bhope|\bwant|\bplan|\bgoing to)\b[\w' ]{0,24}$", _I)


@dataclass(frozen=True)
class Link:
    """``source relation target``: names of tracker items (the own item by its name), or the
    own item's status word (``HAS_STATUS``, "closed")."""

    source: str
    relation: str
    target: str


def read_item_links(masked: Masked, own: Reference) -> list[Link]:
    """What a masked sentence of the thread of item ``own`` says about which item tracks it,
    which item it duplicates and whether a reviewer approved it (see the module docstring)."""
    # "… as part of #14039" masks as one reference titled "… as part of": its words are read.
    text = PLACEHOLDER_REF.sub(lambda m: _with_title(masked, m[0]), masked.text)
    text = " ".join(text.split()).strip(" -*>")
    if not text:
        return []
    links: list[Link] = []

    def other(word: str | None) -> str | None:
        """The item a placeholder names, when it is not the thread's own."""
        reference = _reference(masked, word)
        if reference is None or same_item(reference.key, own.key):
            return None
        return _name(reference)

    if _ACK.match(text):
        links.append(Link(own.name, "HAS_STATUS", "approved"))  # "utACK 05e049b", GUIDE §9
    duplicate = _DUPLICATE.match(text)
    if duplicate is not None and (original := other(duplicate["ref"])) is not None:
        subject = own.name
        if duplicate["subject"]:
            named = _reference(masked, duplicate["subject"])
            subject = _name(named) if named is not None else ""
        if subject and subject != original:
            links.append(Link(subject, "DUPLICATE_OF", original))
    favoured = _IN_FAVOUR.match(text)
    if favoured is not None and (newer := other(favoured["ref"])) is not None:
        links.append(Link(own.name, "DUPLICATE_OF", newer))
    if (duplicate or favoured) and _CLOSING.match(text):
        links.append(Link(own.name, "HAS_STATUS", "closed"))  # "Closing this in favor of #12197"
    replaced = _REPLACES.match(text)
    if replaced is not None and (older := other(replaced["ref"])) is not None:
        links.append(Link(older, "DUPLICATE_OF", own.name))
    for part in _PART_OF.finditer(text):
        tracker = other(part["ref"])
        before = text[:part.start()]
        if tracker is not None and _PART_SUBJECT.search(before) and not _UNASSERTED.search(
                before):
            links.append(Link(tracker, "TRACKS", own.name))
    return links


def _with_title(masked: Masked, word: str) -> str:
    reference = masked.references.get(word)
    if reference is None or not reference.title or not _PREDICATE.search(reference.title):
        return word
    return f"{reference.title} {word}"


def _reference(masked: Masked, word: str | None) -> Reference | None:
    """The tracker item a placeholder stands for (not a person, not a link to a comment)."""
    reference = masked.references.get(word or "")
    if reference is None or reference.type != "WorkItem" or reference.comment:
        return None
    return reference


def _name(reference: Reference) -> str:
    """An item's name, by its identifier when its "title" was the sentence's own words."""
    if reference.title and _PREDICATE.search(reference.title):
        return reference.key
    return reference.name


# A guess before a claim ("I think this closes #4645", "This may be fixed by #96050").
_HEDGE_BEFORE = re.compile(
    r"\b(?:i think|i believe|i guess|not sure|maybe|perhaps|probably|possibly|likely|might|may"
    r"|seems?|hopefully)\b[\w' ]{0,24}$", _I)


def hedged(before: str) -> bool:
    """Whether the words just before a claim in a sentence make it a guess."""
    return _HEDGE_BEFORE.search(before) is not None


# "This PR", "this issue": what a thread's own words call its item (GUIDE §2).
_THIS_ITEM = re.compile(r"\b[Tt]his (?:PR|pull request|issue|change|patch|bug|ticket)\b(?!['’-])")
OWN_ITEM_WORD = "zzref9998zz"
"""The placeholder that stands for the thread's own item where its words say "this PR"."""


def name_own_item(masked: Masked, own: Reference) -> Masked:
    """The masked sentence with "this PR" / "this issue" standing for the thread's own item:
    "This PR picks up #636" is about the pull request, never an entity named "This PR"."""
    if "his " not in masked.text or _THIS_ITEM.search(masked.text) is None:
        return masked
    return replace(masked, text=_THIS_ITEM.sub(OWN_ITEM_WORD, masked.text),
                   references={**masked.references, OWN_ITEM_WORD: own})
