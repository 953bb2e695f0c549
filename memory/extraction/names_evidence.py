"""Whether the words a reading took for an entity can name one at all (issue #17).

Readings cut names out of sentences by pattern; on text they were not tuned on, the cut can land
mid-grammar. These cuts never name anything, whatever the reading:

* words that still hold a masked span ("Onboarded zzref0zz": the mention of "@ryzokuken" read
  as part of a name, nodejs-tsc-meetings-2018-11-14-s7) — a name is the reference itself or
  words around none, unless the words are an item's title with its reference after it
  ("Review & merge files API changes from zzref1zz (ipfs/js-ipfs#1671)"): the reference
  names the item;
* words that open on a coordinating conjunction ("or commented on Jeff's updates",
  spdx-service-2023-2023-08-28-s5) — the second half of a coordination, no noun phrase;
* a bare number ("2023 and the other one … approved") or a verb's particle ("Leading up to the
  end": "up"), cut from tc39 notes outside the corpus.
"""

from __future__ import annotations

import re

from memory.extraction import ExtractedEntity
from memory.language.references import PLACEHOLDER
from memory.language.words import is_common_word

_AN_AMOUNT = re.compile(
    r"^(?:more|some|much|further|additional|extra|lots of|a (?:lot|bit|little) of|a few)\b",
    re.IGNORECASE,
)
_ONE_PROPER_NAME = re.compile(r"[A-Z][a-z]+")
_PARTICLES = frozenset({"up", "out", "off", "down", "over", "back", "in", "on", "away", "through"})
_OPENS_ON_CONJUNCTION = re.compile(r"^(?:or|and|but|nor)\b", re.IGNORECASE)
_TITLED_REFERENCE = re.compile(r"\([\w.-]+/[\w.-]+#\d+\)$")
"""An item's title ending on its reference, as the reader displays it: "… (nodejs/node#58689)"."""


def can_name(words: str) -> bool:
    """Whether ``words`` may be an entity's name (see the module docstring)."""
    words = words.strip()
    if PLACEHOLDER.search(words) and not _TITLED_REFERENCE.search(words):
        return False
    if words.isdigit() or words.lower() in _PARTICLES:
        return False  # "2023 … is approved", "Leading up to the end": no name
    return not _OPENS_ON_CONJUNCTION.match(words)


def waits_in_person(subject: object) -> bool:
    """Whether the subject of "… waiting for X" is someone rather than work: a person, or one
    proper name no common word reads ("Thomas waiting for repository on other side",
    spdx-tech-2017-2017-05-09-s3) — people and teams wait, only work depends on work."""
    if not isinstance(subject, ExtractedEntity):
        return False
    if subject.type in {"Person", "Team"}:
        return True
    word = subject.name.strip()
    return bool(_ONE_PROPER_NAME.fullmatch(word)) and not is_common_word(word)


def names_an_amount(words: str) -> bool:
    """Whether what something needs is an amount, not an item: "Current implementation needs
    more work" (nodejs-tsc-meetings-2022-04-13-s7) depends on nothing by name."""
    return bool(_AN_AMOUNT.match(words.strip()))
