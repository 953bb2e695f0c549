"""Zendesk: a ticket's ``brand_id`` that is not a number — a list or a string in a hand-made or
damaged export — means no brand, and the ticket is still imported. Found by the type check: a
brand was looked up by whatever the field held, and a list refused the whole ticket with
"unhashable type: 'list'"."""

from __future__ import annotations

import json

import pytest

from memory.importers import zendesk


def export_with_brand_id(brand_id: object) -> bytes:
    page = {
        "tickets": [
            {
                "id": 1,
                "subject": "Export fails",
                "status": "open",
                "created_at": "2026-11-02T09:00:00Z",
                "brand_id": brand_id,
            }
        ],
        "brands": [{"id": 360000, "name": "Nimbus"}],
    }
    return json.dumps(page).encode()


def test_a_ticket_of_a_known_brand_number_carries_the_brand() -> None:
    (ticket,) = zendesk.read(export_with_brand_id(360000)).items
    assert ticket.source == "zendesk:Nimbus"


@pytest.mark.parametrize("brand_id", [["360000"], {"id": 360000}, "360000", 3.5])
def test_a_ticket_whose_brand_id_is_not_a_number_is_imported_without_a_brand(
    brand_id: object,
) -> None:
    result = zendesk.read(export_with_brand_id(brand_id))
    assert result.problems == []
    (ticket,) = result.items
    assert ticket.source == "zendesk"
