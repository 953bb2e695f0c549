"""Display helpers for the page templates. Each escapes what it is given and marks safe only the
markup it adds itself."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from dashboard import presenters
from dashboard.presenters import generator_label, relation_phrase, writer_label
from memory.models import Episode, Observation

register = template.Library()


@register.filter
def relation(name: str) -> str:
    """``DEPENDS_ON`` → "waits on"."""
    return relation_phrase(name)


@register.filter
def generator(name: str) -> str:
    return generator_label(name)


@register.filter
def writer(observation: Observation) -> str:
    """Who wrote an observation's summary, with why the template stood in for the model."""
    return writer_label(observation.generator, observation.summary_fallback,
                        observation.summary_pending)


@register.filter
def episode_text(episode: Episode) -> str:
    """What an episode said: its text, or its JSON payload for a JSON episode."""
    if episode.type == Episode.Type.JSON:
        return json.dumps(episode.data, indent=2, sort_keys=True, ensure_ascii=False)
    return episode.content


@register.simple_tag
def highlight(text: str, sentences: Iterable[str] | str) -> SafeString:
    """``text`` escaped, with each occurrence of the supporting ``sentences`` wrapped in
    ``<mark>``. A sentence is found exactly or, failing that, ignoring case and spacing."""
    if isinstance(sentences, str):
        sentences = [sentences]
    spans: list[tuple[int, int]] = []
    for sentence in {s.strip() for s in sentences if s and s.strip()}:
        words = [re.escape(w) for w in sentence.split()]
        pattern = re.compile(r"\s+".join(words), re.IGNORECASE)
        spans.extend(m.span() for m in pattern.finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    parts: list[str] = []
    cursor = 0
    for start, end in merged:
        parts.append(conditional_escape(text[cursor:start]))
        parts.append(format_html("<mark>{}</mark>", text[start:end]))
        cursor = end
    parts.append(conditional_escape(text[cursor:]))
    # Every part above was escaped or built with format_html.
    return mark_safe("".join(parts))


@register.filter
def window(start: datetime | None, end: datetime | None) -> str:
    """"23 Nov – 27 Nov 2026", or one date when both are the same day."""
    if not start or not end:
        return ""
    start, end = timezone.localtime(start), timezone.localtime(end)
    if start.date() == end.date():
        return f"{end:%-d %b %Y}"
    if start.year == end.year:
        return f"{start:%-d %b} – {end:%-d %b %Y}"
    return f"{start:%-d %b %Y} – {end:%-d %b %Y}"


@register.filter
def plural(count: int, words: str) -> str:
    """``{{ n|plural:"person,people" }}`` → "1 person" / "3 people"."""
    singular, _, many = words.partition(",")
    return f"{count} {singular if count == 1 else (many or singular + 's')}"


@register.filter
def is_backfill(episode: Episode) -> bool:
    """Whether it reached the system well after it was written."""
    return presenters.is_backfill(episode)


@register.filter
def first_line(text: str | None) -> str:
    return presenters.first_line(text or "")


@register.filter
def seconds_until(start: datetime | None, end: datetime | None) -> float | None:
    return presenters.run_seconds(start, end)


@register.filter
def duration(seconds: float | None) -> str:
    """4 ms, 2.3 s, 1 min 12 s, 2 h 5 min."""
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


@register.filter
def retired_reason(reason: str) -> str:
    """``evidence_ended`` → "evidence ended"."""
    try:
        return str(Observation.RetiredReason(reason).label).lower()
    except ValueError:
        return reason.replace("_", " ")
