"""The native API, ``/api/v1/`` (OpenAPI at ``/api/v1/schema``, docs at ``/api/v1/docs``)."""
