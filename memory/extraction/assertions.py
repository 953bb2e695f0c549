"""Whether a line of discussion asserts what a reading would read from it (issue #17, precision
on sources no reading was tuned on). Minutes record talk about work as well as facts about it;
readings tuned on status lines fire on the talk too. Four shapes say nothing as fact:

* **a proposal or a question by its label** — "Proposal: the TAC owns the security baseline",
  "Option 2: the Foundation takes over the domain", "Open question: …", "Suggestion to add the
  EOL dates to the release page": what someone put
  forward, not what is (a decision's label — "Decision:", "Resolved:", "Consensus:" — does
  state it and is not one of these);
* **another's belief** — "Matteo thinks the undici work is done", "Jordan hopes the PR lands
  this week" (a wish, "Niko would like to see …", is left to the readings of asides): the
  rules already leave "I think …" unread (``rules._HEDGE``); someone else's belief reported is
  no more a fact ("X says …" is reported speech, which the labels do read, GUIDE §2);
* **a quantified group** — "Multiple frontend frameworks are waiting for AsyncContext to ship"
  (tc39-meetings-2025-04-april-14-s25): "multiple / many / several / various … X" names no one
  thing that could wait, depend or have a status;
* **what someone will say** — "Richard will point out it has already been shipped"
  (nodejs-tsc-meetings-2025-06-18-s8), "Bob will ask Alice whether the work is blocked": a
  speech act whose object is a clause (that / whether / it …) is talk about the item, no work
  taken on ("Mark to ping mara", with no clause, stays an action, and so does a request, "will
  ask that the board vote starts").

Text struck through ("~~Keeping this as draft for now~~", "~~I'll send a PR to rustc~~") is
withdrawn by its writer: it is left unread (``without_struck_text``).

A fifth shape is a change request's own account of the bug it fixes ("Prior to this change, we
failed to narrow a union …", "Function type parameter lists did not run the same validation"):
its author describes what the change repairs, which the labels never read as the author's
report of a problem (GUIDE §3: a *bug report's* body gives its author ``REPORTED``; a pull
request is none); someone else the description names as having reported it ("@oconnor663
pointed out …", uv-pr-14169) still did.

Pure functions over a sentence's words.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memory.language.documents import Document

_PROPOSAL_LABEL = re.compile(
    r"^[\s*_]*(?:(?:counter[- ]?)?proposals?|proposed|suggestions?|suggested|ideas?"
    r"|options?(?:\s+(?:\d+|[A-Z]))?|alternatives?|straw\s?(?:man|person|poll)"
    r"|(?:open\s+)?questions?|q|asks?|requests?|to discuss|for discussion)[\s*_]*[:\-–—]\s"
    # "Suggestion to add EOL release information to the website": a proposal's noun, then
    # what it proposes
    r"|^[\s*_]*(?:(?:a|one|the)\s+)?(?:suggestions?|proposals?|ideas?|recommendations?"
    r"|motions?)\s+(?:is\s+|was\s+)?to\s+[a-z]",
    re.IGNORECASE,
)
_BELIEF = re.compile(
    r"^(?:@?[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,2}|(?:the\s+)?(?:group|team|room|committee"
    r"|tsc|tac|sc|wg|folks|people|some|others|many|several|most|everyone|nobody))\s+"
    r"(?:(?:still|also|now)\s+)?(?:thinks?|believes?|feels?|suspects?|guess(?:es)?|assumes?"
    r"|hopes?|wonders?|expects?|doubts?|(?:is|are|was|were)\s+not\s+sure|isn't\s+sure"
    r"|aren't\s+sure)\b"
)
_BELIEF_WORD = re.compile(
    r"\b(?:think|believe|feel|suspect|guess|assume|hope|wonder|expect|doubt|sure)", re.IGNORECASE)
_QUANTIFIED = re.compile(
    r"^(?:the\s+)?(?:multiple|many|several|various|numerous|few|a\s+few|some|most|other"
    r"|a\s+(?:number|lot|couple)\s+of|lots\s+of|plenty\s+of)\s+[a-z]",
    re.IGNORECASE,
)
_SPEECH_ACTS = frozenset({
    "say", "tell", "mention", "note", "point", "explain", "remind", "ask", "clarify", "argue",
    "state", "respond", "reply", "answer", "suggest", "propose", "inform", "highlight", "request",
})
_CONTENT_CLAUSE = re.compile(
    r"^\s*(?:out\s+)?(?:(?:to\s+)?(?:the\s+)?@?[A-Za-z][\w.'’-]*\s+)??"
    r"(?:that|whether|if|how|what|why|when|where|which|who|it|this|there|they|we|he|she)\b",
    re.IGNORECASE,
)
_QUESTION_CLAUSE = re.compile(
    r"^\s*(?:(?:the\s+)?@?[A-Za-z][\w.'’-]*\s+)??(?:whether|if|how|what|why|when|where|which"
    r"|who)\b",
    re.IGNORECASE,
)
_REQUESTS = frozenset({"ask", "request"})
"""Verbs whose "that" clause is a request someone drives ("Michael will ask that the board vote
starts", cpc-meetings-2020-2020-05-12-s7: his work), but whose question is talk."""


_SPEAKER_LABEL = re.compile(r"^[\s*_]*@?[A-Z][\w.'’ -]{0,30}[\s*_]*:\s+")
"""Who speaks, before what they say ("KG: …", "**Joyee**: …")."""


def asserts(text: str) -> bool:
    """Whether a line may state facts: not a proposal, an option or a question by its label,
    nor someone's belief (after a speaker's label or not)."""
    if proposes(text):
        return False
    if not _BELIEF_WORD.search(text):
        return True  # (the common case, checked in one pass: no verb of belief at all)
    said = _SPEAKER_LABEL.sub("", text, count=1)
    return not (believed_by_another(text) or believed_by_another(said))


def proposes(text: str) -> bool:
    """Whether a line is labelled as a proposal, an option or a question ("Proposal: …")."""
    return bool(_PROPOSAL_LABEL.match(text))


def believed_by_another(text: str) -> bool:
    """Whether a line reports someone's belief or wish ("Matteo thinks the work is done")."""
    return bool(_BELIEF.match(text.strip()))


def names_a_group(words: str) -> bool:
    """Whether a noun phrase is a quantified group ("multiple frontend frameworks")."""
    return bool(_QUANTIFIED.match(words.strip(" *_")))


_DOCUMENT = re.compile(
    r"\b(?:proposals?|specs?|specifications?|rfcs?|peps?|drafts?|documents?|docs?|designs?"
    r"|explainers?|papers?|standards?)$",
    re.IGNORECASE,
)


_SOMETHING_NEW = re.compile(
    r"^\s*(?:a|an|another|some|two|three|several|new|other)\b", re.IGNORECASE)


_THE_ITEMS_KIND = re.compile(
    r"^\s*(?:a|an)\s+(?:issue|pr|pull request|ticket|bug|proposal|rfc|pep)\b", re.IGNORECASE)
"""What is opened is the item itself when named by its kind ("Sam opened an issue …" under
that issue's heading)."""


def names_something_new(words: str) -> bool:
    """Whether what someone opened or proposed is named as something new ("Beth proposed a new
    bot that would comment …", "opened two backport issues"): another thing than the item
    under discussion, whose own title or "it" would follow."""
    return bool(_SOMETHING_NEW.match(words)) and not _THE_ITEMS_KIND.match(words)


def names_a_document(words: str) -> bool:
    """Whether a noun phrase names a document or a design ("the new proposal", "the spec"):
    what it "uses" is its content ("The new proposal uses static methods on Map"), no product
    someone uses."""
    return bool(_DOCUMENT.search(words.strip(" .,")))


def says_content(verb: str, after: str) -> bool:
    """Whether "<verb> <after>" is a speech act with a clause for object ("point out it has
    shipped", "ask Alice whether it is blocked"): talk, not work on the item."""
    if verb.lower() in _REQUESTS:
        return bool(_QUESTION_CLAUSE.match(after))
    return verb.lower() in _SPEECH_ACTS and bool(_CONTENT_CLAUSE.match(after))


class _Thread(Protocol):
    change: bool


def describes_its_fix(thread: _Thread | None, by_its_author: bool) -> bool:
    """Whether a problem said in an episode is a change request's account of what it fixes:
    said in a pull request's thread by its episode's author (or by no one named)."""
    return thread is not None and thread.change and by_its_author


_STRUCK = re.compile(r"~~(?=\S)[^~]{1,2000}?(?<=\S)~~")


def without_struck_text(text: str) -> str:
    """The text without what its writer struck through (Markdown ``~~…~~``, over lines too)."""
    if "~~" not in text:
        return text
    return _STRUCK.sub(" ", text)


# Issue #17, second precision round (branch ``rtprec2``): three shapes of a fact whose words
# name nothing the labels could hold, found on minutes and PR descriptions outside the corpus
# (W3C WebExtensions CG, CNCF TOC batch subproject, OpenJS standards WG, nushell PRs).

_ONE_OF_MANY = frozenset({"one", "another", "any", "future", "upcoming"})
_POINTING = frozenset({"that", "those"})
"""Pointing back at words before ("that fix"); "this change" is often the item at hand, which
the labels name by it."""
"""Determiners that pick no particular member of a group ("One proposal went to stage 4, many
advanced", "any issue", "future meetings"), or only by pointing back at words before it ("that
fix was reverted": one noun the words point with is no name; "this change to `toSorted`" names
its item by what follows). A thing someone makes, "will create a repo",
"working on a github bot", is theirs by the labels (GUIDE §4) and stays."""

_WORK_TYPES = frozenset({"WorkItem", "Plan", "Event"})
"""Types of the things work is about (a customer's problem, "an error when …", is named by its
own words: ``memory.support``)."""

_PARTICIPATION = re.compile(
    r"\b(?:will|to|would|plans?\s+to|going\s+to|agreed\s+to)\s+(?:also\s+)?"
    r"(?:participate|attend|join|take\s+part|be\s+present)\b",
    re.IGNORECASE,
)
_ABOUT_ITEMS = frozenset({"RESPONSIBLE_FOR", "HAS_STATUS", "DEPENDS_ON"})
_SPOKEN = re.compile(r"^\s*(?:\[[^\]]{1,30}\]|@?[A-Z][\w.'’ -]{0,30}:)\s*")
_CONDITION = re.compile(r"^(?:if|unless|suppose|supposing|assuming|in\s+case)\b", re.IGNORECASE)


def _written(name: str, sentence: str) -> re.Match[str] | None:
    """Where the sentence writes a name (its words in any case, with what precedes them)."""
    words = re.split(r"\s+", name.split(" (")[0].strip())
    if not words or not words[0]:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    return re.search(r"(?:\b(\w+)\s+)?(?<![\w-])" + pattern + r"(?![\w-])", sentence,
                     re.IGNORECASE)


def names_one_of_many(name: str, sentence: str) -> bool:
    """Whether an item is written as one member of a group, no particular one ("One proposal
    went to stage 4, many advanced to stage 1", "future meetings"). A name with a reference
    ("#12", a number) names its item whatever precedes it."""
    if re.search(r"[#\d]", name):
        return False
    words = name.split()
    first = words[0].lower() if words else ""
    if first in _ONE_OF_MANY or (first in _POINTING and len(words) == 2):
        return True
    found = _written(name, sentence)
    before = found.group(1).lower() if found and found.group(1) else ""
    return before in _ONE_OF_MANY or (before in _POINTING and len(words) == 1)


def participates(target: str, sentence: str) -> bool:
    """Whether a sentence has someone take part in the thing ("Weka and Hammerspace will
    participate in future meetings", "Alice to join the call"): attending, no work owned."""
    verb = _PARTICIPATION.search(sentence)
    if verb is None:
        return False
    found = _written(target, sentence)
    return found is None or found.start() >= verb.start()


def supposes(sentence: str) -> bool:
    """Whether a sentence is a supposition ("If a user script runs long, that blocks the
    extension for 30 seconds", "[jan] Unless the flag is set …"): what would happen, not
    what does."""
    return bool(_CONDITION.match(_SPOKEN.sub("", sentence.strip(" *-_"), count=1)))


class _Fact(Protocol):
    source: str
    source_type: str
    relation: str
    target: str
    target_type: str
    sentence: str


_JOINED = re.compile(r"^(?:&|\+|and\b|or\b)", re.IGNORECASE)


def continues_a_list(name: str) -> bool:
    """Whether a name begins with what joins it to words before it ("Approved & Merged" read as
    "& Merged"): the tail of a list, no name."""
    return bool(_JOINED.match(name.strip()))


def expands_initials(short: str, sentence: str) -> bool:
    """Whether a word in capitals is the short form of the words right before it in parentheses
    ("Device Resource Allocation (DRA)"): an abbreviation, no one who owns the words."""
    if not re.fullmatch(r"[A-Z]{2,8}", short):
        return False
    at = sentence.find(f"({short})")
    if at < 0:
        return False
    words = re.findall(r"[A-Za-z][\w'’-]*", sentence[:at])[-len(short):]
    return "".join(w[0] for w in words).upper() == short


def states_a_fact(fact: _Fact) -> bool:
    """Whether a fact read from a sentence stands: its item is no group's member, no one
    merely takes part in it, and no dependency is only supposed."""
    if fact.relation not in _ABOUT_ITEMS:
        return True  # ("After one update, it started to freeze": an event, in a customer's words)
    for name, kind in ((fact.source, fact.source_type), (fact.target, fact.target_type)):
        if kind in _WORK_TYPES and names_one_of_many(name, fact.sentence):
            return False
    if continues_a_list(fact.source) or continues_a_list(fact.target):
        return False
    if fact.relation == "RESPONSIBLE_FOR" and (participates(fact.target, fact.sentence)
                                              or expands_initials(fact.source, fact.sentence)):
        return False
    return not (fact.relation == "DEPENDS_ON" and supposes(fact.sentence))


def unchecked_goals(document: Document) -> frozenset[str]:
    """The items of unchecked task boxes ("- [ ] These tests are no longer flaky." under
    "Acceptance Criteria"; the document marks each box, ``Passage.task``): what is to become
    true, not what is. A status read from one is a goal; who is to do the box's work ("- [ ]
    Alice to update the docs") stays hers."""
    return frozenset(passage.text for passage in document.passages if passage.task == "open")


def states_a_status(fact: _Fact, goals: frozenset[str]) -> bool:
    """Whether a status stands: not read from an unchecked task box (``unchecked_goals``)."""
    if fact.relation != "HAS_STATUS" or not goals:
        return True
    sentence = fact.sentence.strip()
    return not any(sentence == goal or sentence in goal for goal in goals)
