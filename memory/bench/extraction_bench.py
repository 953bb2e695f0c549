"""The extraction bench behind ``manage.py bench_extraction``: the product's extraction scored
against the labelled corpus of real public text (``tests/corpus``).

Each source file is read the way one graph would ingest it: episodes in time order, each read by
``memory.processing.reading.extract_episode`` with the graph's ontology (a new graph's: the
default) and the names the earlier episodes of that source introduced — with no model configured,
that is the rules extractor, the embedded default. Predicted facts are matched to the labels
(``gold_facts``, see ``tests/corpus/GUIDE.md`` §7):

* the relations are the same after normalisation to the ontology (``BLOCKS`` reversed into
  ``DEPENDS_ON``...; the proposed ``TRACKS`` and ``DUPLICATE_OF`` are kept as they are);
* each endpoint matches: equal normalised names, or one name's content words contain the
  other's (case, articles, punctuation and a plural ``s`` ignored), or both name the same
  identifier (``#123``, ``org/repo#123``, a link to issue 123, ``PROJ-123``, ``bug 123``,
  ``RFC 123``);
* each gold fact matches at most one predicted fact (a maximum matching per episode).

Predicted names are compared without the brand a support source scopes them to ("Login Failures
(Warp)" is compared as "Login Failures"). Strict figures require equal normalised names.
Precision, recall and counts are given per genre and per relation on each split, with the
extraction speed.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory.extraction import ExtractedFact, Extraction
from memory.extraction.readings import reading_of
from memory.ingestion import parse_author_role
from memory.models import Episode
from memory.names import normalize_name
from memory.ontology import Ontology, build_ontology
from memory.support import brand_of
from memory.support import thread_membership as support_membership

SPLITS = ("dev", "test")
GENRES = ("tracker", "meeting", "support")
BATCHES = ("original", "dev-extra", "validation", "dev-extra2")
"""``original``: the 482 episodes the split was frozen on; ``dev-extra``: dev-only episodes from
further sources, added later; ``validation``: dev-only episodes from the original batch's sources,
kept for measuring how the extractor generalises, never for tuning it; ``dev-extra2``: dev-only
episodes from five more sources no extractor was tuned on, first scored untouched as a measure of
generalisation, tuning material afterwards (``tests/corpus/README.md``). An episode without
``batch`` is ``original``."""
DEFAULT_BATCHES = ("original", "dev-extra")
"""The batches scored when none is named: the validation batch only when asked for, so that the
dev figures extractor work is judged on (and the misses it reads) never include it; dev-extra2
only when asked for, so that the default dev figures stay comparable with those reported before
it was added."""
PROPOSED_RELATIONS = ("TRACKS", "DUPLICATE_OF")
"""Labelled in the corpus, not (yet) in the ontology: kept by name when normalising."""

_INGEST_FIELDS = ("external_id", "author", "reference_time", "type", "source", "content")


# --- The corpus ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    source: str
    relation: str
    target: str
    implicit: bool = False
    """A gold endpoint only the thread's metadata names (neither the content nor the author)."""
    sentence: str = field(default="", compare=False)
    """The sentence the fact was read from (shown by the miss listing, never compared)."""
    reading: str = field(default="", compare=False)
    """A predicted fact's reading (``memory.extraction.readings``: which rule produced it)."""


@dataclass
class CorpusEpisode:
    record: dict[str, Any]
    gold: list[Fact]
    file: str
    line: int = 0
    """Its line in the source's file (0 for the first): a thread's messages are copied in the
    thread's order, and their times are dates only (``tests/corpus/README.md``)."""

    @property
    def genre(self) -> str:
        return str(self.record["genre"])

    @property
    def split(self) -> str:
        return str(self.record["split"])

    @property
    def batch(self) -> str:
        return str(self.record.get("batch") or "original")


def load_corpus(directory: Path, *, splits: Sequence[str] = SPLITS,
                genres: Sequence[str] | None = None, batches: Sequence[str] | None = None,
                sources: Sequence[str] | None = None,
                ontology: Ontology | None = None) -> list[CorpusEpisode]:
    """The labelled episodes of ``directory/*.jsonl`` in the given splits, genres (all when
    ``None``), batches (``DEFAULT_BATCHES`` when ``None``) and sources (the files' names without
    ``.jsonl``; all when ``None``), each source's in time order. Episodes without
    ``gold_facts`` (not labelled yet) are left out."""
    ontology = ontology or build_ontology(None)
    batches = batches or DEFAULT_BATCHES
    episodes = []
    for path in sorted(directory.glob("*.jsonl")):
        if sources and path.stem not in sources:
            continue
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        records = sorted(enumerate(lines), key=lambda r: (r[1]["reference_time"],
                                                          r[1]["external_id"]))
        for number, record in records:
            if "gold_facts" not in record or record.get("split") not in splits:
                continue
            if genres and record.get("genre") not in genres:
                continue
            if (record.get("batch") or "original") not in batches:
                continue
            gold = [fact for item in record["gold_facts"]
                    if (fact := normalized_fact(item["source"], item["relation"],
                                                item["target"], ontology,
                                                implicit=bool(item.get("implicit")),
                                                sentence=item.get("sentence") or ""))]
            episodes.append(CorpusEpisode(record, gold, path.stem, number))
    return episodes


def as_episode(record: dict[str, Any]) -> Episode:
    """An unsaved Episode with the fields ingestion stores (extraction reads nothing else)."""
    return Episode(
        external_id=record.get("external_id"),
        author=record.get("author") or "",
        reference_time=datetime.fromisoformat(record["reference_time"]),
        type=record.get("type") or Episode.Type.TEXT,
        source=record.get("source") or "",
        content=record.get("content") or "",
        data=record.get("data"),
        url=record.get("url") or "",
        # the corpus's "role" (customer or agent), as ingestion stores it
        author_role=parse_author_role(record),
    )


# --- Matching ------------------------------------------------------------------------------------

_STOPWORDS = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "of", "to", "in", "on", "at", "by", "for",
    "with", "from", "and", "or", "as", "is", "are", "was", "were", "be", "been", "it", "its", "our",
    "my", "your", "their", "his", "her", "we", "i", "you", "they", "he", "she", "them", "us",
})
_GITHUB_LINK = re.compile(
    r"github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|pulls|discussions)/(\d+)", re.I)
_REPO_NUMBER = re.compile(r"([\w.-]+(?:/[\w.-]+)?)?#(\d+)\b")
_BUG = re.compile(r"\bbug\s*#?\s*(\d{3,})\b", re.I)
_PREFIXED = re.compile(r"\b(rfc|pep|eip|kep|cve|mcp)[\s-]*(\d+)\b", re.I)
_KEY = re.compile(r"\b([A-Z][A-Z0-9]{1,9})-(\d+)\b")


def normalized_fact(source: str, relation: str, target: str, ontology: Ontology, *,
                    implicit: bool = False, sentence: str = "",
                    reading: str = "") -> Fact | None:
    """The fact with its relation in canonical form (reversed names swap the endpoints);
    ``None`` for a relation neither the ontology nor the proposed additions know."""
    key = relation.strip().upper().replace(" ", "_").replace("-", "_")
    if key in PROPOSED_RELATIONS:
        return Fact(source, key, target, implicit, sentence, reading)
    found = ontology.normalize_relation(relation)
    if found is None:
        return None
    name, swap = found
    if swap:
        return Fact(target, name, source, implicit, sentence, reading)
    return Fact(source, name, target, implicit, sentence, reading)


def name_words(name: str) -> tuple[str, ...]:
    """The normalised words of a name, a plural ``s`` dropped (``"The API migrations"`` →
    ``("api", "migration")``)."""
    return tuple(_singular(w) for w in normalize_name(name).split())


def content_words(name: str) -> frozenset[str]:
    return frozenset(w for w in name_words(name) if w not in _STOPWORDS)


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def identifiers(name: str) -> set[tuple[str, str | None, str]]:
    """The tracker identifiers a name holds, as ``(kind, repository or None, number)``."""
    found: set[tuple[str, str | None, str]] = set()
    # A repository is compared by its name alone: "rust#5", "rust-lang/rust#5" and a link to
    # issue 5 of rust-lang/rust are the same item.
    for repo, number in _GITHUB_LINK.findall(name):
        found.add(("#", repo.lower().rsplit("/", 1)[-1], number))
    without_links = _GITHUB_LINK.sub(" ", name)
    for repo, number in _REPO_NUMBER.findall(without_links):
        found.add(("#", repo.lower().rsplit("/", 1)[-1] or None, number))
    for number in _BUG.findall(name):
        found.add(("bug", None, number))
    for kind, number in _PREFIXED.findall(name):
        found.add((kind.lower(), None, number))
    for kind, number in _KEY.findall(name):
        if kind.lower() not in {"rfc", "pep", "eip", "kep", "cve", "mcp"}:
            found.add((kind.lower(), None, number))
    return found


def same_identifier(a: str, b: str) -> bool:
    for kind, repo, number in identifiers(a):
        for other_kind, other_repo, other_number in identifiers(b):
            if (kind, number) == (other_kind, other_number) and (
                    repo is None or other_repo is None or repo == other_repo):
                return True
    return False


Resolve = Callable[[str], str | None]
"""A gold name as the product's resolution names it (``None``: as it is): the recorded path's
support problems (``memory.bench.recorded_facts.problem_resolver``)."""


def names_match(gold: str, predicted: str, *, strict: bool = False,
                resolve: Resolve | None = None) -> bool:
    if name_words(gold) == name_words(predicted) and name_words(gold):
        return True
    if strict:
        return False
    if resolve is not None and (resolved := resolve(gold)) is not None and (
            name_words(resolved) == name_words(predicted)):
        return True
    if identifiers(gold) and identifiers(predicted):
        # Two identifiers decide by themselves: rust-lang/rust#5 is not rust-lang/cargo#5,
        # however many words the names share.
        return same_identifier(gold, predicted)
    gold_words, predicted_words = content_words(gold), content_words(predicted)
    if not gold_words or not predicted_words:
        return False
    return gold_words <= predicted_words or predicted_words <= gold_words


def facts_match(gold: Fact, predicted: Fact, *, strict: bool = False,
                resolve: Resolve | None = None) -> bool:
    return (gold.relation == predicted.relation
            and names_match(gold.source, predicted.source, strict=strict, resolve=resolve)
            and names_match(gold.target, predicted.target, strict=strict, resolve=resolve))


def matched_pairs(gold: Sequence[Fact], predicted: Sequence[Fact], *,
                  strict: bool = False, resolve: Resolve | None = None) -> list[tuple[int, int]]:
    """A maximum matching of gold to predicted facts (each used at most once): Kuhn's augmenting
    paths, in gold order — episodes hold a handful of facts."""
    candidates = [[j for j, p in enumerate(predicted)
                   if facts_match(g, p, strict=strict, resolve=resolve)]
                  for g in gold]
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j in candidates[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or place(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(gold)):
        place(i, set())
    return sorted((i, j) for j, i in owner.items())


# --- Scoring -------------------------------------------------------------------------------------


@dataclass
class Tally:
    episodes: int = 0
    episodes_with_gold: int = 0
    episodes_with_predicted: int = 0
    gold: int = 0
    gold_explicit: int = 0
    predicted: int = 0
    matched: int = 0
    matched_explicit: int = 0
    matched_strict: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.__dict__)
        data["precision"] = _ratio(self.matched, self.predicted)
        data["recall"] = _ratio(self.matched, self.gold)
        data["recall_explicit"] = _ratio(self.matched_explicit, self.gold_explicit)
        data["precision_strict"] = _ratio(self.matched_strict, self.predicted)
        data["recall_strict"] = _ratio(self.matched_strict, self.gold)
        return data


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass
class EpisodeScore:
    episode: CorpusEpisode
    predicted: list[Fact]
    matched: list[tuple[int, int]]
    matched_strict: list[tuple[int, int]]


def score_episode(episode: CorpusEpisode, predicted: list[Fact], *,
                  resolve: Resolve | None = None) -> EpisodeScore:
    """``resolve``: gold names may also match as the product's resolution names them (not in
    the strict figures)."""
    return EpisodeScore(episode, predicted,
                        matched_pairs(episode.gold, predicted, resolve=resolve),
                        matched_pairs(episode.gold, predicted, strict=True))


def tallies(scores: Iterable[EpisodeScore]) -> dict[str, Any]:
    """Per split: overall, per genre, per relation (a gold fact counts for its relation, a
    predicted one for its own)."""
    result: dict[str, Any] = {}
    by_split: dict[str, list[EpisodeScore]] = defaultdict(list)
    for score in scores:
        by_split[score.episode.split].append(score)
    for split, split_scores in sorted(by_split.items()):
        overall = Tally()
        genres: dict[str, Tally] = defaultdict(Tally)
        relations: dict[str, Tally] = defaultdict(Tally)
        for score in split_scores:
            episode = score.episode
            matched = {i for i, _ in score.matched}
            one = Tally(
                episodes=1, episodes_with_gold=int(bool(episode.gold)),
                episodes_with_predicted=int(bool(score.predicted)),
                gold=len(episode.gold),
                gold_explicit=sum(1 for g in episode.gold if not g.implicit),
                predicted=len(score.predicted), matched=len(score.matched),
                matched_explicit=sum(1 for i in matched if not episode.gold[i].implicit),
                matched_strict=len(score.matched_strict),
            )
            overall.add(one)
            genres[episode.genre].add(one)
            strict = {i for i, _ in score.matched_strict}
            for i, fact in enumerate(episode.gold):
                tally = relations[fact.relation]
                tally.gold += 1
                tally.gold_explicit += int(not fact.implicit)
                tally.matched += int(i in matched)
                tally.matched_explicit += int(i in matched and not fact.implicit)
                tally.matched_strict += int(i in strict)
            for fact in score.predicted:
                relations[fact.relation].predicted += 1
        result[split] = {
            "overall": overall.as_dict(),
            "genres": {g: genres[g].as_dict() for g in GENRES if g in genres},
            "relations": {r: relations[r].as_dict() for r in sorted(relations)},
        }
    return result


# --- Running -------------------------------------------------------------------------------------

Extract = Callable[[Episode, Ontology, dict[str, str]], Extraction]


def product_extract(episode: Episode, ontology: Ontology, known: dict[str, str]) -> Extraction:
    """The extraction ingestion runs (``memory.processing.reading.extract_episode``)."""
    from memory.processing.reading import extract_episode

    return extract_episode(episode, ontology, known)


PATHS = ("extraction", "recorded")
"""What is scored: ``extraction``, what ``extract_episode`` reads from each episode (the default);
``recorded``, the facts the product records with each episode as evidence after ingestion and
processing (``memory.bench.recorded_facts``)."""


@dataclass
class BenchResult:
    scores: list[EpisodeScore] = field(default_factory=list)
    extract_seconds: float = 0.0
    extractors: dict[str, int] = field(default_factory=dict)
    path: str = "extraction"

    def figures(self) -> dict[str, Any]:
        count = len(self.scores)
        return {
            "path": self.path,
            "splits": tallies(self.scores),
            "episodes": count,
            "extract_seconds": self.extract_seconds,
            "episodes_per_second": count / self.extract_seconds if self.extract_seconds else None,
            "extractors": self.extractors,
        }


def run_extraction_bench(episodes: Sequence[CorpusEpisode], *,
                         ontology: Ontology | None = None,
                         extract: Extract = product_extract) -> BenchResult:
    """Extract every episode (each source as one graph, in time order) and score it."""
    ontology = ontology or build_ontology(None)
    result = BenchResult()
    known_by_source: dict[str, dict[str, str]] = defaultdict(dict)
    for corpus_episode in episodes:
        known = known_by_source[corpus_episode.file]
        episode = as_episode(corpus_episode.record)
        started = time.perf_counter()
        extraction = extract(episode, ontology, known)
        result.extract_seconds += time.perf_counter() - started
        result.extractors[extraction.extractor] = result.extractors.get(
            extraction.extractor, 0) + 1
        for entity in extraction.all_entities():
            known.setdefault(normalize_name(entity.name), entity.type)
        brand = brand_of(episode.source)
        predicted = [fact for f in extraction.facts
                     if not thread_membership(f, episode)
                     and (fact := normalized_fact(unscoped(f.source, brand), f.relation,
                                                 unscoped(f.target, brand), ontology,
                                                 sentence=f.sentence,
                                                 reading=reading_of(f)))]
        result.scores.append(score_episode(corpus_episode, predicted))
    return result


def thread_membership(fact: ExtractedFact, episode: Episode) -> bool:
    """Whether the fact only says that a customer wrote in the thread the episode's address
    names, or in a thread its words point at (``memory.support.with_thread``: it groups a
    thread's messages): metadata, not words of the text, which the labels leave out (GUIDE §1,
    "Metadata-only facts")."""
    return support_membership(fact, episode.author, episode.url)


def unscoped(name: str, brand: str | None) -> str:
    """The name the reader gave, without the brand a support source scopes it to
    (``memory.support.scoped``: "Login Failures (Warp)"): the scope is the graph's way to keep
    two brands' problems apart, not words of the text, and the labels do not carry it."""
    return name.removesuffix(f" ({brand})") if brand else name


# --- Reports -------------------------------------------------------------------------------------

_COLUMNS = (("episodes", "episodes"), ("with gold", "episodes_with_gold"),
            ("with facts", "episodes_with_predicted"), ("gold", "gold"),
            ("predicted", "predicted"), ("matched", "matched"), ("P", "precision"),
            ("R", "recall"), ("R explicit", "recall_explicit"), ("P strict", "precision_strict"),
            ("R strict", "recall_strict"))
_RELATION_COLUMNS = (("gold", "gold"), ("predicted", "predicted"), ("matched", "matched"),
                     ("P", "precision"), ("R", "recall"), ("P strict", "precision_strict"),
                     ("R strict", "recall_strict"))


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda cells: "  ".join(  # noqa: E731
        str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in
        enumerate(zip(cells, widths, strict=True)))
    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(r) + " |" for r in rows)]


def report_tables(figures: dict[str, Any], *, markdown: bool = False) -> list[str]:
    render = _markdown if markdown else _table
    out: list[str] = []
    for split, data in figures["splits"].items():
        rows = [[genre, *(_cell(t[k]) for _, k in _COLUMNS)]
                for genre, t in data["genres"].items()]
        rows.append(["all", *(_cell(data["overall"][k]) for _, k in _COLUMNS)])
        out += ["", f"{split} split, per genre:", "",
                *render(["genre", *(name for name, _ in _COLUMNS)], rows)]
        rows = [[relation, *(_cell(t[k]) for _, k in _RELATION_COLUMNS)]
                for relation, t in data["relations"].items()]
        out += ["", f"{split} split, per relation:", "",
                *render(["relation", *(name for name, _ in _RELATION_COLUMNS)], rows)]
    speed = figures["episodes_per_second"]
    doing = "recording" if figures.get("path") == "recorded" else "extraction"
    out += ["", f"{doing}: {figures['episodes']} episodes in {figures['extract_seconds']:.3f} s"
                f" = {_cell(speed)} episodes/s; extractors: "
                + ", ".join(f"{k} ×{v}" for k, v in sorted(figures["extractors"].items()))]
    return out


_SIDE_BY_SIDE = (("gold", "gold"), ("predicted", "predicted"), ("matched", "matched"),
                 ("P", "precision"), ("R", "recall"), ("R explicit", "recall_explicit"))


def comparison_tables(extraction: dict[str, Any], recorded: dict[str, Any], *,
                      markdown: bool = False) -> list[str]:
    """``--path both``: per split and genre, the extraction path's and the recorded path's
    figures side by side (``ext`` and ``rec`` columns)."""
    render = _markdown if markdown else _table
    header = ["genre", "gold", *(f"{name} {path}" for name, _ in _SIDE_BY_SIDE[1:]
                                 for path in ("ext", "rec"))]
    out: list[str] = []
    for split, data in extraction["splits"].items():
        other = recorded["splits"][split]
        rows = []
        for genre in [*data["genres"], "all"]:
            ext = data["overall"] if genre == "all" else data["genres"][genre]
            rec = other["overall"] if genre == "all" else other["genres"][genre]
            rows.append([genre, _cell(ext["gold"]),
                         *(_cell(t[key]) for _, key in _SIDE_BY_SIDE[1:] for t in (ext, rec))])
        out += ["", f"{split} split, extraction (ext) and recorded (rec) paths, per genre:", "",
                *render(header, rows)]
    return out


def path_differences(extraction: Sequence[EpisodeScore],
                     recorded: Sequence[EpisodeScore]) -> list[str]:
    """``--path both --misses``: per episode, the gold facts only the recorded path matched
    (``>``) and those only the extraction path matched (``<``), with the prediction that matched
    them and its reading."""
    out: list[str] = []
    for ext, rec in zip(extraction, recorded, strict=True):
        ext_matched = dict(ext.matched)
        rec_matched = dict(rec.matched)
        gold = ext.episode.gold
        lines = []
        for i, g in enumerate(gold):
            if (i in rec_matched) == (i in ext_matched):
                continue
            sign, score, j = (">", rec, rec_matched[i]) if i in rec_matched else (
                "<", ext, ext_matched[i])
            p = score.predicted[j]
            lines.append(f"  {sign}{'*' if g.implicit else ' '}{g.source} {g.relation} "
                         f"{g.target}  ~ {p.source} {p.relation} {p.target}"
                         f"  [{p.reading or 'untagged'}]  «{_excerpt(g.sentence)}»")
        if lines:
            record = ext.episode.record
            out.append(f"== {record.get('external_id')} ({ext.episode.genre}, "
                       f"{ext.episode.split}, {ext.episode.batch})")
            out += lines
    return out


@dataclass
class ReadingTally:
    """A reading's predictions in one batch: matched (true positives) or not, and where its
    matches come from — a reading whose matches all sit in one or two episodes, or one source,
    was fitted to them."""

    matched: int = 0
    unmatched: int = 0
    matched_episodes: set[str] = field(default_factory=set)
    matched_sources: set[str] = field(default_factory=set)
    unmatched_sources: set[str] = field(default_factory=set)

    @property
    def predicted(self) -> int:
        return self.matched + self.unmatched

    @property
    def precision(self) -> float | None:
        return _ratio(self.matched, self.predicted)


def reading_tallies(scores: Iterable[EpisodeScore]) -> dict[str, dict[tuple[str, str],
                                                                      ReadingTally]]:
    """Per split and batch (``dev original``...), per reading and relation: the predictions
    that matched a gold fact and those that did not (the bench's own matching)."""
    result: dict[str, dict[tuple[str, str], ReadingTally]] = defaultdict(
        lambda: defaultdict(ReadingTally))
    for score in scores:
        episode = score.episode
        matched = {j for _, j in score.matched}
        group = result[f"{episode.split} {episode.batch}"]
        for j, fact in enumerate(score.predicted):
            tally = group[(fact.reading or "untagged", fact.relation)]
            if j in matched:
                tally.matched += 1
                tally.matched_episodes.add(str(episode.record.get("external_id")))
                tally.matched_sources.add(episode.file)
            else:
                tally.unmatched += 1
                tally.unmatched_sources.add(episode.file)
    return {key: dict(value) for key, value in sorted(result.items())}


def reading_report(scores: Iterable[EpisodeScore]) -> list[str]:
    """``--by-reading``: per split and batch, a line per reading and relation — true and false
    positives, precision, and how many episodes and sources its true positives come from —
    worst precision first."""
    out: list[str] = []
    for group, readings in reading_tallies(scores).items():
        rows = [[reading, relation, str(t.matched), str(t.unmatched), _cell(t.precision),
                 str(len(t.matched_episodes)), str(len(t.matched_sources)),
                 ", ".join(sorted(t.matched_sources | t.unmatched_sources))]
                for (reading, relation), t in sorted(
                    readings.items(),
                    key=lambda item: (item[1].precision or 0.0, -item[1].unmatched, item[0]))]
        total = ReadingTally()
        for t in readings.values():
            total.matched += t.matched
            total.unmatched += t.unmatched
        rows.append(["all", "", str(total.matched), str(total.unmatched),
                     _cell(total.precision), "", "", ""])
        out += ["", f"{group}, per reading:", "",
                *_table(["reading", "relation", "TP", "FP", "P", "TP episodes", "TP sources",
                         "sources"], rows)]
    return out


def miss_listing(scores: Iterable[EpisodeScore]) -> list[str]:
    """Per episode, the gold facts no prediction matched (``-``, ``*`` when implicit) and the
    predictions that matched no gold fact (``+``): what to read when working on recall or
    precision. Only episodes with either are listed."""
    out: list[str] = []
    for score in scores:
        matched_gold = {i for i, _ in score.matched}
        matched_predicted = {j for _, j in score.matched}
        missed = [g for i, g in enumerate(score.episode.gold) if i not in matched_gold]
        wrong = [p for j, p in enumerate(score.predicted) if j not in matched_predicted]
        if not missed and not wrong:
            continue
        record = score.episode.record
        out.append(f"== {record.get('external_id')} ({score.episode.genre}, "
                   f"{score.episode.split}, {score.episode.batch}; author "
                   f"{record.get('author') or '-'})")
        out += [f"  {'*' if g.implicit else '-'} {g.source} {g.relation} {g.target}"
                f"  «{_excerpt(g.sentence)}»" for g in missed]
        out += [f"  + {p.source} {p.relation} {p.target}  [{p.reading or 'untagged'}]"
                f"  «{_excerpt(p.sentence)}»" for p in wrong]
    return out


def _excerpt(sentence: str, limit: int = 200) -> str:
    flat = " ".join(sentence.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def write_outputs(directory: Path, figures: dict[str, Any], meta: dict[str, Any]) -> tuple[
        Path, Path]:
    """``bench-extraction.json`` / ``.md`` for the extraction path, ``bench-extraction-recorded``
    for the recorded one."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = "bench-extraction" + ("-recorded" if figures.get("path") == "recorded" else "")
    json_path = directory / f"{stem}.json"
    json_path.write_text(json.dumps({"meta": meta, **figures}, indent=2, default=str))
    md_path = directory / f"{stem}.md"
    lines = [f"`{meta['command']}` — {meta['date']}, {meta['machine']}",
             *report_tables(figures, markdown=True)]
    md_path.write_text("\n".join(lines) + "\n")
    return json_path, md_path
