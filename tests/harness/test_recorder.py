import json

import av
import numpy as np
import pytest

from playsuite.harness.recorder import EpisodeRecorder, clean_partial, episode_finished


def frames(n: int, w: int = 161, h: int = 121) -> list[np.ndarray]:
    out = []
    for i in range(n):
        frame = np.zeros((h, w, 3), np.uint8)
        frame[:, : (i * 5) % w] = (255, 128, 0)
        out.append(frame)
    return out


def test_video_duration_is_game_time(tmp_path) -> None:
    out = tmp_path / "ep"
    with EpisodeRecorder(out, fps=10) as rec:
        for step in range(3):
            rec.add_step({"step": step, "t_game": step * 3.0})
            rec.add_frames(frames(30))
        assert not episode_finished(out)
        rec.finish({"status": "ok", "frames": rec.frames})
    assert episode_finished(out)
    with av.open(str(out / "episode.mp4")) as container:
        stream = container.streams.video[0]
        decoded = list(container.decode(stream))
        duration = float(stream.duration * stream.time_base)
    assert len(decoded) == 90
    assert duration == pytest.approx(9.0, abs=0.11)
    assert (decoded[0].width, decoded[0].height) == (162, 122)  # padded to even
    lines = (out / "trace.jsonl").read_text().splitlines()
    assert [json.loads(x)["step"] for x in lines] == [0, 1, 2]
    assert sorted(p.name for p in out.iterdir()) == ["episode.mp4", "meta.json", "trace.jsonl"]


def test_interrupted_episode_leaves_nothing_that_looks_finished(tmp_path) -> None:
    out = tmp_path / "ep"
    with pytest.raises(KeyboardInterrupt), EpisodeRecorder(out, fps=10) as rec:
        rec.add_frames(frames(5))
        rec.add_step({"step": 0})
        raise KeyboardInterrupt
    assert list(out.iterdir()) == []


def test_killed_run_leftovers_are_cleaned(tmp_path) -> None:
    out = tmp_path / "ep"
    out.mkdir()
    (out / ".episode.mp4.partial").write_bytes(b"junk")
    (out / "trace.jsonl").write_text("{}\n")  # no meta.json: not finished
    clean_partial(out)
    assert list(out.iterdir()) == []


def test_launch_failure_has_no_video(tmp_path) -> None:
    out = tmp_path / "ep"
    rec = EpisodeRecorder(out, fps=30)
    rec.finish({"status": "launch_failed"})
    assert sorted(p.name for p in out.iterdir()) == ["meta.json", "trace.jsonl"]


def test_bad_frames_are_rejected(tmp_path) -> None:
    with EpisodeRecorder(tmp_path / "ep", fps=10) as rec:
        with pytest.raises(ValueError, match="uint8"):
            rec.add_frames([np.zeros((10, 10, 3), np.float32)])
        with pytest.raises(ValueError, match="H×W×3"):
            rec.add_frames([np.zeros((10, 10), np.uint8)])
        rec.add_frames(frames(1))
        rec.abort()
    # A frame of another size is not an error: it is letterboxed (test_recorder_sizes.py).


def test_the_games_logs_are_kept_and_a_huge_one_keeps_its_ends(tmp_path, monkeypatch) -> None:
    import playsuite.harness.recorder as recorder

    work = tmp_path / "work"
    work.mkdir()
    (work / "game.log").write_text("starting\nTraceback: it broke\n")
    lines = [f"frame {i}\n" for i in range(20000)]
    (work / "browser.log").write_text("".join(lines))
    (work / "other.log").write_text("not the game's")
    monkeypatch.setattr(recorder, "GAME_LOG_MAX_BYTES", 4096)
    out = tmp_path / "ep"
    with EpisodeRecorder(out, fps=10) as rec:
        assert rec.keep_logs(work) == ["game.log", "browser.log"]
        rec.finish({"status": "ok"})
    assert (out / "game.log").read_text() == "starting\nTraceback: it broke\n"
    kept = (out / "browser.log").read_text()
    assert len(kept) < 4096 + 200 and not (out / "other.log").exists()
    head, note, tail = kept.partition("[playsuite: this log had ")
    assert note and head.startswith("frame 0\nframe 1\n") and head.endswith("\n")
    assert tail.endswith("frame 19999\n") and "bytes in the middle were left out" in tail
    assert head.splitlines() == [line.strip() for line in lines[: len(head.splitlines())]]
    body = tail.split("\n", 1)[1]
    assert body.splitlines() == [line.strip() for line in lines[-len(body.splitlines()) :]]
