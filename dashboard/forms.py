"""Forms of the pages. Query strings are validated here too: a view reads ``cleaned_data``, never
``request.GET`` directly, and a bad value shows as a field error instead of a 500."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.utils import timezone

from dashboard import throttle
from memory.models import Observation

# --- Signing in ---------------------------------------------------------------------------------


class ThrottledLoginMixin:
    """Refuses sign-in attempts once a username or an address has failed too often."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": "Too many failed sign-ins. Wait a few minutes and try again.",
    }

    def clean(self) -> dict[str, Any]:
        form: AuthenticationForm = self  # type: ignore[assignment]
        username = form.cleaned_data.get("username") or ""
        if throttle.is_throttled(form.request, username):
            raise forms.ValidationError(self.error_messages["throttled"], code="throttled")
        try:
            cleaned = super().clean()  # type: ignore[misc]
        except forms.ValidationError as error:
            if any(e.code == "invalid_login" for e in error.error_list):
                throttle.record_failure(form.request, username)
            raise
        throttle.clear(form.request, username)
        return cleaned

    @property
    def throttled(self) -> bool:
        form: AuthenticationForm = self  # type: ignore[assignment]
        return any(e.code == "throttled" for e in form.non_field_errors().as_data())


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "throttled": ThrottledLoginMixin.error_messages["throttled"],
    }


# --- Query strings ------------------------------------------------------------------------------


class QueryForm(forms.Form):
    """A form over a query string. Invalid fields fall back to their default (and show an
    error), so a hand-edited URL still renders a page; ``canonical_query`` rebuilds the URL from
    the values in effect, leaving out defaults, so shared links stay short."""

    defaults: dict[str, Any] = {}

    def values(self) -> dict[str, Any]:
        self.is_valid()
        cleaned = getattr(self, "cleaned_data", {})
        values = dict(self.defaults)
        for name in self.fields:
            if name in self.errors:
                continue
            value = cleaned.get(name)
            if value not in (None, "", []):
                values[name] = value
        return values

    def canonical_query(self, **overrides: Any) -> str:
        values = {**self.values(), **overrides}
        pairs = []
        for name in self.fields:
            value = values.get(name)
            if value in (None, "") or value == self.defaults.get(name):
                continue
            pairs.append((name, value.isoformat() if hasattr(value, "isoformat") else value))
        return urlencode(pairs)


class BoardFilterForm(QueryForm):
    """The board's filters and sort (DESIGN §7: state in the URL)."""

    SORTS = [
        ("reach", "Unblock reach"),
        ("latest", "Latest evidence"),
        ("newest", "Newest"),
    ]
    STATUSES = [("active", "Active"), ("retired", "Retired")]
    defaults = {"status": "active", "sort": "reach", "page": 1}

    q = forms.CharField(required=False, max_length=200, label="Search")
    kind = forms.ChoiceField(
        required=False, choices=[("", "All kinds"), *Observation.Kind.choices], label="Kind"
    )
    entity = forms.UUIDField(required=False, label="Entity")
    """Any entity of the graph by uuid (the cards link to theirs); the page offers those most
    observations involve (``selectors.entity_choices``)."""
    since = forms.DateField(required=False, label="Changed since")
    status = forms.ChoiceField(required=False, choices=STATUSES, label="Status")
    sort = forms.ChoiceField(required=False, choices=SORTS, label="Sort by")
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def since_moment(self) -> datetime | None:
        since = self.values().get("since")
        return start_of_day(since) if since else None


class RetiredFilterForm(QueryForm):
    REASONS = [("", "Any reason"), *Observation.RetiredReason.choices]

    reason = forms.ChoiceField(required=False, choices=REASONS, label="Reason")
    since = forms.DateField(required=False, label="Retired from")
    until = forms.DateField(required=False, label="Retired until")
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    defaults = {"page": 1}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and until < since:
            self.add_error("until", "The end date is before the start date.")
        return cleaned


class RunProgressForm(QueryForm):
    """Which run the board's progress bar watches."""

    run = forms.UUIDField(required=False)


class ObservationStateForm(QueryForm):
    """What is expanded on an observation's page: the evidence trail of one claim."""

    claim = forms.IntegerField(required=False, min_value=0, max_value=10_000)


def start_of_day(day: Any) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def end_of_day(day: Any) -> datetime:
    return start_of_day(day) + timedelta(days=1)
