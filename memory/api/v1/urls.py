from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from memory.api import docs
from memory.api.v1 import views

# No trailing slashes (like the Zep-compatible API): a redirect would turn a POST into a GET.
urlpatterns = [
    path("graphs", views.GraphListView.as_view(), name="api-graphs"),
    path("graphs/<str:graph>", views.GraphDetailView.as_view(), name="api-graph"),
    path("graphs/<str:graph>/episodes", views.EpisodeListView.as_view(), name="api-episodes"),
    path("graphs/<str:graph>/episodes/bulk", views.EpisodeBulkView.as_view(),
         name="api-episodes-bulk"),
    path("graphs/<str:graph>/episodes/<uuid:uuid>", views.EpisodeDetailView.as_view(),
         name="api-episode"),
    path("graphs/<str:graph>/facts", views.FactListView.as_view(), name="api-facts"),
    path("graphs/<str:graph>/facts/<uuid:uuid>", views.FactDetailView.as_view(),
         name="api-fact"),
    path("graphs/<str:graph>/entities", views.EntityListView.as_view(), name="api-entities"),
    path("graphs/<str:graph>/entities/<uuid:uuid>", views.EntityDetailView.as_view(),
         name="api-entity"),
    path("graphs/<str:graph>/observations", views.ObservationListView.as_view(),
         name="api-observations"),
    path("graphs/<str:graph>/observations/retired", views.RetiredObservationListView.as_view(),
         name="api-observations-retired"),
    path("graphs/<str:graph>/observations/<uuid:uuid>", views.ObservationDetailView.as_view(),
         name="api-observation"),
    path("graphs/<str:graph>/runs", views.RunListView.as_view(), name="api-runs"),
    path("graphs/<str:graph>/runs/<uuid:uuid>", views.RunDetailView.as_view(), name="api-run"),
    path("graphs/<str:graph>/imports", views.ImportListView.as_view(), name="api-imports"),
    path("graphs/<str:graph>/imports/<uuid:uuid>", views.ImportDetailView.as_view(),
         name="api-import"),
    path("graphs/<str:graph>/search", views.SearchView.as_view(), name="api-search"),
    path("schema", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs", docs.swagger_view(url_name="api-schema"), name="api-docs"),
    path("redoc", docs.redoc_view(url_name="api-schema"), name="api-redoc"),
]
