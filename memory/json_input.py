"""Untrusted JSON in: decoding what clients send (API bodies, uploaded and ingested files) so that
one hostile value spoils only the record it is in, and finding it with its field and reason.

Python's ``json`` turns some inputs into exceptions that lose the whole payload — nesting deeper
than about a thousand levels (``RecursionError``), integers of more than 4,300 digits
(``ValueError``) — and accepts others that the database refuses later: ``NaN``/``Infinity`` and
floats that overflow to infinity (PostgreSQL's ``jsonb`` has neither), a NUL character (no
PostgreSQL text holds one) and unpaired surrogates such as ``"\\ud800"`` (not Unicode, so they
cannot be encoded to UTF-8 at all). ``decode`` replaces each such value with an ``Unreadable``
marker where it stands, so the rest of the payload is read as usual; ``first_problem`` finds the
first marker, NUL, surrogate or over-deep nesting in a value and names it.

The rule is to **reject, never strip**: a record with such a value is refused with the field and
the reason, and stored only when the sender fixes it — silently changing what someone wrote would
make the stored episode differ from what was said.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from json.scanner import NUMBER_RE
from typing import Any

MAX_DEPTH = 32
"""Nesting a stored value may have (objects and arrays inside a record's field)."""
DECODE_DEPTH = 200
"""Where ``decode`` stops building: deeper containers become one ``Unreadable`` marker. Far below
the interpreter's recursion limit, so later code that walks a value recursively (serializers,
the database adapter) is safe; far above ``MAX_DEPTH`` plus a payload's own envelope."""
MAX_INT_DIGITS = 4300
"""Python's own limit for converting digit strings (``sys.get_int_max_str_digits``)."""

_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


@dataclass(frozen=True)
class Unreadable:
    """A value that could not be taken as it was sent, and why."""

    reason: str


def decode(text: str) -> Any:
    """``json.loads`` that never fails or succeeds because of one value: over-deep containers,
    out-of-range numbers and ``NaN``/``Infinity`` become ``Unreadable`` markers. Malformed JSON
    still raises ``json.JSONDecodeError`` (a ``ValueError``)."""
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except RecursionError:
        # Deeper than the C decoder's recursion allows: read it again without recursion,
        # keeping everything down to DECODE_DEPTH.
        return _decode_flat(text)


def _int(digits: str) -> int | Unreadable:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        return Unreadable(f"is a number of {len(digits.lstrip('-')):,} digits; "
                          f"the limit is {MAX_INT_DIGITS:,}")
    return int(digits)


def _float(text: str) -> float | Unreadable:
    value = float(text)
    if not math.isfinite(value):
        return Unreadable(f"is a number out of range ({text[:40]})")
    return value


def _constant(name: str) -> Unreadable:
    return Unreadable(f"{name} is not a number JSON allows")


def first_problem(value: Any, where: str = "", *, max_depth: int = MAX_DEPTH
                  ) -> tuple[str, str] | None:
    """The first value (in document order) that cannot be stored, as ``(field path, reason)``:
    an ``Unreadable`` marker, text with a NUL or an unpaired surrogate (keys included), a
    container nested more than ``max_depth`` levels inside ``value`` (named by the field it is
    in: ``where``, or the top-level key). ``None`` when all is well. Walks without recursion."""
    stack: list[tuple[str, Any, int, str]] = [(where, value, 0, where)]
    while stack:
        path, item, depth, field = stack.pop()
        if isinstance(item, Unreadable):
            if item.reason.startswith("is nested"):
                return field or "body", item.reason
            return path or "body", item.reason
        if isinstance(item, str):
            reason = text_problem(item)
            if reason:
                return path or "body", reason
        elif isinstance(item, dict | list):
            if depth >= max_depth:
                return field or "body", f"is nested more than {max_depth} levels deep"
            children: list[tuple[str, Any]] = []
            if isinstance(item, dict):
                for key, child in item.items():
                    reason = text_problem(key)
                    if reason:
                        return path or "body", f"has a key that {reason}"
                    children.append((f"{path}.{key}" if path else key, child))
            else:
                children = [(f"{path}[{i}]", child) for i, child in enumerate(item)]
            stack.extend((child_path, child, depth + 1, field or child_path)
                         for child_path, child in reversed(children))
        elif isinstance(item, float) and not math.isfinite(item):
            return path or "body", "is not a finite number"
    return None


def text_problem(text: str) -> str | None:
    """Why a string cannot be stored, or None."""
    found = _BAD_TEXT.search(text)
    if found is None:
        return None
    char = found.group()
    if char == "\x00":
        return "contains a NUL character (U+0000), which cannot be stored"
    return (f"contains an unpaired surrogate (U+{ord(char):04X}), which is not valid Unicode")


# --- Decoding without recursion --------------------------------------------------------------


def _skip(text: str, pos: int) -> int:
    return _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]


def _error(message: str, text: str, pos: int) -> json.JSONDecodeError:
    return json.JSONDecodeError(message, text, min(pos, len(text)))


def _decode_flat(text: str) -> Any:
    """The same result as ``json.loads`` (with ``decode``'s markers), containers kept on an
    explicit stack instead of the call stack. Only used when the fast decoder gave up."""
    stack: list[tuple[list[Any] | dict[str, Any], str | None]] = []
    pos = _skip(text, 0)
    while True:
        value, pos, opened = _value(text, pos, len(stack))
        if opened is not None:
            pos = _skip(text, pos)
            closer = "]" if isinstance(opened, list) else "}"
            if text.startswith(closer, pos):
                value, pos = opened, pos + 1
            else:
                key = None
                if isinstance(opened, dict):
                    key, pos = _key(text, pos)
                stack.append((opened, key))
                continue
        # Attach the value to its container; close every container that ends here.
        while True:
            if not stack:
                end = _skip(text, pos)
                if end != len(text):
                    raise _error("Extra data", text, end)
                return value
            container, key = stack[-1]
            if isinstance(container, list):
                container.append(value)
            else:
                container[key] = value  # type: ignore[index]
            pos = _skip(text, pos)
            char = text[pos : pos + 1]
            if char == ",":
                pos = _skip(text, pos + 1)
                if isinstance(container, dict):
                    key, pos = _key(text, pos)
                    stack[-1] = (container, key)
                break
            if char == ("]" if isinstance(container, list) else "}"):
                stack.pop()
                value, pos = container, pos + 1
                continue
            raise _error("Expecting ',' delimiter", text, pos)


def _key(text: str, pos: int) -> tuple[str, int]:
    if not text.startswith('"', pos):
        raise _error("Expecting property name enclosed in double quotes", text, pos)
    key, pos = scanstring(text, pos + 1, True)
    pos = _skip(text, pos)
    if not text.startswith(":", pos):
        raise _error("Expecting ':' delimiter", text, pos)
    return key, _skip(text, pos + 1)


def _value(text: str, pos: int, depth: int
           ) -> tuple[Any, int, list[Any] | dict[str, Any] | None]:
    """One value at ``pos``: ``(value, end, None)``, or ``(None, after the bracket, the new
    container)`` when a container opens."""
    char = text[pos : pos + 1]
    if char in ("[", "{"):
        if depth >= DECODE_DEPTH:
            return (Unreadable(f"is nested more than {DECODE_DEPTH} levels deep"),
                    _skip_container(text, pos), None)
        return None, pos + 1, [] if char == "[" else {}
    if char == '"':
        value, end = scanstring(text, pos + 1, True)
        return value, end, None
    for literal, meaning in (("true", True), ("false", False), ("null", None)):
        if text.startswith(literal, pos):
            return meaning, pos + len(literal), None
    for constant in ("NaN", "-Infinity", "Infinity"):
        if text.startswith(constant, pos):
            return _constant(constant), pos + len(constant), None
    number = NUMBER_RE.match(text, pos)
    if number is None:
        raise _error("Expecting value", text, pos)
    integer, fraction, exponent = number.groups()
    if fraction or exponent:
        return _float(integer + (fraction or "") + (exponent or "")), number.end(), None
    return _int(integer), number.end(), None


def _skip_container(text: str, pos: int) -> int:
    """The end of the container opening at ``pos`` (strings skipped whole)."""
    depth = 0
    for token in _STRUCTURE.finditer(text, pos):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
        elif mark in ("]", "}"):
            depth -= 1
            if depth == 0:
                return token.end()
    raise _error("Unterminated array or object", text, len(text))

