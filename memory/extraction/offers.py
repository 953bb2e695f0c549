"""Commitments said in other words than "X will …" (issue #17, meeting recall on unseen minutes).

``memory.extraction.minutes.find_commitment`` reads "Alice will update the guide", "Bob to
review it", "Carol volunteered to draft it". Minutes of other projects say the same with:

* **a first-person offer with "can"** in a speaker's line: "DLM: I can help review.", "DH: Luke
  and I can craft a dependency graph offline." — said by the speaker in a meeting, an offer to
  do the work is taking it on (the labels read it so). Only with "I" in the subject ("you can
  …", "we can …", "users can …" state a possibility, no one's commitment), never negated ("I
  can't", "I cannot", "I can not"), in a question, or under a condition or a hedge ("if needed
  I can …", "maybe I can …");
* **an action taken by name**: "I'll take an action to update the changelog", "Bob will take
  the AI to …" — the action is the commitment's verb ("has an action item to" is read by
  ``find_commitment`` itself);
* **a present-tense offer**: "Dave volunteers to draft the guide", "Kate also offers to help"
  read as "volunteered to" is (never under a negation, a condition or "would");
* **a hyphenated phrasal verb**: "Prasad will follow-up on the use cases" reads as "follow up".

``commitment_words`` rewrites those into the form ``find_commitment`` reads ("I will help
review", "I will update the changelog"); everything else is returned as it was. An offer is on
the thing its object names ("craft a dependency graph offline" → Dependency Graph), else, when
it names none ("I can help review", "I can help too", "work on this"), on the agenda item it
sits under, as an action item is (``Commitment.offered``; GUIDE §8.3).
"""

from __future__ import annotations

import re

_FIRST_PERSON_CAN = re.compile(
    r"^(?P<who>I|(?:[A-Z@][\w.'’-]*,\s*)*[A-Z@][\w.'’-]*,?\s+and\s+I|I\s+and\s+[A-Z@][\w.'’-]*)"
    r"\s+can\s+(?:also\s+|definitely\s+|probably\s+)?(?=[a-z]+\b)(?!not\b|no\b|never\b|only\b"
    r"|be\b|see\b|say\b|imagine\b|understand\b|live\b|agree\b|confirm\b|tell\b|think\b)",
)
""""I can help review", "Luke and I can craft …" (the verb after "can" must be a plain lower-case
word, never "not", "be", a verb of saying or believing)."""
_NOT_AN_OFFER = re.compile(
    r"\?|\b(?:if|unless|whether|when|once|maybe|perhaps|probably not|not sure|wonder|only|would"
    r"|not|never|no longer)\b|n't\b",
    re.IGNORECASE,
)
_ACTION_TAKEN = re.compile(
    r"(?:\s+will|'ll|’ll)\s+take\s+(?:an|the|that|this)\s+(?:action(?:\s+item)?|AI)\s+to\s+"
)
_PRESENT_OFFER = re.compile(
    r"\s+(?:also\s+)?(?:volunteers|offers|agrees)\s+to\s+(?=[a-z])"
)
""""Dick volunteers to draft it", "Kate also offers to help": a present-tense offer, said as
"volunteered to" is ("willing to" is left out: on dev its "help with it" named the wrong
item)."""
_HYPHENATED = re.compile(r"\b(follow|write|set|clean|sign|check|look)-(up|in|off|out)\b", re.I)


def commitment_words(text: str) -> tuple[str, str]:
    """The line in the words ``find_commitment`` reads (module docstring), and what kind of
    commitment the rewriting found: "offer" (a first-person offer, whose action naming no work
    is on the item it sits under), "action" (an action taken by name: an action item, as if
    labelled) or ""."""
    words = _HYPHENATED.sub(r"\1 \2", text)
    words, taken = _ACTION_TAKEN.subn(" will ", words, count=1)
    if not _NOT_AN_OFFER.search(words):
        words = _PRESENT_OFFER.sub(" will ", words, count=1)
    if taken and not _NOT_AN_OFFER.search(words):
        return words, "action"
    offer = _FIRST_PERSON_CAN.match(words)
    if offer is not None and not _NOT_AN_OFFER.search(words):
        return f"{offer['who']} will {words[offer.end():]}", "offer"
    return words, ""


_TRAILING_ADVERBS = re.compile(
    r"(?:\s+(?:offline|online|later|soon|today|tomorrow|too|as well|again|next week|this week"
    r"|async|asynchronously|first|next))+$",
    re.IGNORECASE,
)


def offered_object(work: str) -> str | None:
    """The thing an offer's object names ("a dependency graph offline" → "a dependency graph"),
    or None: a pronoun, a person, a quantity, no object (``task_items.object_item``)."""
    from memory.extraction.task_items import object_item

    words = object_item(_TRAILING_ADVERBS.sub("", work.strip(" .,;")))
    return words if words and words.lower() not in {"too", "also", "review", "out"} else None
