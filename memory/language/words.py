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
_NUMBER = re.compile(r"[#v]?\d[\d.,:/x-]*")
_LATIN_LETTER = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_COMMON_ENGLISH = frozenset(
    {"the", "is", "are", "was", "were", "to", "and", "of", "in", "on", "for", "with", "it",
     "this", "that", "we", "our", "my", "i", "you", "be", "been", "has", "have", "not", "by",
     "from", "at", "will", "can", "but", "they", "their", "which", "an", "or"}
)
_SAMPLE = 4000
"""Characters of a text the language check reads (its start)."""
ENGLISH_SHARE = 0.5
MIN_WORDS_FOR_LANGUAGE = 4
"""Below this many words a text is too short to say it is not English (a name, "LGTM", "+1")."""


@lru_cache(maxsize=65536)
def tag(word: str) -> str:
    """The part of speech of one word (Penn Treebank tag), e.g. ``tag("says") == "VBZ"``."""
    if not word.strip():
        return ""
    if _NUMBER.fullmatch(word):
        return "CD"  # the lexicon knows "2" as a preposition ("2 go"): a number is a number
    tagged = _TAGGER.tag(word, tokenize=False)
    return tagged[0][1] if tagged else ""


@lru_cache(maxsize=65536)
def is_common_word(word: str) -> bool:
    """Whether the word, in lower case, is in the tagger's English lexicon as something other
    than a proper noun ("hope", "move", "go" are; "brian", "scottmcm" are not)."""
    from textblob.en import lexicon

    found = lexicon.get(word.lower())
    return found is not None and found not in {"NNP", "NNPS"}


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
    """``"en"`` when the text reads as English, ``"other"`` when it clearly does not (most of
    its words are not English words, or most of its letters are of another script), ``None``
    when it is too short to tell (a name, "LGTM", "+1")."""
    sample = text[:_SAMPLE]
    if sample.isascii():
        if len(_LATIN_LETTER.findall(sample)) < 12:
            return None
    else:
        letters = len(_LETTER.findall(sample))
        if letters < 12:
            return None
        if len(_LATIN_LETTER.findall(sample)) / letters < 0.5:
            return "other"  # mostly another script (Cyrillic, Arabic, Hebrew, CJK...)
    words = _WORD.findall(sample)
    if len(words) < MIN_WORDS_FOR_LANGUAGE:
        return None
    # A shortcut, not the decision: text whose first words include several of English's most
    # frequent function words is English (a set look-up instead of a dictionary's lemmas).
    needed = 1 if len(words) < 12 else 2 if len(words) < 30 else 3
    if len(_COMMON_ENGLISH.intersection(w.lower() for w in words[:40])) >= needed:
        return "en"
    # The share of words simplemma finds in its English dictionary (names and identifiers
    # count against it, so the bar is low: French or German text scores under 0.4).
    # Lower case: the dictionary is case-sensitive, and notes capitalise each list item and
    # heading ("Done:", "Working on npm-on-ipfs", "Adding interop tests" read 0.2 as written).
    share = simplemma.in_target_language(" ".join(words).lower(), lang="en")
    return "en" if share >= ENGLISH_SHARE else "other"


_LY_WORD = re.compile(r"(?:,\s*)?\b([A-Za-z]{3,}ly)\b(?:\s*,)?")
_MEANING_ADVERBS = frozenset(
    {"only", "nearly", "hardly", "barely", "rarely", "scarcely", "likely", "unlikely",
     "possibly", "probably", "hopefully", "ideally", "partially", "partly", "mostly",
     "supposedly", "apparently", "seemingly", "allegedly", "potentially", "presumably",
     "theoretically", "previously", "formerly", "initially", "originally", "eventually",
     "occasionally", "intermittently", "randomly", "sporadically", "early", "daily", "weekly",
     "monthly", "yearly", "quarterly", "hourly", "nightly", "briefly", "temporarily",
     "currently", "recently", "lately", "newly", "merely", "really",
     "certainly", "definitely", "surely", "clearly", "obviously", "basically", "generally",
     "usually", "normally", "typically", "frequently", "constantly", "repeatedly"}
)
"""Adverbs that change what a statement says — a hedge ("probably"), a degree ("partially",
"nearly"), a time ("previously", "eventually"), a frequency ("intermittently", read as a
symptom's intensity) — and are kept."""


def without_manner_adverbs(text: str) -> str:
    """The text without its manner adverbs: an ``-ly`` word the tagger calls an adverb (``RB``)
    that only says *how* ("Guido has been working extensively on asyncio", "Successfully
    published iso-url@0.1.0", "unanimously agreed"), so a clause reads as its subject, verb and
    object. Hedges, degrees, times and frequencies (``_MEANING_ADVERBS``) stay."""
    if "ly" not in text:
        return text

    def drop(match: re.Match[str]) -> str:
        word = match.group(1)
        if word.lower() in _MEANING_ADVERBS or tag(word.lower()) != "RB":
            return match.group(0)
        return " "

    return re.sub(r"\s{2,}", " ", _LY_WORD.sub(drop, text)).strip()
