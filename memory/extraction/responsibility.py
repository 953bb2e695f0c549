"""Responsibility in minutes by grammar: who takes on which work where the phrase-shaped reader
(``memory.extraction.minutes.find_commitment``) finds no commitment of its own.

A commitment is a subject, a verb of commitment and the work it acts on. Minutes leave parts of
that grammar implicit in four shapes this module reads:

* **a shared subject** — one subject with two coordinated predicates, the second of them the
  commitment: "Ben felt that a twice yearly elections cycle may be cleaner …, and is happy to
  look into a proposal for consideration" (cpc-meetings-2024-2024-01-09-s10), "The SC shared
  thoughts on …, and will start on a doc to share with everyone" (pysc-2022-02-14). The
  subject is the name before the first clause's finite verb;
* **an owner in the action label** — "AI(DS) figure out relicensing"
  (wasm-cg-main-2018-cg-08-21-s20), the label inside a sentence, its owner in parentheses;
* **a serial verb** — "to help get publishing working" (wasm-cg-main-2023-cg-07-18-s12), "will
  start on a doc" (pysc-2022-02-14): the work is the object of the verb the helping verb
  governs, and in an action item an activity named by its gerund ("relicensing",
  "publishing") is the work.

* **work under way without its "is"** — "@darcyclarke planning kick-off meeting with initial
  members" (cpc-meetings-2021-2021-04-13-s8: the item it sits under, GUIDE §8.3), "EuroPython
  coming up and Łukasz helping coordinate a core sprint there" (pysc-2023-06-05: no item above,
  so the work its object names); never without an object or an item ("EuroPython coming up").

What is not a commitment stays none (GUIDE §8.2): a question, a hypothetical ("would", "could",
"if", "whether"), a negation ("will not"), a verb of being at a meeting or talking about an item
(``memory.extraction.minutes.NO_WORK_VERBS``: "I plan to attend more of these meetings",
wasm-cg-main-2023-cg-07-18-s12; "YI presenting slides", wasm-cg-main-2021-cg-09-28-s12 and
-2024-cg-05-21-s10; "met … to discuss GitHub issues migration", pysc-2022-03-14), and
volunteering for a role ("Jordan volunteered and will be our representative",
cpc-meetings-2020-2020-03-24-s8: "be" commits to no work). ``commits_to_work`` applies the same
check to the rules reader's "X will …" / "X to …" lines about the item above.

Pure functions over a sentence's masked words; the reader (``minutes_reading``) names the
entities.
"""

from __future__ import annotations

import re

from memory.extraction.assertions import says_content
from memory.extraction.minutes import NO_WORK_VERBS, Commitment, find_commitment
from memory.language.words import is_common_word, lemma, tag

_SHARED_PREDICATE = re.compile(
    r",\s+and\s+(?P<predicate>(?:will|is|are|has|have|am)\b.*)$",
    re.IGNORECASE,
)
"""The second of two coordinated predicates whose subject is elided: ", and will start on …"."""
_FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "VBN", "MD"})
"""A verb after its subject: the tagger reads word by word, so "shared" is a participle (VBN)."""
_SUBJECT_WORD = re.compile(r"^(?:@?[A-Z][\w.'’-]*|the|The)$")
_HYPOTHETICAL = re.compile(r"\b(?:would|could|might|should|if|whether)\b", re.IGNORECASE)
_QUESTION = re.compile(r"\?\s*$")
_ONGOING = re.compile(
    r"^(?P<who>@[\w.-]+|[^\W\d_a-z][\w'’.-]+(?: [^\W\d_a-z][\w'’.-]+)?)\s+(?:still\s+|also\s+)?"
    r"(?P<verb>[a-z]+ing)\b(?P<rest>.*)$"
)
"""Notes' shorthand for work under way, the "is" left out: "@darcyclarke planning kick-off
meeting with initial members" (cpc-meetings-2021-2021-04-13-s8), "EuroPython coming up and
Łukasz helping coordinate a core sprint there" (pysc-2023-06-05)."""
_PART_OF_SUBJECT = re.compile(
    r"^(?:\s+[\w'’.-]+){0,3}?\s+(?:is|are|was|were|has been|have been)\b", re.IGNORECASE
)
"""A finite "be" right after the "-ing" word: it was a noun phrase's head, not a predicate."""
_NO_PERSON = re.compile(r"^[^@].*\d")
_INLINE_ACTION = re.compile(
    r"(?:^|\s)(?:AI|ACTION(?: ITEM)?|TODO)\s*\(\s*"
    r"(?P<who>@?[A-Za-z][\w.'’-]*(?:(?:\s*,\s*|\s+and\s+|\s*[&+]\s*)@?[A-Za-z][\w.'’-]*)*)"
    r"\s*\)\s*[:\-–]?\s*(?P<action>[a-z].*)$"
)
"""An action label with its owner in parentheses, anywhere in a sentence: "… AI(DS) figure out
relicensing"."""


def find_responsibility(text: str) -> Commitment | None:
    """The commitment a minutes line makes in one of the implicit shapes (module docstring),
    or none: never from a question or a hypothetical clause."""
    line = text.strip()
    if not line or _QUESTION.search(line):
        return None
    inline = _INLINE_ACTION.search(line)
    if inline is not None:
        found = find_commitment(f"AI - {inline['who']} to {inline['action']}")
        if found is not None:
            return found
    for part in re.split(r"\s+and\s+", line) if not _HYPOTHETICAL.search(line) else []:
        ongoing = _ONGOING.match(part)
        if (
            ongoing is None
            or not (ongoing["who"][0].isupper() or ongoing["who"][0] == "@")
            or lemma(ongoing["verb"]) == ongoing["verb"].lower()
        ):
            continue  # "Thing", "During": no verb's form
        if _PART_OF_SUBJECT.match(ongoing["rest"]) or _NO_PERSON.search(ongoing["who"]):
            # "Interoperability testing in Butterfly was valuable": the "-ing" word belongs to
            # the subject of "was", no shorthand for work under way; "NV28 planning active":
            # a name with digits is a thing's (a handle, "@user42", may hold them)
            continue
        found = find_commitment(f"{ongoing['who']} to {ongoing['verb']}{ongoing['rest']}")
        if found is not None and found.work:
            return Commitment(found.who, found.work, found.rest, found.labelled, ongoing=True)
    shared = _SHARED_PREDICATE.search(line)
    if shared is None:
        return None
    subject = shared_subject(line[: shared.start()])
    if subject is None:
        return None
    predicate = shared["predicate"]
    if _HYPOTHETICAL.search(predicate.split(" to ", 1)[0]):
        return None
    return find_commitment(f"{subject} {predicate}")


def shared_subject(clause: str) -> str | None:
    """The subject of a clause: the capitalised words (at most three, with "The") right before
    its first finite verb ("For, Dates and Reminders, Ben felt that …" → "Ben"; "The SC shared
    thoughts" → "The SC"); none when the clause has no finite verb or no named subject ("we
    discussed", "Discussed 3.12 …")."""
    words = re.findall(r"[@\w.'’-]+|[,;:()]", clause)
    for index, word in enumerate(words):
        if index == 0 or not word[:1].islower() or tag(word) not in _FINITE_TAGS:
            continue
        subject: list[str] = []
        for before in reversed(words[max(0, index - 3) : index]):
            if not _SUBJECT_WORD.match(before):
                break
            subject.insert(0, before)
        if not subject or subject == ["The"] or subject == ["the"]:
            return None
        head = subject[-1]
        if is_common_word(head) and not head.isupper():
            return None  # "The Steering Council", "For" : a body by a common word is not named
        return " ".join(subject)
    return None


_HELPING_VERBS = frozenset({"help", "start", "begin", "continue", "get"})
"""Verbs that take another verb or a result and leave the work to their object ("help get
publishing working", "start on a doc")."""
_RESULT = re.compile(r"\s+(?:working|done|merged|landed|finished|going|started)$", re.IGNORECASE)


def served_work(work: str) -> str:
    """The work an action's object names through a helping or serial verb ("get publishing
    working" → "publishing", "helping coordinate a core sprint" → "a core sprint"); the object
    itself otherwise."""
    words = work.strip(" .").split(" ")
    while len(words) > 1 and (words[0] in _HELPING_VERBS or tag(words[0]) == "VB"):
        words = words[1:]
    return _RESULT.sub("", " ".join(words)).strip()


def names_activity(phrase: str) -> bool:
    """Whether an object is one activity named by its gerund ("relicensing", "publishing"): the
    work of an action item (GUIDE §8.3); a short verb form ("testing", "doing") is none."""
    words = phrase.split(" ")
    return (
        len(words) == 1
        and words[0].endswith("ing")
        and words[0].isalpha()
        and words[0].islower()
        and len(words[0]) > 8
    )


_BE_DOING = re.compile(r"^\s+(?:\w+ly\s+)?\w+ing\b", re.IGNORECASE)
"""After "will be": work under way ("will be working on it", "will be leading it")."""
_MODALS = frozenset({"to", "will", "is going to", "are going to"})
_DECLINED = re.compile(r"^\s*(?:not|never|n't)\b", re.IGNORECASE)
_ADVERB = re.compile(r"^\s*(?:also|then|now|soon|\w+ly)\s+", re.IGNORECASE)


def commits_to_work(modal: str, after: str) -> bool:
    """Whether "X <modal> <after>" commits X to work: not when the verb after the modal is
    negated ("will not") or is one of ``NO_WORK_VERBS`` ("Joe will attend the board
    meeting"). Other markers ("has an action item", "is working on it") always do."""
    if modal.lower() not in _MODALS:
        return True
    rest = _ADVERB.sub("", after, count=1)
    if _DECLINED.match(rest):
        return False
    verb = re.match(r"\s*([A-Za-z]+)", rest)
    if verb is not None and says_content(verb.group(1), rest[verb.end():]):
        return False  # "Richard will point out it has already shipped": talk, no work
    if verb is not None and verb.group(1).lower() == "be" and not _BE_DOING.match(
            rest[verb.end():]):
        return False  # "Rafael is going to be at the summit": a state, no work

    return verb is None or verb.group(1).lower() not in NO_WORK_VERBS


_ASKED = re.compile(
    r"(?<![\w'])(?:asked|tasked|assigned|requested|invited|charged)\s+"
    r"(?P<who>(?:the\s+)?@?[A-Z][\w.'’-]*(?:(?: |\s*,\s*|\s+and\s+|\s*&\s*)@?[A-Z][\w.'’-]*){0,3})"
    r"\s+(?:with\s+)?to\s+(?P<action>[a-z].*)$"
)
"""Someone given the work by the meeting: "… has asked the Developer-in-Residence to take on
some of the work for it" (pysc-2022-01-10), "The group asked Tim to draft the timeline"."""
_WAS_ASKED = re.compile(
    r"^(?P<who>@?[A-Z][\w.'’-]*(?:(?: |\s*,\s*|\s+and\s+|\s*&\s*)@?[A-Z][\w.'’-]*){0,3})"
    r"\s+(?:was|were|has been|have been|got)\s+(?:asked|tasked|assigned|charged)\s+"
    r"(?:with\s+)?to\s+(?P<action>[a-z].*)$"
)
"""The same in the passive: "Tim was asked to write up the EIP"."""
_DECLINED_BEFORE = re.compile(r"\b(?:not|never|n't|no one|nobody)\b", re.IGNORECASE)


def asked_to(line: str) -> Commitment | None:
    """The commitment of someone asked or tasked to do work (``_ASKED``, ``_WAS_ASKED``): the
    person asked takes it on, as in an action item; never under a hypothetical ("if we asked
    Tim to …") or a negation ("was not asked to")."""
    if _HYPOTHETICAL.search(line):
        return None
    found = _ASKED.search(line) or _WAS_ASKED.match(line)
    if found is None or _DECLINED_BEFORE.search(line[: found.start("action")]):
        return None
    who = re.sub(r"^the\s+", "", found["who"]).strip(" ,")
    return find_commitment(f"AI - {who} to {found['action']}")


_WORK_UNDER_WAY = re.compile(
    r"^(?:(?:doing|did|started|starting|continued|continuing|continue|ongoing|more|some)\s+)"
    r"(?:(?:some|more|the|a lot of|lots of|further|initial|\w+ing|\w+ion)\s+){0,2}work"
    r"\s+(?:on|for|towards|toward|around)\s+(?P<work>.+)$"
    r"|^work\s+(?:has\s+)?(?:started|starts|continues|continued|continuing|ongoing|began|begun)"
    r"\s+(?:on|towards|toward|for)\s+(?P<work2>.+)$",
    re.IGNORECASE,
)
"""A team update's line that says work is under way on something, without a subject: "doing
some optimization work for the Beacon chain state transition implementation"
(ethpm-allcoredevs-cl-meetings-call-028-s11, under "### Parity"), "Work started towards a peer
reputation system." (ethpm-allcoredevs-cl-meetings-call-035-s11, under "## 2.1—Lighthouse"),
"Continued work on the slasher"."""
_WORK_END = re.compile(
    r"\s*(?:[,;(:]|\s[-–—]\s|\s(?:to|so|so that|because|which|that|as well|and hopefully)\b).*$",
    re.IGNORECASE,
)


def work_under_way(line: str) -> str | None:
    """The work a subjectless line of a team's update says is under way (``_WORK_UNDER_WAY``),
    or None; never a question, a hypothetical or a negation."""
    text = line.strip(" *_-.")
    if not text or _QUESTION.search(text) or _HYPOTHETICAL.search(text):
        return None
    found = _WORK_UNDER_WAY.match(text)
    if found is None:
        return None
    work = _WORK_END.sub("", found["work"] or found["work2"]).strip(" .")
    return work or None


_ROLE_FIELD = re.compile(
    r"^\W*(?:owners?|champions?|liaisons?|shepherds?|leads?|assignees?|assigned(?: to)?"
    r"|point of contact|poc|dri|driver|responsible|volunteers?)\W*\s*[:\-–—]\s*"
    r"(?P<who>(?:zzref\d+zz|@?[A-Za-z][\w.'’-]*)(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*[&+/]\s*)"
    r"(?:zzref\d+zz|@?[A-Za-z][\w.'’-]*))*)\W*$",
    re.IGNORECASE,
)
"""A line that names who owns the item it sits under: "Owner: nikomatsakis", "Champion:
Josh", "Owners: Josh and Niko", "Liaison: @scottmcm"."""


def role_owners(line: str) -> list[str]:
    """The people a role line names (``_ROLE_FIELD``), in order; none when the line is no role
    line or names nobody ("Owner: TBD", "Champion: none")."""
    found = _ROLE_FIELD.match(line.strip())
    if found is None:
        return []
    names = [n for n in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*[&+/]\s*", found["who"]) if n]
    if len(names) > 6:
        return []  # a list that long is no one's role
    if any(
        n.lower() in {"tbd", "none", "nobody", "n/a", "na", "unknown", "us", "we"} for n in names
    ):
        return []
    return names
