"""Which product a customer's problem affects, when the words say the customer was using the
product their tracker is for.

A vendor's tracker is one product's queue (``docker/for-mac``, ``postmanlabs/postman-app-support``,
``warpdotdev/warp``), and its customers say what they were using when the problem showed in a
clause of time or an adjunct of accompaniment: "i'm stuck in white screen when open postman"
(Postman, pm-10800-dajneem23-2022-03-29), "hight memory when warp was started" (Warp,
warp-5861-haibaradc-2025-02-20), "the white screen issue on startup with Postman" (Postman,
pm-12370-CZT0-2024-01-21). That product is what the problem affects (GUIDE §6).

The product is the tracker's: a word of its repository's name or owner, the platform and
packaging words aside ("for", "mac", "desktop", "app"…), so a lower-case name ("postman", "warp")
is read as surely as a capitalised one, and neither the platform ("when using my windows 10
pro"), a feature ("when using exit node") nor a version ("issues with version 2023.10.1") is
taken for it — the rules' own readings of titles name those. Read but not taken: the product as
the *subject* of the failure ("Docker stuck in starting mode", "Signal for desktop fails to
link"), which GUIDE §8.6 allows but whose labels disagree from source to source (README, issue
#17 support round ``rtsup2``).
"""

from __future__ import annotations

import re

from memory.language.words import tag

_I = re.IGNORECASE
# Words of a repository's name that say which platform or package it serves, not the product.
_NOT_PRODUCT = frozenset(
    {
        "for",
        "mac",
        "macos",
        "osx",
        "win",
        "windows",
        "linux",
        "ios",
        "android",
        "desktop",
        "app",
        "apps",
        "application",
        "client",
        "clients",
        "support",
        "issues",
        "issue",
        "feedback",
        "bugs",
        "public",
        "releases",
        "community",
        "the",
        "docs",
        "dev",
        "labs",
        "io",
        "hq",
        "inc",
    }
)
_WORD = re.compile(r"[a-z0-9]+")


def product_words(thread: str) -> frozenset[str]:
    """The words that name a tracker's product, from its item's key (``docker/for-mac#370`` →
    ``{"docker"}``, ``postmanlabs/postman-app-support#10800`` → ``{"postman", "postmanlabs"}``);
    none for a key that names no repository."""
    repository = thread.partition("#")[0]
    if "/" not in repository:
        return frozenset()
    owner, _, name = repository.lower().partition("/")
    words = {w for w in _WORD.findall(owner) + re.split(r"[-_.]", name) if w}
    return frozenset(w for w in words if w not in _NOT_PRODUCT and len(w) > 2)


# "when (I) (try to) open/use/start/run/launch/connect to X", "when X was started", "with X".
_IN_USE = re.compile(
    r"\b(?:when|while|whenever|every ?time)\s+(?:(?:i|we)\s+|i'?m\s+|i am\s+)?"
    r"(?:try(?:ing)? to\s+)?(?:use|using|open|opening|start|starting|launch|launching|run"
    r"|running|connect(?:ing)?\s+to)\s+(?:the\s+|my\s+|our\s+)?(?P<np>[\w.+-]+(?: [\w.+-]+){0,3})"
    r"|\b(?:when|while|whenever|every ?time)\s+(?:the\s+|my\s+)?"
    r"(?P<np2>[\w.+-]+(?: [\w.+-]+){0,3}?)\s+(?:is|was|gets|got)\s+(?:started|opened|launched"
    r"|running|starting|opening)\b"
    r"|\bwith\s+(?:the\s+|my\s+)?(?P<np3>[\w.+-]+(?: [\w.+-]+){0,3})",
    _I,
)
# Where the product's noun phrase ends: a preposition, a conjunction, a clause, a number.
_NP_END = re.compile(
    r"\s+(?:on|in|at|from|to|with|and|or|but|when|while|after|since|because"
    r"|so|which|that|for|is|was|are|were|\d)\b.*$",
    _I,
)
# A clause to itself: what is in use is said in the clause of the failure.
_CLAUSE_BREAK = re.compile(r"[;:!?()\[\]\"]|\.\s|\.$|,\s+(?:but|and|so|then)\b", _I)


def _named_product(phrase: str, product: frozenset[str]) -> str | None:
    """The phrase when it is a noun phrase headed by a word of the tracker's product ("postman",
    "Postman app", "warp"), else None."""
    words = _NP_END.sub("", phrase).strip(" .,'\"`").split()
    if not words or words[0].lower().strip("'\"`") not in product:
        return None
    if not all(tag(w).startswith(("NN", "CD")) for w in words[1:3]):
        return None  # "postman started": a clause, not a name
    return " ".join(words[:3])


def product_in_use(text: str, product: frozenset[str]) -> str | None:
    """The tracker's product the sentence says was in use when its problem showed (see the
    module docstring), as written; ``None`` when it names none of ``product``."""
    if not product:
        return None
    for clause in _CLAUSE_BREAK.split(text):
        for used in _IN_USE.finditer(clause):
            named = _named_product(used["np"] or used["np2"] or used["np3"] or "", product)
            if named is not None:
                return named
    return None


_CLAUSE_OF_USE = re.compile(r"\s+(?:when|while|whenever|every ?time|with)\b.*$", _I)


def names_product_inside(issue: str, product: frozenset[str]) -> bool:
    """Whether the problem's own words, before any clause of use, already hold the tracker's
    product ("Postman not loading when I open it"): it is the problem's subject, and the
    reading adds nothing ("hight memory when warp was started" holds no product before
    "when")."""
    bare = re.sub(r"\s*\([^()]*\)", "", issue)
    said = set(_WORD.findall(_CLAUSE_OF_USE.sub("", bare).lower()))
    return bool(said & product)


# "I am on the latest version of docker desktop and Catalina": the version of what is in use.
_VERSION_OF = re.compile(
    r"^(?:the\s+|an?\s+)?(?:(?:latest|newest|current|older|old|new|beta|stable|same)\s+){0,2}"
    r"(?:version|release|build)(?:\s+v?[\d.]+\S*)?\s+of\s+(?:the\s+|my\s+)?(?P<np>.+?)\.?$",
    _I,
)
_LIST = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)", _I)


def product_versions_in_use(phrase: str, product: frozenset[str]) -> list[str]:
    """The tracker's products a customer says they are on a version of ("I am on the latest
    version of docker desktop and Catalina" → ``["docker desktop"]``: the platform is no
    product of the tracker, GUIDE §8.5), as written; none when the phrase says no version of
    the tracker's product."""
    found = _VERSION_OF.match(phrase.strip())
    if found is None or not product:
        return []
    return [named for part in _LIST.split(found["np"])
            if (named := _named_product(part, product)) is not None]
