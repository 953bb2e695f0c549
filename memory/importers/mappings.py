"""Column and field mappings given by a person (``--map "customer=Organization,status=Status"``),
and what a support ticket's fields become — shared by the Zendesk and CSV importers."""

from __future__ import annotations

from collections.abc import Mapping

from memory.importers.model import Party, Statement
from memory.support import scoped


class MappingError(ValueError):
    """A mapping that names an unknown target or is written wrongly: nothing is read."""


def parse_mapping(text: str | Mapping[str, str] | None, known: tuple[str, ...],
                  *, what: str = "--map") -> dict[str, str]:
    """``"a=Column A, b=Column B"`` (or a dict) → ``{"a": "Column A", ...}``; every key must be
    one of ``known``. Column names may hold spaces; a comma inside one is not supported."""
    if not text:
        return {}
    pairs = text.items() if isinstance(text, Mapping) else (
        part.split("=", 1) if "=" in part else (part, "")
        for part in (p.strip() for p in text.split(",")) if part)
    mapping: dict[str, str] = {}
    for key, value in pairs:
        key, value = key.strip().lower(), value.strip()
        if key not in known:
            raise MappingError(f"{what}: unknown field {key!r}; known: {', '.join(known)}")
        if not value:
            raise MappingError(f"{what}: {key} names no column (write {key}=<column>)")
        mapping[key] = value
    return mapping


def customer_of(organization: str, requester: str) -> Party | None:
    """The customer of a ticket: the requester's organization, else the requester."""
    name = organization.strip() or requester.strip()
    return Party(name, "Customer") if name else None


def ended(statements: tuple[Statement, ...]) -> tuple[Statement, ...]:
    """The same statements ending (a solved ticket ends its customer's report of its issue)."""
    return tuple(Statement(s.source, s.relation, s.target, ended=True) for s in statements)


def field_statements(customer: Party | None, *, issue: str = "", product: str = "",
                     plan: str = "", brand: str | None = None) -> tuple[Statement, ...]:
    """What mapped ticket fields say: the customer reported the issue, which affects the product
    (without an issue the customer uses it), and the customer's plan. The issue and product are
    the brand's (``memory.support``)."""
    if customer is None:
        return ()
    statements = []
    issue_party = Party(scoped(issue.strip(), brand), "Issue") if issue.strip() else None
    product_party = (Party(scoped(product.strip(), brand), "Product") if product.strip()
                     else None)
    if issue_party:
        statements.append(Statement(customer, "REPORTED", issue_party))
        if product_party:
            statements.append(Statement(issue_party, "AFFECTS", product_party))
    elif product_party:
        statements.append(Statement(customer, "USES", product_party))
    if plan.strip():
        statements.append(Statement(customer, "ON_PLAN", Party(plan.strip(), "Plan")))
    return tuple(statements)
