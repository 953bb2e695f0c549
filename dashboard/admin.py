"""The admin site's own settings: its sign-in goes through the same login throttle as the
dashboard's, and answers 429 like it when the throttle refuses."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from dashboard.forms import AdminLoginForm

admin.site.login_form = AdminLoginForm
admin.site.site_header = "Observations — admin audit"
admin.site.site_title = "Observations admin"
admin.site.index_title = "Evidence, runs and model calls"

_admin_login = admin.site.login


def login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    response = _admin_login(request, extra_context)
    form = (getattr(response, "context_data", None) or {}).get("form")
    if request.method == "POST" and isinstance(form, AdminLoginForm) and form.throttled:
        response.status_code = 429  # Too Many Requests, as the dashboard's sign-in says
    return response


admin.site.login = login  # type: ignore[method-assign]
