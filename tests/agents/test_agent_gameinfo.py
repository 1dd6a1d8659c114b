"""Game text for prompts: HTML stripping, defaults, caps, and documented keys."""

from __future__ import annotations

import pytest

from playsuite.agents.gameinfo import (
    TextLimits,
    documented_controls,
    game_text,
    strip_html,
    truncate,
)
from playsuite.corpus import GameEntry


def test_strip_html():
    text = strip_html(
        "<h2>About</h2><p>Hop &amp; run&nbsp;fast.</p>\n<ul>\n <li>Press <space> to jump</li>"
        "<li>Use <kbd>Left</kbd></li></ul><script>alert(1)</script><style>p{}</style>Bye<br/>now"
    )
    assert text == "About\nHop & run fast.\n- Press <space> to jump\n- Use Left\nBye\nnow"
    assert strip_html(None) == "" and strip_html("plain text") == "plain text"


def test_truncate_marks_the_cut_at_a_word_boundary():
    out = truncate("alpha beta gamma delta epsilon", 20)
    assert len(out) <= 20 and out.endswith(" [...]") and out.startswith("alpha beta")
    assert truncate("short", 20) == "short"


def test_game_text_from_a_corpus_entry_and_readme():
    entry = GameEntry(
        id="pong", title="Pong", source="local", package="p", runtime="pygame", entry="m.py",
        tags=("Sports", "Retro"), controls="W/S move",
    )  # fmt: skip
    text = game_text(entry, readme_text="<p>First to 10 wins.</p>" + "x" * 10000,
                     limits=TextLimits(instructions=200))  # fmt: skip
    assert text.title == "Pong" and text.tags == "Sports, Retro"
    assert text.instructions.startswith("First to 10 wins.") and len(text.instructions) <= 200
    assert text.controls_documented and text.author == "unknown"


def test_game_text_rejects_non_rows():
    with pytest.raises(TypeError):
        game_text(42)


@pytest.mark.parametrize(
    ("controls", "keys", "mouse", "right"),
    [
        ("Arrow keys to move, Z to jump, X to shoot. Mouse to aim.",
         ("left", "right", "up", "down", "z", "x"), True, False),
        ("WASD move; SPACE jump; 1-5 select weapon; right-click to block",
         ("w", "a", "s", "d", "space", "1", "2", "3", "4", "5"), True, True),
        ("You have 3 lives. Press 'p' to pause, Esc to quit", ("p", "escape"), False, False),
        ("move left and right with the a key", ("a",), False, False),
        ("Left/Right: steer, F1 help, <space> fire, Enter to start",
         ("left", "right", "f1", "space", "enter"), False, False),
        ("<p>Click the <b>cards</b></p>", (), True, False),
        ("", (), False, False),
    ],
)  # fmt: skip
def test_documented_controls(controls, keys, mouse, right):
    found = documented_controls(controls)
    assert found.keys == keys
    assert (found.mouse, found.right_mouse) == (mouse, right)
