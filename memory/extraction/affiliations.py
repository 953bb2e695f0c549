"""Membership as minutes write it beside a name, in shapes the rules reader's "X of / from Y"
(``rules._AFFILIATION``) does not read:

* **the organisation in parentheses** — "Alex (Teku)", "**Terence (Prysm)**:", "Potuz (Prysm)
  will write the spec PR" (corpus GUIDE §1 and §3: `MEMBER_OF` from "Alex (Teku)"): a person's
  name, then one proper name in parentheses that is no common word, no time ("(23:51)"), no
  role ("(release manager hat)") and no list ("(Guy Bedford, 15 minutes)");
* **an appositive role of an organisation** — "Michael Droetboom, manager of Microsoft's Faster
  CPython team" (pysc-2022-06-27), "Deb, our new PSF General Director" (pysc-2022-04-11): the
  organisation is the proper name before the role, or after its "of";
* **welcomed to** — "The SC welcomed Emily to the SC" (pysc-2022-12-19): a person welcomed to a
  body joins it.

Pure functions over a sentence's masked words; the reader (``minutes_reading``) records the
facts. Nothing is read from a question, and the person's words must be names (no common word,
``rules._names_a_person``).

Three shapes of "Name (Word)" state no membership (issue #17, precision on sources no reading
was tuned on):

* **a roster** — a line that is nothing but names with their parentheses, after at most a label
  ("* Eric Tice (Wipro)" under "Attendance", "Presenter: Luca Casonato (LCA), Guy Bedford (GB)",
  ossf-tac-minutes-2022-07-18-s1, tc39 notes), or any line labelled as attendance
  ("**Attendance:** Forest (Chainsafe), …, and community representatives"): who was there or
  who presents, which the
  labels (GUIDE §3) do not read as membership, with a role in square brackets or not
  ("Alex Scammon (G-Research) [host]", "Boris Litvin (AWS) [presenter]"); a speaker's label
  that introduces what they say
  ("**Terence (Prysm)**:", "James Snell (TSC): VM Summit") is no roster;
* **the person's initials** — "Michael Ficarra (MF)", "Shu-yu Guo (SYG)": the letters abbreviate
  the name before them (how minutes name speakers), no organisation;
* **a given name inside the name** — "VM (Vicky) Brasseur": the parentheses are followed by
  the rest of the person's name;
* **the end of a title** — "How to add stacks to V8 (Ilya Rezvov)", "Delimited Continuations
  for WebAssembly (Donald Pinckney)": a name after a preposition or an article ends a phrase
  (an agenda item's title) and the parentheses name who presents it; nor has a person's name
  digits ("V8").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memory.language.words import is_common_word

_NAME = r"[A-Z][\w'’.-]+"
_PERSON = rf"(?P<person>{_NAME}(?: {_NAME})?)"
_IN_PARENTHESES = re.compile(
    rf"(?:^|(?<=[\s*_]))\**{_PERSON}\**\s?\(\s*(?P<team>{_NAME}(?: {_NAME})?)\s*\)"
    r"(?!\s*[A-Z][a-z])"  # "VM (Vicky) Brasseur": a given name inside the person's name
)
"""A person then their organisation in parentheses: "Alex (Teku)", "**Terence (Prysm)**"."""
_ROLES = (
    r"(?:manager|lead|leader|director|general director|executive director|head|chair|co-chair"
    r"|member|engineer|developer|maintainer|contact|representative|liaison|cto|ceo|founder"
    r"|co-founder|researcher|editor|coordinator|president)"
)
_APPOSITIVE_OF = re.compile(
    rf"\b{_PERSON},\s+(?:the\s+|a\s+|our\s+|their\s+)?(?:new\s+|current\s+|former\s+)?"
    rf"(?:[a-z-]+\s+)?{_ROLES}\s+(?:of|at|for)\s+(?:the\s+)?"
    rf"(?P<team>{_NAME}(?:['’]s)?(?: {_NAME}){{0,3}}(?: team)?)"
)
"""A person, then their role of an organisation: "Michael Droetboom, manager of Microsoft's
Faster CPython team"."""
_APPOSITIVE_BEFORE = re.compile(
    rf"\b{_PERSON},\s+(?:the\s+|our\s+|their\s+)?(?:new\s+|current\s+)?"
    rf"(?P<team>[A-Z][A-Z0-9]{{1,6}}|{_NAME})\s+(?:{_NAME}\s+)?(?i:{_ROLES})\b"
)
"""A person, then the organisation named before their role: "Deb, our new PSF General
Director"."""
_WELCOMED = re.compile(
    rf"\bwelcomed\s+{_PERSON}\s+(?:to|into)\s+(?:the\s+)?(?P<team>[A-Z][A-Z0-9]{{1,6}}"
    rf"|{_NAME}(?: {_NAME}){{0,2}})\b"
)
"""A person welcomed to a body: "The SC welcomed Emily to the SC"."""
_TIME_OR_NUMBER = re.compile(r"\d")
_TITLE_END = re.compile(r"\b(?:for|to|of|in|on|into|from|about|the|a|an)\s+\**$", re.IGNORECASE)
"""The words before a name that make it the end of a phrase ("… to V8", "… for WebAssembly"):
the parentheses after it then say who presents a title, no organisation of the name."""
_DIGIT = re.compile(r"\d")
_NAME_BEFORE = re.compile(r"(?:[A-Z][\w'’.-]*[ -])*$")
"""The capitalised words right before a matched name: the rest of a longer name."""
_ROSTER_LABEL = re.compile(r"^[\s*_]*[A-Za-z][\w /&-]{0,30}[\s*_]*:[\s*_]*")
"""A label before a list of names: "Presenter:", "Attendees:", "Present (in person):" is no
label (it holds parentheses) and neither is a name with its organisation."""
_ATTENDANCE = re.compile(
    r"^[\s*_]*(?:attendance|attendees|attending|in attendance|present|participants|presenters?"
    r"|guests|members present|absent|regrets|apologies)[\s*_]*:", re.IGNORECASE)
"""A line labelled as who attends: a roster whatever else it lists ("**Attendance:** Forest
(Chainsafe), Fuhon (Soramitsu), …, and community representatives")."""
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
"""Parentheses, or a role in square brackets after them ("Alex Scammon (G-Research) [host]")."""
_NAME_PARTICLES = frozenset({
    "and", "van", "von", "de", "der", "den", "da", "di", "du", "del", "la", "le", "bin", "al",
})
"""Words in lower case that a list of names still holds ("Guido van Rossum", "A and B")."""
_CAPITALS = re.compile(r"[A-Z]{2,}")


@dataclass(frozen=True)
class Membership:
    person: str
    team: str


def find_memberships(text: str, names_a_person: Callable[[str], bool]) -> list[Membership]:
    """The memberships a sentence states in the shapes of the module docstring.
    ``names_a_person`` says whether a word is a name (the reader's lexicon check)."""
    if text.rstrip().endswith("?") or ("(" in text and _roster(text)):
        return []
    found: list[Membership] = []
    for pattern in (_IN_PARENTHESES, _APPOSITIVE_OF, _APPOSITIVE_BEFORE, _WELCOMED):
        for match in pattern.finditer(text):
            person = match["person"].strip("*_ ")
            team = _team_name(match["team"])
            words = person.split(" ")
            if len(words) > 1 and not names_a_person(words[0]):
                words = words[1:]  # "Welcomed Deb, our new …": the verb before the name
            person = " ".join(words)
            if team is None or not all(names_a_person(w) for w in words):
                continue
            if pattern is _IN_PARENTHESES and (not _organisation(team) or _initials_of(
                    team, _NAME_BEFORE.search(text[: match.start("person")])[0] + person)):
                continue  # ("(Jordan Harband (JHD))": the name's first words before the match)
            if pattern is _IN_PARENTHESES and _TITLE_END.search(text[: match.start("person")]):
                continue  # "How to add stacks to V8 (Ilya Rezvov)": a title, then its speaker
            if team.lower() == person.lower() or in_capitals(person) or _DIGIT.search(person):
                continue  # (nor "PM GST (Dubai)": a word in capitals is no person's name)
            found.append(Membership(person, team))
    return found


def in_capitals(name: str) -> bool:
    """Whether a name is one word in capitals ("GST", "GB"): a unit, a zone or an acronym, no
    person's name."""
    return bool(_CAPITALS.fullmatch(name))


def _team_name(words: str) -> str | None:
    """The organisation's name: a possessive's owner left off when a team follows it
    ("Microsoft's Faster CPython team" → "Faster CPython team")."""
    words = words.strip(" .,")
    if "'s " in words or "’s " in words:
        words = re.split(r"['’]s ", words, maxsplit=1)[1]
    return words or None


def _organisation(name: str) -> bool:
    """Whether words in parentheses after a name are an organisation: proper names, no common
    word ("(Yes)", "(Chair)"), no time or number ("(23:51)")."""
    if _TIME_OR_NUMBER.search(name):
        return False
    return all(not is_common_word(word.lower()) for word in name.split(" "))


def _roster(text: str) -> bool:
    """Whether a line is only names with their parentheses, after at most a label: a list of
    who attends or presents ("* Eric Tice (Wipro)", "Presenter: Michael Ficarra (MF)"), not a
    statement. A line ending on a colon labels what its speaker says next ("**Terence
    (Prysm)**:") and is no roster."""
    line = text.strip()
    if not _PARENTHESES.search(line) or line.rstrip("*_ ").endswith(":"):
        return False
    if _ATTENDANCE.match(line):
        return True
    line = _ROSTER_LABEL.sub("", line, count=1)
    words = re.split(r"[\s,;&/*_]+", _PARENTHESES.sub(" ", line).strip(" .;,"))
    words = [w for w in words if w]
    return bool(words) and all(
        w[0].isupper() or w.lower() in _NAME_PARTICLES for w in words)


def _initials_of(team: str, person: str) -> bool:
    """Whether the word in parentheses abbreviates the name before it: the person's initials
    ("Michael Ficarra (MF)", "Shu-yu Guo (SYG)", "Luca Casonato (LCA)") or a short form
    ("WebAssembly (Wasm)"): its first letter is the initial of a word of the name and its
    letters follow in the name's letters, in order ("Potuz (Prysm)" does not)."""
    if " " in team:
        return False
    letters = re.sub(r"[^a-z]", "", person.lower())
    initials = {w[0].lower() for w in re.split(r"[\s-]+", person) if w}
    if team[0].lower() not in initials:
        return False
    at = letters.find(team[0].lower())
    for letter in team[1:].lower():
        at = letters.find(letter, at + 1)
        if at < 0:
            return False
    return True
