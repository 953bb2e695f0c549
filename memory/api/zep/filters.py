"""Zep's list and search ``filters`` → our queries. What we do not support is refused with
``400 unsupported_filter`` naming the filter (as Zep itself does), never silently ignored."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db.models import Q
from rest_framework import status

from memory.api.errors import ApiError

DATE_OPERATORS = {"eq": "exact", "gt": "gt", "lt": "lt", "gte": "gte", "lte": "lte"}


def bad(param: str, message: str, code: str = "invalid") -> ApiError:
    return ApiError(status.HTTP_400_BAD_REQUEST, code, f"{param}: {message}", param=param)


def unsupported(name: str, where: str) -> ApiError:
    return ApiError(status.HTTP_400_BAD_REQUEST, "unsupported_filter",
                    f"filters.{name} is not supported by {where} on this server.",
                    param=f"filters.{name}")


def filters_of(body: dict[str, Any], supported: set[str], where: str) -> dict[str, Any]:
    """The ``filters`` object of a body, refusing the ones ``where`` does not support."""
    filters = body.get("filters")
    if filters is None:
        return {}
    if not isinstance(filters, dict):
        raise bad("filters", "must be an object")
    for name, value in filters.items():
        if value in (None, [], {}):
            continue
        if name not in supported:
            raise unsupported(name, where)
    return {k: v for k, v in filters.items() if v not in (None, [], {})}


def uuid_list(value: Any, param: str, limit: int = 256) -> list[uuid.UUID]:
    if not isinstance(value, list) or len(value) > limit:
        raise bad(param, f"must be a list of at most {limit} UUIDs")
    try:
        return [uuid.UUID(str(v)) for v in value]
    except ValueError:
        raise bad(param, "must contain only UUIDs") from None


def string_list(value: Any, param: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad(param, "must be a list of strings")
    return value


def date_filters(value: Any, fields: dict[str, str], param: str = "filters.date_filters") -> Q:
    """``{"any_of": [{"all_of": [{"field", "operator", "value"}]}]}`` → a Q; ``fields`` maps
    Zep's field names to ours."""
    if not isinstance(value, dict) or not isinstance(value.get("any_of", []), list):
        raise bad(param, "must be {any_of: [{all_of: [...]}]}")
    any_q = Q()
    for i, group in enumerate(value.get("any_of") or []):
        where = f"{param}.any_of[{i}]"
        if not isinstance(group, dict) or not isinstance(group.get("all_of", []), list):
            raise bad(where, "must be {all_of: [...]}")
        all_q = Q()
        for j, item in enumerate(group.get("all_of") or []):
            all_q &= _date_condition(item, fields, f"{where}.all_of[{j}]")
        any_q |= all_q
    return any_q


def _date_condition(item: Any, fields: dict[str, str], where: str) -> Q:
    if not isinstance(item, dict):
        raise bad(where, "must be {field, operator, value}")
    name = item.get("field")
    field = fields.get(name) if isinstance(name, str) else None
    if field is None:
        raise bad(f"{where}.field", f"must be one of {', '.join(fields)}")
    operator = item.get("operator")
    if not isinstance(operator, str):
        raise bad(f"{where}.operator", "must be eq, ne, gt, lt, gte, lte, is_null or is_not_null")
    if operator == "is_null":
        return Q(**{f"{field}__isnull": True})
    if operator == "is_not_null":
        return Q(**{f"{field}__isnull": False})
    if operator not in DATE_OPERATORS and operator != "ne":
        raise bad(f"{where}.operator", "must be eq, ne, gt, lt, gte, lte, is_null or is_not_null")
    moment = parse_time(item.get("value"), f"{where}.value")
    if operator == "ne":
        return ~Q(**{field: moment})
    return Q(**{f"{field}__{DATE_OPERATORS[operator]}": moment})


def parse_time(value: Any, param: str) -> datetime:
    if not isinstance(value, str):
        raise bad(param, "must be an RFC 3339 timestamp")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise bad(param, f"{value!r} is not an RFC 3339 timestamp") from None
    if moment.tzinfo is None:
        raise bad(param, f"{value!r} has no UTC offset")
    return moment


PROPERTY_OPERATORS = {"eq", "ne", "in"}


def property_filters(value: Any, properties: dict[str, type | tuple[str, ...]],
                     param: str = "filters.property_filters") -> tuple[Q, set[str]]:
    """``[{"property_name", "operator", "value"}]`` → (Q, names used). ``properties`` says what
    each property's values are: a type (``int``) or the strings it may take; a value of another
    type is a 400 naming it, never a query the database chokes on."""
    if not isinstance(value, list):
        raise bad(param, "must be a list")
    q, used = Q(), set()
    for i, item in enumerate(value):
        where = f"{param}[{i}]"
        name = item.get("property_name") if isinstance(item, dict) else None
        if not isinstance(name, str) or name not in properties:
            raise bad(f"{where}.property_name", f"must be one of {', '.join(sorted(properties))}")
        operator, target = item.get("operator"), item.get("value")
        if not isinstance(operator, str) or operator not in PROPERTY_OPERATORS:
            raise bad(f"{where}.operator", "must be eq, ne or in")
        kind = properties[name]
        if operator == "in":
            if not isinstance(target, list) or not all(_fits(v, kind) for v in target):
                raise bad(f"{where}.value", f"must be a list of {_describe(kind)} for in")
            q &= Q(**{f"{name}__in": target})
            used.add(name)
            continue
        if not _fits(target, kind):
            raise bad(f"{where}.value", f"must be {_describe(kind)}")
        q &= Q(**{name: target}) if operator == "eq" else ~Q(**{name: target})
        used.add(name)
    return q, used


def _fits(value: Any, kind: type | tuple[str, ...]) -> bool:
    if isinstance(kind, tuple):
        return isinstance(value, str) and value in kind
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool) and -2**31 < value < 2**31
    return isinstance(value, kind)


def _describe(kind: type | tuple[str, ...]) -> str:
    if isinstance(kind, tuple):
        return "one of " + ", ".join(kind)
    return "an integer" if kind is int else kind.__name__
