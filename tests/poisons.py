"""Poisoned records, as raw JSON text (a 100,000-level nesting cannot even be built with
``json.dumps``): one value the database, the encoder or the decoder cannot take. Each comes with
the field the rejection must name and the start of its reason."""

from __future__ import annotations

import json
from typing import Any

DEEP = "[" * 100_000 + "]" * 100_000


def raw(record: dict[str, Any], **raw_fields: str) -> str:
    """``record`` as JSON with ``raw_fields`` spliced in as they are (already JSON)."""
    text = json.dumps(record)
    for name, value in raw_fields.items():
        text = text[:-1] + f', "{name}": {value}}}'
    return text


BASE = {"author": "Mallory", "reference_time": "2026-11-23T09:00:00+00:00"}

POISONS: list[tuple[str, str, str, str]] = [
    # (case, record as JSON text, field, reason starts with)
    ("NUL in content", json.dumps({**BASE, "content": "blocked\u0000on auth"}),
     "content", "contains a NUL character"),
    ("lone surrogate in author", raw({"reference_time": BASE["reference_time"],
                                      "content": "fine"}, author='"Mall\\ud800ory"'),
     "author", "contains an unpaired surrogate (U+D800)"),
    ("100k-deep data", raw({**BASE, "type": "json"}, data='{"payload": ' + DEEP + "}"),
     "data", "is nested more than 32 levels deep"),
    ("100k-deep facts", raw({**BASE, "content": "fine"}, facts=DEEP),
     "facts", "is nested more than 32 levels deep"),
    ("NUL in a fact", json.dumps({**BASE, "content": "fine", "facts": [
        {"source": "A\u0000", "relation": "DEPENDS_ON", "target": "B"}]}),
     "facts[0].source", "contains a NUL character"),
    ("infinite number in data", raw({**BASE, "type": "json"}, data='{"n": 1e999}'),
     "data.n", "is a number out of range"),
    ("NaN in data", raw({**BASE, "type": "json"}, data='{"n": NaN}'),
     "data.n", "NaN is not a number JSON allows"),
    ("5000-digit external id", raw({**BASE, "content": "fine"}, external_id="9" * 5000),
     "external_id", "is a number of 5,000 digits"),
]
