"""The start page: the user's only graph's board, else the list of their graphs."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.dashboard.conftest import signed_in
from tests.factories import GraphFactory, MembershipFactory

pytestmark = pytest.mark.django_db


def test_a_member_of_one_graph_goes_straight_to_its_board(client: Client, graph, member) -> None:
    response = signed_in(client, member).get(reverse("home"))

    assert response.status_code == 302
    assert response["Location"] == reverse("board", args=[graph.slug])


def test_a_member_of_several_graphs_chooses_among_only_theirs(
    client: Client, graph, owner, seeded
) -> None:
    MembershipFactory(user=owner, graph__slug="support", graph__name="Support Queue")
    GraphFactory(slug="secret", name="Secret Project")

    response = signed_in(client, owner).get(reverse("home"))

    html = response.content.decode()
    assert response.status_code == 200
    assert "Project Atlas" in html and "Support Queue" in html
    assert "Secret Project" not in html
    assert "1 active observation" in html


def test_an_outsider_is_told_how_to_get_a_graph(client: Client, graph, outsider) -> None:
    html = signed_in(client, outsider).get(reverse("home")).content.decode()

    assert "You are not in any graph yet" in html
    assert "Project Atlas" not in html


def test_the_start_page_needs_a_sign_in(client: Client) -> None:
    response = client.get(reverse("home"))

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next=/"


def test_a_missing_page_says_so_in_the_sites_own_frame(client: Client, owner) -> None:
    response = signed_in(client, owner).get("/g/nowhere/")

    assert response.status_code == 404
    html = response.content.decode()
    assert "Nothing here" in html and 'class="topbar"' in html
