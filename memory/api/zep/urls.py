"""Paths exactly as the zep-cloud 4.0.1 SDK builds them (no trailing slash). ``graphs/list`` and
``graphs/lookup`` come before ``graphs/<graph_uuid>``."""

from django.urls import path, re_path

from memory.api.zep import views

G = "graphs/<str:graph_uuid>"

urlpatterns = [
    path("graphs", views.GraphCreateView.as_view(), name="zep-graph-create"),
    path("graphs/list", views.GraphListView.as_view(), name="zep-graph-list"),
    path("graphs/lookup", views.GraphLookupView.as_view(), name="zep-graph-lookup"),
    path(G, views.GraphDetailView.as_view(), name="zep-graph"),
    path(f"{G}/episodes", views.EpisodeAddView.as_view(), name="zep-episode-add"),
    path(f"{G}/episodes/list", views.EpisodeListView.as_view(), name="zep-episode-list"),
    path(f"{G}/episodes/<uuid:episode_uuid>", views.EpisodeDetailView.as_view(),
         name="zep-episode"),
    path(f"{G}/edges/list", views.EdgeListView.as_view(), name="zep-edge-list"),
    path(f"{G}/edges/<uuid:edge_uuid>", views.EdgeDetailView.as_view(), name="zep-edge"),
    path(f"{G}/nodes/list", views.NodeListView.as_view(), name="zep-node-list"),
    path(f"{G}/nodes/<uuid:node_uuid>", views.NodeDetailView.as_view(), name="zep-node"),
    path(f"{G}/observations/list", views.ObservationListView.as_view(),
         name="zep-observation-list"),
    path(f"{G}/observations/<uuid:observation_uuid>", views.ObservationDetailView.as_view(),
         name="zep-observation"),
    re_path(r"^graphs/(?P<graph_uuid>[^/]+)/search/(?P<scope>observations|edges|nodes|episodes)$",
            views.SearchView.as_view(), name="zep-search"),
    path(f"{G}/context", views.ContextView.as_view(), name="zep-context"),
    path("tasks/<uuid:task_uuid>", views.TaskView.as_view(), name="zep-task"),
]
