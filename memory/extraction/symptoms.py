"""Symptoms: one canonical issue name for a customer's problem, however it is said.

"times out", "timing out", "timed out" and "timeouts" are one issue (``Timeout Errors``); "can't
log in", "unable to sign in" and "locked out of my account" are another (``Login Failures``).
A text is reduced to its words' lemmas (``memory.language.words``) and matched against the small
synonym table below, written as lemma sequences: ``a|b`` is either word, ``*`` up to three words
of anything. The table is the domain's vocabulary; the lemmas are the library's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory.language.words import lemma

# canonical issue → its phrasings (lemmas; the first word of each must be literal).
SYMPTOMS: dict[str, tuple[str, ...]] = {
    "Timeout Errors": (
        "time out", "timing out", "timeout", "time-out", "timed-out",
    ),
    "Login Failures": (
        "cannot log|sign|login in|on", "cannot login|signin|logon", "can not log|sign in",
        "unable to log|sign|login in|on", "unable to login|signin",
        "not able to log|sign in", "fail to log|sign in", "fail to login|signin",
        "log|sign in fail", "login|signin|log-in|sign-in fail|failure|error|issue|problem",
        "lock out of * account", "lock out", "cannot get into * account",
        "cannot access * account", "unable to access * account", "cannot get in",
        "do not let me log|sign in", "will not let me log|sign in",
    ),
    "Latency": (
        "slow", "slowness", "slowdown", "laggy", "lag", "sluggish", "latency",
        "unresponsive", "take forever", "take age",
    ),
    "Outages": (
        "outage", "down for", "be down", "go down", "unavailable", "unreachable",
    ),
    "Crashes": (
        "crash", "keep crash",
    ),
    # A resource a product eats: the amount is the complaint ("a large amount of memory", "memory
    # usage will gradually increase", "keeps maxing my CPU cores", "spikes of 100% CPU"), named
    # by the core words every phrasing shares (GUIDE §6).
    "Memory Usage": (
        "high|higher|excessive|huge|large|big|massive|significant|hight memory|ram",
        "memory|ram usage|use|consumption|footprint * increase|grow|spike|explode|balloon|climb",
        "memory|ram leak", "leak memory|ram", "amount of memory|ram", "lot of memory|ram",
        "much memory|ram", "eat * memory|ram",
    ),
    "CPU Usage": (
        "high|higher|excessive|huge|significant|100 cpu",
        "cpu usage|use|consumption|consuption|utilisation|utilization|load * increase|grow"
        "|spike|100",
        "spike of * cpu", "spike to * cpu", "amount of cpu", "lot of cpu", "much cpu",
        "eat * cpu", "max * cpu", "maxing * cpu",
    ),
}
_NEGATIONS = frozenset({"not", "no", "never", "nothing", "without"})
_TOKEN = re.compile(r"[a-z0-9][a-z0-9'-]*")
# What a negation may not precede for the symptom to stand ("can not log in" is the symptom).
_SELF_NEGATING = ("cannot", "can", "unable", "fail", "will", "do")


def _compile(phrase: str) -> tuple[frozenset[str] | None, ...]:
    """A phrasing as a sequence of lemma sets (``None`` for a ``*``)."""
    steps: list[frozenset[str] | None] = []
    for word in phrase.split(" "):
        if word == "*":
            steps.append(None)
        else:
            steps.append(frozenset(lemma(w) for w in word.split("|")) | frozenset(
                word.split("|")))
    return tuple(steps)


_TABLE: tuple[tuple[str, tuple[frozenset[str] | None, ...]], ...] = ()


def _table() -> tuple[tuple[str, tuple[frozenset[str] | None, ...]], ...]:
    global _TABLE
    if not _TABLE:
        _TABLE = tuple((name, _compile(phrase)) for name, phrases in SYMPTOMS.items()
                       for phrase in phrases)
    return _TABLE


def _matches(steps: tuple[frozenset[str] | None, ...], words: list[str], start: int) -> int:
    """The index after the match of ``steps`` at ``start``, or -1."""
    position = start
    for index, step in enumerate(steps):
        if step is None:
            rest = steps[index + 1:]
            for skip in range(4):
                end = _matches(rest, words, position + skip) if rest else position + skip
                if end >= 0:
                    return end
            return -1
        if position >= len(words) or words[position] not in step:
            return -1
        position += 1
    return position


@lru_cache(maxsize=8192)
def find_symptom(text: str) -> tuple[str, int, int] | None:
    """``(issue name, first word, word after)`` of the first symptom said in the text (word
    positions in ``text.lower().split()`` terms of its tokens), or None. A symptom preceded by a
    negation ("not slow any more") is not said."""
    tokens = _TOKEN.findall(text.lower())
    words = [lemma(t) for t in tokens]
    for start in range(len(words)):
        for name, steps in _table():
            first = steps[0]
            if first is not None and words[start] not in first:
                continue
            end = _matches(steps, words, start)
            if end < 0:
                continue
            # "does not, by itself, cause a memory leak": a negation a few words back
            before = words[max(0, start - 5):start]
            if any(w in _NEGATIONS for w in before) and words[start] not in _SELF_NEGATING:
                return None
            return name, start, end
    return None


def symptom_name(text: str) -> str | None:
    """The canonical issue a phrase names, if it names a symptom of the table."""
    found = find_symptom(text)
    return found[0] if found else None


def tokens(text: str) -> list[str]:
    """The words ``find_symptom`` counts positions in."""
    return _TOKEN.findall(text.lower())


def tokens_after(text: str, end: int) -> str:
    """The words of ``text`` from token ``end`` on (to read where the symptom shows)."""
    return " ".join(_TOKEN.findall(text.lower())[end:])
