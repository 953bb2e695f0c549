from django.contrib import admin
from django.urls import include, path

from dashboard.views import api_keys

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("memory.api.urls")),
    path("settings/api-keys", api_keys.api_keys, name="api-keys"),
    path("settings/api-keys/<int:key_id>/revoke", api_keys.revoke, name="api-key-revoke"),
    path("", include("dashboard.routes")),
]

# JSON errors under /api/ (never an HTML page), Django's pages elsewhere.
handler400 = "memory.api.errors.handler400"
handler403 = "memory.api.errors.handler403"
handler404 = "memory.api.errors.handler404"
handler500 = "memory.api.errors.handler500"
