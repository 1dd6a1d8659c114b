"""The clock guard's build and its state file (fast); what it does for a game's threads is
tested on a real native program in test_native.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from playsuite.runtimes.clock_guard import (
    STATE,
    ClockGuardUnavailable,
    ClockState,
    clock_guard_library,
)


@pytest.fixture
def fresh_build() -> Iterator[None]:
    """The build is cached per process: each test here starts and ends without it."""
    clock_guard_library.cache_clear()
    yield
    clock_guard_library.cache_clear()


def test_the_state_file_holds_each_offset_and_how_many_were_written(tmp_path: Path) -> None:
    state = ClockState(tmp_path / "clock.state", "+0.000000")
    assert STATE.unpack((tmp_path / "clock.state").read_bytes()) == (
        1,
        b"+0.000000".ljust(56, b"\0"),
    )
    state.write("-12.500000 x2")
    count, spec = STATE.unpack((tmp_path / "clock.state").read_bytes())
    assert count == 2 and spec.rstrip(b"\0") == b"-12.500000 x2"
    with pytest.raises(ValueError, match="too long"):
        state.write("-1" * 40)
    assert STATE.unpack((tmp_path / "clock.state").read_bytes())[0] == 2  # left as it was


def test_the_guard_builds_with_the_system_compiler(fresh_build: None) -> None:
    library = clock_guard_library()
    assert library.is_file() and library.read_bytes()[:4] == b"\x7fELF"
    assert clock_guard_library() == library  # once per process


@pytest.mark.parametrize(
    ("cc", "message"),
    [
        ("no-such-cc", r"no C compiler \(no-such-cc\)"),  # none installed
        ("false", r"building the clock guard failed \(false "),  # one that fails, with its command
    ],
)
def test_without_a_working_compiler_the_guard_is_unavailable(
    fresh_build: None, monkeypatch: pytest.MonkeyPatch, cc: str, message: str
) -> None:
    monkeypatch.setenv("CC", cc)
    with pytest.raises(ClockGuardUnavailable, match=message):
        clock_guard_library()
