"""Date ranges in the list filters: a range that ends before it starts is refused, on every form
that takes one."""

from __future__ import annotations

import pytest

from dashboard.forms import EpisodeFilterForm, RetiredFilterForm, TimelineForm


@pytest.mark.parametrize(
    ("form_class", "first", "last"),
    [(EpisodeFilterForm, "since", "until"), (RetiredFilterForm, "since", "until"),
     (TimelineForm, "start", "end")],
)
def test_a_range_ending_before_it_starts_is_an_error_on_its_end(
    form_class: type, first: str, last: str
) -> None:
    backwards = form_class({first: "2026-11-20", last: "2026-11-10"})
    forwards = form_class({first: "2026-11-10", last: "2026-11-20"})

    assert not backwards.is_valid()
    assert backwards.errors[last] == ["The end date is before the start date."]
    assert forwards.is_valid(), forwards.errors


def test_the_timeline_refuses_more_days_than_it_shows() -> None:
    form = TimelineForm({"start": "2025-01-01", "end": "2026-11-10"})
    assert not form.is_valid()
    assert form.errors["end"] == [f"Show at most {TimelineForm.MAX_DAYS} days at once."]


EXTREME_DATE_URLS = [
    "/g/project-atlas/weekly/9999-W52",
    "/g/project-atlas/weekly/0001-W01",
    "/g/project-atlas/weekly/9999-W52.csv",
    "/g/project-atlas/weekly/0001-W01.md",
    "/g/project-atlas/timeline?end=9999-12-31",
    "/g/project-atlas/timeline?start=0001-01-01",
    "/g/project-atlas/timeline?as_of=9999-12-31",
    "/g/project-atlas/timeline?as_of=0001-01-01",
    "/g/project-atlas/retired?until=9999-12-31",
    "/g/project-atlas/retired?since=0001-01-01",
    "/g/project-atlas/episodes?until=9999-12-31",
    "/g/project-atlas/episodes?since=0001-01-01",
    "/g/project-atlas/?since=0001-01-01",
    "/g/project-atlas/?since=9999-12-31",
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", EXTREME_DATE_URLS)
def test_the_first_and_last_days_python_knows_are_refused_not_a_500(
    client, graph, member, url: str
) -> None:
    client.force_login(member)

    response = client.get(url)

    assert response.status_code in {200, 404}, response.status_code


@pytest.mark.parametrize("form_class", [EpisodeFilterForm, RetiredFilterForm])
def test_a_date_outside_the_supported_years_is_a_field_error(form_class: type) -> None:
    form = form_class({"since": "0001-01-01", "until": "9999-12-31"})

    assert not form.is_valid()
    assert form.errors["since"] == ["Enter a date from 0002-01-01 to 9998-12-31."]
    assert form.errors["until"] == ["Enter a date from 0002-01-01 to 9998-12-31."]
