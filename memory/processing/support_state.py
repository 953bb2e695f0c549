"""What a graph already knows of its support problems, for settling a customer's message to its
one problem (``memory.support_issues``): each brand's issues and the words of the messages that
reported them, each thread's problem, and each brand's threads whose problem is still unknown
with their messages' words. Read from the stored facts once per batch (a query per brand and per
thread the batch touches), then kept up to date as the batch's episodes are applied, so a batch
reads as its episodes one at a time would."""

from __future__ import annotations

from collections import Counter, defaultdict

from memory.extraction import Extraction
from memory.extraction.support_same import says_same_problem
from memory.models import Episode, FactEvidence, Graph
from memory.support import brand_of
from memory.support_issues import (
    RESEMBLES,
    brand_words,
    closest_issue,
    joined_by_words,
    joins_thread,
    keep_only,
    main_problem,
    problem_words,
    reported_issues,
    reports_thread_problem,
    resembles_thread_problem,
    says_issue_status,
    threads_reported,
)

# What places a customer's message with an issue or a thread: a report, or a resemblance by its
# words (``memory.support_issues``).
_JOINING = ("REPORTED", RESEMBLES)


class SupportProblems:
    """Per batch: the brands' issues with their reports' words, and the threads' problems."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self._profiles: dict[str, dict[str, Counter[str]]] = {}
        self._threads: dict[str, set[str]] = {}
        self._reported: dict[str, set[str]] = {}
        self._open: dict[str, dict[str, Counter[str]]] = {}

    def settle(self, episode: Episode, extraction: Extraction) -> Extraction:
        """A customer's message (its extraction, issues already canonical) reporting one
        problem: its main one; none of its own when its thread's problem is known (it joins
        the thread); else, when its words state none, the brand's issue they share most (it
        ``RESEMBLES`` it), or failing one the brand's earlier thread of no known problem. A
        message reporting a problem also joins the brand's earlier thread whose problem is
        unknown and whose words it shares most (``joins_thread``): that thread's customers had
        the problem it states."""
        if extraction.author is None or extraction.author.type != "Customer" or (
                (episode.supplied or {}).get("facts")):
            return extraction  # an importer's mapped issue is the support lead's to name
        brand = brand_of(episode.source)
        issues = reported_issues(extraction)
        threads = threads_reported(extraction)
        known = set().union(*(self.thread_problems(t) for t in threads)) if threads else set()
        if known and issues and not known & self.thread_reports(threads) and not any(
                i in known for i in issues) and not says_same_problem(episode.content):
            # a thread placed by its words alone (no message of it reported its problem) does
            # not outweigh a report in words: "database error since early August" in a thread
            # whose only earlier message explained the error away is that customer's report
            # (but "also seeing this and in addition to memory consumption, …" is the thread's)
            known = set()
        kept: str | None = None
        resembled = False
        if known:
            kept = next((i for i in issues if i in known), None)
            status = says_issue_status(extraction)
            extraction = keep_only(extraction, kept, issues)
            if kept is None and len(known) == 1 and not status:
                # "Same here." in a thread whose problem is known reports that problem: the
                # customer is one more who has it, not only one more who wrote in the thread.
                kept = next(iter(known))
                if kept in self.thread_reports(threads) and says_same_problem(episode.content):
                    extraction = reports_thread_problem(extraction, kept, episode.content)
                else:
                    # a thread that only resembles its problem carries no report of it, and a
                    # message that says nothing of having it (a fix, a question, advice:
                    # ``support_same``) reports none: the message resembles it, as its thread
                    # does
                    thread = next(t for t in threads if kept in self.thread_problems(t))
                    extraction = resembles_thread_problem(
                        extraction, kept, thread, episode.content,
                        reported=kept in self.thread_reports(threads))
                    resembled = True
        elif issues:
            kept = main_problem(issues, brand)
            extraction = keep_only(extraction, kept, issues)
        elif brand and not says_issue_status(extraction):
            # (a message that says something of a problem without reporting it — "the …
            # failures are resolved" ends its customer's report — is not joined by its words)
            match = closest_issue(episode.content, self.profiles(brand), brand)
            kept = match.issue if match is not None else None
            if match is not None:
                # it resembles the issue, reporting nothing the rules did not read, and its
                # thread goes with it (``joined_by_words``)
                extraction = joined_by_words(extraction, match)
                resembled = True
            else:
                # no issue of the brand has its words yet: an earlier thread whose problem no
                # rule read either may (two customers' first words of one new problem)
                unknown = {t: words for t, words in self.open_threads(brand).items()
                           if t not in threads}
                match = closest_issue(episode.content, unknown, brand, named=False)
                if match is not None:
                    extraction = joins_thread(extraction, match)
                    threads = [*threads, match.issue]
        if brand and kept is not None:
            # An earlier thread no rule placed (its messages arrived before their problem's
            # first report, or say it in no known words) is this problem's when its words are.
            unknown = {t: words for t, words in self.open_threads(brand).items()
                       if t not in threads}
            match = closest_issue(episode.content, unknown, brand, named=False)
            if match is not None:
                extraction = joins_thread(extraction, match)
                threads = [*threads, match.issue]
        # What the graph will hold once the message is recorded, as a later batch reads it.
        self._learn(brand, kept, episode.content, threads, resembled=resembled)
        return extraction

    def _learn(self, brand: str | None, issue: str | None, text: str,
               threads: list[str], *, resembled: bool = False) -> None:
        words = set(problem_words(text, brand_words(brand))) if brand else set()
        if issue is None:
            if brand:
                for thread in threads:
                    if words and not self.thread_problems(thread):
                        self.open_threads(brand)[thread].update(words)
            return
        for thread in threads:
            self.thread_problems(thread).add(issue)
            if not resembled:
                self.thread_reports([thread]).add(issue)
            if brand:
                self.open_threads(brand).pop(thread, None)
        if brand:
            self.profiles(brand)[issue].update(words)

    def profiles(self, brand: str) -> dict[str, Counter[str]]:
        """The brand's issues, each with the words of the customers' messages that stated it
        (each word counted once a message)."""
        if brand not in self._profiles:
            profiles: dict[str, Counter[str]] = defaultdict(Counter)
            rows = FactEvidence.objects.filter(
                fact__graph=self.graph, fact__relation__in=_JOINING, fact__target__type="Issue",
                fact__source__type="Customer", fact__target__name__endswith=f" ({brand})",
            ).values_list("fact__target__name", "episode_id").distinct()
            episodes = defaultdict(list)
            for name, episode_id in rows:
                episodes[episode_id].append(name)
            texts = dict(Episode.objects.filter(pk__in=list(episodes)).values_list(
                "pk", "content"))
            for episode_id, names in episodes.items():
                words = set(problem_words(texts.get(episode_id, ""), brand_words(brand)))
                for name in names:
                    profiles[name].update(words)
            self._profiles[brand] = profiles
        return self._profiles[brand]

    def open_threads(self, brand: str) -> dict[str, Counter[str]]:
        """The brand's threads whose problem is unknown, each with the words of its customers'
        messages (each word counted once a message)."""
        if brand not in self._open:
            rows = FactEvidence.objects.filter(
                fact__graph=self.graph, fact__relation__in=_JOINING,
                fact__target__type="WorkItem", fact__source__type="Customer",
            ).values_list("fact__target__name", "episode_id", "episode__source").distinct()
            episodes: dict[str, set[int]] = defaultdict(set)
            for thread, episode_id, source in rows:
                if brand_of(source) == brand:
                    episodes[thread].add(episode_id)
            placed = set(FactEvidence.objects.filter(
                fact__graph=self.graph, fact__relation__in=_JOINING, fact__target__type="Issue",
                fact__source__type="Customer",
                episode_id__in=[e for ids in episodes.values() for e in ids],
            ).values_list("episode_id", flat=True))
            unknown = {thread: ids for thread, ids in episodes.items() if not ids & placed}
            texts = dict(Episode.objects.filter(
                pk__in=[e for ids in unknown.values() for e in ids]).values_list("pk", "content"))
            threads: dict[str, Counter[str]] = defaultdict(Counter)
            for thread, ids in unknown.items():
                for episode_id in ids:
                    threads[thread].update(set(problem_words(texts.get(episode_id, ""),
                                                             brand_words(brand))))
            self._open[brand] = threads
        return self._open[brand]

    def thread_problems(self, thread: str) -> set[str]:
        """The issues reported (or resembled, ``RESEMBLES``) by the customers' messages that
        reported ``thread`` (or resembled it)."""
        if thread not in self._threads:
            self._load_thread(thread)
        return self._threads[thread]

    def thread_reports(self, threads: list[str]) -> set[str]:
        """The issues the customers' messages of ``threads`` reported, not only resembled: what
        a later "same here" in them reports too. (One thread: the set itself, to add to.)"""
        for thread in threads:
            if thread not in self._reported:
                self._load_thread(thread)
        if len(threads) == 1:
            return self._reported[threads[0]]
        return set().union(*(self._reported[t] for t in threads))

    def _load_thread(self, thread: str) -> None:
        episodes = FactEvidence.objects.filter(
            fact__graph=self.graph, fact__relation__in=_JOINING, fact__target__type="WorkItem",
            fact__target__name=thread).values_list("episode_id", flat=True)
        rows = set(FactEvidence.objects.filter(
            fact__graph=self.graph, fact__relation__in=_JOINING, fact__target__type="Issue",
            fact__source__type="Customer", episode_id__in=list(episodes),
        ).values_list("fact__target__name", "fact__relation"))
        self._threads[thread] = {name for name, _ in rows}
        self._reported[thread] = {name for name, relation in rows if relation == "REPORTED"}
