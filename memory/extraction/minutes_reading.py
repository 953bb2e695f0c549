"""Minutes read into facts: the glue between ``memory.extraction.minutes`` (what a line of
minutes says, in words) and the rules reader (``memory.extraction.rules``), whose state — the
item above, what was just discussed, who speaks, the masked references — names the entities.

Each function is a hook the reader calls on a sentence (``read_decisions`` always,
``read_standup`` and ``read_commitment`` when nothing else read the sentence); none of them
undoes what the reader found.
"""

from __future__ import annotations

import re

from memory.extraction import ExtractedEntity
from memory.extraction.affiliations import find_memberships
from memory.extraction.assertions import names_a_group
from memory.extraction.minutes import (
    Commitment,
    action_item_line,
    agenda_topic,
    discussed_item,
    find_authored,
    find_commitment,
    find_decisions,
    in_action_section,
    item_name,
    names_work,
    relative_status,
    standup_item,
    standup_section,
)
from memory.extraction.offers import offered_object
from memory.extraction.readings import reading
from memory.extraction.responsibility import (
    asked_to,
    find_responsibility,
    names_activity,
    role_owners,
    served_work,
    work_under_way,
)
from memory.extraction.rules import (
    _ACTION_VERB,
    _BARE_CHANGES,
    _I,
    _NAMES_SPLIT,
    _NOT_AGENTS,
    _PARENTHETICAL,
    _PRONOUNS,
    MEMBER_OF,
    PLACEHOLDER_REF,
    RESPONSIBLE_FOR,
    _Clause,
    _display,
    _names_a_person,
    _noun_phrase,
    _Reader,
    _words,
)
from memory.language.documents import Passage
from memory.language.references import PLACEHOLDER, mask
from memory.language.words import is_common_word


@reading("decision")
def read_decisions(r: _Reader, sentence: str, passage: Passage) -> None:
    """What minutes record as decided ("The SC accepted PEP 655", "Poll passes", "Defer
    discussion on X until …"; ``memory.extraction.minutes``): the item's status. An item
    the sentence does not name is the one under discussion: the item above (a reference),
    else the agenda item its heading names ("Update on CSP integration")."""
    r.decided_item = None
    _read_relative_status(r, sentence)
    decisions = find_decisions(r.masked.text)
    clause = r._bare_clause(sentence)
    discussed = discussed_item(r.masked.text)
    if (
        discussed is not None
        and r.masked.reference(discussed) is None
        and not (_DISCUSSED_WORK.match(discussed))
        and not (names_work(discussed) and _noun_phrase(discussed) is not None)
    ):
        # "discussed the state of …": only an item by its name, or named work ("the GitHub
        # Issues migration"), is the topic
        discussed = None
    if discussed is not None:
        _decided(r, discussed, clause)  # what "it" means in the sentences after it
    for decision in decisions:
        about = _decided(r, decision.about, clause) if decision.about else None
        if decision.item is not None and decision.item.lower() not in _PRONOUNS:
            if (
                decision.status != "postponed"
                and not _NAMES_WORK.search(_DETERMINER.sub("", decision.item))
                and not names_work(decision.item)
            ):
                continue  # "We accepted the risk": what is accepted must be work
            if names_a_group(decision.item):
                continue  # "Multiple FIPs moved to Accepted": no one item named
            item = _decided(r, decision.item, clause)
        else:
            # the one item the sentence names by reference before the item above it
            # ("N-api: [#19262](…) PR take n-api out of experimental, no objections")
            item = about or _sole_reference(r) or r.context or agenda_item(r, passage)
        if item is not None and item.type == "WorkItem":
            r.status(item, decision.status, clause, reported=False)
            r.decided_item = item


def _read_relative_status(r: _Reader, sentence: str) -> None:
    """ "Fixes for the CLA bot, which have been deployed.": the item its noun phrase names has
    the status its relative clause says (``memory.extraction.minutes.relative_status``)."""
    if r.own is not None and not r.own_is_section:
        return  # a tracker's thread reads its own lines
    found = relative_status(r.masked.text)
    if found is None:
        return
    words, status = found
    clause = r._bare_clause(sentence)
    item = r.thing(words, clause)
    if item is None and (phrase := _noun_phrase(words)) is not None:
        item = ExtractedEntity(_display(phrase), "WorkItem")
    if item is not None and item.type == "WorkItem":
        with r.readings.running("relative_status"):
            r.status(item, status, clause, reported=False)


@reading("standup")
def read_standup(r: _Reader, text: str, sentence: str, passage: Passage) -> None:
    """A line of someone's standup update (GUIDE §10): under Next (or ongoing), its work
    is theirs; under Blocked, its item is blocked; under Done, only the status its words
    say ("Released v2.3.2", "[WIP] …"). The item is a reference the line names outside
    parentheses, else its words (``memory.extraction.minutes.standup_item``)."""
    assert r.standup_owner is not None
    if not passage.parents or standup_section(passage.parents[-1:]) is None:
        return  # only the items of a section: what is nested under them details them
    section = standup_section(passage.parents[-1:])
    assert section is not None
    found = standup_item(r.masked.text, section)
    if found is None:
        return
    clause = r._bare_clause(sentence)
    outside = _PARENTHETICAL.sub("", r.masked.text)
    references = [
        ref
        for word in PLACEHOLDER_REF.findall(outside)
        if (ref := r.masked.references.get(word)) is not None and ref.type == "WorkItem"
    ]
    if references:
        item: ExtractedEntity | None = ExtractedEntity(references[0].name, "WorkItem")
    else:
        phrase = _noun_phrase(found.work) if "zz" not in found.work else None
        words = _words(phrase) if phrase else []
        if len(words) == 1 and (
            (words[0].islower() and is_common_word(words[0])) or words[0].lower() in _BARE_CHANGES
        ):
            return  # "Testing changes", "Decide on direction", "PRs": no work named
        item = ExtractedEntity(_display(phrase), "WorkItem") if phrase else None
    if item is None:
        return
    if found.responsible:
        r.fact(r.standup_owner, RESPONSIBLE_FOR, item, clause)
    if section == "blocked":
        r.status(item, "blocked", clause, reported=False)
    if found.status is not None:
        r.status(item, found.status, clause, reported=False)


@reading("commitment")
def read_commitment(r: _Reader, text: str, sentence: str, passage: Passage) -> None:
    """Someone in minutes takes on work ("Petr will send out a couple of questions about
    it", "*AI:* Brad and JF to update the phases proposal", "DS: … will create a repo";
    ``memory.extraction.minutes.find_commitment``): they are responsible for the work the
    object names, else for the item the line refers back to ("it", "the PEP"), else for the
    item above; an action item's label also makes its heading's agenda item that item
    (GUIDE §8.1, §8.3). Not in a tracker's thread, whose own lines are read above."""
    if r.own is not None and not r.own_is_section:
        return
    reported_for = passage.headings[:-1] in r.team_reporters  # "### Parity" / "**Wei**"
    if (_names_a_team(r.heading_agent) or (reported_for and r.heading_agent is not None)) and (
        work := work_under_way(r.masked.text)
    ) is not None:
        # "### Parity" / "- doing some optimization work for the state transition"
        assert r.heading_agent is not None
        clause = r._bare_clause(sentence)
        item = r.thing(work, clause)
        if item is not None and item.type == "WorkItem":
            with r.readings.running("team_work"):
                r.fact(r.heading_agent, RESPONSIBLE_FOR, item, clause)
        return
    if (owners := role_owners(r.masked.text)) and not in_action_section(
        passage.headings, passage.parents
    ):
        # "Owner: nikomatsakis" under an item: the people the role names own it
        _own_item_above(r, owners, sentence, passage)
        return
    commitment = None
    if in_action_section(passage.headings, passage.parents):
        # "### Action items" / "- Tim: share the testnet schedule": every line is one
        labelled = action_item_line(r.masked.text)
        commitment = find_commitment(labelled) if labelled is not None else None
    commitment = commitment or asked_to(text) or find_commitment(text)
    if commitment is None and (
        commitment := find_responsibility(text) or find_responsibility(sentence)
    ):  # the sentence: "The SC shared thoughts …, and will start on a doc" (text: the rest)
        with r.readings.running("responsibility"):
            _take_on(r, commitment, text, sentence, passage)
        return
    authored = None
    if commitment is None:
        authored = find_authored(text)
        if authored is None:
            return
        # made or held work: only the work it names is theirs
        people = _committed(r, authored.who, r._bare_clause(sentence), labelled=False)
        item = r.thing(authored.work, r._bare_clause(sentence)) if people else None
        if item is not None and item.type == "WorkItem":
            with r.readings.running("authored"):
                for person in people:
                    r.fact(person, RESPONSIBLE_FOR, item, r._bare_clause(sentence))
        return
    _take_on(r, commitment, text, sentence, passage)


@reading("role")
def _own_item_above(r: _Reader, owners: list[str], sentence: str, passage: Passage) -> None:
    """The people a role line names ("Owner: X", "Champion: Y") are responsible for the item it
    sits under: a reference above, else the list item's or the heading's agenda item."""
    item = r.context or (
        None if _names_a_team(r.heading_agent) else parent_item(passage) or agenda_item(r, passage)
    )
    if item is None or item.type != "WorkItem":
        return
    clause = r._bare_clause(sentence)
    for person in _committed(r, " and ".join(owners), clause, labelled=True):
        r.fact(person, RESPONSIBLE_FOR, item, clause)


def _take_on(
    r: _Reader, commitment: Commitment, text: str, sentence: str, passage: Passage
) -> None:
    """The people a commitment names are responsible for its work (``read_commitment``)."""
    clause = r._bare_clause(sentence)
    people = _committed(r, commitment.who, clause, labelled=commitment.labelled)
    if not people:
        return
    item: ExtractedEntity | None = None
    references = [
        ref
        for word in PLACEHOLDER_REF.findall(commitment.rest)
        if (ref := r.masked.references.get(word)) is not None and ref.type == "WorkItem"
    ]
    if references:
        item = ExtractedEntity(references[0].name, "WorkItem")
    elif names_work(commitment.work) and not _REFERS_BACK.fullmatch(commitment.work):
        item = r.thing(commitment.work, clause)
        if item is None and (served := served_work(commitment.work)) != commitment.work:
            item = r.thing(served, clause)  # "helping coordinate a core sprint"
    elif (activity := served_work(commitment.work)) != commitment.work and names_work(activity):
        item = r.thing(activity, clause)  # "will help get the release out"
    elif (commitment.labelled or _ACTION_ITEM.search(text)) and names_activity(activity):
        item = ExtractedEntity(activity, "WorkItem")  # "AI(DS) figure out relicensing"
    if item is None and _REFERS_BACK.search(commitment.rest):
        item = r.last_thing or r.context  # "about it", "update the PEP"
    if commitment.ongoing:
        # work under way is the item's it sits under, else the work its object names; never
        # an unnamed object ("EuroPython coming up")
        named = item if item is not None and item.type == "WorkItem" else None
        item = r.context or parent_item(passage) or named
        if item is None:
            return
    if item is None and commitment.offered and (words := offered_object(commitment.work)):
        item = r.thing(words, clause)  # "DH: Luke and I can craft a dependency graph offline"
    if item is None and not commitment.work:
        item = r.decided_item  # "London testnet fork blocks agreed, Tim to document"
    if item is None:
        item = r.context
    if (
        item is None
        and not _names_a_team(r.heading_agent)  # "### Prysm": a team's update, no agenda item
        and (commitment.labelled or asked_to_act(commitment) or commitment.offered)
    ):
        # "Alex to update the spec" under "### Withdrawals": the action is on the agenda item
        # it sits under, a list item's words first, else the heading's (GUIDE §8.1, §8.3)
        item = parent_item(passage) or agenda_item(r, passage)
    if item is None or item.type != "WorkItem":
        return
    for person in people:
        r.fact(person, RESPONSIBLE_FOR, item, clause)


def _names_a_team(agent: ExtractedEntity | None) -> bool:
    """Whether the heading over a line is a team's name ("### Prysm", no word of English),
    not a topic the heading reader also takes for one ("### Withdrawals")."""
    return agent is not None and not all(
        is_common_word(word.lower()) for word in agent.name.split(" ")
    )


def asked_to_act(commitment: Commitment) -> bool:
    """Whether a commitment is an action item by its grammar: someone named (not the line's
    "I", whose talk in a transcript plans as often as it commits) asked to do one of the
    actions minutes assign ("Alex to update the spec", "Michael will reach out to the
    board")."""
    who = commitment.who.strip()
    return (
        bool(who)
        and who.lower() not in {"i", "we", "you", "they"}
        and _ACTION_VERB.match(f" {commitment.action}") is not None
    )


def _committed(r: _Reader, who: str, clause: _Clause, *, labelled: bool) -> list[ExtractedEntity]:
    """Who a commitment names: the line's speaker ("DS: … will create"), people by name
    ("Brad and JF"), or a body ("The SC"); nobody for "we", "you" or a common word ("Time
    to merge this")."""
    if not who or who.lower() == "i":
        return [r.passage_speaker] if r.passage_speaker is not None else []
    people = []
    names = [n for n in _NAMES_SPLIT.split(who) if n]
    # In an action item, or beside a name no lexicon knows ("Brad and JF"), a proper noun
    # that is also a word ("Brad", "Robin") is a name too.
    clear = labelled or (len(names) > 1 and any(_names_a_person(n, bare=True) for n in names))
    for name in names:
        if name == "I" and len(names) > 1 and r.passage_speaker is not None:
            people.append(r.passage_speaker)  # "DH: Luke and I can craft …": the speaker
            continue
        body = name.removeprefix("The ").removeprefix("the ")
        if body != name and body.isupper() and len(body) <= 5:
            people.append(ExtractedEntity(body, "Team"))  # "The SC"
            continue
        reference = r.masked.references.get(name)
        if reference is not None and reference.type in {"Person", "Team"}:
            people.append(ExtractedEntity(reference.name, reference.type))
            continue
        words = name.split(" ")
        if (
            _NOT_AGENTS.match(name)
            or len(words) > 3
            or not (
                name in r.speakers
                or r._known_type(name) == "Person"
                or all(
                    _names_a_person(word, bare=True)
                    or (clear and _names_a_person(word, bare=False))
                    for word in words
                )
            )
        ):
            return []
        people.append(ExtractedEntity(name, "Person"))
    return people


def _sole_reference(r: _Reader) -> ExtractedEntity | None:
    """The one work item a sentence names by reference ("Provide implementation guidance
    [#632](…) *Will wait until next time"): what its decision is about."""
    items = {r.name for r in r.masked.references.values() if r.type == "WorkItem"}
    return ExtractedEntity(items.pop(), "WorkItem") if len(items) == 1 else None


def _decided(r: _Reader, words: str, clause: _Clause) -> ExtractedEntity | None:
    """The item a decision names: what is decided on is work ("PEP 582" is no HTTP 582
    error), however long its name ("term limits/length")."""
    item = r.thing(words, clause)
    if item is not None and item.type != "WorkItem" and (phrase := _noun_phrase(words)) is not None:
        item = ExtractedEntity(_display(phrase), "WorkItem")
    elif item is None and (name := item_name(words)) is not None:
        item = ExtractedEntity(name, "WorkItem")
    if item is not None:
        r._mention(item)
    return item


def agenda_item(r: _Reader, passage: Passage) -> ExtractedEntity | None:
    """The agenda item the nearest heading names (GUIDE §8.1), never a category heading
    ("Notes", "Week Update", a date)."""
    if not passage.headings:
        return None
    topic = agenda_topic(mask(passage.headings[-1]).text)
    if topic is None or _CATEGORY_HEADING.search(topic) or PLACEHOLDER.search(topic):
        return None
    phrase = _noun_phrase(topic)
    return ExtractedEntity(_display(phrase), "WorkItem") if phrase else None


def parent_item(passage: Passage) -> ExtractedEntity | None:
    """The agenda item a list line sits under, by its words ("Update on [Package Vulnerability
    Management & Reporting Collaboration Space](…)" → that space), never a category ("Notes")."""
    if not passage.parents:
        return None
    topic = agenda_topic(mask(passage.parents[-1]).text)
    if topic is None or _CATEGORY_HEADING.search(topic) or PLACEHOLDER.search(topic):
        return None
    phrase = _noun_phrase(topic)
    return ExtractedEntity(_display(phrase), "WorkItem") if phrase else None


_ACTION_ITEM = re.compile(r"\baction items?\b", _I)
"""A line that says someone has an action item ("I have an action item to help …")."""
_DETERMINER = re.compile(r"^(?:the|a|an|this|that|these|those|our|their)\s+", _I)
_NAMES_WORK = re.compile(r"zzref\d+zz|[A-Z0-9]")
"""An item decided on by a name or an identifier ("PEP 655", "#386", "5 ECMA … specs")."""
_DISCUSSED_WORK = re.compile(r"^(?:[A-Z]{2,6}[- ]?\d+|(?:the )?[A-Z][\w-]*(?: [A-Z][\w-]*){0,3})$")
"""A discussed item by its name: an identifier ("PEP 646", "EIP-4444") or a proper name."""
_REFERS_BACK = re.compile(
    r"\b(?:it|this|that)\b(?! (?:is|was|are|were|we|you|they)\b)|\b(?:the|this|that|these)"
    r" (?:pep|proposal|issue|pr|rfc|spec|item|one|work|change|changes|topic)\b",
    _I,
)
"""Words of an action that point back at the item under discussion ("about it", "update the
PEP", "comment on that issue")."""
_CATEGORY_HEADING = re.compile(
    r"^(?:[\d\W]+|.*\b(?:notes|minutes|agenda|attendees|attendance|updates?|summary|decisions"
    r"|action items?|discussion|announcements?|other business|misc\w*|closure|opening"
    r"|next steps?|follow[- ]ups?|todos?|conclusions?|outcomes?|resolutions?|key points"
    r"|takeaways?|q\s*&\s*a|questions?|aob|any other business|open floor|links|resources"
    r"|references)\W*|.*\bsummary of\b.*)$",
    _I,
)
"""Headings that name a part of the meeting, not an item of its agenda (GUIDE §8.1): also the
part that concludes an item ("Conclusion", "Speaker's Summary of Key Points")."""


@reading("membership")
def read_memberships(r: _Reader, sentence: str) -> None:
    """A person named with their organisation beside them — "Alex (Teku)", "Michael
    Droetboom, manager of Microsoft's Faster CPython team", "welcomed Emily to the SC"
    (``memory.extraction.affiliations``): the person is a member of it. Only in notes, never
    in a tracker's thread or a customer's message ("Docker (WSL)" names a product's part)."""
    if (r.own is not None and not r.own_is_section) or r.author is not None:
        return
    for found in find_memberships(r.masked.text, lambda w: _names_a_person(w, bare=True)):
        r.fact(
            ExtractedEntity(found.person, "Person"),
            MEMBER_OF,
            ExtractedEntity(found.team, "Team"),
            r._bare_clause(sentence),
        )
