"""The HTTP APIs: the native API (``v1/``, OpenAPI documented) and a Zep v4-compatible subset
(``zep/``), sharing authentication, access, errors, pagination, throttling and idempotency.

Views are thin: they validate input, ask ``memory.api.access`` for the graph, call a service or a
selector, and render the output. The logic lives in ``memory.ingestion``, ``memory.selectors``,
``memory.search``, ``memory.pipeline`` and ``memory.api.services``.
"""
