"""Tracker references and the other spans of a sentence that are not prose.

A sentence is *masked* before it is read: every tracker reference becomes a placeholder word that
stands for one entity (``#123``, ``org/repo#123``, ``PROJ-123``, ``KEP-1234``, ``bug 123456``,
links to issues, pull requests and tickets, ``@handles``), a title given beside a reference
(``"Add hygiene attributes" #692``, ``#692 Add hygiene attributes``, ``[Title](link)``) becomes
that entity's display name, and other links, inline code and quoted text become placeholders
that never read as claims. The rules then read the masked sentence; facts still cite the
sentence as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLACEHOLDER = re.compile(r"\bzz(?P<kind>ref|url|code|quote)(?P<n>\d+)zz\b")


@dataclass(frozen=True)
class Reference:
    """One tracker item or person named by an identifier."""

    key: str
    """The identifier as it is matched across episodes: ``#123``, ``rust-lang/rust#123``,
    ``KEP-1234``, ``Bug 123456``, ``@alice``."""
    type: str
    """``WorkItem`` for tracker items, ``Person`` for @handles."""
    title: str | None = None
    comment: bool = False
    """A link to a comment on the item (``…/pull/12#issuecomment-…``), not to the item."""

    @property
    def name(self) -> str:
        """The entity name: ``Title (key)`` when a title was given beside it, else the key."""
        return f"{self.title} ({self.key})" if self.title else self.key


@dataclass
class Masked:
    text: str
    references: dict[str, Reference]
    """placeholder word → the reference it stands for."""
    spans: dict[str, str]
    """placeholder word → the text it hides (links, inline code, quoted text)."""

    def reference(self, phrase: str) -> Reference | None:
        """The reference a phrase is, when the phrase is nothing but one placeholder (articles
        aside): ``"the zzref0zz"``."""
        words = phrase.strip(" .,;:!?\"'()").split()
        while len(words) > 1 and words[0].lower() in {"the", "a", "an", "issue", "pr", "bug",
                                                        "ticket", "pull", "request", "kep"}:
            words = words[1:]
        if len(words) == 1:
            return self.references.get(words[0])
        return None

    def unmask(self, text: str) -> str:
        """The text with links, code and quotations written back as they were."""
        if "zz" not in text:
            return text
        return PLACEHOLDER.sub(
            lambda m: self.spans.get(m.group(0), m.group(0)) if m["kind"] != "ref"
            else self.references[m.group(0)].key if m.group(0) in self.references else m.group(0),
            text,
        )

    def has_hidden(self, phrase: str) -> bool:
        """Whether a phrase contains a link, code or quoted text (never an entity name)."""
        return any(m["kind"] != "ref" for m in PLACEHOLDER.finditer(phrase))


# -------------------------------------------------------------------------------- identifiers

_NOT_TRACKERS = frozenset(
    {"UTF", "SHA", "ISO", "HTTP", "HTTPS", "TLS", "SSL", "MD", "AES", "RSA", "CVE", "COVID",
     "GPT", "X", "ARM", "IPV", "H", "MP", "PEP8", "RFC", "UTC", "GMT", "CET", "PST", "EST",
     "WCAG", "ES", "ECMA", "IEEE", "CWE", "GHSA", "TCP", "UDP", "API", "V", "Q", "FY", "W"}
)
_LINK_ID = re.compile(
    r"https?://(?:www\.)?(?P<host>[\w.-]+)/(?P<path>[^\s<>()\[\]\"']*)", re.I
)
_GITHUB_ITEM = re.compile(r"^(?P<org>[\w.-]+)/(?P<repo>[\w.-]+)/(?:issues|pull|pulls|discussions)"
                          r"/(?P<n>\d+)\b", re.I)
_GITLAB_ITEM = re.compile(r"^(?P<org>[\w./-]+?)/(?P<repo>[\w.-]+)/-/(?:issues|merge_requests)"
                          r"/(?P<n>\d+)\b", re.I)
_JIRA_ITEM = re.compile(r"(?:^|/)browse/(?P<key>[A-Z][A-Z0-9]{1,9}-\d+)\b")
_BUGZILLA_ITEM = re.compile(r"show_bug\.cgi\?id=(?P<n>\d+)", re.I)
_TEXT_REFERENCE = re.compile(
    r"(?<![\w/#@.-])(?:"
    r"(?P<org>[A-Za-z0-9][\w.-]*)/(?P<repo>[A-Za-z0-9][\w.-]*)#(?P<n1>\d+)"
    r"|(?P<short>[a-z][\w-]*)#(?P<n2>\d+)"
    r"|(?:(?:issue|pr|pull request|ticket|mr|merge request)\s+)?#(?P<n3>\d+)"
    r"|(?P<bug>[Bb]ug)\s+#?(?P<n4>\d{3,})"
    r"|(?P<key>[A-Z][A-Z0-9]{1,9})-(?P<n5>\d+)"
    r"|(?P<handle>@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9-]+)?)"
    r")(?![\w-]*[/@])",
    re.I,
)
_KEY_CASE = re.compile(r"[A-Z][A-Z0-9]{1,9}")


def _reference_of_link(host: str, path: str) -> Reference | None:
    host = host.lower()
    if host.endswith("github.com"):
        match = _GITHUB_ITEM.match(path)
        if match:
            return Reference(f"{match['org']}/{match['repo']}#{match['n']}", "WorkItem",
                             comment="#issuecomment" in path or "#discussion" in path)
    if "gitlab" in host:
        match = _GITLAB_ITEM.match(path)
        if match:
            return Reference(f"{match['org']}/{match['repo']}#{match['n']}", "WorkItem")
    match = _BUGZILLA_ITEM.search(path)
    if match:
        return Reference(f"Bug {match['n']}", "WorkItem")
    match = _JIRA_ITEM.search(path)
    if match:
        return Reference(match["key"], "WorkItem")
    return None


def _reference_of_text(match: re.Match[str]) -> Reference | None:
    if match["n1"]:
        return Reference(f"{match['org']}/{match['repo']}#{match['n1']}", "WorkItem")
    if match["n2"]:
        return Reference(f"{match['short']}#{match['n2']}", "WorkItem")
    if match["n3"]:
        return Reference(f"#{match['n3']}", "WorkItem")
    if match["n4"]:
        return Reference(f"Bug {match['n4']}", "WorkItem")
    if match["n5"]:
        prefix = match["key"]
        if not _KEY_CASE.fullmatch(prefix) or prefix.upper() in _NOT_TRACKERS:
            return None
        return Reference(f"{prefix}-{match['n5']}", "WorkItem")
    if match["handle"]:
        handle = match["handle"]
        return Reference(handle, "Team" if "/" in handle else "Person")
    return None


# ------------------------------------------------------------------------------------ masking

_MARKDOWN_LINK = re.compile(r"\[(?P<label>[^\]\n]{1,300})\]\((?P<url>[^)\s]{1,2000})\)")
_AUTOLINK = re.compile(r"<(?P<url>https?://[^>\s]{1,2000})>")
_INLINE_CODE = re.compile(r"`+[^`\n]{0,500}`+")
# "Worked on this with `@yoshuawuyts.`", "r? `@epage`": a handle in backticks, as the rust-lang
# bots write mentions in commit messages so as not to ping anyone, is still the handle.
# Only after words that name someone ("with", "by", "cc", "r?", "thanks"): "use `@property`"
# is code.
_ESCAPED_HANDLE = re.compile(
    r"(?P<before>(?:^|\b)(?:with|by|cc:?|r\?|thanks|thank you|from|ping|pinging) )"
    r"`(?P<handle>@[A-Za-z0-9][\w-]{0,38})(?P<end>[.,;:!?]?)`", re.IGNORECASE)
_QUOTED = re.compile(r"\"(?P<q>[^\"\n]{3,300})\"|(?<!\w)'(?P<s>[^'\n]{3,300})'(?!\w)")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^>\n]{0,200}>")
# "Title (#123)", "Title #123" before the reference; "#123 Title", "#123: Title" after it.
_TITLE_AFTER = re.compile(r"^\s*(?:[:\-–—]\s*)?(?P<title>[A-Z`\"'][^.;!?()\n]{2,120}?)\s*$")
_SEPARATOR = re.compile(r"^\s*[:\-–—]\s*")


class _Masker:
    def __init__(self, first: int = 0) -> None:
        self.first = first
        self.references: dict[str, Reference] = {}
        self.spans: dict[str, str] = {}

    def reference(self, reference: Reference) -> str:
        word = f"zzref{self.first + len(self.references)}zz"
        self.references[word] = reference
        return f" {word} "

    def hidden(self, kind: str, text: str) -> str:
        word = f"zz{kind}{self.first + len(self.spans)}zz"
        self.spans[word] = text
        return f" {word} "

    def link(self, match: re.Match[str]) -> str:
        url = match["url"]
        inner = _LINK_ID.match(url)
        reference = _reference_of_link(inner["host"], inner["path"]) if inner else None
        label = match.groupdict().get("label")
        if reference is None:
            return f" {label} " if label else self.hidden("url", url)
        if label:
            text_ref = _TEXT_REFERENCE.fullmatch(label.strip())
            if text_ref is None and not _LINK_ID.match(label.strip()):
                reference = Reference(reference.key, reference.type, _title(label))
        return self.reference(reference)

    def bare_link(self, match: re.Match[str]) -> str:
        url = match.group(0).rstrip(".,;:!?")
        trailing = match.group(0)[len(url):]
        reference = _reference_of_link(match["host"], match["path"].rstrip(".,;:!?"))
        if reference is None:
            return self.hidden("url", url) + trailing
        return self.reference(reference) + trailing

    def text_reference(self, match: re.Match[str]) -> str:
        reference = _reference_of_text(match)
        return match.group(0) if reference is None else self.reference(reference)


def _title(text: str) -> str:
    text = text.strip()
    if len(text) > 1 and text[0] in "\"'`“" and text[-1] in "\"'`”":
        text = text[1:-1]  # a title written in quotes
    return " ".join(text.split())


def mask(sentence: str, first: int = 0) -> Masked:
    """The sentence with references, links, code and quotations replaced by placeholders
    (numbered from ``first``, so that two masks can be read together)."""
    masker = _Masker(first)
    if "`@" in sentence:
        sentence = _ESCAPED_HANDLE.sub(r"\g<before>\g<handle>\g<end>", sentence)
    text = _INLINE_CODE.sub(lambda m: masker.hidden("code", m.group(0)), sentence)
    text = _HTML_TAG.sub(" ", text) if "<" in text else text
    if "](" in text:
        text = _MARKDOWN_LINK.sub(masker.link, text)
    if "<http" in text:
        text = _AUTOLINK.sub(masker.link, text)
    if "://" in text:
        text = _LINK_ID.sub(masker.bare_link, text)
    if any(c in text for c in "#@-") or "bug" in text.lower():
        text = _TEXT_REFERENCE.sub(masker.text_reference, text)
    if masker.references and ('"' in text or "'" in text):
        text = _titles_in_quotes(text, masker)
    if '"' in text or "'" in text:
        text = _QUOTED.sub(lambda m: masker.hidden("quote", m.group(0)), text)
    text = " ".join(text.split())
    if masker.references:
        text = _titles_beside(text, masker)
    return Masked(text, masker.references, masker.spans)


_QUOTE_THEN_REF = re.compile(r"\"(?P<title>[^\"\n]{3,200})\"\s*(?:\(\s*)?(?P<ref>zzref\d+zz)\)?")
_REF_THEN_QUOTE = re.compile(
    r"(?P<ref>zzref\d+zz)\s*(?:\((?P<alias>[^()\"\n]{0,80})\)\s*)?\(?\s*[:\-–—]?\s*"
    r"\"(?P<title>[^\"\n]{3,200})\"\s*\)?"
)


def _titles_in_quotes(text: str, masker: _Masker) -> str:
    def named(match: re.Match[str]) -> str:
        word = match["ref"]
        reference = masker.references[word]
        if reference.type == "WorkItem" and reference.title is None:
            masker.references[word] = Reference(reference.key, reference.type,
                                                 _title(match["title"]))
        return f" {word} "

    text = _QUOTE_THEN_REF.sub(named, text)
    return _REF_THEN_QUOTE.sub(named, text)


_TITLE_BEFORE_REF = re.compile(
    r"^(?P<title>[A-Z][^.;!?:()\n]{2,120}?)\s*\(\s*(?P<ref>zzref\d+zz)\s*\)\s*$"
)
_REF_THEN_TITLE = re.compile(r"^(?P<ref>zzref\d+zz)\s*(?:[:\-–—]\s*)?(?P<title>.{3,160})$")
_TITLE_THEN_REF = re.compile(r"^(?P<title>[A-Z][^.;!?:()\n]{2,160}?)\s+(?P<ref>zzref\d+zz)$")


def _titles_beside(text: str, masker: _Masker) -> str:
    """A line that is only a reference and its title (``Title (#123)``, ``#123: Title``) is
    the item's name, not a sentence to read: the title becomes the display name and the line the
    bare placeholder."""
    match = _TITLE_BEFORE_REF.match(text)
    if match is None:
        match = _REF_THEN_TITLE.match(text) or _TITLE_THEN_REF.match(text)
        if match is None or not _looks_like_title(match["title"]):
            return text
    word = match["ref"]
    reference = masker.references[word]
    if reference.type != "WorkItem" or reference.title is not None:
        return text
    masker.references[word] = Reference(reference.key, reference.type, _title(match["title"]))
    return word


def _looks_like_title(text: str) -> bool:
    """A title, not a sentence about the item: capitalised, no sentence verb words that the
    status vocabulary uses ("#123 is blocked on #124" is a sentence)."""
    words = text.split()
    if not words or not (words[0][:1].isupper() or words[0][:1] in "`\"'"):
        return False
    if _NOT_A_TITLE.fullmatch(text.strip()):
        return False  # "Fix #1178", "Part of #3": a keyword about the item, no title of it
    return not any(w.lower() in _SENTENCE_WORDS for w in words[:3])


_SENTENCE_WORDS = frozenset(
    {"is", "are", "was", "were", "has", "have", "had", "blocks", "blocked", "depends",
     "needs", "waiting", "will", "should", "can", "landed", "merged", "shipped", "fixes",
     "fixed", "closes", "closed", "resolves", "resolved", "reverted", "reverts", "duplicates",
     "by", "on"}
)


_TITLE_LINE = re.compile(
    r"^\s*#*\s*(?P<title>\S.*?)\s+(?P<ref>(?:[\w.-]+/[\w.-]+|[a-z][\w-]*)?#\d+)\s*$"
)
_NOT_A_TITLE = re.compile(
    r"^(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see|ref(?:s|erences?)?|part of|related(?: to)?"
    r"|duplicate of|dup(?:licate)?|cc|re|follow[- ]?up(?: to| of)?|blocked (?:by|on)"
    r"|depends on|needs|tracking)(?:\s+(?:also|the|this|issue|bug|pr|pull request|in|to|of"
    r"|by|on))*:?",
    re.I,
)


def title_line(line: str) -> Reference | None:
    """The item a title line names, as trackers show it: ``Title #123`` (a Markdown heading's
    marks aside) → ``Reference("#123", "WorkItem", "Title")``."""
    match = _TITLE_LINE.match(line)
    if match is None:
        return None
    title = _title(match["title"])
    other_items = "#" in title  # "Fix #1178 #1189": the last number is the item's own
    if len(title.split()) < 2 or (
            _NOT_A_TITLE.fullmatch(title) and not other_items):
        return None  # "Fixes #12", "Part of #3": a line about another item ("Fix remove_dbg
        # #5554" is a pull request's title: something follows the keyword)
    references = mask(match["ref"]).references
    reference = next(iter(references.values()), None)
    if reference is None:
        return None
    return Reference(reference.key, "WorkItem", title)


def find_references(text: str) -> list[Reference]:
    """Every tracker reference in a text, in order (titles not looked for)."""
    return list(mask(text).references.values())
