"""Authentication: API keys for programs (``Authorization: Api-Key <key>`` — what Zep's SDK sends
— or ``Authorization: Bearer <key>``), sessions for the browser."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from memory.api.keys import authenticate_key

SCHEMES = ("api-key", "bearer")


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = get_authorization_header(request).split()
        if not header or header[0].decode("latin-1").lower() not in SCHEMES:
            return None
        if len(header) != 2:
            raise AuthenticationFailed(
                "Malformed Authorization header; send 'Api-Key <key>' or 'Bearer <key>'."
            )
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed("Invalid API key.") from None
        key = authenticate_key(raw)
        if key is None:
            raise AuthenticationFailed("Invalid or revoked API key.")
        return key.user, key

    def authenticate_header(self, request: Request) -> str:
        return 'Api-Key realm="api"'


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "memory.api.auth.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Api-Key <key>` or `Bearer <key>`; create keys on the API keys page "
                           "or with `manage.py create_api_key USERNAME`.",
        }
