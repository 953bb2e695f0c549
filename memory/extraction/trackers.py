"""How tracker threads say that one item is part of another, or the same as another.

Read on a masked sentence (``memory.language.references.mask``: every tracker reference is one
placeholder word) of an episode that belongs to a tracker item — its title line's, or the one
its address names (``memory.language.threads``):

* ``TRACKS`` (tracking item → item): "… as part of #14039", "This work is part of closing
  <link>", "This addresses part of #1001" — the referenced item tracks the episode's own;
* ``HAS_STATUS approved``: a reviewer's "ACK <commit>" / "utACK <commit>";
* ``DUPLICATE_OF`` (duplicate → original): "Duplicate of #1780", "Dupe of #5", "Closing as a
  duplicate of #12", "This is the same issue as #4612", "#7 is a duplicate of #5"; an item
  closed for another that carries on its work: "Closing this in favor of #12197" (the own item
  is the duplicate), "Replaces <link>" (the linked item is).

GitHub's other conventions, read the same way (``_conventions``, ``read_own_states``,
``read_author_claims``, ``co_author``; each family is a convention of pull requests and issue
threads in general, not one project's phrasing):

* a change and what it waits on or resolves: "Builds on top of #1276", "Based on #13108",
  "needs #5 to land first", "Can't land until #5 is merged" (the change ``DEPENDS_ON`` it);
  "this solves #1151", "Implements #7", "Addresses #8", "a fix for #9", "added to support
  #12634", "This unblocks #5" (that item ``DEPENDS_ON`` the change); "Resolves one item in
  #1835", "the first step towards <link>", "Tracking issue: #5" (that item ``TRACKS`` it);
  "Reverts #12" (``#12 HAS_STATUS reverted``); "The <link> bug has been resolved";
  "Co-authored-by: Name <email>" (``RESPONSIBLE_FOR``);
* an issue thread's comment about its own item: "/close via #46801", "I opened #700 to fix
  this", "The fix is in #700" (the issue ``DEPENDS_ON`` the change); "Summary test has been
  green a couple days now", "no longer flaking" (``fixed``), "This is deployed now"
  (``released``), "This is a known issue", "We're closing this issue", "at risk for 1.29",
  "Punting to 1.30", "Fixed in v1.2.3"; "flaked since <link> merged", "Regressed in #5"
  (``PRECEDED_BY``); its author's "Happened again in <link>", "Another in #5", "+1", "Same
  here" (``REPORTED``) and "I have a fix, will send CL" (``RESPONSIBLE_FOR``) — never from a
  customer, whose messages the support readings read.

Grammar, not a list of sentences: the relation's words must be the sentence's predicate about
its own item (nothing before them but the item, "this"/"it" or a closing verb), so "I have the
same issue as #12" (a customer's report) and "it seems like a duplicate of #12" (a guess) state
no duplicate; a part is the thread's own work ("as part of", "This work is part of"), never
something else it names ("the code that was part of #12"); "not part of #12" is a negation, and
words that hedge or plan just before ("might be part of", "if this is part of") state nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from memory.language.references import Masked, Reference
from memory.language.threads import same_item

_I = re.IGNORECASE
_REF = r"zzref\d+zz"
TRACKER_RELEASED = frozenset({"shipped", "deployed", "published", "launched"})
"""Completion words that in a tracker's thread say its item was released (GUIDE §9), where a
status update's "shipped" is only done."""
PLACEHOLDER_REF = re.compile(_REF)
# What may stand before the predicate: the item itself, "this"/"it" meaning it, or nothing.
_SUBJECT = (rf"(?:(?P<subject>{_REF})|(?:this|it)(?: (?:issue|bug|one|ticket|pr|pull request"
            r"|report))?)")
_COPULA = r"(?:is|was|has been|looks to be)"
# "Duplicate of #1780", "Closing as a dupe of #5", "This is a duplicate of #12", "#7 duplicates
# #5", "This is the same issue as #4612", "Same problem as #3".
_DUPLICATE = re.compile(
    rf"^(?:(?:closing|closed|close)(?: (?:this|it))?(?: (?:one|issue))?(?: out)? as "
    rf"|{_SUBJECT} (?:{_COPULA} |(?=duplicates\b)))?"
    rf"(?:(?:an? )?(?:exact )?(?:duplicate|dupe|dup) of|duplicates"
    rf"|(?:the )?(?:exact )?same(?: (?:issue|problem|bug|thing|request))? as)"
    rf"(?: (?:issue|bug|pr|ticket))? (?P<ref>{_REF})",
    _I,
)
# An item closed for another that carries on its work (GUIDE §3: "Closing this in favor of
# #12197"; kubernetes) — and the other side, a change that "Replaces <link>" (uv).
_IN_FAVOUR = re.compile(
    rf"^(?:/?(?:closing|closed|close)(?: (?:this|it))?(?: (?:one|issue|pr|out))? )?"
    rf"in favou?r of (?:(?:issue|pr|pull request) )?(?P<ref>{_REF})", _I)
_REPLACES = re.compile(
    rf"^(?:this (?:pr |pull request |change )?)?(?:replaces|supersedes) (?:(?:issue|pr) )?"
    rf"(?P<ref>{_REF})", _I)
# A reviewer's approval as Bitcoin Core's projects write it (GUIDE §9; "LGTM", "/lgtm" are read
# by the rules' context statuses): "ACK 20abd52", "utACK <link>", "real-or-random: ACK …" — in
# capitals, so English "ack" is no review; "Concept ACK" and "NACK" approve no code.
_ACK = re.compile(r"^(?:[\w.-]+:\s*)?(?:ut|t|[Ll]ight |[Cc]ode [Rr]eview )?ACK\b")
_CLOSING = re.compile(r"^/?(?:closing|closed|close)\b", _I)
# "… as part of #14039", "This work is part of closing <link>", "addresses part of #1001".
_PART_OF = re.compile(
    rf"\bpart of (?:the work (?:to|for) )?"
    rf"(?:(?:closing|fixing|resolving|addressing|implementing) )?(?:issue )?(?P<ref>{_REF})"
    # "as part of PEP-257 normalization": the reference only qualifies the noun after it
    r"(?!\s+(?!(?:and|or|in|to|for|by|with|which|that|so|as|but|since|because|where|when"
    r"|now|too|also|here|there|is|was|are|were|will|which|on|at|from|of)\b)[a-z][\w-]*)",
    _I,
)
# Whose part it is: the thread's own work ("… as part of", "Part of …", "This work is part of",
# "This addresses part of"), not something else it names ("the code that was part of #12").
_PART_SUBJECT = re.compile(
    r"(?:^|\bas |\b(?:this|it|this (?:work|change|pr|pull request|patch)|zzref9998zz)"
    r" (?:is|was)(?: also| only)? |\b(?:addresses|implements|fixes|resolves|completes|tackles"
    r"|handles|does)(?: (?:a|one|another))? )$", _I)
# The words of the predicates above: a "title" holding them is the sentence's own words.
_PREDICATE = re.compile(
    r"\b(?:part of|duplicates?|dupe|dup|same \w+ as|in favou?r of|replaces|supersedes)\b", _I)
# What makes the words before a predicate assert nothing: a negation ("is not part of"), a
# guess, a plan, a wish, a condition ("might be part of", "if this is part of").
_UNASSERTED = re.compile(
    r"(?:\bnot|n't|\bnever|\bno longer|\bmay|\bmight|\bcould|\bwould|\bshould|\bwill|\bmaybe"
    r"|\bperhaps|\bprobably|\bpossibly|\bseems?|\blooks? like|\bi think|\bif|\bunless"
    r"|\bwhether|\bhope|\bwant|\bplan|\bgoing to)\b[\w' ]{0,24}$", _I)

# "Builds on top of #1276", "This PR is based on #13108", "Stacked on #7" (secp256k1, uv): the
# change waits on the one under it. "Based on my tests", "based on the work from <link>" name
# no change right after the words.
_STACKED_ON = re.compile(
    rf"^(?:(?:this|it)(?: (?:pr|pull request|change|patch|branch))? )?(?:(?:is|was) )?"
    rf"(?:(?:also|currently) )?(?:built|builds|based|stacked|sits|rebased)(?: on top of| on| upon)"
    rf" (?:(?:pr|pull request) )?(?P<ref>{_REF})", _I)
# "this solves #1151", "it is added to support #12634", "This unblocks #5", "Implements #7",
# "Addresses #8", "A partial fix for #9": the other item waits on this one (as "Fixes #12" says,
# GUIDE §3).
_ENABLES = re.compile(
    rf"(?:^|\b(?:this|it|which|that|zzref9998zz)(?: (?:also|now|then))? )"
    rf"(?:solves|unblocks|implements|addresses|(?:is )?(?:an? (?:\w+ )?)?fix for"
    rf"|(?:is |was )?(?:added|needed|required|done|introduced) to (?:support|unblock|enable))"
    rf" (?:(?:issue|pr|pull request|bug) )?(?P<ref>{_REF})", _I)
# "Resolves one item in #1835", "takes care of two of the outstanding issues in #923", "the
# first step towards <link>": the bigger item tracks this one.
_STEP_OF = re.compile(
    rf"\b(?:(?:the|a|an) )?(?:(?:first|second|third|next|last|final|another|one|small"
    rf"|initial) )?(?:steps?|items?|tasks?|pieces?"
    rf"|(?:(?:one|two|three|some|several|a few|many|most)"
    rf" of the (?:\w+ )?(?:issues|items|tasks|bugs|points|problems)))"
    rf" (?:in|of|from|towards?|for) (?:(?:issue|the tracking issue|tracking issue) )?"
    rf"(?P<ref>{_REF})", _I)
_STEP_SUBJECT = re.compile(
    r"(?:^|,|\b(?:this|it|this (?:work|change|pr|pull request|patch)|zzref9998zz)"
    r" (?:is|was)(?: also| only| just)?|\b(?:resolves|addresses|implements"
    r"|fixes|completes|tackles|handles|does|takes care of|covers|solves|closes)) ?$", _I)
# "Reverts #12", "This reverts rust-lang/cargo#123" (GitHub's revert pull requests).
_REVERTS = re.compile(
    rf"^(?:this (?:pr |pull request |change |commit )?)?reverts (?:(?:pr|pull request|commit) )?"
    rf"(?P<ref>{_REF})", _I)
# "The <link> bug has been resolved since libc 2.33", "The upstream PR #5 was merged": the state
# of an item its kind names (a bare "#5 was merged" is the rules' status pattern).
_KIND_STATE = re.compile(
    rf"^the (?:(?:upstream|related|original|linked|corresponding|other) )?"
    rf"(?:(?:bug|issue|pr|pull request|fix|change|ticket) (?P<ref>{_REF})|(?P<other>{_REF})"
    rf" (?:bug|issue|pr|pull request|fix|change|ticket))"
    rf" (?:has been|was|is now|got|has now been) (?:now )?"
    rf"(?P<state>merged|fixed|resolved|closed|reverted|released)\b", _I)

# "/close via #46801", "Closing, fixed by #12", "Closed as fixed in #7": the thread's item
# waited on the change that fixed it (GUIDE §3).
_CLOSED_VIA = re.compile(
    rf"^/?(?:close[sd]?|closing)(?: (?:this|it))?(?: (?:out|now))?(?: as)?,?"
    rf"(?: (?:fixed|resolved|done|completed|addressed))? (?:via|by|with|in|thanks to)"
    rf" (?:(?:pr|pull request|commit) )?(?P<ref>{_REF})", _I)

# "Tracking issue: #123", "This is tracked in <link>": the tracking item tracks the thread's
# (GUIDE §3). A line that is only the label and the reference, or "tracked in/by".
_TRACKING = re.compile(
    rf"^(?:the )?tracking (?:issue|bug|ticket)(?: is)?\s*[:\-–]?\s*(?P<ref>{_REF})\s*\.?$"
    rf"|^(?:(?:this|it) (?:is |was )?(?:also |now )?)?tracked (?:in|by|at) (?:issue )?"
    rf"(?P<by>{_REF})", _I)
# "This needs #123 to land first", "Can't land until #123 is merged", "Depends on <link>
# landing", "Blocked on #123 being merged": the change waits on the other.
_LANDS_AFTER = re.compile(
    rf"^(?:(?:this|it)(?: (?:pr|pull request|change|patch))? )?(?:needs|requires|depends on"
    rf"|is waiting (?:on|for)|waits (?:on|for)|(?:is )?(?:still )?blocked (?:on|by))"
    rf" (?P<ref>{_REF}) (?:to (?:land|be merged|merge"
    rf"|be released|go in)|landing|being merged|to be in)\b"
    rf"|^(?:(?:this|it)(?: (?:pr|pull request|change|patch))? )?(?:can't|can ?not|won't|cannot)"
    rf" (?:land|be merged|merge|go in) (?:until|before) (?P<until>{_REF})"
    rf" (?:is |has |gets )?(?:merged|landed|lands|released|in)\b", _I)

# "I opened #700 to fix this", "I've opened a PR to fix this: #700", "The fix is in #700",
# "Opened #700 to address this", "Fixed with #700": the thread's item waits on that change.
_FIX_IN = re.compile(
    rf"^(?:I(?: have|'ve|’ve)? )?(?:opened|sent|created|submitted|put up|raised|made)"
    rf" (?P<ref>{_REF}) to (?:fix|address|resolve|solve|close) (?:this|it|zzref9998zz)\b"
    rf"|^(?:I(?: have|'ve|’ve)? )?(?:opened|sent|created|submitted|put up|made) (?:a |the )?"
    rf"(?:pr|pull request|fix|patch|cl) to (?:fix|address|resolve|solve) (?:this|it|zzref9998zz)"
    rf"\s*:?\s*(?:in |at |as )?(?P<pr>{_REF})"
    rf"|^(?:the |a )?(?:pr|pull request|fix|patch)(?: to fix (?:this|it|zzref9998zz))?"
    rf"(?: is)? ?(?:in|at|:) (?P<at>{_REF})"
    rf"|^(?:fixed|resolved|addressed) with (?P<with>{_REF})", _I)

# "I understand this issue is the same as #27489", "Note that this is a duplicate of #5": words
# before the claim that assert it still (a guess's words are ``_UNASSERTED``'s, never these).
_ASIDE_BEFORE = re.compile(
    r"^(?:i understand|i see|note that|fwiw|for the record|as (?:noted|mentioned|said)"
    r"(?: above| before| earlier)?),? (?:that )?", _I)


@dataclass(frozen=True)
class Link:
    """``source relation target``: names of tracker items (the own item by its name), or the
    own item's status word (``HAS_STATUS``, "closed")."""

    source: str
    relation: str
    target: str
    reading: str = ""
    """The cue's own reading name (``memory.extraction.readings``), when it has one."""


def read_item_links(masked: Masked, own: Reference) -> list[Link]:
    """What a masked sentence of the thread of item ``own`` says about which item tracks it,
    which item it duplicates and whether a reviewer approved it (see the module docstring)."""
    # "… as part of #14039" masks as one reference titled "… as part of": its words are read.
    text = PLACEHOLDER_REF.sub(lambda m: _with_title(masked, m[0]), masked.text)
    text = _ASIDE_BEFORE.sub("", " ".join(text.split()).strip(" -*>"))
    if not text:
        return []
    links: list[Link] = []

    def other(word: str | None) -> str | None:
        """The item a placeholder names, when it is not the thread's own."""
        reference = _reference(masked, word)
        if reference is None or same_item(reference.key, own.key):
            return None
        return _name(reference)

    if _ACK.match(text):
        links.append(Link(own.name, "HAS_STATUS", "approved"))  # "utACK 05e049b", GUIDE §9
    duplicate = _DUPLICATE.match(text)
    if duplicate is not None and (original := other(duplicate["ref"])) is not None:
        subject = own.name
        if duplicate["subject"]:
            named = _reference(masked, duplicate["subject"])
            subject = _name(named) if named is not None else ""
        if subject and subject != original:
            links.append(Link(subject, "DUPLICATE_OF", original))
    favoured = _IN_FAVOUR.match(text)
    if favoured is not None and (newer := other(favoured["ref"])) is not None:
        links.append(Link(own.name, "DUPLICATE_OF", newer))
    if (duplicate or favoured) and _CLOSING.match(text):
        links.append(Link(own.name, "HAS_STATUS", "closed"))  # "Closing this in favor of #12197"
    replaced = _REPLACES.match(text)
    if replaced is not None and (older := other(replaced["ref"])) is not None:
        links.append(Link(older, "DUPLICATE_OF", own.name))
    for part in _PART_OF.finditer(text):
        tracker = other(part["ref"])
        before = text[:part.start()]
        if tracker is not None and _PART_SUBJECT.search(before) and not _UNASSERTED.search(
                before):
            links.append(Link(tracker, "TRACKS", own.name))
    links.extend(_conventions(text, own, other))
    return links


def _conventions(text: str, own: Reference, other: Callable[[str | None], str | None],
                 ) -> list[Link]:
    """The pull-request conventions of ``read_item_links`` beyond parts and duplicates: a
    change stacked on another ("Builds on top of #1276", "Based on #13108": it waits on it),
    one that resolves or enables another ("this solves #1151", "added to support #12634",
    "This unblocks #5": the other waits on it), a step of a larger item ("Resolves one item in
    #1835", "the first step towards <link>": that item tracks it), a revert ("Reverts #12":
    that item is reverted) and the state of another item said with its kind ("The <link> bug
    has been resolved")."""
    links: list[Link] = []
    stacked = _STACKED_ON.match(text)
    if stacked is not None and (base := other(stacked["ref"])) is not None:
        links.append(Link(own.name, "DEPENDS_ON", base, "stacked_on"))
    for enabled in _ENABLES.finditer(text):
        waiting = other(enabled["ref"])
        if waiting is not None and not _UNASSERTED.search(text[:enabled.start()]):
            links.append(Link(waiting, "DEPENDS_ON", own.name, "enables"))
    for step in _STEP_OF.finditer(text):
        tracker = other(step["ref"])
        before = text[:step.start()]
        if tracker is not None and _STEP_SUBJECT.search(before) and not _UNASSERTED.search(
                before):
            links.append(Link(tracker, "TRACKS", own.name, "step_of"))
    reverted = _REVERTS.match(text)
    if reverted is not None and (undone := other(reverted["ref"])) is not None:
        links.append(Link(undone, "HAS_STATUS", "reverted", "reverts"))
    said = _KIND_STATE.match(text)
    if said is not None and (item := other(said["ref"] or said["other"])) is not None:
        links.append(Link(item, "HAS_STATUS", said["state"].lower(), "kind_state"))
    tracking = _TRACKING.match(text)
    if tracking is not None and (tracker := other(tracking["ref"] or tracking["by"])):
        links.append(Link(tracker, "TRACKS", own.name, "tracking_issue"))
    lands = _LANDS_AFTER.match(text)
    if lands is not None and (first := other(lands["ref"] or lands["until"])) is not None:
        links.append(Link(own.name, "DEPENDS_ON", first, "lands_after"))
    fix = _FIX_IN.match(text)
    if fix is not None and (change := other(fix["ref"] or fix["pr"] or fix["at"]
                                            or fix["with"])) is not None:
        links.append(Link(own.name, "DEPENDS_ON", change, "fix_in"))
    closed = _CLOSED_VIA.match(text)
    if closed is not None and (via := other(closed["ref"])) is not None:
        links.append(Link(own.name, "DEPENDS_ON", via, "closed_via"))
    return links


def _with_title(masked: Masked, word: str) -> str:
    reference = masked.references.get(word)
    if reference is None or not reference.title or not _PREDICATE.search(reference.title):
        return word
    return f"{reference.title} {word}"


def _reference(masked: Masked, word: str | None) -> Reference | None:
    """The tracker item a placeholder stands for (not a person, not a link to a comment)."""
    reference = masked.references.get(word or "")
    if reference is None or reference.type != "WorkItem" or reference.comment:
        return None
    return reference


def _name(reference: Reference) -> str:
    """An item's name, by its identifier when its "title" was the sentence's own words."""
    if reference.title and _PREDICATE.search(reference.title):
        return reference.key
    return reference.name


# A guess before a claim ("I think this closes #4645", "This may be fixed by #96050").
_HEDGE_BEFORE = re.compile(
    r"\b(?:i think|i believe|i guess|not sure|maybe|perhaps|probably|possibly|likely|might|may"
    r"|seems?|hopefully)\b[\w' ]{0,24}$", _I)


def hedged(before: str) -> bool:
    """Whether the words just before a claim in a sentence make it a guess."""
    return _HEDGE_BEFORE.search(before) is not None


# "This PR", "this issue": what a thread's own words call its item (GUIDE §2).
_THIS_ITEM = re.compile(r"\b[Tt]his (?:PR|pull request|issue|change|patch|bug|ticket)\b(?!['’-])")
_THIS_ITEM_OR_TEST = re.compile(
    r"\b[Tt]his (?:PR|pull request|issue|change|patch|bug|ticket|test|job|flake)\b(?!['’-])")
OWN_ITEM_WORD = "zzref9998zz"
"""The placeholder that stands for the thread's own item where its words say "this PR"."""


def name_own_item(masked: Masked, own: Reference, *, issue: bool = False) -> Masked:
    """The masked sentence with "this PR" / "this issue" standing for the thread's own item:
    "This PR picks up #636" is about the pull request, never an entity named "This PR". In an
    issue's thread (``issue``: not a pull request's) "this test", "this job" and "this flake" are
    its item too ("This test is still flaking" in a flaky test's issue)."""
    words = _THIS_ITEM_OR_TEST if issue else _THIS_ITEM
    if "his " not in masked.text or words.search(masked.text) is None:
        return masked
    return replace(masked, text=words.sub(OWN_ITEM_WORD, masked.text),
                   references={**masked.references, OWN_ITEM_WORD: own})


# A thread's comment that says its problem happened again ("Happened again in <link>", "Also
# happened in <link>", "Another in #36568", "One more in <link>", "Seen again: <log>"): its
# author reports the thread's issue (GUIDE §3, REPORTED), as a flake thread's "+1" does.
_AGAIN = re.compile(
    r"^(?:and |ok,? |sadly,? |unfortunately,? )?(?:(?:this|it) )?(?:(?:has )?also |just )?"
    r"(?:happened|happening|happens|occurred|recurred|failed|flaked|reproduced|seen|hit|showed up"
    r"|appeared|broke)(?:(?: again| too| once more| here)+(?: today)?|(?= (?:in|at|on)\b))"
    r"(?: (?:in|at|on|with|for))?(?: the)?\s*:?\s*(?P<where>zz(?:ref|url)\d+zz)", _I)
_AGAIN_MARK = re.compile(r"\b(?:again|also|too|once more)\b", _I)
_ANOTHER = re.compile(
    r"^(?:and )?(?:yet )?(?:another|one more)(?: (?:one|instance|occurrence|failure|flake|case"
    r"|example|hit|run|time))?(?: (?:today|here))?(?: (?:in|at|on|with))?\s*:?\s*"
    r"(?P<where>zz(?:ref|url)\d+zz)", _I)
# "I have a fix, will send CL.", "I'll send a PR", "I'm working on a fix": the author takes the
# thread's item on (as "I'm looking into it" does).
_WILL_FIX = re.compile(
    r"^I(?: (?:have|'ve got|’ve got|'ve|’ve|got)) (?:a |the )?(?:fix|patch)\b"
    r"(?! for (?!(?:this|it)\b))"
    r"|^I(?:'ll|’ll| will| am going to|'m going to|’m going to| can) (?:send|mail|open|submit"
    r"|put up|prepare|write) (?:out )?(?:a |the )?(?:fix|cl|pr|pull request|patch)\b"
    r"(?! for (?!(?:this|it)\b))"
    r"|^I(?:'m|’m| am)(?: currently| now| already)? (?:working on|preparing|writing) (?:a |the )?"
    r"(?:fix|cl|pr|pull request|patch)\b(?! for (?!(?:this|it)\b))", _I)


def read_author_claims(masked: Masked, own: Reference, *, change: bool,
                       ) -> list[tuple[str, str]]:
    """What the author of a thread's comment claims about the thread's own item, with the
    reading that tells it: ``REPORTED`` when an issue's comment says its problem happened again
    or that they have it too (``_AGAIN``, ``_ANOTHER``, ``_ME_TOO``: in an issue, never a pull
    request), ``RESPONSIBLE_FOR`` when they have or will send the fix (``_WILL_FIX``). The
    words must open the sentence: "This is <link> again" says nothing."""
    text = " ".join(masked.text.split()).strip(" -*>")
    claims: list[tuple[str, str]] = []
    if not change and _ME_TOO.match(text):
        claims.append(("REPORTED", "me_too"))
    elif not change:
        again = _AGAIN.match(text) or _ANOTHER.match(text)
        if again is not None and (_AGAIN_MARK.search(again[0]) or again.re is _ANOTHER):
            where = masked.references.get(again["where"])
            if where is None or not same_item(where.key, own.key) or where.comment:
                claims.append(("REPORTED", "happened_again"))
    if _WILL_FIX.match(text):
        claims.append(("RESPONSIBLE_FOR", "will_fix"))
    return claims


# What an issue thread's comment says of its own item's state (GUIDE §4, §9), its subject "this",
# "it", "this issue" or nothing — or, for a test's state, the test it names ("Summary test has
# been green a couple days now"): green again or no longer flaking → fixed; deployed, shipped
# or published → released; "This is a known issue"; "We're closing this issue"; "It was
# reverted".
_OWN = r"(?:(?:this|it|zzref9998zz)(?: (?:issue|bug|problem|test|job|flake|one))? )?"
_TEST = r"(?P<test>(?:[A-Z][\w.-]*|\[[\w:. -]+\])(?: [\w.\[\]:-]+){0,5} (?:tests?|jobs?|suites?))"
_GREEN = re.compile(
    rf"^(?:{_TEST} |{_OWN})(?:(?:has been|have been|is|are|is now|are now|went|turned|looks)"
    rf" (?:all |back to )?green\b|(?:is |are )?no longer (?:(?:appears?|seems?) to be )?"
    rf"(?:flaking|flaky|failing|flakes|fails)\b)", _I)
_RELEASE = (r"(?:v?\d+(?:\.\d+)+\b|go\d[\w.]*|(?:the )?(?:next|upcoming|following|latest|a"
            r" later|a future) (?:release|milestone|version|cycle|minor)|later\b)")
_STATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, _I), state) for pattern, state in (
        (rf"^{_OWN}(?:is|has been|was|got)(?: now)? (?:deployed|shipped|published)\b",
         "released"),
        (rf"^{_OWN}is (?:a )?known (?:issue|problem|bug)\b", "known issue"),
        (r"^(?:we(?:'re|’re| are)|i(?:'m|’m| am)) (?:now )?closing (?:this|it|zzref9998zz)\b",
         "closed"),
        (rf"^{_OWN}(?:was|has been|got) (?:now )?(?:reverted|rolled back)\b", "reverted"),
        # "This was released in 1.29", "Fixed in v1.2.3", "This is at risk for 1.29",
        # "Punting to 1.30", "Moving this to the next milestone": said with the release
        (rf"^{_OWN}(?:is|was|has been|got)? ?(?:now )?released in {_RELEASE}", "released"),
        (rf"^{_OWN}(?:is|was|has been|got)? ?(?:now )?fixed in {_RELEASE}", "fixed"),
        (rf"^{_OWN}(?:is|was|has been|remains)? ?(?:still )?at risk (?:for|of)\b", "at risk"),
        (rf"^{_OWN}(?:is|was|has been|got)? ?(?:postponed|deferred|punted|bumped|pushed back)"
         rf" (?:to|until) {_RELEASE}|^(?:punting|moving|bumping|deferring|postponing)"
         rf" (?:this |it )?(?:to|until) {_RELEASE}", "postponed"),
    ))
# "These tests have flaked consistently since <link> merged", "Regressed in #5", "Caused by
# #5", "Bisected to #5": the thread's problem followed that change (GUIDE §3, PRECEDED_BY:
# co-occurrence, never cause).
_AFTER_CHANGE = re.compile(
    rf"^(?:{_OWN}|(?:these|the|this) (?:\w+ )?(?:tests?|jobs?) )?(?:has |have )?(?:been )?"
    rf"(?:started |begun |began )?(?:flak\w*|fail\w*|broken|broke|red|erroring|panicking"
    rf"|crashing|timing out|happening)(?: \w+)? (?:since|after) (?P<merged>{_REF})"
    rf" (?:was |got )?(?:merged|landed|went in)"
    rf"|^{_OWN}(?:was |is )?(?:regressed|caused|introduced|broken) (?:in|by) (?P<ref>{_REF})"
    rf"|^{_OWN}(?:was )?bisected (?:it )?to (?P<bisect>{_REF})", _I)
# "+1", "Same here", "I see this too", "Still seeing this": the author has the thread's problem
# (GUIDE §3, REPORTED).
_ME_TOO = re.compile(
    r"^(?:\+1|same here|same (?:issue|problem) here|me too)\b"
    r"|^(?:i|we)(?: am| are|'m|'re)? (?:also |still )?(?:see|seeing|hit|hitting|get|getting|have"
    r"|having|run into|running into) (?:this|it|the same (?:issue|problem|error|failure|flake))"
    r"(?: (?:too|as well|again|also))*\b"
    r"|^still (?:seeing|hitting|getting) (?:this|it)\b", _I)


def read_own_states(masked: Masked, own: Reference) -> list[Link]:
    """The states an issue thread's comment gives its own item, or the test it names (see
    ``_GREEN``, ``_STATES``): ``own HAS_STATUS state`` links, named as the item or the test."""
    text = " ".join(masked.text.split()).strip(" -*>")
    if not text:
        return []
    green = _GREEN.match(text)
    if green is not None:
        subject = green["test"] or own.name
        if subject.split(" ", 1)[0].lower() in {"the", "this", "that", "these", "our"}:
            subject = own.name  # "The test has been green for a week": the thread's test
        if not PLACEHOLDER_REF.search(subject):
            return [Link(subject, "HAS_STATUS", "fixed", "green_again")]
    after = _AFTER_CHANGE.match(text)
    if after is not None:
        word = after["merged"] or after["ref"] or after["bisect"]
        change = masked.references.get(word)
        if change is not None and change.type == "WorkItem" and not change.comment and (
                not same_item(change.key, own.key)):
            event = f"{change.key} merged" if after["merged"] else change.key
            return [Link(own.name, "PRECEDED_BY", event, "after_change")]
    for pattern, state in _STATES:
        if pattern.match(text):
            return [Link(own.name, "HAS_STATUS", state, "own_state")]
    return []


# "Co-authored-by: Bob Smith <bob@example.com>" (GitHub's trailer for a commit's co-author):
# who worked on the change with its author (as "Worked on this with @bob" says).
_CO_AUTHOR = re.compile(
    r"^co-authored-by:\s*(?P<name>[A-Za-z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,3}|zzref\d+zz)"
    r"\s*(?:<(?P<address>[^>\s]*)>)?\s*$", _I)
# A co-author that is a tool, not a person: a bot's name ("zaniebot", "dependabot[bot]") or an
# address whose mailbox only says it takes no replies ("Claude <noreply@anthropic.com>"; a
# person's GitHub address "123+name@users.noreply.github.com" names them).
_TOOL_CO_AUTHOR = re.compile(r"(?:bot|\[bot\])$", _I)
_NO_MAILBOX = re.compile(r"^no-?reply@", _I)


def co_author(masked: Masked, sentence: str = "") -> tuple[str, str] | None:
    """The name and type (``Person``) of the co-author a ``Co-authored-by`` trailer names
    (``sentence``: the trailer as written, its address included); none for a tool."""
    found = _CO_AUTHOR.match(" ".join(masked.text.split()))
    if found is None:
        return None
    name = found["name"]
    written = _CO_AUTHOR.match(" ".join(sentence.split()))
    address = found["address"] or (written["address"] if written is not None else None) or ""
    if _TOOL_CO_AUTHOR.search(name) or _NO_MAILBOX.match(address):
        return None
    reference = masked.references.get(name)
    if reference is not None:
        return (reference.name, reference.type) if reference.type == "Person" else None
    return name, "Person"


# Markdown emphasis inside a sentence ("Cargo still requires a *nightly compiler*", "**Blocked
# on** #5"): the words, without the marks (a title line, a heading or a "**Name**:" speaker
# is read before a sentence is).
_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,2}|_{1,2})(?=[^\s*_])(?P<words>[^*\n]{1,200}?)"
                       r"(?<=[^\s*_])\1(?![\w*])")


def plain_emphasis(masked: Masked) -> Masked:
    """The masked sentence with Markdown emphasis marks removed (the words stay)."""
    if "*" not in masked.text and "_" not in masked.text:
        return masked
    text = _EMPHASIS.sub(lambda m: m["words"], masked.text)
    return masked if text == masked.text else replace(masked, text=text)
