"""`playsuite play` and `play-shard` refuse an episode of no step before anything starts (it
would be recorded as an `ok` episode with no video)."""

from __future__ import annotations

import pytest

from playsuite.cli import main


@pytest.mark.parametrize("command", ["play", "play-shard"])
@pytest.mark.parametrize("steps", ["0", "-3", "two"])
def test_steps_must_be_a_positive_whole_number(
    command: str, steps: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--steps", steps, "--help-never-reached"])
    assert exit_.value.code == 2
    assert "argument --steps" in capsys.readouterr().err


def test_a_positive_step_count_is_accepted() -> None:
    from playsuite.harness.cli import step_count

    assert step_count("5") == 5
