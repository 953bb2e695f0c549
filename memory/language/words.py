"""Words: their part of speech, their lemma, and whether a text is English.

Parts of speech are Penn Treebank tags from TextBlob's ``PatternTagger`` (``NN`` noun, ``NNP``
proper noun, ``VBZ`` verb in the third person, ``RB`` adverb, ``PRP`` pronoun...). The tagger is
used word by word, as TextBlob ships it (its lexicon and suffix rules; TextBlob's English parser
applies no contextual rules), so a word's tag does not depend on its neighbours: the rules
extractor uses tags to *veto* (a pronoun, a finite verb or an adverb is never part of an entity
name), never to find facts on their own.
"""

from __future__ import annotations

import re
from functools import lru_cache

import simplemma
from textblob.en.taggers import PatternTagger

_TAGGER = PatternTagger()
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_LATIN_LETTER = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# Languages the check compares English with (simplemma's dictionaries, all in its wheel).
_OTHER_LANGUAGES = ("de", "fr", "es", "pt", "it", "nl")
MIN_WORDS_FOR_LANGUAGE = 4
"""Below this many words a text is too short to say it is not English (a name, "LGTM", "+1")."""


@lru_cache(maxsize=65536)
def tag(word: str) -> str:
    """The part of speech of one word (Penn Treebank tag), e.g. ``tag("says") == "VBZ"``."""
    if not word.strip():
        return ""
    tagged = _TAGGER.tag(word, tokenize=False)
    return tagged[0][1] if tagged else ""


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The dictionary form of a word, lower case (``"crashed"`` → ``"crash"``)."""
    lowered = word.lower()
    if not _LATIN_LETTER.search(lowered):
        return lowered
    return simplemma.lemmatize(lowered, lang="en").lower()


def lemmas(text: str) -> list[str]:
    """The lemma of each word of a text, in order (punctuation dropped)."""
    return [lemma(word) for word in _WORD.findall(text)]


def language_of(text: str) -> str | None:
    """``"en"`` when the text reads as English, another ISO code when it clearly is written in
    another language, ``None`` when it is too short (or has too few letters) to tell."""
    letters = _LETTER.findall(text[:4000])
    if len(letters) < 12:
        return None
    latin = sum(1 for c in letters if c.isascii())
    if latin / len(letters) < 0.5:
        return "other"  # mostly another script (Cyrillic, Arabic, Hebrew, CJK...)
    sample = " ".join(_WORD.findall(text[:4000]))
    if len(sample.split()) < MIN_WORDS_FOR_LANGUAGE:
        return None
    shares = dict(simplemma.langdetect(sample, lang=("en", *_OTHER_LANGUAGES)))
    english = shares.get("en", 0.0)
    best, best_share = max(((code, share) for code, share in shares.items() if code != "unk"),
                           key=lambda pair: pair[1], default=("en", 0.0))
    if best != "en" and best_share >= 0.5 and best_share > english + 0.2:
        return best
    return "en"
