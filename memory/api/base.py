"""What every API view shares: authentication (API key, then session), the throttle, a
logged-in user, and helpers to read validated input and to render cursor pages."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from memory.api.access import get_graph
from memory.api.auth import ApiKeyAuthentication
from memory.api.errors import ApiError
from memory.api.throttling import ApiKeyRateThrottle
from memory.json_input import first_problem
from memory.models import Graph


class ApiView(APIView):
    authentication_classes = [ApiKeyAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [ApiKeyRateThrottle]
    throttle_scope = "api"

    def graph(self, request: Request, identifier: str, **kwargs: Any) -> Graph:
        return get_graph(request.user, identifier, **kwargs)

    def user(self, request: Request) -> User:
        """The logged-in user (``IsAuthenticated`` lets no anonymous request this far)."""
        if not request.user.is_authenticated:
            raise NotAuthenticated
        return request.user


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """Validate query parameters or a body; a failure is a 400 naming the field."""
    if not isinstance(data, dict) and not hasattr(data, "getlist"):
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", "The body must be a JSON object.",
                       param="body")
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def json_object(request: Request, *, checked: bool = True) -> dict[str, Any]:
    """The body, a JSON object. ``checked``: refuse it (400 naming the field) when a value in it
    cannot be stored or searched for — a NUL, an unpaired surrogate, over-deep nesting, an
    out-of-range number (``memory.json_input``). Episode writes pass ``checked=False``: the
    ingestion checks each record on its own, so one bad record does not refuse its batch."""
    data = request.data
    if not isinstance(data, dict):
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", "The body must be a JSON object.",
                       param="body")
    problem = first_problem(data) if checked else None
    if problem is not None:
        field, reason = problem
        raise ApiError(status.HTTP_400_BAD_REQUEST, "invalid", f"{field}: {reason}",
                       param=field)
    return data
