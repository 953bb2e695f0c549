"""Errors as JSON, always: ``{"error": {"code", "message", "param", "details"}}`` with the right
4xx — never an HTML page, never a 500 for bad input. The Zep-compatible API adds ``request_id``
(its SDK parses the same ``error`` object, every field optional)."""

from __future__ import annotations

import logging
import math
import uuid
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
ZEP_PREFIX = "/api/v4/"


class ApiError(exceptions.APIException):
    """An error with a stable code, the parameter it is about, and details."""

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        *,
        param: str | None = None,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.param = param
        self.details = details or {}
        self.headers = headers or {}


def error_body(
    code: str,
    message: str,
    *,
    param: str | None = None,
    details: dict[str, Any] | None = None,
    zep: bool = False,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": code, "message": message, "param": param, "details": details or {},
    }
    if zep:
        body["request_id"] = uuid.uuid4().hex
    return {"error": body}


def _first_error(detail: Any, path: str = "") -> tuple[str | None, str]:
    """The first field named in a DRF validation error and its message."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            joined = f"{path}.{name}" if path and name else (name or path)
            return _first_error(value, joined)
    if isinstance(detail, list) and detail:
        first = detail[0]
        if isinstance(first, dict | list):
            return _first_error(first, f"{path}[0]" if path else "")
        return path or None, str(first)
    return path or None, str(detail)


def _plain(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {str(k): _plain(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_plain(v) for v in detail]
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler: every API exception becomes the JSON error body."""
    request = context.get("request")
    zep = bool(request is not None and request.path.startswith(ZEP_PREFIX))
    headers: dict[str, str] = {}
    if isinstance(exc, ApiError):
        code, message, param, details, status_code = (
            exc.code, exc.message, exc.param, exc.details, exc.status_code,
        )
        headers.update(exc.headers)
    elif isinstance(exc, Http404 | exceptions.NotFound):
        code, message, param, details, status_code = (
            "not_found", _not_found_message(exc), None, {}, 404,
        )
    elif isinstance(exc, RequestDataTooBig):
        code, message, param, details, status_code = (
            "payload_too_large", "The request body is larger than the server accepts.", None,
            {}, 413,
        )
    elif isinstance(exc, DjangoPermissionDenied):
        code, message, param, details, status_code = (
            "permission_denied", str(exc) or "You may not do this.", None, {}, 403,
        )
    elif isinstance(exc, exceptions.ValidationError):
        param, message = _first_error(exc.detail)
        details = {"fields": _plain(exc.detail)}
        code, status_code = "invalid", 400
        if param:
            message = f"{param}: {message}"
    elif isinstance(exc, exceptions.Throttled):
        # Throttled sets ``wait`` in __init__; djangorestframework-stubs 3.18.1 leave it out.
        wait_for = exc.wait  # type: ignore[attr-defined]
        wait = math.ceil(wait_for) if wait_for is not None else 1
        headers["Retry-After"] = str(wait)
        code, message, param, details, status_code = (
            "throttled", f"Too many requests; retry in {wait} s.", None, {"retry_after": wait},
            429,
        )
    elif isinstance(exc, exceptions.APIException):
        status_code = exc.status_code
        code = {
            401: "unauthorized", 403: "permission_denied", 405: "method_not_allowed",
            406: "not_acceptable", 415: "unsupported_media_type",
        }.get(status_code, str(getattr(exc, "default_code", "error")))
        if isinstance(exc, exceptions.ParseError):
            code = "malformed_request"
        message, param, details = str(exc.detail), None, {}
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            status_code = 401
            param = "Authorization"
    else:
        return None
    response = Response(
        error_body(code, message, param=param, details=details, zep=zep),
        status=status_code,
        headers=headers,
    )
    if status_code == 401:
        authenticate = (
            getattr(context.get("view"), "get_authenticate_header", None)
        )
        value = authenticate(request) if authenticate and request is not None else None
        response["WWW-Authenticate"] = value or 'Api-Key realm="api"'
    return response


def _not_found_message(exc: Exception) -> str:
    text = str(exc)
    if not text or text in {"Not found.", "No  matches the given query."}:
        return "Not found."
    return text


# --- Django's handlers, JSON under /api/ ---------------------------------------------------


def json_error(request: HttpRequest, status_code: int, code: str, message: str, *,
               param: str | None = None) -> HttpResponse:
    """The API's error body outside DRF (Django's handlers, middleware)."""
    zep = request.path.startswith(ZEP_PREFIX)
    return JsonResponse(error_body(code, message, param=param, zep=zep), status=status_code)


_json_error = json_error


def handler400(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return _json_error(request, 400, "bad_request", "The request could not be understood.")
    return defaults.bad_request(request, exception)


def handler403(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return _json_error(request, 403, "permission_denied", "You may not do this.")
    return defaults.permission_denied(request, exception)


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return _json_error(
            request, 404, "not_found", f"No API endpoint at {request.path} (paths have no "
            "trailing slash)."
        )
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return _json_error(request, 500, "internal_error", "Something went wrong on our side.")
    return defaults.server_error(request)


def method_not_allowed(method: str, message: str) -> ApiError:
    return ApiError(status.HTTP_405_METHOD_NOT_ALLOWED, "method_not_allowed", message,
                    details={"method": method})
