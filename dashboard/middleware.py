"""Requests refused before any view sees them."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest

from memory.api.errors import API_PREFIX, json_error

NUL = "\x00"


def refuse_nul_in_path(get_response: Callable[[HttpRequest], HttpResponse]
                       ) -> Callable[[HttpRequest], HttpResponse]:
    """A path with a NUL (``%00``) is a 400. Path segments become lookups (a graph's slug, a
    uuid), and PostgreSQL refuses any text holding a NUL with an error that was a 500; no path
    of ours can contain one. (Query strings and bodies are validated field by field: forms and
    serializers refuse NULs, ``memory.json_input`` finds them in JSON.)"""

    def middleware(request: HttpRequest) -> HttpResponse:
        if NUL in request.path:
            message = "The path contains a NUL character (%00)."
            if request.path.startswith(API_PREFIX):
                return json_error(request, 400, "bad_request", message, param="path")
            return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return get_response(request)

    return middleware
