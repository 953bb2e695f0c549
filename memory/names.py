"""Entity names: how they are normalized for matching and how they are displayed."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_LEADING_WORDS = {"the", "a", "an", "our", "my", "their", "his", "her", "its", "your"}
_PUNCTUATION = re.compile(r"[^\w\s]", re.UNICODE)
_SPACE = re.compile(r"\s+")
# Lower-case words kept lower case inside a displayed name ("Head of Sales").
_SMALL_WORDS = {"of", "and", "for", "to", "in", "on", "at", "by", "with", "the", "a", "an", "or"}


def normalize_name(name: str) -> str:
    """The key exact matching uses: case, accents, punctuation, whitespace and leading articles
    do not matter (``"The Auth-Service  refactor."`` → ``"auth service refactor"``)."""
    # Names are remembered (a batch normalizes the same names thousands of times); long texts,
    # which some callers normalize whole, are not kept.
    if len(name) <= _REMEMBERED_LENGTH:
        return _normalize_remembered(name)
    return _normalize(name)


_REMEMBERED_LENGTH = 120


def _normalize(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold()
    text = text.replace("\u2019", "'")  # the typographic apostrophe
    text = _PUNCTUATION.sub(" ", text.replace("'s ", " "))
    words = _SPACE.sub(" ", text).strip().split(" ")
    while len(words) > 1 and words[0] in _LEADING_WORDS:
        words = words[1:]
    return " ".join(w for w in words if w)


_normalize_remembered = lru_cache(maxsize=65536)(_normalize)


def author_name(author: str) -> str:
    """An episode's author as shown: as written, whitespace aside. The ``author`` field is a
    name the source gave (a login ``dannyneira``, ``stephen-turner``, a help desk's user name),
    never a phrase read from prose: capitalizing it would misspell the handle a support lead
    searches for ("Dannyneira"). The model's reading names authors as written too."""
    return " ".join(author.split())


def display_name(phrase: str) -> str:
    """A name as shown: leading articles dropped, each word capitalized, acronyms and words that
    already carry capitals kept (``"the API migration"`` → ``"API Migration"``); an ``@handle``
    is kept as written (``@dannyneira``)."""
    words = _SPACE.sub(" ", phrase.strip()).split(" ")
    while len(words) > 1 and words[0].lower() in _LEADING_WORDS:
        words = words[1:]
    shown = []
    for i, word in enumerate(words):
        if not word:
            continue
        keep_as_written = word.startswith("@") or any(c.isupper() or c.isdigit() for c in word)
        if keep_as_written or (i > 0 and word in _SMALL_WORDS):
            shown.append(word)
        else:
            shown.append(word[:1].upper() + word[1:])
    return " ".join(shown)
