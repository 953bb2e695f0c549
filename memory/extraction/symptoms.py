"""Symptoms: one canonical issue name for a customer's problem, however it is said.

"times out", "timing out", "timed out" and "timeouts" are one issue (``Timeout Errors``); "can't
log in", "unable to sign in" and "locked out of my account" are another (``Login Failures``).
A text is reduced to its words' lemmas (``memory.language.words``) and matched against the small
synonym table below, written as lemma sequences: ``a|b`` is either word, ``*`` up to three words
of anything. The table is the domain's vocabulary; the lemmas are the library's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memory.language.words import is_common_word, lemma, tag

# canonical issue → its phrasings (lemmas; the first word of each must be literal).
SYMPTOMS: dict[str, tuple[str, ...]] = {
    "Timeout Errors": (
        "time out", "timing out", "timeout", "time-out", "timed-out",
    ),
    "Login Failures": (
        "cannot log|sign|login in|on", "cannot login|signin|logon", "can not log|sign in",
        "unable to log|sign|login in|on", "unable to login|signin",
        "not able to log|sign in", "fail to log|sign in", "fail to login|signin",
        "log|sign in fail|failure|error|issue|problem",
        "login|signin|log-in|sign-in fail|failure|error|issue|problem",
        "lock out of * account", "lock out", "cannot get into * account",
        "cannot access * account", "unable to access * account", "cannot get in",
        "do not let me log|sign in", "will not let me log|sign in",
    ),
    "Latency": (
        "slow", "slowness", "slowdown", "laggy", "lag", "sluggish", "latency",
        "unresponsive", "take forever", "take age",
    ),
    "Outages": (
        "outage", "down for", "be down", "go down", "unavailable", "unreachable",
    ),
    "Crashes": (
        "crash",  # "keeps crashing" too: a phrasing matches anywhere
    ),
    # An app that stops answering and stays so ("Editor froze", "keeps freezing"): not slow.
    "Freezes": (
        "freeze|froze|frozen|freezing",
    ),
    # A resource a product eats: the amount is the complaint ("a large amount of memory", "memory
    # usage will gradually increase", "keeps maxing my CPU cores", "spikes of 100% CPU"), named
    # by the core words every phrasing shares (GUIDE §6).
    "Memory Usage": (
        "high|higher|excessive|extreme|huge|large|big|massive|significant|hight memory|ram",
        "memory|ram usage|use|consumption|footprint * increase|grow|spike|explode|balloon|climb",
        "memory|ram leak", "leak memory|ram", "amount of memory|ram", "lot of memory|ram",
        "much memory|ram", "eat * memory|ram",
    ),
    "CPU Usage": (
        "high|higher|excessive|extreme|huge|significant|100 cpu",
        "cpu usage|use|consumption|consuption|utilisation|utilization|load * increase|grow"
        "|spike|100",
        "spike of * cpu", "spike to * cpu", "amount of cpu", "lot of cpu", "much cpu",
        "eat * cpu", "max * cpu", "maxing * cpu",
    ),
}
# Phrasings of the table's symptoms that a customer's report keeps in its own words (the rules
# name the issue as written, "performance issue"; resolution gives it its canonical name,
# ``find_problem``): a vaguer word for the symptom than the table's own.
IN_OWN_WORDS: dict[str, tuple[str, ...]] = {
    # "the performance issue is from months now", "poor performance since 4.2"
    "Latency": (
        "performance issue|problem|degradation|regression|drop",
        "poor|bad|terrible|horrible|awful performance",
    ),
}
_NEGATIONS = frozenset({"not", "no", "never", "nothing", "without"})
_TOKEN = re.compile(r"[a-z0-9][a-z0-9'-]*")
# What a negation may not precede for the symptom to stand ("can not log in" is the symptom).
_SELF_NEGATING = ("cannot", "can", "unable", "fail", "will", "do")


def _compile(phrase: str) -> tuple[frozenset[str] | None, ...]:
    """A phrasing as a sequence of lemma sets (``None`` for a ``*``)."""
    steps: list[frozenset[str] | None] = []
    for word in phrase.split(" "):
        if word == "*":
            steps.append(None)
        else:
            steps.append(frozenset(lemma(w) for w in word.split("|")) | frozenset(
                word.split("|")))
    return tuple(steps)


_Table = tuple[tuple[str, tuple[frozenset[str] | None, ...]], ...]
_TABLES: dict[bool, _Table] = {}


def _table(own_words: bool = False) -> _Table:
    if own_words not in _TABLES:
        _TABLES[own_words] = tuple(
            (name, _compile(phrase))
            for name, phrases in (IN_OWN_WORDS if own_words else SYMPTOMS).items()
            for phrase in phrases)
    return _TABLES[own_words]


def _matches(steps: tuple[frozenset[str] | None, ...], words: list[str], start: int) -> int:
    """The index after the match of ``steps`` at ``start``, or -1."""
    position = start
    for index, step in enumerate(steps):
        if step is None:
            rest = steps[index + 1:]
            for skip in range(4):
                end = _matches(rest, words, position + skip) if rest else position + skip
                if end >= 0:
                    return end
            return -1
        if position >= len(words) or words[position] not in step:
            return -1
        position += 1
    return position


@lru_cache(maxsize=8192)
def find_symptom(text: str, own_words: bool = False) -> tuple[str, int, int] | None:
    """``(issue name, first word, word after)`` of the first symptom said in the text (word
    positions in ``text.lower().split()`` terms of its tokens), or None. A symptom preceded by a
    negation ("not slow any more") is not said. ``own_words``: the phrasings a report keeps in
    its own words (``IN_OWN_WORDS``) instead of the table's."""
    tokens = _TOKEN.findall(text.lower())
    words = [lemma(t) for t in tokens]
    for start in range(len(words)):
        for name, steps in _table(own_words):
            first = steps[0]
            if first is not None and words[start] not in first:
                continue
            end = _matches(steps, words, start)
            if end < 0:
                continue
            # "does not, by itself, cause a memory leak": a negation a few words back
            before = words[max(0, start - 5):start]
            if any(w in _NEGATIONS for w in before) and words[start] not in _SELF_NEGATING:
                return None
            return name, start, end
    return None


def symptom_name(text: str) -> str | None:
    """The canonical issue a phrase names, if it names a symptom of the table."""
    found = find_symptom(text)
    return found[0] if found else None


def tokens(text: str) -> list[str]:
    """The words ``find_symptom`` counts positions in."""
    return _TOKEN.findall(text.lower())


def tokens_after(text: str, end: int) -> str:
    """The words of ``text`` from token ``end`` on (to read where the symptom shows)."""
    return " ".join(_TOKEN.findall(text.lower())[end:])


# --- Problems: what fails, however the customer says it ------------------------------------------
#
# Customers name one problem in many ways: "Autofill no longer works on Chrome", "Unable to
# auto-fill", "Autofill not working in Browser v2025.10"; "Docker stuck in starting state",
# "Docker won't start", "stuck on 'starting'"; "High CPU consumption", "100% CPU use". Titled
# as they are, each is an issue of its own and two customers of one problem never meet. A
# problem's canonical name is its *area* (what fails: the thing that does not work, or the
# action that cannot be done) and its *kind* (failures, or high use of a resource), read from
# the phrasings below on lemmas: ``Autofill Failures``, ``Start Failures``, ``High CPU Usage``.

_NEGATIVE_CONTRACTIONS = {
    "can't": "cannot", "cant": "cannot", "couldn't": "cannot", "couldnt": "cannot",
    "won't": "will not", "wont": "will not", "wouldn't": "will not",
    "doesn't": "do not", "doesnt": "do not", "don't": "do not", "dont": "do not",
    "didn't": "do not", "didnt": "do not", "isn't": "be not", "isnt": "be not",
    "aren't": "be not", "wasn't": "be not", "weren't": "be not",
}
# One area, many spellings (lemmas, after hyphens are joined: "auto-fill" → "autofill").
_AREA_SYNONYMS = {
    "login": "login", "signin": "login", "logon": "login", "log": "login", "sign": "login",
    "authenticate": "login", "authentication": "login",
    "start": "start", "launch": "start", "boot": "start", "run": "start", "open": "start",
    "startup": "start", "restart": "start", "reboot": "start", "relaunch": "start",
    "update": "update", "upgrade": "update", "autofill": "autofill",
    "fill": "autofill", "magicdns": "MagicDNS", "2fa": "2FA", "mfa": "2FA", "twofactor": "2FA",
    "twostep": "2FA", "totp": "2FA", "2factor": "2FA", "multifactor": "2FA", "sync": "sync",
    "synchronization": "sync",
    # An app that does not load is one that does not start ("Postman app does not load").
    "load": "start",
    "link": "link", "relink": "link",
    # A product's stores and its trust: named the same whatever the surface.
    "database": "database", "db": "database",
    "certificate": "certificate", "cert": "certificate", "ssl": "certificate",
    "tls": "certificate", "selfsigned": "certificate",
    # What a network product keeps from the customer: the internet, however it shows ("no
    # internet", "cannot access any site", "can't reach websites" are one problem).
    "internet": "internet", "site": "internet", "website": "internet",
}
# Areas named by a noun (not a verb's: "log", "run", "open" say how, not what), so that a
# subject naming one is what fails whatever verb says how.
_NAMED_AREAS = frozenset({"database", "db", "certificate", "cert", "autofill", "magicdns", "2fa",
                          "mfa", "totp", "login", "signin", "logon", "sync", "synchronization"})
# What shows an app to its user, and the verbs of its showing: an app whose window does not
# show has not started, however the customer says it.
_WINDOWS = frozenset({"window", "windows", "screen", "ui", "gui", "interface", "app",
                      "application", "program", "client"})
_SHOWS = frozenset({"show", "appear", "display", "render", "pop", "come"})
# What says an attempt failed (on lemmas, negations spelled out).
_FAILED = re.compile(r"\b(?:error|fail|failure|not|cannot|never|nothing|stuck|crash|freeze"
                     r"|block|refuse|unable|hang|loop|blank)\b")
_KNOWN_AREAS = frozenset(_AREA_SYNONYMS.values())
_AREA_NAMES = {"login": "Login", "start": "Start", "update": "Update", "autofill": "Autofill",
               "sync": "Sync", "link": "Link", "database": "Database",
               "certificate": "Certificate"}
# Words that are no area of their own: pronouns, vague nouns, remedies, the product as a whole.
_NO_AREA = frozenset({
    "it", "this", "that", "these", "those", "they", "nothing", "anything", "everything",
    "something", "thing", "one", "same", "workaround", "solution", "fix", "reset", "reinstall",
    "command", "step", "method", "approach", "link", "above", "button", "option",
    "setting", "issue", "problem", "error", "bug", "he", "she", "you", "we", "i", "me", "which",
    "what", "who", "there", "here", "app", "application", "program", "software", "tool", "none",
    "version", "release", "build", "edition",
})
# Verbs that say nothing of what fails ("can't come in", "unable to figure out").
_NO_ACTION = frozenset({"come", "go", "get", "do", "be", "have", "make", "take", "see", "find",
                        "figure", "tell", "say", "know", "understand", "reproduce", "wait",
                        "help", "try", "think", "seem", "let", "give", "put", "keep", "believe",
                        "imagine", "remember", "afford", "stand", "explain", "test", "share",
                        "work", "function", "happen", "fix", "solve", "change"})
_GENERIC_TAILS = frozenset({"access", "connection", "connectivity", "feature", "function",
                            "functionality", "service", "support"})
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their", "its",
                          "this", "that", "some", "any", "all", "me", "us"})
_PHRASE_BREAKS = frozenset({"on", "in", "with", "for", "from", "at", "via", "when", "while",
                            "after", "before", "since", "and", "or", "but", "of", "to", "by",
                            "if", "because", "as", "so", "then", "despite", "although", "though",
                            "unless", "until", "except", "without", "through", "into", "about",
                            "during", "like", "than", "against", "using", "within", "even"})
_FILLERS = frozenset({"still", "just", "also", "now", "suddenly", "completely", "really",
                      "even", "again", "totally", "simply", "always", "sometimes", "seem",
                      "keep", "be", "have", "get", "anymore", "properly", "correctly"})
_PROBLEM_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # "unable to auto-fill", "can't log in", "won't start", "fails to start", "not able to sync"
    (re.compile(r"\b(?:(?:cannot|can not|could not|unable to|not able to|will not|fail to"
                r"|never|refuse to)(?: let \w+)?"
                r"|not let \w+) (?P<verb>\w+)(?: (?P<particle>in|on|up)\b)?"
                r"(?: (?P<object>[\w' -]+))?"),
     "action"),
    # "autofill no longer works", "internet does not work", "MagicDNS stopped working"
    (re.compile(r"(?P<subject>[\w' -]+?) (?:do not|(?:do )?no long|(?:do )?no longer|not|stop"
                r"|never|be not)"
                r" (?:(?:be|seem|really|properly|fully|even|always) )?(?P<verb>\w+)"),
     "subject"),
    # "the sync is broken", "Tailscale Internet is breaking"
    (re.compile(r"(?P<subject>[\w' -]+?) (?:be |get |seem )?(?:break|broke|broken)\b"
                r"(?! (?!(?:when|after|on|in|with|for|since|again)\b)\w)"), "last"),
    # "not receiving the 2FA email", "never get the verification code"
    (re.compile(r"\b(?:not|never|no longer|stop) (?:receive|get|see)"
                r" (?P<object>[\w' -]+)"), "object"),
    # "MagicDNS only works partially", "sync works intermittently"
    (re.compile(r"(?P<subject>[\w' -]+?) (?:only )?work (?:only )?(?:partially|intermittently"
                r"|sporadically|inconsistently|sometimes|half the time)\b"), "last"),
    # "keeps on starting", "keeps loading": an action that never completes
    (re.compile(r"\bkeep (?:on )?(?P<verb>start|load|restart|reboot|relaunch|update|sync"
                r"|reconnect|spin)\b"), "action"),
    # "Internet access blocked by VPN"
    (re.compile(r"(?P<subject>[\w' -]+?) (?:be |get )?block\b(?! \w+ing\b)"), "last"),
    # "broke MagicDNS", "breaks internet access"
    (re.compile(r"\b(?:broke|break|kill) (?P<object>[\w' -]+)"), "object"),
    # "stuck in starting", "hangs on 'updating'", "stuck in the Updating state"
    (re.compile(r"\b(?:stuck|stick|hang|freeze) (?:in|on|at|while|when) (?P<object>[\w' -]+)"),
     "gerund"),
    # "takes forever to start", "slow to load", "takes ages to sync": an action that does not
    # complete in time is that action's failure when it is an area's ("stays in a starting
    # state" and "takes forever to start" are one problem); any other slowness is the table's
    # Latency ("takes forever to send a request")
    (re.compile(r"\b(?:take (?:forever|age|so long|too long|a long time|long|minute|hour)"
                r"|slow|very slow|too slow|so slow) to (?P<verb>\w+)"
                r"(?: (?P<particle>in|on|up)\b)?"),
     "slow"),
    # "When I try to sign in, it won't allow me to retrieve my auth key", "When trying to login
    # to the app I get this error": an attempt at an area's action, and its failure after it
    (re.compile(r"\bwhen (?:i |we )?(?:try|attempt) to (?P<verb>\w+)(?: (?P<particle>in|on|up)\b)?"
                r"(?P<rest>.*)"), "attempt"),
    # "login loop", "loading forever"
    (re.compile(r"(?P<subject>[\w' -]+?) (?:loop|forever)\b"), "last"),
    # "Two-step login problem", "sync issue on Ubuntu", "Database startup error"
    (re.compile(r"(?P<subject>[\w' -]+?) (?:problem|issue|bug|failure|error)s?\b"), "known"),
    # "the same issue with my self-signed cert", "a problem with the database": a problem said
    # of an area the table names by a noun
    (re.compile(r"\b(?:problem|issue|trouble|error|bug)s? (?:with|on|in|of) (?P<object>[\w' -]+)"),
     "known_object"),
    # "stuck in white screen", "shows a blank screen": the app never came up
    (re.compile(r"\b(?P<object>white|blank) (?:screen|window)\b"), "blank"),
)
_PAIRS = re.compile(r"\b(?:magic dns|two factor|two step|2 factor|auto fill|multi factor"
                    r"|web site|web page)\b")
_RESOURCE = re.compile(
    r"\b(?P<what>cpu|memory|ram)\b(?: \w+)?? (?:usage|use|consumption|consuption|utilisation"
    r"|utilization|leak|leaky|spike|hog|load)\b"
    r"|\b(?:high|hight|huge|excessive|extreme|large amount of|spike of \d+ ?%?)(?: \w+)?? "
    r"(?P<what2>cpu|memory|ram)\b"
    r"|\b(?:leak|leaky)\b")


@dataclass(frozen=True)
class _Words:
    """A text's words as the problem patterns read them (lemmas, negations spelled out,
    compounds joined), each with the span of the text it comes from."""

    text: str
    words: list[str]
    spans: list[tuple[int, int]]

    @property
    def joined(self) -> str:
        return " ".join(self.words)

    def phrase(self, start: int, end: int) -> str:
        """The text as written from the word at character ``start`` of ``joined`` to the
        word at character ``end - 1``."""
        first, last = self.word_at(start), self.word_at(max(start, end - 1))
        return self.text[self.spans[first][0]:self.spans[last][1]]

    def word_at(self, char: int) -> int:
        """The index of the word at character ``char`` of ``joined``."""
        return max(0, self.joined.count(" ", 0, char))


# A mark that ends a clause stays a word of its own, so that no phrase runs across it: "does
# not solve the problem, autofill does not work" states "autofill does not work".
_CLAUSE_MARK = r"[,;:!?()]|\.(?=\s|$)"
_TOKEN_OR_MARK = re.compile(rf"{_TOKEN.pattern}|{_CLAUSE_MARK}")


def _problem_words(text: str) -> _Words:
    words: list[str] = []
    spans: list[tuple[int, int]] = []
    for found in _TOKEN_OR_MARK.finditer(text.lower()):
        token = found.group(0)
        expanded = _NEGATIVE_CONTRACTIONS.get(token)
        parts = expanded.split(" ") if expanded else [
            lemma(token) if "-" not in token else token.replace("-", "")]
        words += parts
        spans += [found.span()] * len(parts)
    index = 0
    while index < len(words) - 1:  # "magic dns" → magicdns, "two factor" → twofactor
        if _PAIRS.fullmatch(f"{words[index]} {words[index + 1]}"):
            words[index:index + 2] = [words[index] + words[index + 1]]
            spans[index:index + 2] = [(spans[index][0], spans[index + 1][1])]
        index += 1
    return _Words(text, words, spans)


def _area(words: list[str], *, head: str = "last",
          product: frozenset[str] = frozenset()) -> str | None:
    """The area a few words name: ``"your login on the website"`` → ``login``, ``"ochre rook
    syncs"`` → ``ochre rook sync``; none for a pronoun, a vague word, a remedy or the product
    itself (``product``: the brand's words: "Docker stopped working" names no area of it)."""
    kept: list[str] = []
    for word in words:
        if word in _DETERMINERS and not kept:
            continue
        if word in _PHRASE_BREAKS or word in _FILLERS:
            if kept:
                break
            continue
        if not re.search(r"[a-z]", word) or re.fullmatch(r"v?\d[\d.]*", word):
            continue  # a version number
        if word in _INTENSITY:
            continue  # "endless login loop": how bad, not what
        kept.append(word)
    while len(kept) > 1 and kept[-1] in _GENERIC_TAILS:
        kept.pop()
    # "the same issue - log in button": what names no area ("same", "issue") is not a part of
    # the area named after it
    vague = [index for index, word in enumerate(kept[:-1]) if word in _NO_AREA]
    if vague:
        kept = kept[vague[-1] + 1:]
    kept = [w for w in (kept[-3:] if head == "last" else kept[:3]) if w not in product]
    if not kept:
        return None
    core = [w for w in kept if w not in _SURFACES] or kept
    if all(w in _AREA_SYNONYMS for w in core):  # "two-step login", "web site login": one area
        return _AREA_SYNONYMS[core[0]]
    last = kept[-1]
    if last in _NO_AREA or len(last) < 3 or tag(last) in _NOT_AREA_TAGS or (
            len(kept) == 1 and tag(last) in {"VBD", "VBN", "VBZ"}):
        return None
    return " ".join(_AREA_SYNONYMS.get(w, w) for w in kept)


_INTENSITY = frozenset({"endless", "infinite", "constant", "random", "frequent", "intermittent",
                        "repeated", "persistent", "permanent", "weird", "strange", "total"})
# Where a customer meets an area, not another area: "web site login" is the login.
_SURFACES = frozenset({"web", "site", "website", "desktop", "mobile", "app", "browser", "client",
                       "cli", "gui", "ui", "account", "user", "page", "screen", "email", "code",
                       "prompt"})
# The product as a whole: "the app does not load" is the product's start failing.
_PRODUCT = frozenset({"app", "application", "program", "software", "client"})
_NOT_AREA_TAGS = frozenset({"RB", "RBR", "RBS", "JJ", "JJR", "JJS", "IN", "DT", "PRP", "PRP$",
                            "MD", "CC", "WDT", "WP", "WRB", "UH"})


def _action(verb: str, particle: str | None,
            product: frozenset[str] = frozenset()) -> str | None:
    """The area an action names ("log in" → login, "launch" → start), when the verb is a word
    of the language: a typo or an adverb names nothing."""
    for word in (verb + (particle or ""), verb):
        if word in _AREA_SYNONYMS:
            return _AREA_SYNONYMS[word]
    if verb in _NO_ACTION or verb in product or not is_common_word(verb) or len(verb) < 3:
        return None
    return None if tag(verb) in _NOT_AREA_TAGS else verb  # "cannot link" → link


def _area_name(area: str) -> str:
    return _AREA_NAMES.get(area) or " ".join(
        _AREA_NAMES.get(w, w if not w.islower() else w.title()) for w in area.split(" "))


@dataclass(frozen=True)
class Problem:
    name: str
    """The canonical name: ``Autofill Failures``."""
    phrase: str
    """The customer's words that state it, as written: ``Autofill no longer works``."""


@lru_cache(maxsize=8192)
def find_problem(text: str, product: frozenset[str] = frozenset()) -> Problem | None:
    """The problem a phrase or sentence states, if it states one in the phrasings above:
    ``"Autofill no longer works on Chrome"`` → ``Autofill Failures``, ``"Docker stuck in
    starting state"`` → ``Start Failures``, ``"High CPU consuption"`` → ``High CPU Usage``;
    the symptoms of the table keep their names (``"I can't sign in"`` → ``Login Failures``)."""
    read = _problem_words(text)
    joined = read.joined
    resource = _RESOURCE.search(joined)
    if resource is None:  # the words as written too: a misspelling has no lemma ("hight")
        written = _problem_words_as_written(text)
        found_written = _RESOURCE.search(written.joined)
        if found_written is not None:
            read, resource = written, found_written
    if resource is not None:
        what = resource["what"] or resource["what2"] or "memory"
        end = resource.end()
        after = re.match(r" (?:usage|use|consumption|utilisation|utilization|leak)\b",
                         read.joined[end:])
        return Problem(f"High {'CPU' if what == 'cpu' else 'Memory'} Usage",
                       read.phrase(resource.start(), end + (after.end() if after else 0)))
    # The phrasings in their order; a known area (the table's: "SSL issues" is the certificate's)
    # before a word the customer's phrase makes one ("could not get any response from servers
    # with SSL issues" is a certificate problem, the response what it kept from the customer)
    first: Problem | None = None
    for pattern, how in _PROBLEM_PATTERNS:
        for match in pattern.finditer(joined):
            area = _area_of(match, how, product)
            if area is not None:
                name = "Login Failures" if area == "login" else f"{_area_name(area)} Failures"
                found_here = Problem(name, _phrase_of(read, match, how, area))
                if area in _KNOWN_AREAS:
                    return found_here
                first = first or found_here
    if first is not None:
        return first
    found = find_symptom(text) or find_symptom(text, own_words=True)
    if found is None:
        return None
    spans = [m.span() for m in _TOKEN.finditer(text.lower())]
    start, end = found[1], min(found[2], len(spans)) - 1
    return Problem(found[0], text[spans[start][0]:spans[end][1]])


def problem_name(text: str, product: frozenset[str] = frozenset()) -> str | None:
    """The canonical name of the problem a text states (``find_problem``), if any."""
    found = find_problem(text, product)
    return found.name if found else None


def _problem_words_as_written(text: str) -> _Words:
    found = list(_TOKEN.finditer(text.lower()))
    return _Words(text, [m.group(0) for m in found], [m.span() for m in found])


def _phrase_of(read: _Words, match: re.Match[str], how: str, area: str) -> str:
    """The words of the match that state the problem: from the area named in a subject
    ("I noticed *MagicDNS stops working*") or from the failing action ("*Unable to auto-fill
    the selected item*"), up to a preposition or a clause after it; an attempt with the words
    of its failure ("*When trying to login to the app I get this error*")."""
    if how == "attempt":
        failed = _FAILED.search(match["rest"])
        assert failed is not None
        return read.phrase(match.start(), match.start("rest") + failed.end())
    first = read.word_at(match.start())
    last = read.word_at(match.end() - 1)
    place: tuple[int, int] | None = None
    if how in {"subject", "last", "known"}:
        area_words = area.split(" ")
        for index in range(last, first - 1, -1):
            word = read.words[index]
            if word == area or _AREA_SYNONYMS.get(word) == area or (
                    len(area_words) > 1 and word == area_words[-1]):
                # the failing verb itself ("Docker desktop not running"): with its subject
                start = max(first, index - len(area_words) + 1)
                first = start if index < last else max(first, index - 3)
                if how == "subject" and index < last:
                    place = _place_between(read, index + 1, read.word_at(match.start("verb")))
                break
    if how == "action" and first > 0 and read.words[first - 1] not in _DETERMINERS | (
            _PHRASE_BREAKS | _FILLERS | _NO_AREA) and not _punctuated(read, first - 1) and (
                tag(read.words[first - 1]).startswith("NN")):
        first -= 1  # "the *terminal won't open*": who fails, with the failure
    verb = read.word_at(match.start("verb")) if "verb" in match.groupdict() and (
        match["verb"]) else first
    for index in range(max(first, verb) + 1, last + 1):
        word = read.words[index]
        if _punctuated(read, index - 1):
            last = index - 1  # "…auth settings, like I was planning": the phrase ends there
            break
        if index > first + 1 and word in _PHRASE_BREAKS and (
                read.words[index - 1] + word not in _AREA_SYNONYMS):
            last = index - 1
            break
    if place is not None and place[0] > first:
        # "the exit node functionality in the MacOS tailscale client does no longer work": what
        # fails and how, without where
        return (f"{read.text[read.spans[first][0]:read.spans[place[0] - 1][1]]}"
                f" {read.text[read.spans[place[1]][0]:read.spans[last][1]]}")
    return read.text[read.spans[first][0]:read.spans[last][1]]


_NEGATION_OPENERS = frozenset({"do", "be", "not", "no", "stop", "never", "have"})


def _place_between(read: _Words, start: int, verb: int) -> tuple[int, int] | None:
    """``(first word of the place, first word of the failure)`` when the words from ``start``
    to the failing ``verb`` are a place ("in the MacOS tailscale client") before the negation
    ("does no longer"), else None."""
    while start < verb and read.words[start] not in _PHRASE_BREAKS and not _punctuated(
            read, start - 1):
        start += 1  # "exit node *functionality*": the rest of its name
    if start >= verb or read.words[start] not in {"in", "on", "at", "with", "for", "from"}:
        return None
    negation = verb
    while negation - 1 > start and read.words[negation - 1] in _NEGATION_OPENERS | {"long",
                                                                                     "longer"}:
        negation -= 1
    return (start, negation) if negation > start + 1 else None


def _punctuated(read: _Words, index: int) -> bool:
    """Whether a clause ends after word ``index`` (a comma, a full stop... before the next)."""
    if index + 1 >= len(read.spans):
        return False
    between = read.text[read.spans[index][1]:read.spans[index + 1][0]]
    return any(mark in between for mark in ",;:.!?()")


def _area_of(match: re.Match[str], how: str, product: frozenset[str]) -> str | None:
    groups = match.groupdict()
    if how == "action":
        verb, particle = groups["verb"], groups.get("particle")
        if verb in {"access", "use", "reach", "resolve", "connect"}:  # what cannot be reached
            return _area((groups.get("object") or "").split(" "), head="first",
                         product=product) or (_action(verb, None, product) if not groups.get(
                             "object") else None)
        if verb + (particle or "") not in _AREA_SYNONYMS and verb not in _AREA_SYNONYMS:
            known = _known_area((groups.get("object") or "").split(" ")[:4])
            if known is not None:  # "cannot edit my 2-factor settings": the 2FA's failure
                return known
        return _action(verb, particle, product)
    if how == "subject":
        verb = groups["verb"]
        subject = groups["subject"].split(" ")[-6:]
        if verb in {"work", "function"}:
            # "the exit node functionality in the MacOS tailscale client does no longer work":
            # what fails is named before the place it fails in
            return _area(_after_break(groups["subject"].split(" ")[-9:]), product=product)
        head = subject[-1] if subject else ""
        if verb in _SHOWS and head in _WINDOWS:
            # "Postman's window is not show", "the app doesn't appear": it never came up (not
            # "the app does not show my collections": something in it)
            following = match.string[match.end():].split(" ", 2)[1:2]
            shown = not following or following[0] in _PHRASE_BREAKS | _FILLERS | {
                "up", "at", "anymore", "again"} or not re.search(r"[a-z]", following[0])
            return "start" if shown else None
        if match.string[match.end():].startswith((" up", " out")):
            return None  # "the CPU didn't even fill up": a phrasal verb, no area's failure
        if head in _NAMED_AREAS and verb in _AREA_SYNONYMS:
            # "Database not updated", "the certificate does not load": what fails is the area
            # named, the verb only how it fails
            return _AREA_SYNONYMS[head]
        if verb in _AREA_SYNONYMS and _AREA_SYNONYMS[verb] in {"start", "update", "sync",
                                                                 "login", "autofill",
                                                                 "link"} and (
                head in _PRODUCT or (head not in _NO_AREA and tag(head).startswith("NN"))):
            return _AREA_SYNONYMS[verb]  # "Docker desktop not running"; not "I wasn't running"
        return None
    if how == "object":
        words = groups["object"].split(" ")
        return None if words[0] in _PHRASE_BREAKS else _area(words, head="first",
                                                              product=product)
    if how == "gerund":
        for word in groups["object"].split(" ")[:5]:
            if word in _AREA_SYNONYMS:
                return _AREA_SYNONYMS[word]
        return None
    if how == "known":  # the compound right before "problem": "two-step login problem"
        words = groups["subject"].split(" ")[-3:]
        for index in range(len(words) - 1, -1, -1):
            if words[index] in _PHRASE_BREAKS or words[index] in _DETERMINERS:
                words = words[index + 1:]
                break
        area = _area(words, product=product)
        return area if area in _AREA_SYNONYMS.values() else None
    if how == "blank":
        return "start"
    if how == "known_object":
        words = groups["object"].split(" ")[:4]
        for index, word in enumerate(words):
            if word in _PHRASE_BREAKS:
                break
            if word in _NAMED_AREAS | {"internet"}:
                # the head of its noun phrase ("the database", not "the login page design")
                after = words[index + 1] if index + 1 < len(words) else ""
                ends = not after or after in _PHRASE_BREAKS or not re.search(r"[a-z]", after)
                return _AREA_SYNONYMS[word] if ends else None
        return None
    if how == "attempt":
        if _FAILED.search(groups["rest"]) is None:
            return None  # "when I try to log in it asks for my password": no failure said
        verb, particle = groups["verb"], groups.get("particle")
        return _AREA_SYNONYMS.get(verb + (particle or "")) or _AREA_SYNONYMS.get(verb)
    if how == "slow":
        verb, particle = groups["verb"], groups.get("particle")
        return _AREA_SYNONYMS.get(verb + (particle or "")) or _AREA_SYNONYMS.get(verb)
    if how == "last":
        subject = groups["subject"].split(" ")[-3:]
        if subject[-1] in _NO_ACTION:
            return None  # "takes forever": how long, not what fails
        return _area(_after_break(subject), product=product)
    return None


def _known_area(words: list[str]) -> str | None:
    """The area of the synonym table that the words name, if any."""
    return next((_AREA_SYNONYMS[w] for w in words if w in _AREA_SYNONYMS), None)


def _after_break(words: list[str]) -> list[str]:
    """The words of a subject after the last clause word ("when using exit node internet" →
    "internet"; "X and Y" keeps X: the area is the first of a list)."""
    for index in range(len(words) - 1, -1, -1):
        if words[index] in {"when", "while", "after", "since", "because", "if", "but", "so",
                            "that", "which", "where", "then", "i", "we", "it", "notice", "see",
                            "find", "realize", "observe", "think", "believe", "guess", "feel",
                            "seem", "appear", "say", "mean"}:
            return words[index + 1:]
    return words


def same_issue_of_an_area(words: str) -> bool:
    """Whether what "the same issue with ``words``" is of names an area of the table by its
    noun, as the head of ``words`` ("my self-signed cert", "the database"): that area's problem,
    though the words say no failure."""
    read = _problem_words(words).words
    return bool(read) and read[-1] in _NAMED_AREAS | {"internet"}


# Words of one area that word matching counts as one (``memory.support_issues``): not the verbs
# that also say other things ("log" is a log file too, "run", "open", "load", "link").
_ONE_WORD_AREAS = frozenset({"login", "signin", "logon", "authenticate", "authentication",
                             "start", "launch", "boot", "startup", "relaunch", "autofill",
                             "fill", "magicdns", "2fa", "mfa", "twofactor", "twostep", "totp",
                             "2factor", "multifactor", "sync", "synchronization", "database",
                             "db", "certificate", "cert", "ssl", "tls", "selfsigned", "internet",
                             "site", "website"})


def joined_pairs(words: list[str]) -> list[str]:
    """The words with each two-word spelling of one word joined, as the readings join them
    ("magic dns" → ``magicdns``, "two factor" → ``twofactor``, "web site" → ``website``)."""
    joined: list[str] = []
    for word in words:
        if joined and _PAIRS.fullmatch(f"{joined[-1]} {word}"):
            joined[-1] += word
        else:
            joined.append(word)
    return joined


def area_word(word: str) -> str:
    """The area a word names, as one word (``launch`` → ``start``, ``cert`` → ``certificate``),
    or the word itself."""
    return _AREA_SYNONYMS[word].lower() if word in _ONE_WORD_AREAS else word


def slow_action(text: str) -> str | None:
    """The failure of the area whose action the text says takes too long ("Docker takes
    forever to start" → ``Start Failures``), which the table's ``Latency`` names too broadly,
    or None."""
    read = _problem_words(text)
    pattern = next(p for p, how in _PROBLEM_PATTERNS if how == "slow")
    for match in pattern.finditer(read.joined):
        area = _area_of(match, "slow", frozenset())
        if area is not None:
            return "Login Failures" if area == "login" else f"{_area_name(area)} Failures"
    return None
