"""Cursor pagination with opaque, signed cursors.

*Keyset* pages for lists: the cursor holds the sort values of the last row, so a page costs one
query (plus the list's prefetches) however deep it is, and rows added meanwhile never shift a page.
*Offset* pages for ranked search results, whose order is a score.

A cursor is signed (``django.core.signing``): a tampered or foreign cursor is a 400 naming
``cursor``, never a 500. A cursor is bound to the list it came from (its ordering).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core import signing
from django.db.models import Field, Model, Q, QuerySet
from rest_framework import status

from memory.api.errors import ApiError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
SALT = "memory.api.cursor"


@dataclass
class Page[T]:
    items: list[T]
    next_cursor: str | None


def invalid_cursor() -> ApiError:
    return ApiError(status.HTTP_400_BAD_REQUEST, "invalid_cursor",
                    "cursor is not a cursor this list returned.", param="cursor")


def page_size(value: Any, *, default: int = DEFAULT_PAGE_SIZE, maximum: int = MAX_PAGE_SIZE,
              param: str = "page_size") -> int:
    if value in (None, ""):
        return default
    try:
        size = int(value)
    except (TypeError, ValueError):
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", f"{param} must be an integer.",
                       param=param) from None
    if not 1 <= size <= maximum:
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid",
                       f"{param} must be between 1 and {maximum}.", param=param)
    return size


def _tag(ordering: list[str]) -> str:
    return hashlib.sha256(",".join(ordering).encode()).hexdigest()[:8]


def _encode_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, int | float | str) or value is None:
        return value
    return str(value)


def keyset_page(
    queryset: QuerySet[Any], ordering: list[str], cursor: str | None, size: int
) -> Page[Any]:
    """One page of ``queryset`` in ``ordering`` (field names, ``-`` for descending; the last must
    be unique, e.g. ``pk`` or ``uuid``). One query plus the queryset's prefetches."""
    model: type[Model] = queryset.model
    if cursor:
        queryset = queryset.filter(_after(model, ordering, _decode(cursor, ordering)))
    rows = list(queryset.order_by(*ordering)[: size + 1])
    if len(rows) <= size:
        return Page(rows, None)
    rows = rows[:size]
    last = rows[-1]
    values = [_encode_value(getattr(last, name.lstrip("-"))) for name in ordering]
    token = signing.dumps({"t": _tag(ordering), "v": values}, salt=SALT, compress=True)
    return Page(rows, token)


def _decode(cursor: str, ordering: list[str]) -> list[Any]:
    try:
        data = signing.loads(cursor, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError):
        raise invalid_cursor() from None
    if not isinstance(data, dict) or data.get("t") != _tag(ordering):
        raise invalid_cursor()
    values = data.get("v")
    if not isinstance(values, list) or len(values) != len(ordering):
        raise invalid_cursor()
    return values


def _after(model: type[Model], ordering: list[str], values: list[Any]) -> Q:
    parsed = []
    for name, value in zip(ordering, values, strict=True):
        field = model._meta.get_field("id" if name.lstrip("-") == "pk" else name.lstrip("-"))
        if not isinstance(field, Field):
            raise TypeError(f"{model.__name__}.{name} is a relation, not a column to order by")
        try:
            parsed.append(field.to_python(value))
        except Exception:
            raise invalid_cursor() from None
    condition = Q()
    for i, name in enumerate(ordering):
        column = name.lstrip("-")
        step = Q(**{f"{column}__{'lt' if name.startswith('-') else 'gt'}": parsed[i]})
        for j in range(i):
            step &= Q(**{ordering[j].lstrip("-"): parsed[j]})
        condition |= step
    return condition


def offset_cursor(offset: int, key: str) -> str:
    return signing.dumps({"o": offset, "k": key}, salt=SALT)


def read_offset(cursor: str | None, key: str) -> int:
    """The offset a search cursor holds; ``key`` binds it to the same query."""
    if not cursor:
        return 0
    try:
        data = signing.loads(cursor, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError):
        raise invalid_cursor() from None
    if not isinstance(data, dict) or data.get("k") != key or not isinstance(data.get("o"), int):
        raise invalid_cursor()
    return max(0, data["o"])
