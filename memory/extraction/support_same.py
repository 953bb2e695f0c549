"""Whether a customer's message in a thread says its author *has* the thread's problem (issue
#17, support precision): "Same here.", "+1", "I'm having the same issue on macOS", "can
confirm", "It is also happening to me", "I am still facing it", "behaves exactly as pig0r
described". Only such a message reports its thread's known problem without naming it
(``memory.processing.support_state``); one that says none of it — a fix ("Solved.", "Thank you
that worked", "restarting the server fixed"), a workaround or advice ("delete \\AppData\\…",
"Try again, in my case it did work"), a question ("How did you resolve the issue?", "any
updates on this?"), a greeting or a correction ("My bad, it is 11.") — only joins its thread
and reports nothing. Read by grammar: a comparison with the thread's problem (*same*, *as
well*, *too*, *also*), a verb of having or undergoing it with the thread's problem as its
object (*having this issue*, *facing it*), or its occurrence to the writer (*happening to
me*, *comes and goes*); never negated ("a version that doesn't have this issue"), inside a
question that asks about it ("Is it possible to …?"), or turned to another problem ("… as
well but it's regarding authentication")."""

from __future__ import annotations

import re

_PROBLEM = r"(?:issue|issues|problem|problems|bug|error|errors|behaviou?r|thing|crash|question)"

_CUES = re.compile(
    r"(?:^|(?<=[\s(,.!;:]))(?:"
    r"\+1|\+\s?one|same\s+(?:here|for\s+me|on\s+my\s+(?:end|side)|" + _PROBLEM + r")"
    r"|same\s+(?:also\s+|too\s+|again\s+)?(?:in|on|for|with)\s+(?:mine|me|my|ours|us|our)\b"
    r"|same\s+(?:exact\s+|exactly\s+)?" + _PROBLEM +
    r"|(?:the\s+)?(?:exact\s+|exactly\s+(?:the\s+)?)same\b"
    r"|me\s+(?:too|as\s+well|neither)|(?:for|to|with)\s+me\s+(?:too|as\s+well)"
    r"|here\s+(?:too|as\s+well)|(?:can|i)\s+(?:also\s+)?confirm|confirmed"
    r"|(?:have|has|had|having|get|getting|got|see|seeing|facing|experiencing|experience"
    r"|hitting|hit|encountering|encounter|run(?:ning)?\s+into|ran\s+into)\s+"
    r"(?:(?:the\s+)?(?:exact\s+)?(?:same|this|that|similar)\s+(?:" + _PROBLEM + r"|one)|"
    r"(?:this|that|it)\b(?!\s+(?:to\s+)?(?:work|working|fixed|resolved|solved|sorted|running|back|done)))"
    r"|(?:it|this|that)\s+(?:is\s+|was\s+)?(?:also\s+|still\s+)?(?:happen(?:s|ing|ed)?"
    r"|occur(?:s|ring|red)?|comes\s+and\s+goes)"
    r"|(?:still|also)\s+(?:happen|occur|broken|failing|not\s+working|doesn'?t\s+work"
    r"|does\s+not\s+work|facing|having|seeing|getting|experiencing|an?\s+issue|a\s+problem)"
    r"|(?:exactly\s+|just\s+)?(?:as|like)\s+@?[\w-]+\s+(?:described|said|mentioned|reported"
    r"|wrote|explained)"
    r")",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|n't|dont|doesnt|didnt|isnt|wasnt|without)\b\W*(?:\w+\W+){0,2}$",
    re.IGNORECASE)
_QUESTION_OPENING = re.compile(
    r"^\W*(?:is|are|was|were|do|does|did|can|could|would|will|should|has|have|how|what|why"
    r"|where|when|which|who|anyone|anybody|has\s+anyone)\b", re.IGNORECASE)
_OTHER_PROBLEM = re.compile(
    r"\bbut\b[^.!?\n]{0,40}\b(?:regarding|about|related\s+to|a\s+different|another|other)\b",
    re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


def says_same_problem(text: str) -> bool:
    """Whether the message says its author has the problem of the thread it is in (module
    docstring): a cue of having it in a sentence that neither negates it, asks about it, nor
    turns it to another problem."""
    return same_problem_sentence(text) is not None


def same_problem_sentence(text: str) -> str | None:
    """The sentence in which the message says its author has the thread's problem ("so how to
    solve it ?  even now i updated to macOS mojave got the same issue." → the second), or
    None (``says_same_problem``): what its report of the thread's problem cites."""
    for sentence in _SENTENCE.findall(text):
        for cue in _CUES.finditer(sentence):
            if _NEGATION.search(sentence[:cue.start()]):
                continue
            if sentence.rstrip().endswith("?") and _QUESTION_OPENING.match(sentence):
                continue
            if _OTHER_PROBLEM.search(sentence[cue.start():]):
                continue
            return sentence.strip()
    return None
