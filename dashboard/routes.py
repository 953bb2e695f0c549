"""The pages. Every graph page is under ``/g/<slug>/``; fragments have their own routes only when
they are not a part of a page's URL (the run progress poll)."""

from django.templatetags.static import static
from django.urls import path
from django.views.generic import RedirectView

from dashboard.views import accounts, board, home, observation, retired

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", accounts.login, name="login"),
    path("logout/", accounts.logout, name="logout"),
    path("g/<slug:slug>/", board.board, name="board"),
    path("g/<slug:slug>/progress", board.run_progress, name="run-progress"),
    path("g/<slug:slug>/o/<uuid:uuid>", observation.observation_detail, name="observation"),
    path("g/<slug:slug>/retired", retired.retired, name="retired"),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's).
    path("favicon.ico", RedirectView.as_view(url=static("img/mark.svg"), permanent=True)),
]
