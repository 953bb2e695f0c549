"""The API keys page: a user creates keys (the full key is shown once, on the page that created
it) and revokes them. Keys act as their user, on the user's graphs, with the user's roles."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_http_methods, require_POST

from memory.api.keys import create_api_key, keys_of, revoke_api_key
from memory.models import ApiKey

MAX_NAME = 100


def _login_url() -> str:
    try:
        return reverse(settings.LOGIN_URL)
    except NoReverseMatch:
        return reverse("admin:login")


@require_http_methods(["GET", "POST"])
def api_keys(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), _login_url())
    created = None
    error = ""
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        if not name:
            error = "Give the key a name, e.g. the script or agent that will use it."
        elif len(name) > MAX_NAME:
            error = f"The name is {len(name)} characters; the limit is {MAX_NAME}."
        else:
            key, raw = create_api_key(request.user, name)
            created = {"key": key, "raw": raw}
    response = render(request, "dashboard/api_keys.html", {
        "keys": keys_of(request.user), "created": created, "error": error,
    }, status=400 if error else 200)
    if created:
        response["Cache-Control"] = "no-store"
    return response


@require_POST
def revoke(request: HttpRequest, key_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("api-keys"), _login_url())
    key = get_object_or_404(ApiKey, pk=key_id, user=request.user)
    revoke_api_key(key)
    return redirect("api-keys")
