from django.urls import include, path

urlpatterns = [
    path("v1/", include("memory.api.v1.urls")),
    path("v4/", include("memory.api.zep.urls")),
]
