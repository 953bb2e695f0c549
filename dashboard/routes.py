"""The pages. Every graph page is under ``/g/<slug>/``; fragments have their own routes only when
they are not a part of a page's URL (the progress polls). Writes are POSTs to their own URLs."""

from django.templatetags.static import static
from django.urls import path, register_converter
from django.views.generic import RedirectView

from dashboard.converters import IsoWeekConverter
from dashboard.views import (
    accounts,
    board,
    entity,
    episodes,
    graph_settings,
    home,
    merges,
    observation,
    retired,
    runs,
    timeline,
    weekly,
)

register_converter(IsoWeekConverter, "isoweek")

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", accounts.login, name="login"),
    path("logout/", accounts.logout, name="logout"),
    path("g/<slug:slug>/", board.board, name="board"),
    path("g/<slug:slug>/progress", board.run_progress, name="run-progress"),
    path("g/<slug:slug>/o/<uuid:uuid>", observation.observation_detail, name="observation"),
    path("g/<slug:slug>/o/<uuid:uuid>/tickets.csv", observation.observation_tickets_csv,
         name="observation-tickets-csv"),
    path("g/<slug:slug>/retired", retired.retired, name="retired"),
    # The weekly review: one page per ISO week, its exports beside it.
    path("g/<slug:slug>/weekly", weekly.current_week, name="weekly-current"),
    path("g/<slug:slug>/weekly/", weekly.current_week),
    path("g/<slug:slug>/weekly/<isoweek:week>", weekly.weekly_review, name="weekly"),
    path("g/<slug:slug>/weekly/<isoweek:week>.md", weekly.markdown_export, name="weekly-markdown"),
    path("g/<slug:slug>/weekly/<isoweek:week>.csv", weekly.csv_export, name="weekly-csv"),
    path("g/<slug:slug>/timeline", timeline.timeline, name="timeline"),
    path("g/<slug:slug>/e/<uuid:uuid>", entity.entity_detail, name="entity"),
    path("g/<slug:slug>/merges", merges.merges, name="merges"),
    path("g/<slug:slug>/merges/suggestions/<int:suggestion_id>/accept", merges.accept,
         name="merge-accept"),
    path("g/<slug:slug>/merges/suggestions/<int:suggestion_id>/reject", merges.reject,
         name="merge-reject"),
    path("g/<slug:slug>/merges/<int:merge_id>/undo", merges.undo, name="merge-undo"),
    path("g/<slug:slug>/episodes", episodes.episodes, name="episodes"),
    path("g/<slug:slug>/episodes/new", episodes.add_episode, name="episode-add"),
    path("g/<slug:slug>/episodes/upload", episodes.upload_episodes, name="episode-upload"),
    path("g/<slug:slug>/episodes/progress", episodes.upload_progress, name="upload-progress"),
    path("g/<slug:slug>/ep/<uuid:uuid>", episodes.episode_detail, name="episode"),
    path("g/<slug:slug>/ep/<uuid:uuid>/retry", episodes.retry, name="episode-retry"),
    path("g/<slug:slug>/runs", runs.runs, name="runs"),
    path("g/<slug:slug>/runs/start", runs.start, name="run-start"),
    path("g/<slug:slug>/runs/<uuid:uuid>", runs.run_detail, name="run"),
    path("g/<slug:slug>/settings", graph_settings.graph_settings_page, name="graph-settings"),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's).
    path("favicon.ico", RedirectView.as_view(url=static("img/mark.svg"), permanent=True)),
]
