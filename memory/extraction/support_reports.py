"""One report per problem in a customer's message.

A customer says their problem more than once in a message — in its summary and again in the
steps ("Autofill does not work with Chrome or Edge, which I also tried. … only using the
Bitwarden programme under Windows does not solve the problem, autofill does not work.",
Bitwarden), or as the story goes on ("After one update, it started to freeze. … Every time I
changed it, it froze.", Cursor). Said in the same words (the same lemmas once negations are
spelled out), it is one problem and one report: the first says it, a later restatement adds
nothing. Two different symptoms ("Docker won't start", "Docker loads forever") stay two.

A customer's whole product failing ("On Friday my docker stopped working and was unable to
start", Docker for Mac; "Docker version 2.5.0.1 doesn't work on my windows 10 pro. The hyper-v
version first keeps on starting", Docker for Windows) names no symptom: the product of the
tracker they write in ``works`` or not by definition, and what they say next is the problem
(``whole_product_fails``: the rules read the rest of the message for it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memory.extraction import ExtractedFact, Extraction
from memory.language.words import lemma

_TOKEN = re.compile(r"[a-z0-9][a-z0-9'-]*")
_SPELLED = {"doesn't": "do not", "don't": "do not", "didn't": "do not", "can't": "cannot",
            "cant": "cannot", "won't": "will not", "wont": "will not", "isn't": "be not",
            "wasn't": "be not", "couldn't": "cannot", "doesnt": "do not", "dont": "do not",
            "didnt": "do not"}
# Words that say nothing of which problem it is.
_IGNORED = frozenset({"the", "a", "an", "my", "it", "this", "that", "be", "do", "have", "get",
                      "still", "just", "also", "again", "anymore", "even", "really", "to"})
_TRAILING_GROUP = re.compile(r"\s*\([^()]*\)\s*$")


def _words(name: str) -> frozenset[str]:
    bare = name
    while (found := _TRAILING_GROUP.search(bare)) is not None and bare[:found.start()].strip():
        bare = bare[:found.start()]  # "(#2364)", "(Warp)": the name's ticket and brand
    words: list[str] = []
    for token in _TOKEN.findall(bare.lower()):
        words += _SPELLED.get(token, token).split(" ")
    return frozenset(lemma(w) for w in words) - _IGNORED


def one_report_per_problem(extraction: Extraction, author: str) -> Extraction:
    """The extraction with each later report of a problem the author already reported in the
    same words left out, and what was said of it said of the first (see the module
    docstring)."""
    reported: list[tuple[str, frozenset[str]]] = []
    same: dict[str, str] = {}
    for fact in extraction.facts:
        if fact.relation != "REPORTED" or fact.source != author or fact.target_type != "Issue":
            continue
        words = _words(fact.target)
        first = next((name for name, seen in reported if words and (
            words <= seen or seen <= words)), None)
        if first is not None and first != fact.target:
            same[fact.target] = first
        elif first is None:
            reported.append((fact.target, words))
    if not same:
        return extraction
    facts: list[ExtractedFact] = []
    for fact in extraction.facts:
        if fact.relation == "REPORTED" and fact.target in same:
            continue
        moved = replace(fact, source=same.get(fact.source, fact.source),
                        target=same.get(fact.target, fact.target))
        if moved not in facts:
            facts.append(moved)
    return replace(extraction, facts=facts,
                   entities=[e for e in extraction.entities if e.name not in same])


# "does not work", "stopped working", "is not working", "no longer works": failing, said of all.
_WORKS_NOT = re.compile(r"(?:\bnot|n't|\bno longer|\bstop(?:ped|s)?|\bnever)\s+(?:be\s+)?"
                        r"work(?:s|ing)?\b", re.IGNORECASE)
_OPENERS = frozenset({"my", "our", "the", "this", "your", "his", "her", "their", "its", "on",
                      "friday", "today", "now", "suddenly", "yesterday", "latest", "new", "also",
                      "and"})
_VERSION = re.compile(r"v?\d[\w.-]*|version|versions|release|build|app|desktop")


def whole_product_fails(subject: str, predicate: str, product: frozenset[str]) -> bool:
    """Whether "``subject`` ``predicate``" only says that the tracker's product (``product``:
    ``support_products.product_words``) fails as a whole — "my docker stopped working", "Docker
    version 2.5.0.1 doesn't work" — which names no symptom (see the module docstring)."""
    if not product or not _WORKS_NOT.search(predicate):
        return False
    words = [w for w in _TOKEN.findall(subject.lower()) if w not in _OPENERS]
    return bool(words) and words[0] in product and all(
        w in product or _VERSION.fullmatch(w) for w in words[1:])


# What a problem is given as the reason of: "this is due to the safety through network blocking
# by Norton 360", "caused by the antivirus blocking it".
_CAUSE = re.compile(r"\b(?:due to|because of|caused by|result of|thanks to|owing to)\s+(?:\S+\s+)"
                    r"{0,3}$", re.IGNORECASE)


def explained(text: str, phrase: str) -> bool:
    """Whether ``phrase`` is said as the cause of something ("it's pretty clear this is due to
    the safety through network blocking by … Norton 360", Mullvad): the customer's
    explanation, not the symptom they report (the symptom is said on its own elsewhere)."""
    at = text.find(phrase)
    return at >= 0 and _CAUSE.search(text[:at]) is not None


@dataclass(frozen=True)
class TitledContext:
    """A customer's title that opens on its context before a colon: ``problem`` is what is
    wrong, ``event`` what it came after when the context says an update ("MacOS 13.4 update")."""

    problem: str
    event: str | None


# The context of a title that names an update: "MacOS 13.4 update", "After upgrade to 1.2".
_UPDATE_CONTEXT = re.compile(
    r"^(?:after\s+(?:the\s+)?)?(?P<event>(?:[\w.+-]+\s+){0,4}?(?:update|upgrade|release)"
    r"(?:\s+(?:to\s+)?v?[\w.+-]*\d[\w.+-]*)?)$",
    re.IGNORECASE,
)


def titled_context(
    title: str, first: str, reports: re.Pattern[str], ends: re.Pattern[str]
) -> TitledContext | None:
    """The problem of a title "<context>: <problem>" (or "; ") whose first part (``first``, the
    title up to where ``ends`` cut it) reports nothing by ``reports`` and the part after the
    colon does ("MacOS 13.4 update: Tailscale exit node functionality stops working", Tailscale;
    "after each update; db broken: Error: SQLITE_NOTADB…", Signal); None for any other
    title."""
    rest = title[len(first):] if title.startswith(first) else ""
    if not rest.startswith((":", ";")) or reports.search(first):
        return None
    problem = ends.split(rest[1:].strip(), maxsplit=1)[0].strip()
    if not problem or not reports.search(problem):
        return None
    update = _UPDATE_CONTEXT.match(first.strip())
    return TitledContext(problem, update["event"] if update is not None else None)


# A sentence that draws a consequence of what was said before it.
_CONSEQUENCE = re.compile(
    r"^\W*(?:therefore|thus|hence|consequently|as a result|because of (?:this|that))\b",
    re.IGNORECASE)


def a_consequence(text: str) -> bool:
    """Whether the sentence draws a consequence of the problem said before it ("Therefore, I
    cannot edit my 2-factor auth settings, like I was planning to do.", Bitwarden): what the
    problem keeps the customer from, not a second problem (the rules skip it once the problem
    itself was reported; when it was not read, the consequence is the report there is)."""
    return _CONSEQUENCE.match(text) is not None
