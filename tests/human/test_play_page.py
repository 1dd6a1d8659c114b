"""A person plays a real pygame game through the play page in real Chromium (Playwright's key
presses and clicks), and the recorded episode is an ordinary one: trace actions, video frames,
meta.json with ``agent: human``."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import av
import pytest

from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.episode import EpisodeLimits
from playsuite.human.play import HumanRun, serve_and_play
from playsuite.records.episode import read_meta, read_trace
from playsuite.runtimes.acquire import acquire

pytestmark = [pytest.mark.browser, pytest.mark.games, pytest.mark.slow]


class Served:
    """``serve_and_play`` in a thread; ``url`` once the page is up, ``meta`` once played."""

    def __init__(self, run: HumanRun) -> None:
        self.ready = threading.Event()
        self.url = ""
        self.meta: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._main, args=(run,), daemon=True)
        self.thread.start()
        assert self.ready.wait(60), "the play page never came up"

    def _main(self, run: HumanRun) -> None:
        def ready(url: str) -> None:
            self.url = url
            self.ready.set()

        try:
            self.meta = dict(serve_and_play(run, on_ready=ready, linger_s=1.0))
        except BaseException as exc:
            self.error = exc
            self.ready.set()

    def join(self) -> dict[str, Any]:
        self.thread.join(120)
        assert self.error is None, self.error
        assert self.meta is not None
        return self.meta


def human_run(tmp_path: Path, game: GameEntry, mode: str, condition: str, **limits) -> HumanRun:
    games = tmp_path / "games"
    acquire(game, games)
    return HumanRun(
        game=game,
        games_dir=games,
        out_dir=tmp_path / "runs" / "local" / "human" / condition / game.id,
        player="p-0123456789",
        mode=mode,
        condition=Condition.parse(condition),
        limits=EpisodeLimits(max_game_s=None, wall_timeout_s=120.0, **limits),
    )


def wait_for_step(page, step: int) -> None:
    page.wait_for_selector(f"#screen[data-waiting='1'][data-step='{step}']", timeout=60_000)
    page.wait_for_function("document.getElementById('screen').naturalWidth > 0")


def tap_delivered_late(page, code: str, key: str, key_code: int) -> None:
    """A key down for 50 ms by the browser's input stamps, its release delivered 0.5 s later
    (Chrome DevTools Protocol events with explicit stamps): Playwright's own press stamps events
    on arrival, so a starved test machine could make a tap look like a hold."""
    cdp = page.context.new_cdp_session(page)
    event = {"code": code, "key": key, "windowsVirtualKeyCode": key_code}
    t0 = time.time()
    cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", "timestamp": t0, **event})
    time.sleep(0.5)
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", "timestamp": t0 + 0.05, **event})
    cdp.detach()


def video_frames(path: Path) -> int:
    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(video=0))


def test_paced_play_through_the_page_is_recorded_as_an_episode(
    browser, tmp_path: Path, probe_game: GameEntry
) -> None:
    run = human_run(tmp_path, probe_game, "paced", "k0-hz1-base", max_steps=3)
    served = Served(run)
    page = browser.new_page()
    page.goto(served.url)
    wait_for_step(page, 0)
    assert "Space scores a point" in (
        page.text_content("#prompt") or ""
    )  # the model's prompt, shown
    # a short press (one key tap, sent as step 0's answer) whose keyup reaches the page half a
    # second after its keydown, as on a busy machine: the page goes by the events' stamps
    tap_delivered_late(page, "Space", " ", 32)
    wait_for_step(page, 1)
    page.click("#screen", position={"x": 100, "y": 50})  # a click at game pixel (100, 50)
    wait_for_step(page, 2)
    page.keyboard.down("ArrowRight")  # a long press: a hold
    page.wait_for_timeout(600)
    page.keyboard.up("ArrowRight")
    page.wait_for_selector("#result", state="visible", timeout=60_000)
    meta = served.join()
    page.close()

    assert meta["status"] == "ok" and meta["stop_reason"] == "steps" and meta["steps"] == 3
    on_disk = read_meta(run.out_dir)
    assert on_disk["agent"] == "human" and on_disk["player"] == "p-0123456789"
    assert on_disk["play_mode"] == "paced" and on_disk["preset"] == "human"
    assert on_disk["model"] is None and on_disk["invalid_steps"] == 0
    trace = read_trace(run.out_dir)
    assert trace[0]["actions"] == [{"kind": "key", "keys": ["space"]}]
    click = trace[1]["actions"]
    assert [(a["kind"], a["button"], a["count"]) for a in click] == [("click", "left", 1)]
    # the page maps the pointer to game pixels (within the pixel the browser rounds to)
    assert abs(click[0]["x"] - 100) <= 1 and abs(click[0]["y"] - 50) <= 1
    hold = trace[2]["actions"][0]
    assert hold["kind"] == "hold" and hold["keys"] == ["right"] and 0.3 <= hold["seconds"] <= 2
    assert trace[0]["response"] == "Action: space"  # the standard grammar, parsed as a model's
    # one second of game time per step at the pygame video rate, every frame in the video
    assert meta["frames"] == 90 and video_frames(run.out_dir / "episode.mp4") == 90
    # the game got the inputs: one point, one mark where the click landed, the square moved
    probes = meta["final_probes"]
    assert probes["score"] == 1 and probes["marks"] == 1
    assert probes["mark"] == f"({click[0]['x']}, {click[0]['y']})"
    assert probes["x"] > 160


def test_live_play_records_every_event_with_its_game_time(
    browser, tmp_path: Path, probe_game: GameEntry
) -> None:
    run = human_run(tmp_path, probe_game, "live", "k0-hz10-base", max_steps=400)
    served = Served(run)
    page = browser.new_page()
    page.goto(served.url)
    page.wait_for_selector("#start:visible", timeout=60_000)
    page.wait_for_function("document.getElementById('screen').naturalWidth > 0", timeout=60_000)
    page.click("#start")
    page.wait_for_timeout(300)
    page.keyboard.down("Space")  # held over about three slices: one press all the same
    page.wait_for_timeout(300)
    page.keyboard.up("Space")
    page.wait_for_timeout(300)
    page.click("#screen", position={"x": 40, "y": 30})
    page.wait_for_timeout(500)
    page.click("#end")
    page.wait_for_selector("#result", state="visible", timeout=60_000)
    meta = served.join()
    page.close()

    assert meta["status"] == "ok" and meta["stop_reason"] == "agent"
    assert meta["play_mode"] == "live" and meta["agent"] == "human"
    trace = read_trace(run.out_dir)
    events = [e for step in trace for e in step.get("info", {}).get("events", [])]
    assert [e["type"] for e in events if e["type"] != "mousemove"] == [
        "keydown",
        "keyup",
        "mousedown",
        "mouseup",
    ]
    for step in trace:  # each event is stamped with the game time of the step it reached
        for event in step.get("info", {}).get("events", []):
            assert event["t_game"] == pytest.approx(step["t_game"])
    assert all(e["t_wall"] >= 0 for e in events)
    kinds = [a["kind"] for step in trace for a in step["actions"]]
    assert "hold" in kinds and "click" in kinds
    # Space was kept down over the slices its keydown and keyup fell in (one slice, when a
    # loaded machine's page sends both together), not pressed again: score 1, not 3
    kept = [a for step in trace for a in step["actions"] if a.get("release") is False]
    assert all(a["keys"] == ["space"] for a in kept)
    assert meta["final_probes"]["score"] == 1 and meta["final_probes"]["marks"] == 1
    # about real time: 0.1 s of game time per slice, game time close to the wall time played
    assert meta["t_game"] == pytest.approx(0.1 * meta["steps"])
    assert meta["frames"] == video_frames(run.out_dir / "episode.mp4") == 3 * meta["steps"]
