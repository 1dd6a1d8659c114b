"""The pages' server is for this machine and this session only; a person's End ends the
episode ``ok`` with what was played (the episode loop with the fake runtime)."""

from __future__ import annotations

from pathlib import Path

import httpx

from playsuite.actions import Key
from playsuite.agents.human import HumanAnswer, HumanPolicy, human_preset
from playsuite.agents.policy import StepRequest, StopEpisode
from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.episode import EpisodeLimits, EpisodeSpec, run_episode
from playsuite.human.web import HOST, PageServer, Reply, file_reply
from playsuite.records.episode import read_meta, read_trace
from playsuite.runtimes.base import RuntimeOptions
from playsuite.testing.fakes import fake_runtimes


def test_only_localhost_and_only_with_the_session_token(tmp_path: Path) -> None:
    routes = {("GET", "/api/x"): lambda r: Reply.json({"ok": 1})}
    with PageServer(routes) as server:
        assert server.url.startswith(f"http://{HOST}:") and HOST == "127.0.0.1"
        base = f"http://{HOST}:{server.port}"
        assert httpx.get(f"{base}/api/x").status_code == 403
        assert httpx.get(f"{base}/api/x?token=wrong").status_code == 403
        assert httpx.get(f"{base}/api/x?token={server.token}").json() == {"ok": 1}
        headers = {"X-Session-Token": server.token}
        assert httpx.get(f"{base}/nowhere", headers=headers).status_code == 404


def test_video_ranges(tmp_path: Path) -> None:
    path = tmp_path / "v.mp4"
    path.write_bytes(bytes(range(100)))
    assert file_reply(path, "video/mp4", None).body == bytes(range(100))
    part = file_reply(path, "video/mp4", "bytes=10-19")
    assert part.status == 206 and part.body == bytes(range(10, 20))
    assert part.headers["Content-Range"] == "bytes 10-19/100"
    assert file_reply(path, "video/mp4", "bytes=-5").body == bytes(range(95, 100))
    assert file_reply(path, "video/mp4", "bytes=200-").status == 416


class TwoStepsThenEnd:
    """A person who presses space twice and then the End button."""

    def __init__(self) -> None:
        self.asked = 0

    def answer(self, request: StepRequest) -> HumanAnswer:
        self.asked += 1
        if self.asked > 2:
            raise StopEpisode("the player ended the episode")
        return HumanAnswer([Key(("space",))], {"note": request.step})


def test_the_person_ending_the_episode_keeps_it_ok(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    game = GameEntry.from_dict(
        {"id": "fake-game", "title": "Fake", "source": "pyweek", "package": "f.zip",
         "runtime": "pygame", "entry": "run_game.py"}
    )  # fmt: skip
    spec = EpisodeSpec(
        corpus="test",
        game=game,
        preset=human_preset(),
        condition=Condition.parse("k0-hz1-base"),
        out_dir=tmp_path / "episode",
        runtime_options=RuntimeOptions(
            workdir=tmp_path / "work", game_dir=tmp_path / "files", video_fps=2.0
        ),
        limits=EpisodeLimits(max_game_s=None, wall_timeout_s=60.0),
        player="p-0000000001",
        play_mode="paced",
    )
    make, _ = fake_runtimes()
    meta = run_episode(spec, HumanPolicy(TwoStepsThenEnd()), make)
    assert meta["status"] == "ok" and meta["stop_reason"] == "agent" and meta["steps"] == 2
    on_disk = read_meta(spec.out_dir)
    assert (on_disk["agent"], on_disk["player"], on_disk["play_mode"]) == (
        "human",
        "p-0000000001",
        "paced",
    )
    assert on_disk["preset"] == "human" and on_disk["family"] == "human"
    trace = read_trace(spec.out_dir)
    assert [s["info"] for s in trace] == [{"note": 0}, {"note": 1}]
    assert meta["frames"] == 4
