"""Fixtures for the agent tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def game_row() -> dict:
    return {
        "id": "star-hopper",
        "title": "Star <i>Hopper</i>",
        "author": "Ada Dev",
        "genre": "Action",
        "tags": ["Platformer", "Pixel Art"],
        "description": (
            "<p>Hop between <b>stars</b> &amp; collect gems.</p><script>track()</script>"
        ),
        "controls": "Arrow keys to move, Z to jump, X to dash. Mouse clicks menus.",
        "readme": "README.txt",
        "source": "itch",
        "runtime": "browser",
        "package": "star-hopper.zip",
        "entry": "index.html",
    }
