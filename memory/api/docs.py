"""The API's documentation pages (Swagger UI and Redoc from drf-spectacular's sidecar, served from
our own static files), made to work under the site's CSP instead of loosening it site-wide.

Swagger UI's start-up script is inline in drf-spectacular's default page; the split view serves
it as a separate script. Redoc writes ``<style>`` elements at run time (styled-components) and
starts its search index in a ``blob:`` worker: its page allows styles carrying the response's
nonce, which Redoc is given, and blob: workers — nothing else changes. Its sidebar's "API docs
by Redocly" logo is an image on cdn.redoc.ly: the CSP blocks it (no request leaves) and Redoc
hides it."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.conf import settings
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView


def swagger_view(**kwargs: Any) -> Any:
    return SpectacularSwaggerSplitView.as_view(template_name="api/swagger_ui.html", **kwargs)


REDOC_LOAD_STYLES = [
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
    "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",
]
"""The two ``<style>`` elements redoc.standalone.js (drf-spectacular-sidecar 2026.10.1) writes
while it loads, before it can be given the nonce: allowed by their hashes. When the bundle
changes, tests/api/test_docs.py fails naming the new ones."""


def redoc_view(**kwargs: Any) -> Any:
    policy: dict[str, Collection[str] | str] = {
        **settings.SECURE_CSP, "style-src": [CSP.SELF, CSP.NONCE, *REDOC_LOAD_STYLES],
        "worker-src": [CSP.SELF, "blob:"]}
    return csp_override(policy)(
        SpectacularRedocView.as_view(template_name="api/redoc.html", **kwargs))
