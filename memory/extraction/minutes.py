"""Minutes: what meeting notes record as decided, and which agenda item a heading names.

Meeting minutes state decisions in a few grammatical shapes, whatever the body that decides:

* an agent and a decision verb in the past ("The SC accepted PEP 655", "CPC approved", "The SC
  discussed and rejected PEP 582", "Approved by board in meeting last Friday");
* a verb of agreement with the decision in the infinitive ("Agreed to accept PEP-678", "decided
  to reject it", "opted to defer this decision", "agreed to move forward", "agreed that we can
  land");
* the item with the decision's participle ("5 ECMA JavaScript related specs approved today",
  "London testnet fork blocks agreed");
* a poll's outcome ("Poll passes", "proposal has passed", "CSP advances to phase 3");
* a deferral said as the minutes' imperative or participle ("Defer discussion on term limits
  until after the current election", "Discussed X; deferring until after beta1").

The decision verb is recognised by its lemma (``memory.language.words.lemma``), so every
inflection reads the same; what the status is follows GUIDE §9 of the corpus: accept → accepted,
approve → approved, reject / decline → rejected, defer / postpone / table → postponed, a poll that
passes or an item that advances a phase → accepted, "agreed that we can land" → approved.
Nothing is decided under a negation, a modal or a condition ("decided not to accept", "will
approve", "if approved", "to be approved").

Pure functions over a sentence's masked words: the rules reader (``memory.extraction.rules``)
turns the words naming the item into an entity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.extraction import ExtractedEntity
from memory.extraction.assertions import says_content
from memory.extraction.offers import commitment_words
from memory.language.words import is_common_word, lemma, tag

ACCEPTED, APPROVED, REJECTED, POSTPONED = "accepted", "approved", "rejected", "postponed"

_DECISION_LEMMAS = {
    "accept": ACCEPTED,
    "approve": APPROVED,
    "reject": REJECTED,
    "decline": REJECTED,
    "defer": POSTPONED,
    "postpone": POSTPONED,
    "table": POSTPONED,
}
"""Verbs whose past participle is the decision itself."""
_AGREED_TO = {
    **_DECISION_LEMMAS,
    "land": APPROVED,
    "merge": APPROVED,
    "move forward": ACCEPTED,
    "proceed": ACCEPTED,
}
"""What one agrees or decides *to* do: the decision verbs, and going ahead with the item."""
_AGREEMENT = r"(?:agreed|decided|opted|voted|resolved|chose)"

_NEGATION_OR_MODAL = re.compile(
    r"\b(?:not|n't|no|never|if|whether|should|would|could|might|may|must|will|shall|can't"
    r"|cannot|once|unless|to be|be|being|wants? to|plan(?:s|ned)? to|hope|expect(?:s|ed)? to"
    r"|want|needs? to|going to|until|before|after)\b",
    re.IGNORECASE,
)
_SPEAKER = re.compile(r"^\s*(?:\*\*)?[A-Z][\w.'’-]{0,30}(?: [A-Z][\w.'’-]{0,30})?(?:\*\*)?:\s+")
_CLAUSES = re.compile(r"\s*[;,|]\s*|\.\s+")
_PARENTHESES = re.compile(r"\s*[(\[][^)\]]*[)\]]")
_ITEM_END = re.compile(
    r"\s+(?:until|till|to the next|to next|for now|for the time being|provided|because|since"
    r"|as|so|after|due to|pending|in favou?r of|today|this week|last week|in (?:the )?meeting"
    r"|at (?:the )?meeting|by (?:the )?(?:board|sc|cpc|tsc|committee|council)|with|and)\b.*$",
    re.IGNORECASE,
)
_AFTER_REFERENCE = re.compile(r"^(zzref\d+zz)\s+(?:to|for|on|in|of|into)\s.*$")
_BE_END = re.compile(r"\s+(?:was|were|is|are|has been|have been|been|got)$", re.IGNORECASE)
_DISCUSSED = re.compile(
    r"^(?:(?:the|our)\s+)?(?:[\w-]+\s+){0,2}?discussed\s+(?P<about>.+)$", re.IGNORECASE
)
_DECISION_NOUN = re.compile(
    r"^(?:(?:a|the|this|that|any|further|our|their)\s+)?(?:final\s+)?"
    r"(?:decision|discussion|vote|conversation|topic)s?(?:\s+(?:on|about|of|regarding)\s+)?",
    re.IGNORECASE,
)

# "The SC (discussed [X] and) (unanimously) accepted PEP 655"
_AGENT_DECIDED = re.compile(
    r"^(?P<agent>.*?)\s*\b(?:(?:discussed|reviewed|considered|voted on)(?:\s+(?P<about>.+?))?"
    r"\s+and\s+)?(?:(?:unanimously|formally|officially|then|also)\s+)?"
    r"(?P<verb>[a-z]+ed)\b(?P<rest>.*)$",
    re.IGNORECASE,
)
# "(The SC discussed X and) agreed to accept it", "decided to defer a decision on this"
_AGREED = re.compile(
    rf"^(?P<agent>.*?)\s*\b(?:(?:discussed|reviewed|considered)(?:\s+(?P<about>.+?))?"
    rf"\s+and\s+)?(?:(?:unanimously|formally|also|then)\s+)?{_AGREEMENT}\s+"
    r"(?:(?:that\s+)?(?:we|they|it|the \w+)\s+(?:can|could|should|will)\s+|to\s+)"
    r"(?P<verb>move forward|proceed|[a-z]+)\b(?:\s+with)?(?P<rest>.*)$",
    re.IGNORECASE,
)
# "Defer discussion on term limits/length until …", "deferring until after beta1"
_DEFER = re.compile(
    r"^(?P<verb>defer(?:ring)?|postpon(?:e|ing)|tabling|table)\b(?P<rest>.*)$", re.IGNORECASE
)
_WAIT_UNTIL_NEXT = re.compile(
    r"(?:^|\W)(?:we |they )?(?:will|'ll|to) wait (?:until|till|for) (?:the )?next "
    r"(?:time|week|meeting|call|month|session)\b",
    re.IGNORECASE,
)
_MOVED_TO_NEXT = re.compile(
    r"^(?:moving|moved|move|punted|punting|pushed|pushing|bumped|carried over|carry over)"
    r"\s+(?:it\s+|this\s+|that\s+)?(?:to|until)\s+(?:the\s+)?next\s+"
    r"(?:meeting|week|call|time|session|month)\b",
    re.IGNORECASE,
)
"""A deferral said as a move: "Moving to next meeting", "Punted to next week"."""
_CONSENSUS_TO = re.compile(
    r"^(?:there\s+(?:was|is)\s+|we\s+(?:have|had|reached)\s+)?(?:rough\s+|general\s+)?"
    r"consensus\s+to\s+(?P<verb>move forward|proceed|[a-z]+)\b(?:\s+with)?(?P<rest>.*)$",
    re.IGNORECASE,
)
"""A decision said as the group's consensus, the clause's whole subject: "Consensus to merge";
never inside another clause ("we're waiting for consensus to merge it")."""
_NO_OBJECTIONS = re.compile(
    r"^(?:there\s+(?:were|was|are)\s+)?no\s+(?:objections?|opposition|concerns?)"
    r"(?:\s+(?:raised|heard|voiced))?(?:\s+(?:so|thus|therefore)\s+\w+)?\W*$",
    re.IGNORECASE,
)
"""Consent as the minutes write it (GUIDE §9): "No objections", "No objections heard"."""
_POLL_PASSED = re.compile(
    r"^(?:the\s+)?(?:(?:unanimous|consent|consensus|phase \d+)\s+)*(?:poll|vote|proposal|motion)"
    r"\s+(?:has\s+|have\s+)?(?:passe[sd]|carried|succeeded)\b",
    re.IGNORECASE,
)
_ADVANCES = re.compile(
    r"^(?P<item>.+?)\s+(?P<verb>advances|advanced|moves|moved|goes|went|is moving)?\s*to\s+"
    r"(?:phase|stage)\s+\d+\b\W*$",
    re.IGNORECASE,
)
_ATTRIBUTIVE = re.compile(
    r"\b(?:the|a|an|these|those|its|their|our|your|his|her|every|each|any)$", re.IGNORECASE
)
"""The words before a participle end on a determiner: the participle qualifies the noun after
it ("all the approved licenses", "an accepted proposal") and states no decision."""
_PARTICIPLE = re.compile(
    r"^(?P<item>.+?)\s+(?P<verb>approved|accepted|rejected|agreed)\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_AGREED_ON = re.compile(r"^\s*(?:on|upon|to|with|that)\b", re.IGNORECASE)
_PERSON_LIKE = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?")
"""A subject written as a person's name ("Danny", "Tim Beiko"): one who decides, no item;
an item decided on has an identifier, an acronym or more words ("CSP", "PEP 655")."""
_PARTICIPLE_REST = re.compile(
    r"^\s*(?:(?:today|yesterday|this week|last \w+|unanimously|as proposed|(?:in|at|on|by)\s.*)"
    r"\s*)?$",
    re.IGNORECASE,
)
_AGENT_WORDS = frozenset(
    {
        "sc",
        "tsc",
        "cpc",
        "board",
        "council",
        "committee",
        "group",
        "team",
        "we",
        "they",
        "cg",
        "wg",
        "members",
        "everyone",
        "everybody",
        "all",
        "chairs",
        "maintainers",
        "core",
        "i",
        "people",
        "folks",
        "clients",
        "teams",
        "participants",
        "attendees",
        "devs",
        "developers",
        "implementers",
        "implementors",
        "editors",
        "champions",
        "reviewers",
        "someone",
        "nobody",
    }
)
"""Heads of subjects that name who decides or agrees ("The SC", "Most people", "Clients")."""
_PRONOUN_ITEM = frozenset({"it", "this", "that", "them", "these"})


@dataclass(frozen=True)
class Decision:
    status: str
    """The decided status (``accepted``, ``approved``, ``rejected``, ``postponed``)."""
    item: str | None
    """The words naming the decided item as written (may be a pronoun: "it"); None when the
    sentence names none ("Poll passes", "CPC approved"): the item under discussion."""
    about: str | None = None
    """What was discussed before deciding ("The SC discussed PEP 690 and decided to reject
    it"): what "it" stands for."""


_LISTED_MODIFIERS = re.compile(
    r"\b[A-Za-z-]+(?:,\s+[A-Za-z-]+)+,?\s+(?:and|or)\s+(?P<last>[a-z][\w-]*\s+[a-z][\w-]*)"
)
"""One-word items of a list that ends on a word and its noun ("incomplete, rejected, and
unsolved solutions"): modifiers of that noun."""


def find_decisions(text: str) -> list[Decision]:
    """The decisions a sentence of minutes records, clause by clause (see the module
    docstring); none for a question, a negation, a modal or a condition."""
    text = _SPEAKER.sub("", text.strip(), count=1)  # "CW: proposal has passed"
    # "Cover incomplete, rejected, and unsolved solutions": words listed before the noun they
    # describe; the commas split a noun phrase, no clauses
    if ", " in text:
        text = _LISTED_MODIFIERS.sub(r"\g<last>", text)
    found: list[Decision] = []
    passed = False
    about: str | None = None
    for clause in _CLAUSES.split(text):
        clause = clause.strip(" .!*_")
        if not clause:
            continue
        decision = _decision(clause, after_poll=passed)
        if decision is None:
            discussed = _DISCUSSED.match(clause)
            if discussed is not None:
                about = _about(discussed["about"])  # "Discussed X; deferring until after beta1"
            continue
        if decision.about is None and about is not None:
            decision = Decision(decision.status, decision.item, about)
        if decision.item is None and decision.status == ACCEPTED and passed:
            continue
        passed = passed or (decision.item is None and decision.status == ACCEPTED)
        if decision.item is not None and passed:
            # "Poll passes, ESM integration to phase 3": the clause names what passed
            found = [d for d in found if d.item is not None]
        found.append(decision)
    return found


def _decision(clause: str, *, after_poll: bool) -> Decision | None:
    if _WAIT_UNTIL_NEXT.search(clause) or _MOVED_TO_NEXT.match(clause):
        return Decision(POSTPONED, None)  # "Will wait until next time when we have Brian"
    if _NO_OBJECTIONS.match(clause):
        return Decision(ACCEPTED, None)  # GUIDE §9: "No objections" is a poll that passes
    consensus = _CONSENSUS_TO.match(clause)
    if consensus is not None:
        verb = consensus["verb"].lower()
        status = _AGREED_TO.get(verb) or _DECISION_LEMMAS.get(lemma(verb))
        return Decision(status, _item(consensus["rest"])) if status else None
    if _POLL_PASSED.match(clause):
        return Decision(ACCEPTED, None)
    advances = _ADVANCES.match(clause)
    if (
        advances is not None
        and (after_poll or advances["verb"])
        and (not _NEGATION_OR_MODAL.search(advances["item"]))
    ):
        # "CSP advances to phase 3"; after a poll passed, "ESM integration to phase 3"
        return Decision(ACCEPTED, _item(advances["item"]))
    agreed = _AGREED.match(clause)
    if agreed is not None:
        verb = agreed["verb"].lower()
        status = _AGREED_TO.get(verb) or _DECISION_LEMMAS.get(lemma(verb))
        if (
            status is not None
            and not _NEGATION_OR_MODAL.search(agreed["agent"])
            and (not _NEGATION_OR_MODAL.search(_verb_prefix(agreed[0], verb)))
        ):
            return Decision(status, _item(agreed["rest"]), _about(agreed["about"] or ""))
        return None
    defer = _DEFER.match(clause)
    if defer is not None:
        return Decision(POSTPONED, _item(defer["rest"]))
    decided = _AGENT_DECIDED.match(clause)
    if decided is not None:
        verb = decided["verb"].lower()
        status = _DECISION_LEMMAS.get(lemma(verb))
        agent = decided["agent"].strip()
        if _ATTRIBUTIVE.search(agent):
            return None  # "This lists all the approved licenses": a kind of thing, no decision
        if (
            status is not None
            and not _NEGATION_OR_MODAL.search(agent)
            and (not agent or _names_agent(agent))
        ):
            rest = decided["rest"].strip()
            if _QUANTIFIED.match(rest):
                return None  # "the team accepted a few PRs": no item to give the status to
            if rest.lower().startswith("by "):
                return Decision(status, None)  # "Approved by board in meeting last Friday"
            return Decision(status, _item(rest), _about(decided["about"] or ""))
    participle = _PARTICIPLE.match(clause)
    if (
        participle is not None
        and not _names_agent(participle["item"])
        and (not _NEGATION_OR_MODAL.search(participle["item"]))
    ):
        verb = participle["verb"].lower()
        if not _PARTICIPLE_REST.match(participle["rest"]):
            return None  # "clients agreed it's good": agreement with a claim, no decision
        if verb == "agreed" and _AGREED_ON.match(participle["rest"]):
            return None  # "Clients agreed on the gas limit": who agreed, on what
        if _PERSON_LIKE.fullmatch(participle["item"].strip()):
            return None  # "Danny approved.": someone who approved, not an item approved
        status = ACCEPTED if verb == "agreed" else _DECISION_LEMMAS[lemma(verb)]
        item = _item(participle["item"])
        if item is not None and item.lower() not in _PRONOUN_ITEM:
            return Decision(status, item)
    return None


def _verb_prefix(clause: str, verb: str) -> str:
    at = clause.lower().rfind(f" {verb}")
    return clause[:at] if at >= 0 else clause


def _names_agent(phrase: str) -> bool:
    """Whether a subject names who decides (a body, a group, a person's title) rather than the
    item decided: "The SC", "CPC", "the Steering Council", "the board"."""
    words = [w for w in re.findall(r"[\w'’-]+", phrase.lower()) if w not in {"the", "a", "an"}]
    if not words:
        return False
    return words[-1] in _AGENT_WORDS or (
        len(words) == 1 and phrase.strip().isupper() and len(phrase.strip()) <= 5
    )


def _about(words: str) -> str | None:
    """What was discussed, when a noun phrase names it ("PEP 690"); not a clause ("if freezing
    the main branch was OK"), a place ("in CPC meeting") or someone's ("their options")."""
    item = _item(words)
    if item is None or item.split(" ", 1)[0].lower() in _NOT_ABOUT:
        return None
    return item


_NOT_ABOUT = frozenset(
    {
        "their",
        "our",
        "my",
        "his",
        "her",
        "its",
        "your",
        "if",
        "whether",
        "how",
        "what",
        "why",
        "when",
        "in",
        "at",
        "on",
        "with",
        "about",
        "during",
        "for",
        "options",
        "ways",
        "some",
        "a",
    }
)


_NOT_IN_ITEM_TAGS = frozenset({"PRP", "PRP$", "MD", "WDT", "WP", "WRB", "EX"})
_NOT_IN_ITEM = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "will",
        "that",
        "which",
        "who",
        "not",
        "no",
    }
)


def item_name(words: str) -> str | None:
    """The decided item's name when it is a longer phrase than an entity name usually is
    ("5 ECMA JavaScript related specs", "term limits/length", "python-dev vs Discourse
    expected use"): the object of a decision verb is what was decided, whatever its words, so
    long as it is no clause (a pronoun, modal, wh-word or form of "be" in it) and at most eight
    words."""
    tokens = words.split()
    if not 0 < len(tokens) <= 8 or "zz" in words:
        return None
    while tokens and tokens[0].lower() in {"the", "a", "an"}:
        tokens = tokens[1:]
    if not tokens or any(t.lower() in _NOT_IN_ITEM or tag(t) in _NOT_IN_ITEM_TAGS for t in tokens):
        return None
    return " ".join(tokens)


def _item(words: str) -> str | None:
    """The words naming the item of a decision: its title in parentheses, what follows it
    ("until after 3.12", "provided that …") and a decision noun ("a decision on this") off."""
    words = _PARENTHESES.sub("", words or "").strip(" .,:;*_")
    words = _AFTER_REFERENCE.sub("", words)  # "approved <changes #196> to PEP 387": the reference
    words = _ITEM_END.sub("", f" {words}").strip(" .,:;*_")
    words = _BE_END.sub("", words).strip()
    words = _DECISION_NOUN.sub("", words).strip(" .,:;*_")
    words = re.split(r"\s+[-–—]\s+", words, maxsplit=1)[0].strip()  # "PEP 690 – Lazy Imports"
    if re.match(r"(?:to|for|with|on|in|by|at|from)\b", words, re.IGNORECASE):
        return None  # "declined to comment": no item, a complement
    if _QUANTIFIED.match(words):
        return None  # "accepted a few PRs": some of a kind, no item named
    return words if re.search(r"[A-Za-z0-9]", words) else None  # "accepted 🎉": no item


_QUANTIFIED = re.compile(
    r"(?:a few|a couple(?: of)?|a number of|a lot of|lots of|some|several|many|most|few|all"
    r"|any|both|other|more)\b",
    re.IGNORECASE,
)

_AGENDA_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*[.)]?|[a-z][.)])\s+", re.IGNORECASE)
_AGENDA_TAIL = re.compile(r"\s*(?:\([^)]*\)|\[[^\]]*\])\s*$|\s*,\s*[A-Z][^,]*(?:/[^,]*)?$")
_AGENDA_PROCESS = re.compile(
    r"^(?:(?:update|updates|poll|vote|discussion|presentation|proposal|status|resume|move"
    r"|initiate|propose|creation|phase \d+|follow[- ]up|report)\s+(?:on|for|of|to|about)?\s*)+",
    re.IGNORECASE,
)
_AGENDA_PHASE = re.compile(
    r"\s+(?:to|in|for|at)\s+(?:phase|stage)\s+\d+\W*$|^(?:phase|stage)"
    r"\s+\d+\s+(?:of|for)\s+",
    re.IGNORECASE,
)


def agenda_topic(heading: str) -> str | None:
    """The item an agenda heading names, in its words: "Update on CSP integration (Francis
    McCabe) [15 min]" → "CSP integration", "Phase 3 poll for ESM Integration (Guy Bedford, 15
    minutes)" → "ESM Integration", "1. Move JSPI to phase 4. (Francis McCabe, 20 minutes)" →
    "JSPI". The meeting's process words (update on, poll for, vote for creation of, the phase)
    and who presents it are not the item."""
    words = heading.strip(" #*_")
    words = _AGENDA_NUMBER.sub("", words)
    for _ in range(3):
        words = _AGENDA_TAIL.sub("", words).strip(" .:")
    words = _AGENDA_PHASE.sub("", words).strip(" .:")
    words = _AGENDA_PROCESS.sub("", words).strip(" .:")
    words = _AGENDA_PHASE.sub("", words).strip(" .:")
    return words or None


_MINUTES_SPEAKER = re.compile(r"^(?P<name>[A-Z][A-Za-z]{1,3}|[A-Z][a-z]+(?: [A-Z][a-z]+)?):\s+\S")
"""A minutes line led by who speaks: initials ("DS: ", "TL: ") or a name ("Michael: ")."""


def minutes_speaker(line: str, *, anonymous: bool) -> ExtractedEntity | None:
    """Who speaks a minutes line ("DS: Poll passes, will create a repo", "TL: I've been
    working on new parser in Binaryen"): the "I" of its sentences. Initials are written in
    capitals and are no label ("AI:", "FYI:", "TODO:"); a name is no common English word
    ("Note: …", "Update: …") and is read so only in notes no one signs (in a customer's
    message, "Windows: I have the same issue" is still the customer's "I")."""
    found = _MINUTES_SPEAKER.match(line)
    if found is None:
        return None
    name = found["name"]
    if name.upper() in _LABELS:
        return None
    if name.isupper() and not is_common_word(name.lower()):
        return ExtractedEntity(name, "Person")
    if anonymous and all(not is_common_word(word) for word in name.split(" ")):
        return ExtractedEntity(name, "Person")
    return None


_LABELS = frozenset(
    {
        "AI",
        "TODO",
        "FYI",
        "NOTE",
        "NB",
        "PS",
        "ETA",
        "TBD",
        "WIP",
        "Q",
        "A",
        "QA",
        "ACTION",
        "RE",
        "FWIW",
        "IMO",
        "TLDR",
        "EDIT",
        "UPDATE",
        "OK",
    }
)


@dataclass(frozen=True)
class Commitment:
    """Someone in the minutes takes on work: "Petr will send out a couple of questions about
    it", "*AI:* Brad and JF to update the phases proposal", "DS: … will create a repo"."""

    who: str
    """The words naming who ("Petr", "Brad and JF", "The SC", "I"); empty: the line's speaker."""
    work: str
    """The object of the verb: the work when it names work ("a communication draft")."""
    rest: str
    """Everything after the verb, where "it" / "the PEP" may name the item discussed."""
    labelled: bool
    """The line is labelled an action item ("AI:", "Action:")."""
    ongoing: bool = False
    """Work under way said without its "is" ("@darcyclarke planning kick-off meeting"): the
    person's only when it names work or the item above (``memory.extraction.responsibility``)."""
    action: str = ""
    """The verb and what follows it as written ("reach out to the board")."""
    offered: bool = False
    """A first-person offer ("DLM: I can help review"; ``memory.extraction.offers``)."""


_SPOKEN_FILLER = re.compile(
    r"^(?:(?:yeah|yes|yep|ok|okay|so|right|alright|um+|uh+|well|sure|cool|great|and so)"
    r"(?:,\s*|\s+))+(?=I\b|I'|we\b)",
    re.IGNORECASE,
)
"""A transcript's spoken openers before a first-person commitment ("Yeah, so I will …",
"Okay so I'll …"): no part of its subject."""
_ACTION_LABEL = re.compile(
    r"^\W*(?:action items?|actions?|ai|todo|next steps?)\W*(?:\([^)]*\))?\s*[:\-–]\W*\s*", re.I
)
_COMMITMENT = re.compile(
    r"^(?P<who>.{0,60}?)\s*(?<![\w'])(?P<modal>will|'ll|is going to|are going to|am going to"
    r"|volunteered to|offered to|is happy to|are happy to|agreed to|has an action item to"
    r"|have an action item to|to)\s+(?:(?:also|then|now|soon|\w+ly)\s+)?(?P<verb>[a-z]+)\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_NOT_WORK_VERBS = frozenset(
    {
        "be",
        "remain",
        "stay",
        "have",
        "need",
        "see",
        "wait",
        "let",
        "hear",
        "know",
        "like",
        "want",
        "think",
        "say",
        "keep",
        "try",
        "go",
        "come",
        "defer",
        "postpone",
        "accept",
        "reject",
        "approve",
        "decline",
    }
)
NO_WORK_VERBS = frozenset({"attend", "join", "meet", "discuss", "present", "presenting"})
"""Verbs after "will" / "to" that commit to no work: being at a meeting or talking about an item
is no responsibility for it. On the dev split none of them ever carries a labelled commitment:
"I plan to attend more of these meetings" (wasm-cg-main-2023-cg-07-18-s12), "ability to meet
in person" (ethpm-allcoredevs-el-meetings-meeting-44-s11), "The SC met with the Developer in
Residence to discuss GitHub issues migration" (pysc-2022-03-14), "we wanted to discuss,
setting the merge nets split blocks" (ethpm-allcoredevs-el-meetings-meeting-143-s9), "Will need
to discuss JS and Web embeddings" (wasm-cg-main-2017-cg-08-08-s13), "YI presenting
[slides](…)" (wasm-cg-main-2021-cg-09-28-s12, -2024-cg-05-21-s10, -2022-cg-04-12-s12)."""
_NOT_A_VERB = frozenset({"DT", "PRP", "PRP$", "IN", "CC", "RB", "CD", "MD", "WDT", "WP", "TO"})
"""After "will" or "to" a word is a verb by its place; these tags say it is none ("to the",
"will not")."""
_PARTICLE = re.compile(
    r"^\s*(?:up on|out|up|back|on|off|over|through|forward with|forward on|forward|ahead with"
    r"|into|in)\b",
    re.IGNORECASE,
)
_BY_DOING = re.compile(r"^\s*(?:by|on)\s+[a-z]+ing\b", re.IGNORECASE)
_OBJECT_STOP = re.compile(
    r"\s+(?:to|so|so that|in order to|because|which|that|as|about|for|with|on|in|from|at|by"
    r"|once|when|if|and|but|after|before|until|there|here)\b|\s*[,;(:]",
    re.IGNORECASE,
)


_FINITE_TAGS = frozenset({"VBZ", "VBD", "VBP", "MD"})
_NAME_LIST = re.compile(r"[A-Z@][\w.'’-]*(?:(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)[A-Z@][\w.'’-]*)+")
"""Names joined by commas and "and" ("Brad, JF and Ben"): a subject, however many words."""


def _is_clause(words: str) -> bool:
    """Whether words before a modal hold a clause of their own, not a subject: a comma and a
    finite verb ("Poll passes,"), never a name list ("Brad and JF")."""
    if "," not in words:
        return False
    return any(tag(word) in _FINITE_TAGS for word in re.findall(r"[A-Za-z]+", words))


def find_commitment(text: str) -> Commitment | None:
    """The work a minutes line commits someone to, if it does (see ``Commitment``); never a
    question, a negation ("will not"), or a verb that commits to no work ("will be", "to
    see")."""
    text = _SPEAKER.sub("", text.strip(), count=1)  # "DS: …": who speaks is no subject
    text = _SPOKEN_FILLER.sub("", text, count=1)  # "Yeah, so I will write up …"
    text, kind = commitment_words(text)  # "I can help review", "I'll take an action to …"
    labelled = _ACTION_LABEL.match(text)
    words = text[labelled.end() :] if labelled else text
    found = _COMMITMENT.match(words.strip())
    if found is not None and (
        _is_clause(found["who"])
        or (len(found["who"].split()) > 3 and not _NAME_LIST.fullmatch(found["who"].strip(" ,:*_")))
    ):
        # "London testnet fork blocks agreed, Tim to document": the clause that commits;
        # "DS: Poll passes, will create a repo for this" (wasm-cg): a subject has no verb of
        # its own, so what commits is the clause after the comma, said by the speaker
        found = next(
            (
                m
                for part in re.split(r"\s*[,;]\s+", words)
                if (m := _COMMITMENT.match(part.strip())) is not None and len(m["who"].split()) <= 3
            ),
            None,
        )
    if found is None:
        return None
    verb = found["verb"].lower()
    if verb in _NOT_WORK_VERBS or verb in NO_WORK_VERBS or tag(verb) in _NOT_A_VERB:
        return None
    if says_content(verb, found["rest"]):
        return None  # "Bob will ask Alice whether it is blocked": talk, no work taken on
    who = found["who"].strip(" ,:*_")
    if who and not re.fullmatch(r"[\w@.'’ &,+-]+", who):
        return None  # "[Trying to find consensus]": a bracketed remark, no one's commitment
    if found["modal"].lower() == "to" and not (labelled or who):
        return None  # "Time to merge this": a bare "to" commits someone only in an action item
    if found["modal"].lower() == "to" and not labelled and (
        who.split(" ")[-1].lower() in _WORK_NOUNS or _FINITE_LATER.match(found["rest"])
    ):
        # "The PR to add it to node-addon-api landed": a purpose of a noun ("the PR to …"),
        # the subject of a later verb, no one's action item
        return None
    rest = found["rest"]
    rest = _PARTICLE.sub("", rest, count=1)
    rest = _BY_DOING.sub("", rest, count=1)
    rest = _PARENTHESES.sub("", rest).strip(" .")
    work = _OBJECT_STOP.split(f" {rest}", maxsplit=1)[0].strip(" .")
    # "a clearer guideline": a comparison says how the work should be, not which it is
    work = " ".join(w for w in work.split(" ") if tag(w) not in {"JJR", "JJS", "RBR"})
    return Commitment(
        who,
        work,
        rest,
        labelled is not None or kind == "action",
        action=verb + found["rest"],
        offered=kind == "offer",
    )


_FINITE_LATER = re.compile(
    r"^(?:(?!\b(?:that|which|who|once|when|after|before|if|since|because|as|until|so|and)\b)"
    r"[^,;])*?\b(?:landed|merged|shipped|released|was|were|went|happened|passed|got)\b",
    re.IGNORECASE,
)
"""A verb in the past after "X to <verb> …" ("PR to move to mono-repo landed"): the "to …"
was a noun's purpose, and the past verb says what happened to it."""
_WORK_NOUNS = frozenset(
    {
        "proposal",
        "draft",
        "doc",
        "document",
        "post",
        "repo",
        "repository",
        "spec",
        "guideline",
        "guidelines",
        "charter",
        "rfc",
        "pep",
        "pr",
        "issue",
        "test",
        "tests",
        "testsuite",
        "release",
        "schedule",
        "plan",
        "template",
        "writeup",
        "write-up",
        "summary",
        "presentation",
        "talk",
        "tutorial",
        "patch",
        "implementation",
        "parser",
        "migration",
        "sprint",
        "process",
        "survey",
        "announcement",
        "policy",
        "roadmap",
        "report",
        "page",
        "website",
        "prototype",
        "tool",
        "bot",
        "workshop",
        "meeting",
        "change",
        "changes",
    }
)
"""Heads of phrases that name a piece of work a person can take on (GUIDE §8.3: the target of
an action item is its object when the object is itself named work)."""


def names_work(phrase: str) -> bool:
    """Whether an action's object names work ("a communication draft", "the phases proposal",
    "a repo") rather than something done to people ("the authors", "a couple of questions")."""
    words = re.findall(r"[\w'-]+", phrase.lower())
    return bool(words) and (
        words[-1] in _WORK_NOUNS or words[-1].rsplit("-", 1)[-1] in _WORK_NOUNS
    )  # "a pre-spec"


def discussed_item(text: str) -> str | None:
    """What a sentence of minutes says was discussed ("The SC discussed PEP 646, which …",
    "continued discussing PEP 692 – Using TypedDict …"): the item the sentences after it are
    about ("Petr will send out a couple of questions about it")."""
    found = _DISCUSSING.search(text)
    if found is None:
        return None
    return _about(_CLAUSES.split(found["about"], maxsplit=1)[0])


_DISCUSSING = re.compile(
    r"\b(?:discussed|discussing|reviewed|considered|talked about)\s+(?:briefly\s+)?"
    r"(?P<about>.+)$",
    re.IGNORECASE,
)


# ----------------------------------------------------------------------------- standup notes

_HANDLE_HEADING = re.compile(r"^@(?P<name>[A-Za-z0-9][\w.-]*)$")
_SECTIONS = (
    (
        "next",
        re.compile(
            r"^(?:next|next (?:week|steps?|up)|up next|todo|to do|planned|plans"
            r"|doing|in progress|ongoing|working on|this week)\W*$",
            re.I,
        ),
    ),
    ("done", re.compile(r"^(?:done|completed?|finished|accomplished|last week|shipped)\W*$", re.I)),
    ("blocked", re.compile(r"^(?:blocked|blockers?|blocking|impediments?)\W*$", re.I)),
)
_NOTHING = re.compile(r"^\W*(?:n/?a|none|nothing|no|nope|tbd|-+)\W*$", re.I)


def standup_owner(headings: tuple[str, ...]) -> str | None:
    """Whose update a line is in standup notes: the handle that heads it ("@dryajov" alone on
    its line, then Done / Blocked / Next)."""
    for heading in reversed(headings):
        found = _HANDLE_HEADING.match(heading.strip(" *_:"))
        if found is not None:
            return found["name"]
    return None


def standup_section(parents: tuple[str, ...]) -> str | None:
    """Which part of a standup update a list item is in — ``next`` (and ongoing work),
    ``done`` or ``blocked`` — by the label of the list it is nested under."""
    for parent in reversed(parents):
        label = parent.strip(" *_").split(":", 1)[0].strip()
        for section, pattern in _SECTIONS:
            if pattern.match(label):
                return section
    return None


@dataclass(frozen=True)
class StandupItem:
    work: str
    """The words naming the work (may be a reference placeholder)."""
    status: str | None = None
    """What the item's own words say of it ("Released X" → released)."""
    responsible: bool = False
    """The line is work its author is doing or will do (Next, or ongoing)."""


_WIP = re.compile(r"^\W*\[?\s*wip\s*\]?\W*", re.I)
_STANDUP_VERBS = frozenset(
    {
        "continue",
        "finish",
        "start",
        "work",
        "get",
        "keep",
        "complete",
        "do",
        "make",
        "begin",
        "resume",
        "try",
        "help",
        "take",
        "handle",
        "wrap",
        "assist",
        "support",
        "improve",
        "add",
        "write",
        "build",
        "fix",
        "review",
        "merge",
        "land",
        "expand",
        "refactor",
        "implement",
        "propose",
        "update",
        "debug",
        "investigate",
        "explore",
        "prepare",
        "publish",
        "release",
        "ship",
        "apply",
        "create",
        "design",
        "draft",
        "test",
        "document",
    }
)
"""Verbs a standup line opens with: its work is what follows them."""
_DONE_STATUSES = {
    "release": "released",
    "ship": "released",
    "publish": "released",
    "deploy": "released",
    "fix": "fixed",
    "merge": "merged",
    "land": "merged",
}
_STANDUP_FILLER = re.compile(
    r"^(?:&|and|on|off|up|with|to|the|a|an|some|more|new|my|our|working"
    r"|successfully|also|still|further)\b\s*",
    re.I,
)
_STANDUP_STOP = re.compile(
    r"\s+(?:-{1,2}|–|—)\s+.*$|\s*[(:;].*$|\s+(?:for|with|using|by|from|to get|to make|and hopefully"
    r"|hopefully|so that|because|this week|next week|as well|into)\b.*$",
    re.I,
)
_RESULT = re.compile(r"\s+(?:merged|ready|done|finished|landed|released|working|in)$", re.I)


def standup_item(text: str, section: str) -> StandupItem | None:
    """The work a standup line names, and the status its words give it (GUIDE §10): under
    Next, "Finish mplex crash issue" → the mplex crash issue; anywhere, ongoing work ("Working
    on npm-on-ipfs", "… (ongoing)"); under Done, only what a past tense says ("Released
    v2.3.2" → released, "Fixed …" → fixed), never responsibility for finished work."""
    words = text.strip(" *_.")
    if (
        not words
        or _NOTHING.match(words)
        or words.endswith("?")
        or not re.search(r"[A-Za-z]", words)
    ):
        return None
    first = words.split(" ", 1)[0]
    if section != "done" and lemma(first.lower()) in NO_WORK_VERBS:
        return None  # "discuss gx-gomod with @stebalien": talk about work, none taken on
    status = None
    ongoing = bool(_ONGOING.search(words))
    if section == "done":
        if first.lower() in _PAST_STATUSES:
            status = _PAST_STATUSES[first.lower()]
        elif not ongoing:
            return None  # finished work gives no responsibility, only what its words say
        words = _ONGOING.sub("", words)
    while section != "blocked":  # a blocked item is named, not done ("Streaming LS PR")
        first = words.split(" ", 1)[0]
        if (
            lemma(first) in _STANDUP_VERBS
            or first.lower() in _PAST_STATUSES
            or (first.lower().endswith("ing") and tag(first) == "VBG")
            or (tag(first.lower()) == "VB" and " " in words)
        ):
            words = words[len(first) :].strip()
            continue
        filler = _STANDUP_FILLER.match(words)
        if filler is not None and filler.end() > 0:
            words = words[filler.end() :]
            continue
        break
    words = _PROBLEM_WITH.sub("", words)  # "Fixed problem with extra nodes appearing …"
    words = _STANDUP_STOP.sub("", words).strip(" .,")
    words = _RESULT.sub("", words).strip(" .,")  # "get circuit related work merged"
    if not words or len(words.split()) > 8:
        return None
    return StandupItem(words, status, responsible=section == "next" or ongoing)


_PROBLEM_WITH = re.compile(
    r"^(?:(?:the|a|an)\s+)?(?:problems?|issues?|bugs?)\s+(?:with|in|of)\s+", re.I
)


_PAST_STATUSES = {
    "released": "released",
    "shipped": "released",
    "published": "released",
    "deployed": "released",
    "fixed": "fixed",
    "merged": "merged",
    "landed": "merged",
}
_ONGOING = re.compile(r"^(?:working on|continuing|continue)\b|\s*\(ongoing\)", re.I)


_AUTHORED = re.compile(
    r"^(?P<who>[\w@.'’ &-]{1,40}?)\s+(?:(?:have|has)\s+)?(?P<verb>wrote(?: up)?|drafted"
    r"|prepared|put together|did|opened|created|started|has|have)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_HEDGE_FILLER = re.compile(r"^(?:kind of|sort of|a kind of|some kind of)\s+", re.IGNORECASE)


def find_authored(text: str) -> Commitment | None:
    """Work someone says they made or hold ("**Vitalik**: … I wrote up kind of a pre-spec of 2
    versions of data availability", "I did a draft PR separating out the light client spec",
    "@rromoff has a blog post ready"): responsibility for it, when the object names work
    (``names_work``) — never the item above ("Danny has a question" names none)."""
    text = _SPEAKER.sub("", text.strip(), count=1)
    for part in re.split(r"\s*[,;]\s+", text):
        found = _AUTHORED.match(part.strip())
        if found is None:
            continue
        rest = _HEDGE_FILLER.sub("", found["rest"].strip())
        rest = _PARENTHESES.sub("", rest).strip(" .")
        work = _OBJECT_STOP.split(f" {rest}", maxsplit=1)[0].strip(" .")
        head = []
        for word in work.split(" "):  # "a pre-spec of 2 versions …", "a draft PR separating …"
            if head and (
                word.lower() in {"of", "into", "over"}
                or (word.lower().endswith("ing") and tag(word) == "VBG")
            ):
                break
            head.append(word)
        work = re.sub(r"\s+(?:ready|done|open|up)$", "", " ".join(head), flags=re.IGNORECASE)
        named = [w for w in work.split(" ") if w.lower() not in {"a", "an", "the", "some"}]
        if names_work(work) and (len(named) > 1 or "-" in work):
            # "a blog post", "a pre-spec"; a bare "a release" or "a PR" names no one piece
            return Commitment(found["who"].strip(), work, rest, False)
    return None


# ----------------------------------------------------------------------- action-item sections

_ACTION_SECTION = re.compile(
    r"^\W*(?:(?:new|open|follow[- ]up|decisions and)\s+)?(?:action items?|actions?(?: made)?"
    r"|ais?|todos?|to-?dos?|next steps?|follow[- ]ups?|assignments?)\W*$",
    re.IGNORECASE,
)
"""A heading or list label that makes every line under it an action item ("### Action items",
"**Next steps:**", "AIs")."""
_OWNER_FIRST = re.compile(r"^(?P<who>[^:()\[\]]{1,60}?)\s*(?::|\s[-–—])\s+(?P<action>[a-z].*)$")
"""An action item led by its owner: "Tim: share the testnet schedule", "@tim - open an issue"."""
_OWNER_LAST = re.compile(
    r"^(?P<action>[A-Z]?[a-z][^()]*?)\s*(?:\((?P<who>[^()]{1,60})\)|\s[-–—]\s+(?P<handle>[^-–—]{1,60}))"
    r"\W*$"
)
"""An action item with its owner after it: "Share the testnet schedule (Tim)", "Open an issue
- @tim"."""
_OWNER_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*[&+/]\s*")
_OWNER_NAME = re.compile(r"zzref\d+zz|@?[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)?")
_HANDLE_NAME = re.compile(r"zzref\d+zz")


def _owners(words: str, name: re.Pattern[str]) -> bool:
    """Whether words are one or more names joined by commas, "and", "&" or "/" — checked name
    by name, so that no pattern backtracks over a long line."""
    names = [n for n in _OWNER_SPLIT.split(words.strip()) if n]
    return bool(names) and len(names) <= 6 and all(name.fullmatch(n) for n in names)


def in_action_section(headings: tuple[str, ...], parents: tuple[str, ...]) -> bool:
    """Whether a line sits in a list of action items: its nearest parent list item, else its
    nearest heading, is an action-items label."""
    for label in (*parents[-1:], *headings[-1:]):
        return bool(_ACTION_SECTION.match(label.strip(" *_#:").split(":", 1)[0] + ":"))
    return False


def action_item_line(text: str) -> str | None:
    """An action item of an action-items section as a labelled commitment ("AI: Tim to
    share the testnet schedule"), whichever side of the action its owner is written on; None
    when the line names no owner before or after the action."""
    line = text.strip(" *_.").removeprefix("[ ] ").removeprefix("[x] ").strip()
    first = _OWNER_FIRST.match(line)
    if first is not None:
        who = first["who"]
        lower_handle = re.fullmatch(r"[a-z][\w.-]*", who) is not None and not is_common_word(who)
        if lower_handle or _owners(who, _OWNER_NAME):
            return f"AI - {who} to {first['action']}"
    last = _OWNER_LAST.match(line)
    if last is not None and (
        (last["who"] is not None and _owners(last["who"], _OWNER_NAME))
        or (last["handle"] is not None and _owners(last["handle"], _HANDLE_NAME))
    ):
        who = last["who"] or last["handle"]
        action = last["action"]
        verb = action.split(" ", 1)[0]
        if lemma(verb.lower()) == verb.lower() and tag(verb.lower()) in {"VB", "VBP", "NN"}:
            return f"AI - {who.strip()} to {action[0].lower()}{action[1:]}"
        return None
    if _COMMITMENT.match(line) is not None:
        return f"AI - {line}"
    return None


# ------------------------------------------------------------- a status in a relative clause

_RELATIVE_STATUS = re.compile(
    r"^(?P<item>[^,;:]{3,80}?),\s+which\s+(?:(?:has|have)\s+(?:now\s+|also\s+)?been"
    r"|(?:is|are|was|were)(?:\s+now)?(?P<near>\s+(?:almost|nearly|mostly))?)\s+"
    r"(?P<status>[a-z]+)(?:\s+(?:today|yesterday|last \w+|this week|since|on|in|to)\b.*)?\W*$",
    re.IGNORECASE,
)
"""A list item that names work and gives its status in a relative clause: "Fixes for the CLA
bot, which have been deployed." (pysc-2023-08-21), "Updates to the CLA bot, which are almost
complete." (pysc-2023-08-07)."""
_RELATIVE_STATUSES = {
    "deployed": "released",
    "released": "released",
    "shipped": "released",
    "published": "released",
    "merged": "merged",
    "landed": "merged",
    "fixed": "fixed",
    "resolved": "resolved",
    "reverted": "reverted",
    "completed": "done",
    "complete": "done",
    "done": "done",
    "finished": "done",
    "accepted": "accepted",
    "approved": "approved",
    "rejected": "rejected",
    "postponed": "postponed",
    "deferred": "postponed",
    "blocked": "blocked",
    "stalled": "stalled",
}
_NOT_AN_ITEM = re.compile(r"^(?:it|this|that|they|we|he|she|which|there|here)\b", re.IGNORECASE)


def relative_status(text: str) -> tuple[str, str] | None:
    """The item and its status when a line is a noun phrase with a relative clause of status
    (``_RELATIVE_STATUS``): "almost complete" is work in progress; a negation or a modal in
    the clause states nothing ("which has not been merged" does not match)."""
    found = _RELATIVE_STATUS.match(text.strip(" *_-"))
    if found is None or _NOT_AN_ITEM.match(found["item"]):
        return None
    status = _RELATIVE_STATUSES.get(found["status"].lower())
    if status is None:
        return None
    if found["near"]:
        if status != "done":
            return None  # "almost merged" says nothing of a state reached
        status = "in progress"
    return found["item"].strip(), status
