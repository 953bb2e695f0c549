"""Signing in and out: Django's own views, with the login throttle on the form."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpResponse

from dashboard.forms import LoginForm


class LoginView(auth_views.LoginView):
    template_name = "dashboard/login.html"
    authentication_form = LoginForm

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if form.throttled:
            response.status_code = 429  # Too Many Requests: say so to scripts, too
        return response


login = LoginView.as_view()
logout = auth_views.LogoutView.as_view()
