"""Support semantics (issue #14): which brand a support message belongs to, and what that means
for the problems it reports. Pure functions of names and extractions, no ORM.

A support queue often serves several brands or products (a help desk's brands, a vendor's
trackers, the brand accounts of a social-media desk). "Login failures" at one brand and "login
failures" at another are two problems: one brand's fix ends nothing at the other, and a support
lead must never see them merged into one observation. So the problems (``Issue``) and products
(``Product``) a support message names belong to its brand: their names carry it
(``Login Failures (Warp)``). What brands genuinely share stays shared and may link them — the
customer, an event both followed (``PRECEDED_BY``: co-occurrence, never a cause), a service, a
plan — so two brands' messages meet in one observation only when their facts say so.

A customer's message that lives in a ticket or a thread (its ``url``: a help desk's ticket, a
tracker's issue) is part of that ticket's thread: its author reported the ticket
(``REPORTED``, which links by target), as every episode an importer maps from a ticket says. So
a ticket's messages are one thread even when their words name no problem the extractor knows
("same here", "still happening on 4.2"), and tickets of one problem meet through it. A GitHub
issue's address names the thread as the GitHub importer names the issue (``owner/repo#12``).

The brand comes from the episode's ``source``: ``<channel>:<brand>`` (``support:warp``,
``zendesk:Acme Mobile``) names it after the colon; a source that is only a tool or a channel
(``zendesk``, ``support``, ``email``…) names none; any other source is the brand itself (the
brand account a message was written to).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from typing import Any

from memory.extraction import ExtractedClosure, ExtractedEntity, ExtractedFact, Extraction
from memory.extraction.support_threads import read_thread_statements
from memory.extraction.symptoms import problem_name
from memory.language.references import title_line
from memory.names import normalize_name

SCOPED_TYPES = frozenset({"Issue", "Product"})
"""What belongs to a brand. Customers, people, events, services and plans do not."""

CHANNELS = frozenset({
    "api", "chat", "csv", "email", "mail", "freshdesk", "helpdesk", "help desk", "hubspot",
    "import", "intercom", "phone", "slack", "sms", "support", "ticket", "tickets", "web",
    "zendesk", "messenger", "twitter", "whatsapp", "facebook",
})
"""Sources that name a tool or a channel, not a brand."""


def brand_of(source: str) -> str | None:
    """The brand a support message's ``source`` names, or None."""
    text = " ".join(source.split())
    if not text or "://" in text:
        return None
    if ":" in text:
        return product_of_repository(text.partition(":")[2].strip()) or None
    return None if text.lower() in CHANNELS else text


# Words of a tracker's name that say which platform's build it serves, not which product.
_PLATFORMS = frozenset({"for", "mac", "macos", "osx", "win", "windows", "linux", "ios",
                        "android"})
_REPOSITORY = re.compile(r"^(?P<owner>[\w.-]+)/(?P<name>[\w.-]+)$")


def product_of_repository(name: str) -> str:
    """A vendor's per-platform trackers are one product's queue: ``docker/for-mac`` and
    ``docker/for-win`` are both ``docker/for-*`` (Docker Desktop on two systems, one product whose
    problems recur on both), ``acme/app-windows`` is ``acme/app-*``; any other name is itself."""
    match = _REPOSITORY.match(name)
    if match is None:
        return name
    words = re.split(r"[-_.]", match["name"])
    product = [w for w in words if w and w.lower() not in _PLATFORMS]
    if len(product) == len([w for w in words if w]):
        return name
    # "docker/for-*": the owner's product on every platform (a name like the owner's own would
    # be found inside the product's problem names, "Docker desktop not running", and leave them
    # unscoped)
    return f"{match['owner']}/{'-'.join(product) if product else 'for'}-*"


def scoped(name: str, brand: str | None) -> str:
    """``name`` as its brand's: ``Login Failures (Warp)``; unchanged without a brand, or when
    the name already says the brand (``Warp``, ``Warp Login``)."""
    if not brand:
        return name
    key, brand_key = normalize_name(name), normalize_name(brand)
    if not brand_key or brand_key in key or key in brand_key:
        return name
    return f"{name} ({brand})"


_GITHUB = re.compile(r"^https?://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)")


def thread_of(url: str) -> str | None:
    """The ticket or thread a message's address names: ``owner/repo#12`` for a GitHub issue or
    pull request (its comments' ``#issuecomment-…`` anchors included), else the address
    without its fragment."""
    text = url.strip()
    if not text.startswith(("http://", "https://")):
        return None
    match = _GITHUB.match(text)
    if match:
        return f"{match.group(1)}#{match.group(2)}"
    return text.split("#", 1)[0].rstrip("/") or None


def thread_title(text: str, url: str) -> tuple[str, str] | None:
    """``(thread, title)`` when a message's first line is its numbered thread's title line, as a
    tracker's issue body starts (``# Web Site Login Loop #8587`` in
    ``…/warpdotdev/warp/issues/8587``): the thread is shown by its title
    (``warpdotdev/warp#8587 “Web Site Login Loop”``), as the importers' items are."""
    thread = thread_of(url) if url else None
    if not thread or "#" not in thread:
        return None
    first = text.lstrip().split("\n", 1)[0]
    reference = title_line(first) if first.lstrip().startswith("#") else None
    if reference is None or not reference.title:
        return None
    if reference.key.rpartition("#")[2] != thread.rpartition("#")[2]:
        return None  # the title of another item
    return thread, reference.title


def titles_only(supplied: Mapping[str, Any] | None) -> bool:
    """Whether what was given with an episode is only a thread's title (``thread_title``, kept
    at ingestion): it states nothing of who wrote in the thread, so the message is read as one
    given without it."""
    if not supplied:
        return True
    return not supplied.get("facts") and all(
        e.get("title") and e.get("type") == "WorkItem" for e in supplied.get("entities", ()))


def with_thread(extraction: Extraction, author: str, url: str, text: str = "", *,
                reporter: bool = True) -> Extraction:
    """The extraction of a customer's message, plus that the customer wrote in its thread —
    and in the threads its ``text`` says are the same problem ("Duplicate of #1780", "the same
    issue as https://…/issues/4612"): a thread closed as another's duplicate, or a customer
    pointing at the thread of their problem, joins that problem's reports, as writing in it
    would. Both are the thread's membership (``REPORTED`` of the thread, so that a thread's
    messages meet), metadata that cites no words (``thread_membership``); what the words state
    of the thread is read (``memory.extraction.support_threads``: the thread ``DUPLICATE_OF``
    another, ``HAS_STATUS closed``), never that the writer reported the other thread.
    ``reporter`` false: an agent's message (the vendor's staff, ``Episode.author_role``) — what
    it states of the thread is read, and its writing there reports nothing: the agent
    ``ANSWERED`` in the thread, a participant whose reply joins the thread's messages
    (``ANSWERED`` links as ``REPORTED``) without making the agent a customer who reported it."""
    thread = thread_of(url)
    if not thread or not author:
        return extraction
    if not reporter:
        answered = ExtractedFact(author, "Person", "ANSWERED", thread, "WorkItem",
                                 membership_sentence(author, thread))
        stated = read_thread_statements(text, thread) if text else []
        return replace(extraction, facts=[*extraction.facts, answered, *stated])
    fact = ExtractedFact(author, "Customer", "REPORTED", thread, "WorkItem",
                         membership_sentence(author, thread))
    same = [ExtractedFact(author, "Customer", "REPORTED", other, "WorkItem",
                          membership_sentence(author, thread, other))
            for other, _ in same_problem_threads(text, thread)]
    stated = read_thread_statements(text, thread) if text else []
    return replace(extraction, facts=[*extraction.facts, fact, *same, *stated])


def membership_sentence(author: str, thread: str, other: str | None = None) -> str:
    """What a membership fact cites: no words of the message, the thread it is in (and the
    thread its words point at)."""
    if other is None:
        return f"{author} wrote in {thread}."
    return f"{author} wrote in {thread}, which points at {other}."


def thread_membership(fact: ExtractedFact, author: str, url: str) -> bool:
    """Whether the fact is only a message's membership of a thread (``with_thread``: a
    customer's ``REPORTED`` of it, an agent's ``ANSWERED`` in it): metadata, not a reading of
    its words."""
    thread = thread_of(url) if url else None
    if thread is not None and fact.relation == "ANSWERED" and fact.source == author:
        return fact.sentence == membership_sentence(author, thread)
    return (thread is not None and fact.relation == "REPORTED" and fact.source == author
            and (fact.sentence == membership_sentence(author, thread) or (
                fact.sentence == membership_sentence(author, thread, fact.target))))


_SAME_PROBLEM = re.compile(
    r"\b(?:(?:a |an )?(?:duplicate|dupe) of|(?:the )?same (?:issue|problem|bug|thing|error)"
    r"(?: as| in| reported in)?|(?:already |also )?(?:reported|discussed|tracked) in"
    r"(?: several issues)?(?: already)?|similar to)"
    r"[^.\n]{0,30}?(?P<refs>(?:(?:https?://\S+|(?:[\w.-]+/[\w.-]+)?#\d+)[\s,)(]*(?:and |or )?)+)",
    re.IGNORECASE,
)
# A link to another issue of the same tracker ("installing this fixed image <link to a comment
# on #2655>"): a customer points at the thread of their problem, or at its fix there.
_ISSUE_LINK = re.compile(
    r"(?P<refs>https?://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/issues/(?P<number>\d+)\S*)")
_REFERENCE = re.compile(r"https?://\S+|(?:[\w.-]+/[\w.-]+)?#\d+")


def same_problem_threads(text: str, thread: str) -> list[tuple[str, str]]:
    """``(thread, line)`` for each other thread the text says is the same problem, or links to
    (an issue of the same repository); a bare ``#12`` is of the message's own repository."""
    found: list[tuple[str, str]] = []
    repository = thread.partition("#")[0] if "#" in thread else ""
    matches = list(_SAME_PROBLEM.finditer(text)) + [
        m for m in _ISSUE_LINK.finditer(text)
        if repository and f"{m['repo']}#{m['number']}" != thread and m["repo"] == repository]
    for match in matches:
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.start("refs") + len(match["refs"].rstrip()))
        line = text[line_start:line_end if line_end >= 0 else len(text)].strip()
        for reference in _REFERENCE.findall(match["refs"]):
            other = thread_of(reference.rstrip(").,")) if "://" in reference else (
                reference if not reference.startswith("#") else
                f"{repository}#{reference[1:]}" if repository else None)
            if other and other != thread and other not in {t for t, _ in found}:
                found.append((other, line))
    return found


# An update named by no more than its kind ("the update", "yesterday's update", "the latest
# upgrade") is the brand's own product's: Postman's update and Cursor's are two events, and a
# bare "Update" shared by every brand would join their problems.
_OWN_UPDATE = re.compile(
    r"^(?:(?:the|an?|latest|last|recent|new|newest|one|each|every|yesterday'?s?|today'?s?"
    r"|auto|automatic|app|client)[ -]+)*(?:update|upgrade|auto-update|release|install"
    r"|installation|reinstall)s?$", re.IGNORECASE)


def scope_to_brand(extraction: Extraction, brand: str | None) -> Extraction:
    """The extraction with the problems and products it names made the brand's, and its
    updates named by their kind alone (``_OWN_UPDATE``)."""
    if not brand:
        return extraction

    def name(value: str, type_: str | None) -> str:
        if type_ in SCOPED_TYPES or (type_ == "Event" and _OWN_UPDATE.match(value.strip())):
            return scoped(value, brand)
        return value

    return _renamed(extraction, name)


def is_the_brand(name: str, brand: str) -> bool:
    """Whether a product's name is the brand's own (``Postman`` of
    ``postmanlabs/postman-app-support``, ``Warp`` of ``warpdotdev/warp``): its words are all in
    the brand's name."""
    words = set(re.findall(r"[a-z0-9]+", name.lower()))
    brand_words_ = set(re.findall(r"[a-z0-9]+", brand.lower()))
    return bool(words) and words <= brand_words_


_TRAILING_GROUP = re.compile(r"\s*\([^()]*\)\s*$")


# One problem the readings name two ways: a resource's amount said as a complaint ("hight
# memory", "100% CPU": ``High Memory Usage``) and said by the symptom table's words ("memory
# usage keeps growing": ``Memory Usage``) are one problem, as a support lead names it.
_ONE_NAME = {"CPU Usage": "High CPU Usage", "Memory Usage": "High Memory Usage"}


def problem_of(name: str, brand: str | None = None) -> str | None:
    """The canonical problem an issue's name states, its ticket number and brand aside:
    ``Autofill no longer works on Chrome (#11050) (Bitwarden)`` → ``Autofill Failures``. The
    brand's own words name no area of it ("Docker stopped working"); a problem the readings
    name two ways has one name (``_ONE_NAME``)."""
    product = frozenset(re.findall(r"[a-z0-9]+", brand.lower())) if brand else frozenset()
    found = problem_name(_bare(name), product)
    return _ONE_NAME.get(found, found) if found else found


def _bare(name: str) -> str:
    words = name
    while (found := _TRAILING_GROUP.search(words)) is not None and words[:found.start()].strip():
        words = words[:found.start()]
    return words


def by_problem(extraction: Extraction, brand: str | None, *,
               given: Collection[str] = ()) -> Extraction:
    """A customer's message with the issues it reports resolved to their canonical problem, the
    brand's (``Autofill Failures (Bitwarden)``): one problem said in many ways ("Autofill no
    longer works on Chrome", "Unable to auto-fill", "Autofill not working in v2025.10") is one
    issue, so that its customers' tickets meet in one observation. This is resolution, not
    reading: the extraction names the issue in the customer's words, the sentence each fact
    cites keeps them, and an issue whose words state no known problem keeps its name, as does
    an issue ``given`` by name (an importer's mapped field: the support lead chose it)."""
    kept = {normalize_name(_bare(g)) for g in given}

    def name(value: str, type_: str | None) -> str:
        if type_ != "Issue" or normalize_name(_bare(value)) in kept:
            return value
        canonical = problem_of(value, brand)
        return scoped(canonical, brand) if canonical else value

    return without_the_brand_itself(_renamed(extraction, name), brand)


def without_the_brand_itself(extraction: Extraction, brand: str | None) -> Extraction:
    """The extraction without its issues' ``AFFECTS`` of the brand itself ("Start Failures
    affects Postman" at ``postmanlabs/postman-app-support``): what every problem of the brand's
    queue affects tells no problem from another, and as a fact it would link them all
    (``AFFECTS`` links by target). The reading keeps it (the extraction bench scores it); the
    graph does not store it."""
    if not brand:
        return extraction
    facts = [f for f in extraction.facts if not (
        f.relation == "AFFECTS" and f.target_type == "Product" and is_the_brand(f.target, brand))]
    return replace(extraction, facts=facts) if len(facts) != len(extraction.facts) else extraction


def _renamed(extraction: Extraction, name: Callable[[str, str | None], str]) -> Extraction:
    """The extraction with every entity name passed through ``name(name, type)``."""

    def entity(e: ExtractedEntity) -> ExtractedEntity:
        return replace(e, name=name(e.name, e.type))

    def fact(f: ExtractedFact) -> ExtractedFact:
        return replace(f, source=name(f.source, f.source_type),
                       target=name(f.target, f.target_type))

    def closure(c: ExtractedClosure) -> ExtractedClosure:
        target = name(c.target, c.target_type) if c.target is not None else None
        return replace(c, source=name(c.source, c.source_type), target=target)

    return replace(
        extraction,
        entities=[entity(e) for e in extraction.entities],
        facts=[fact(f) for f in extraction.facts],
        closures=[closure(c) for c in extraction.closures],
        author=entity(extraction.author) if extraction.author else None,
    )
