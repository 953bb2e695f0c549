"""What every page view shares: sign-in for full pages and htmx fragments alike, and choosing
between a page and one of its fragments."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import resolve_url
from django.template.response import TemplateResponse
from django.utils.cache import patch_vary_headers
from django_htmx.http import HttpResponseClientRedirect

from dashboard.http import AuthenticatedHttpRequest

View = Callable[..., HttpResponse]


def login_required(view: View) -> View:
    """Like Django's, but an htmx request whose session ended gets a client redirect to the
    sign-in page instead of the sign-in page swapped into a fragment."""

    @wraps(view)
    def wrapper(request: AuthenticatedHttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        if request.htmx:
            login = resolve_url(settings.LOGIN_URL)
            page = request.htmx.current_url_abs_path or request.get_full_path()
            return HttpResponseClientRedirect(f"{login}?{urlencode({'next': page})}")
        return redirect_to_login(request.get_full_path())

    return wrapper


def render_page(
    request: AuthenticatedHttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    fragments: frozenset[str] = frozenset(),
    status: int = 200,
) -> TemplateResponse:
    """The whole page or, for an htmx request targeting one of the page's ``fragments`` (DOM
    ids), only that inline partial of the same template (``"page.html#<id>"``), rendered from
    the same context. Either way the response varies on ``HX-Request``, so no cache serves a
    fragment as the page."""
    name = template
    if request.htmx and request.htmx.target in fragments:
        name = f"{template}#{request.htmx.target}"
    response = TemplateResponse(request, name, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def wants_fragment(request: AuthenticatedHttpRequest, fragments: frozenset[str]) -> bool:
    """Whether ``render_page`` will render only a fragment: the view can then skip the queries
    that only the rest of the page needs."""
    return bool(request.htmx) and request.htmx.target in fragments
