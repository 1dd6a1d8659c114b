"""`playsuite status` on a small results tree: what is done, running and failed, and why."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from playsuite.cli import main
from playsuite.files import write_json_atomic
from playsuite.planning.status import STALE_AFTER_S, campaign_status, render
from playsuite.records.costs import COLUMNS, JUDGE_COLUMNS, write_cost_record
from playsuite.records.episode import write_meta
from tests.records.test_episode_record import full_meta

RUN = ("local", "random", "k0-hz0.33-base")
SERVED = ("local", "qwen3-vl-8b", "k0-hz0.33-base")
NOW = time.time()  # reset before each test (below): ages are counted from the test's start


@pytest.fixture(autouse=True)
def _now_is_the_tests_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files made now are compared with ``NOW`` (and the command with the real clock): a
    module-wide value taken at import would age them by however long the suite ran before."""
    monkeypatch.setitem(globals(), "NOW", time.time())


def episode(results: Path, run: tuple[str, str, str], game: str, status: str, error="") -> Path:
    folder = results.joinpath("runs", *run, game)
    folder.mkdir(parents=True)
    meta = {**full_meta(), "game": game, "status": status, "error": error, "usage": None}
    write_meta(folder, meta)
    return folder


def cost(folder: Path, shard: str, status: str, age_s: float, judge: str | None = None) -> None:
    started = int(NOW - age_s - 60)
    path = folder / f"{shard}.{started}-4242.tsv"
    corpus, preset, condition = folder.parts[-3:]
    row = {"corpus": corpus, "preset": preset, "condition": condition, "shard": shard}
    row |= {"wall_s": "60", "gpus": "1", "status": status, "slurm_job_id": ""}
    columns = COLUMNS
    if judge:
        row |= {"judge": judge, "prefetch": "", "max_num_batched_tokens": ""}
        columns = JUDGE_COLUMNS
    write_cost_record(path, row, columns)
    os.utime(path, (NOW - age_s, NOW - age_s))


@pytest.fixture
def results(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    # play, random: two final outcomes, one failure of ours, one damaged meta.json, one episode
    # being recorded by a live job
    episode(root, RUN, "alpha", "ok")
    episode(root, RUN, "beta", "crashed", "the game raised")
    episode(root, RUN, "gamma", "harness_error", "sandbox cannot start\ntraceback ...")
    (root.joinpath("runs", *RUN, "delta")).mkdir()
    (root.joinpath("runs", *RUN, "delta", "meta.json")).write_text('{"status": "ok", "st')
    root.joinpath("runs", *RUN, ".epsilon.pid77-ab12cd.partial").mkdir()
    root.joinpath("runs", *RUN, "shards").mkdir()
    (root.joinpath("runs", *RUN, "shards", "s0000.tsv")).write_text("done earlier\n")
    costs = root.joinpath("costs", *RUN)
    costs.mkdir(parents=True)
    cost(costs, "s0000", "failed", 3600)  # an old attempt of a shard that later finished
    cost(costs, "s0001", "running", 5)  # alive
    # play, a served preset: its job was killed mid-episode (the heartbeat stopped)
    episode(root, SERVED, "alpha", "model_error", "HTTP 400: too many images")
    root.joinpath("runs", *SERVED, ".beta.pid88-zz99.partial").mkdir()
    served_costs = root.joinpath("costs", *SERVED)
    served_costs.mkdir(parents=True)
    cost(served_costs, "s0000", "failed", 7200)
    cost(served_costs, "s0000", "running", 3 * STALE_AFTER_S)  # the latest attempt: killed
    # judge frame, random: one ok, one failed; a live judge job on the rest
    judged = root.joinpath("judgements", "frame", *RUN)
    judged.mkdir(parents=True)
    write_json_atomic(judged / "alpha.json", {"judge": "frame", "status": "ok", "level": 1})
    write_json_atomic(
        judged / "beta.json", {"judge": "frame", "status": "no_video", "error": "no frames"}
    )
    judge_costs = root.joinpath("judge_costs", "frame", *RUN)
    judge_costs.mkdir(parents=True)
    cost(judge_costs, "e0000", "running", 1, judge="frame")
    return root


def test_counts_and_reasons_per_stage_and_preset(results: Path) -> None:
    status = campaign_status(results, now=NOW)
    assert list(status) == [
        ("play", "qwen3-vl-8b"),
        ("play", "random"),
        ("judge:frame", "random"),
    ]
    play = status[("play", "random")]
    assert (play.done, play.running, play.failed, play.jobs_running) == (2, 1, 2, 1)
    assert play.outcomes == {"ok": 1, "crashed": 1}
    assert play.reasons["harness_error: sandbox cannot start"] == 1
    [corrupt] = [r for r in play.reasons if r.startswith("corrupt meta.json")]
    assert play.examples[corrupt].endswith("/delta")
    # the failed attempt of s0000 is history: its shard finished later
    assert not [r for r in play.reasons if "job attempt" in r]

    served = status[("play", "qwen3-vl-8b")]
    assert (served.done, served.running, served.failed, served.jobs_running) == (0, 0, 2, 0)
    assert served.reasons["model_error: HTTP 400: too many images"] == 1
    assert served.reasons["recording abandoned (its play job is gone)"] == 1
    assert served.reasons["job killed (its cost record stopped beating)"] == 1
    assert served.examples["job killed (its cost record stopped beating)"].endswith("s0000")

    judge = status[("judge:frame", "random")]
    # played and final: alpha, beta (judged); nothing else is waiting for the live judge job
    assert (judge.done, judge.running, judge.failed, judge.jobs_running) == (1, 0, 1, 1)
    assert judge.reasons["no_video: no frames"] == 1


def test_a_live_judge_job_runs_the_played_episodes_it_has_not_judged(results: Path) -> None:
    episode(results, RUN, "zeta", "timeout")
    judge = campaign_status(results, now=NOW)[("judge:frame", "random")]
    assert judge.running == 1
    stale = campaign_status(results, now=NOW + 10 * STALE_AFTER_S)
    assert stale[("judge:frame", "random")].running == 0
    assert stale[("play", "random")].running == 0  # the play job went quiet too
    assert stale[("play", "random")].reasons["job killed (its cost record stopped beating)"] == 1


def test_a_run_without_cost_records_goes_by_the_staging_folders_age(tmp_path: Path) -> None:
    root = tmp_path / "results"
    staging = root.joinpath("runs", *RUN, ".alpha.pid1-a1.partial")
    staging.mkdir(parents=True)
    assert campaign_status(root, now=NOW)[("play", "random")].running == 1
    later = campaign_status(root, now=NOW + 2 * STALE_AFTER_S)[("play", "random")]
    assert later.running == 0 and later.failed == 1


def test_the_command_prints_the_table_and_the_reasons(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["stage", "preset", "done", "running", "failed", "jobs", "running"]
    assert lines[2].split() == ["play", "random", "2", "1", "2", "1"]
    assert "play qwen3-vl-8b: failures" in out
    assert "model_error: HTTP 400: too many images" in out
    assert main(["status", "--results", str(results), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[2]["stage"] == "judge:frame" and rows[2]["reasons"][0]["count"] == 1


def test_an_empty_or_missing_tree(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    assert render(campaign_status(tmp_path / "results")) == "nothing played or judged yet\n"
    with pytest.raises(FileNotFoundError, match="no results folder"):
        campaign_status(tmp_path / "nowhere")


def test_tokens_are_summed_per_preset_over_done_and_failed_episodes(tmp_path: Path) -> None:
    """A hosted model's campaign is paid by the token: ``usage`` of every recorded episode,
    done or failed, is summed per preset; a baseline has none and its cells stay empty."""
    root = tmp_path / "results"
    hosted = ("local", "gpt-4.1-mini", "k0-hz0.33-base")
    for game, status, tokens in (("a", "ok", 1000), ("b", "crashed", 500), ("c", "model_error", 7)):
        folder = episode(root, hosted, game, status)
        usage = {"prompt_tokens": tokens, "completion_tokens": tokens // 10}
        usage |= {"total_tokens": tokens + tokens // 10, "requests": 2, "retries": 1}
        write_meta(folder, {**full_meta(), "game": game, "status": status, "usage": usage})
    episode(root, RUN, "a", "ok")
    status = campaign_status(root, now=NOW)
    assert status[("play", "gpt-4.1-mini")].usage == {
        "prompt_tokens": 1507,
        "completion_tokens": 150,
        "total_tokens": 1657,
        "requests": 6,
        "retries": 3,
    }
    assert not status[("play", "random")].usage
    text = render(status)
    head, hosted_row, random_row = text.splitlines()[:3]
    assert head.split()[-4:] == ["prompt", "tokens", "completion", "tokens"]
    assert hosted_row.split()[-2:] == ["1,507", "150"]
    assert random_row.split()[-1] == "0"  # jobs running; no token cells for a baseline
    as_json = status[("play", "gpt-4.1-mini")].as_dict()
    assert as_json["usage"]["retries"] == 3
