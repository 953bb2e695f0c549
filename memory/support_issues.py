"""A support message's one problem (issue #14): which recurring issue of its brand a customer's
message reports. Pure functions of extractions and words, no ORM
(``memory.processing.support_state`` keeps what a graph already knows).

Four rules, in the order a support lead reads a queue:

* **One main problem per message.** A customer's message reports one problem: the first its
  words state in a known way (the title of a thread, or its first problem statement). Other
  problems the rules read in it ("…and now the terminal won't open either", a cause, a
  side-effect) are how the customer describes that problem, not reports of others, so they do
  not join the message to other problems' reports.
* **A thread has one problem.** Once a thread's problem is known (its title, or the first
  message that stated one), a later message in it that names another problem is still that
  thread's: it joins the thread (``memory.support.with_thread``) and its words add no problem.
* **What no rule reads joins by its words.** A customer's message in which the rules find no
  problem and whose thread has none joins the recurring issue **of its own brand** whose
  reports share the most distinctive words with it (lemmas, each weighed by how few of the
  brand's issues use it), when it shares at least ``MIN_SHARED`` of them (or one weighing
  ``MIN_SCORE_ONE_WORD``: the area one issue is named by; or one that the issue is named by
  and most of its reports, two or more, say — in a brand of few issues no word weighs
  ``MIN_SCORE_ONE_WORD``): it ``RESEMBLES`` that
  issue — a link, not a report: it joins the issue's observation (``RESEMBLES`` links as
  ``REPORTED``), and the graph does not say the customer reported what no rule read in their
  words. Its evidence cites the sentence that shares the most and names the words shared
  (``resemblance_sentence``: ``… [shares: magicdns, resolve]``), for a reader to audit. Never
  across brands: the candidates are the brand's issues only. Its thread goes with it: the
  thread's later "same here" resembles the issue too, reporting nothing either, its evidence
  saying so (``resembles_thread_problem``: ``Same here. [in acme/app#30, which resembles …]``).
  When no issue of the brand shares its words, it joins the brand's earlier thread whose
  problem no rule read either and whose words it shares most, by the same measure
  (``joins_thread``): two customers' first words of a problem the rules do not know.
* **A report finds the threads before it.** A message that reports a problem joins the brand's
  earlier thread whose problem no rule read (its messages came before the problem's first
  report, or said it in no known words) and whose words it shares most, by the same measure
  (``joins_thread``: the message ``RESEMBLES`` the thread, with the same evidence).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from memory.extraction import ExtractedFact, Extraction
from memory.extraction.support_same import same_problem_sentence
from memory.extraction.symptoms import area_word, joined_pairs, problem_name
from memory.language.words import lemma
from memory.names import normalize_name

MIN_SHARED = 2
"""Distinctive words a message must share with an issue's reports to join it."""
MIN_SCORE = 2.0
"""And their weight (a word used by every issue of the brand weighs nothing)."""
MIN_SCORE_ONE_WORD = 2.5
"""Or one word alone, weighing this much: a word only one of several issues of the brand uses,
or the area an issue is named by ("magicdns" of ``MagicDNS Failures``)."""

# Words that say nothing of which problem: function words, the words of any support thread
# ("same issue here", "any update?", "thanks"), and versions and systems every problem shows on.
_STOP_WORDS = """
a about above after again against all almost also although always am an and any anyone anything
are around as at away back be because been before being below between both but by can cannot
could did do does doing done down during each either else even ever every few for from further
get getting go going got had has have having he her here hers him his how however i if in into
is it its itself just last least less let like ll lot made make many may me might more most
much must my myself need never new next no nor not now of off often on once one only or other
our out over own per please quite rather re really same see seem seems she should since so some
something still such sure than thank thanks that the their them then there these they thing
think this those though through thus to too try tried trying under until up upon us use used
using ve very via want was way we well were what when where whether which while who whom why
will with within without would yes yet you your yours also already issue issues problem
problems bug bugs error errors help helps hi hello hey report reported reporting same here
update updated latest version versions release fix fixed fixes work works worked working
happen happens happened happening still anymore again any everyone somebody someone time
times day days week weeks month months today yesterday now problem solution workaround
windows mac macos linux ubuntu os pc laptop machine computer app application
i'm i've i'd i'll you're you've you'd we're we've it's that's there's don't doesn't didn't can't
won't isn't wasn't aren't let's also able unable maybe perhaps actually probably anyway
say said tell told ask asked
"""
_STOP = frozenset(_STOP_WORDS.split())
# What is not prose: an address, a path, a mention, code. Its words are nobody's problem.
_NOT_PROSE = re.compile(r"https?://\S+|www\.\S+|`[^`\n]*`|[~/\\][\w./\\-]+|@[\w-]+|\S+\.\S+\.\S+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


@dataclass(frozen=True)
class Match:
    """A message joined to a recurring issue by its words."""

    issue: str
    words: tuple[str, ...]
    """The distinctive words (lemmas) it shares with the issue's reports, most weighty first."""
    sentence: str
    """The message's sentence that shares the most of them: the report's evidence."""
    score: float


def problem_words(text: str, brand_words: Iterable[str] = ()) -> list[str]:
    """``content_words``, each word of an area as that area (``launch``, ``boot`` → ``start``;
    ``cert``, ``ssl`` → ``certificate``: ``memory.extraction.symptoms.area_word``) and a word
    spelled in two as one ("Magic DNS" → ``magicdns``), so that two customers naming one area
    in two ways share it."""
    return [area_word(w) for w in joined_pairs(content_words(text, brand_words))]


def content_words(text: str, brand_words: Iterable[str] = ()) -> list[str]:
    """The lemmas of a text that may tell one problem from another: no function words, no
    words of every support thread, no number, no word of the brand's own name."""
    skip = _STOP | {w.lower() for w in brand_words}
    found: list[str] = []
    for word in _WORD.findall(_NOT_PROSE.sub(" ", text)):
        lemmatized = lemma(word.strip("'-"))
        if len(lemmatized) < 3 or lemmatized in skip or word.lower() in skip:
            continue
        found.append(lemmatized)
    return found


def brand_words(brand: str | None) -> frozenset[str]:
    """The words of a brand's name (``docker``; ``warpdotdev``, ``warp``)."""
    return frozenset(re.findall(r"[a-z0-9]+", brand.lower())) if brand else frozenset()


def closest_issue(text: str, profiles: Mapping[str, Counter[str]],
                  brand: str | None = None, *, named: bool = True) -> Match | None:
    """The issue among ``profiles`` (issue name → the words of its reports, counted by message)
    that the text shares the most distinctive words with, if it shares at least ``MIN_SHARED``
    weighing ``MIN_SCORE`` (or one weighing ``MIN_SCORE_ONE_WORD``, or one the issue is named
    by and most of its reports say: ``_names_and_typical``), and no other issue shares as much
    (ranked by how typical of each issue's reports the shared words are, then by their weight;
    a tie on both joins none). With
    ``named=False`` the candidates' names say nothing (threads: ``acme/app#12``)."""
    mine = set(problem_words(text, brand_words(brand)))
    reported = profiles
    # An issue's words: its reports', and its name's (the area that fails).
    profiles = {issue: words + Counter(name_words(issue, brand) if named else ())
                for issue, words in profiles.items()}
    profiles = {issue: words for issue, words in profiles.items() if words}
    if not mine or not profiles:
        return None
    used_by = Counter(word for words in profiles.values() for word in set(words))
    total = len(profiles)

    def weight(word: str) -> float:
        # how few of the brand's issues use the word: one of two issues → 1.1, of one → 1.4...
        return math.log((total + 1) / used_by[word]) + (0.5 if used_by[word] == 1 else 0.0)

    scored: list[tuple[float, float, str, tuple[str, ...]]] = []  # typical, score, issue, shared
    for issue, words in profiles.items():
        shared = sorted(mine & set(words), key=lambda w: (-weight(w), w))
        named_by = name_words(issue, brand) if named else frozenset()
        # the area the issue is named by counts twice: it is what the reports agree fails
        score = sum(weight(w) * (2 if w in named_by else 1) for w in shared)
        # ranked by how typical of the issue's reports the shared words are, so that an issue
        # with many reports (and so many words) does not win on its size alone
        reports = max(words.values())
        typical = sum(weight(w) * (2 if w in named_by else 1) * words[w] / reports
                      for w in shared)
        scored.append((typical, score, issue, tuple(shared)))
    # equally typical, the issue that shares more (or weightier) words ranks first
    scored.sort(key=lambda s: (-s[0], -s[1], s[2]))
    best_typical, best_score, best, best_shared = scored[0]
    enough = (len(best_shared) >= MIN_SHARED and best_score >= MIN_SCORE) or (
        len(best_shared) == 1 and (best_score >= MIN_SCORE_ONE_WORD or _names_and_typical(
            best_shared[0], reported[best], name_words(best, brand) if named else frozenset())))
    if not enough or (len(scored) > 1 and scored[1][0] >= best_typical
                      and scored[1][1] >= best_score):
        return None
    return Match(best, best_shared, _best_sentence(text, set(best_shared), brand), best_score)


def _names_and_typical(word: str, reports: Counter[str], named_by: frozenset[str]) -> bool:
    """Whether one shared word is the area its issue is named by and what most of its reports
    (two or more) say: "database" of ``Database Failures`` when its reports all say it, however
    many other issues of the brand mention it once (its weight then falls short of
    ``MIN_SCORE_ONE_WORD``, which a brand of few issues never reaches)."""
    total = max(reports.values(), default=0)
    return word in named_by and total >= 2 and 2 * reports[word] > total


_KINDS = frozenset({"failure", "usage", "high", "error", "latency", "outage", "crash"})


def name_words(issue: str, brand: str | None) -> frozenset[str]:
    """The words of an issue's name that say what fails (``MagicDNS Failures (Tailscale)`` →
    ``magicdns``), not its kind or brand."""
    return frozenset(w for w in problem_words(_bare_name(issue, brand), brand_words(brand))
                     if w not in _KINDS)


def _bare_name(issue: str, brand: str | None) -> str:
    return issue[:-len(f" ({brand})")] if brand and issue.endswith(f" ({brand})") else issue


def _best_sentence(text: str, shared: set[str], brand: str | None) -> str:
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    return max(sentences, key=lambda s: len(set(problem_words(s, brand_words(brand))) & shared))


def reported_issues(extraction: Extraction) -> list[str]:
    """The issues the message's author reports, in the order the message states them."""
    return list(dict.fromkeys(
        f.target for f in extraction.facts
        if f.relation == "REPORTED" and f.target_type == "Issue" and _by_author(extraction, f)))


def threads_reported(extraction: Extraction) -> list[str]:
    """The threads (tickets, tracker issues) the message's author reports through it."""
    return list(dict.fromkeys(
        f.target for f in extraction.facts
        if f.relation == "REPORTED" and f.target_type == "WorkItem" and _by_author(extraction, f)))


def says_issue_status(extraction: Extraction) -> bool:
    """Whether the message says where a problem stands ("the … failures are resolved"):
    news of a problem, not a report of it. ("That fixed it for me" is: the customer had it.)"""
    return any(f.source_type == "Issue" and f.relation == "HAS_STATUS"
               for f in extraction.facts)


def _by_author(extraction: Extraction, fact: ExtractedFact) -> bool:
    """Whether the author states the fact of themselves (the reader may spell their name
    otherwise than the episode's author field: ``Chemarev``, ``chemarev``)."""
    author = extraction.author
    return author is not None and normalize_name(fact.source) == normalize_name(author.name)


def main_problem(issues: list[str], brand: str | None) -> str | None:
    """The message's main problem among the issues it reports: the first named as a known
    problem (``Start Failures (docker)``), else the first."""
    for issue in issues:
        if is_canonical(issue, brand):
            return issue
    return issues[0] if issues else None


def is_canonical(issue: str, brand: str | None) -> bool:
    """Whether an issue is named as a known problem (``Autofill Failures (Bitwarden)``), not
    in a customer's own words."""
    bare = _bare_name(issue, brand)
    return problem_name(bare) == bare


def keep_only(extraction: Extraction, kept: str | None, dropped: Iterable[str]) -> Extraction:
    """The extraction without the issues ``dropped`` (their facts and closures), ``kept``
    staying: a message's other problems are how it tells its one."""
    gone = {d for d in dropped if d != kept}
    if not gone:
        return extraction

    def keeps(source: str, source_type: str, target: str | None, target_type: str | None
              ) -> bool:
        return not ((source_type == "Issue" and source in gone)
                    or (target_type == "Issue" and target in gone))

    return replace(
        extraction,
        entities=[e for e in extraction.entities if not (e.type == "Issue" and e.name in gone)],
        facts=[f for f in extraction.facts
               if keeps(f.source, f.source_type, f.target, f.target_type)],
        closures=[c for c in extraction.closures
                  if keeps(c.source, c.source_type, c.target, c.target_type)],
    )


def reports_thread_problem(extraction: Extraction, issue: str, text: str) -> Extraction:
    """The extraction with the author's report of their thread's problem, citing the sentence
    that says they have it ("Same here.", ``memory.extraction.support_same``; else the
    message's first): a customer writing in a thread whose problem is known, in no words of
    another problem, saying they have it, has that problem too."""
    assert extraction.author is not None
    first = same_problem_sentence(text) or next(
        (s.strip() for s in _SENTENCE.findall(text) if s.strip()), text.strip())
    fact = ExtractedFact(extraction.author.name, extraction.author.type, "REPORTED", issue,
                         "Issue", first[:500])
    return replace(extraction, facts=[*extraction.facts, fact])


RESEMBLES = "RESEMBLES"
"""A message joined by its words (``memory.ontology``): it links with the reports of the issue
(or the thread) it resembles, and states no report of it."""


def resemblance_sentence(match: Match) -> str:
    """What a resemblance cites: the message's sentence that shares the most words, and the
    words it shares with the reports it joins (``[shares: magicdns, resolve]``), so that a
    reader can check why the message was placed there."""
    return f"{match.sentence} [shares: {', '.join(match.words)}]"


def cited_sentence(evidence: str) -> str:
    """The message's own words of an evidence sentence: a resemblance's without its note (the
    words shared, ``resemblance_sentence``; its thread's, ``resembles_thread_problem``), any
    other as it is."""
    found = _SHARED_NOTE.search(evidence)
    return evidence[:found.start()] if found else evidence


_SHARED_NOTE = re.compile(r" \[(?:shares: |in )[^\]]*\]$")


def resembles_thread_problem(extraction: Extraction, issue: str, thread: str,
                             text: str, *, reported: bool = False) -> Extraction:
    """The extraction with the author's message resembling the issue its thread resembles
    ("Same here." in a thread whose first message was placed by its words): it goes where its
    thread goes, and reports nothing. Its evidence cites its first sentence and says why
    (``Same here. [in acme/app#30, which resembles High CPU Usage (acme)]``). ``reported``: the
    thread reports the issue and the message says nothing of having it (a fix, a question:
    ``memory.extraction.support_same``) — it goes with its thread, its evidence saying
    ``[in acme/app#30, which reports …]``."""
    assert extraction.author is not None
    first = next((s.strip() for s in _SENTENCE.findall(text) if s.strip()), text.strip())
    how = "reports" if reported else "resembles"
    fact = ExtractedFact(extraction.author.name, extraction.author.type, RESEMBLES, issue,
                         "Issue", f"{first[:500]} [in {thread}, which {how} {issue}]")
    return replace(extraction, facts=[*extraction.facts, fact])


def joined_by_words(extraction: Extraction, match: Match) -> Extraction:
    """The extraction with the author's message resembling the issue its words matched
    (``RESEMBLES``, citing the sentence that shares the most words and the words shared),
    beside their report of the thread: the message joins the issue's reports, and the graph
    does not say the customer reported it — no rule read that in its words."""
    assert extraction.author is not None
    fact = ExtractedFact(extraction.author.name, extraction.author.type, RESEMBLES,
                         match.issue, "Issue", resemblance_sentence(match))
    return replace(extraction, facts=[*extraction.facts, fact])


def joins_thread(extraction: Extraction, match: Match) -> Extraction:
    """The extraction with the author's message resembling the thread its words matched
    (``match.issue`` names the thread; ``RESEMBLES``, citing the sentence that shares the most
    words and the words shared): the thread's earlier messages, whose problem no rule read,
    join the problem this message reports."""
    assert extraction.author is not None
    fact = ExtractedFact(extraction.author.name, extraction.author.type, RESEMBLES,
                         match.issue, "WorkItem", resemblance_sentence(match))
    return replace(extraction, facts=[*extraction.facts, fact])
