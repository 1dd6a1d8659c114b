"""pygame runtime: the game runs in :mod:`pygame_host` inside the sandbox; we talk over a pipe.

The host (a script, started under the game's own interpreter) patches pygame before importing
the game and pauses game time whenever it waits for us, so this class only sends commands and
decodes frames. Game code never runs in the harness process.

Row options (``options`` in the corpus, all optional): ``cwd`` (working directory relative to
the game), ``path`` (directories put on ``sys.path``), ``call: argv`` (call a ``module:function``
entry with ``sys.argv``), ``opengl`` (the game renders with OpenGL: needs the worker's X
display), ``nowait_frames`` and ``blank_limit_s`` (clock tuning, see the host),
``lazy_imports`` (default true: the host defers numpy and ``pkg_resources``, see
:class:`pygame_host.FastImports`), ``env``, ``ready_settle_s``/``ready_max_s`` (readiness,
:mod:`.screen_settle`: the host runs the game in game time until its picture has settled).

Game time (``Observation.t_game``) counts from readiness, as in the other runtimes: the game
time the launch took is not part of the episode.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from dataclasses import asdict
from pathlib import Path, PurePosixPath
from typing import IO, Any

import numpy as np

from playsuite.actions import Action, clamp_to_screen
from playsuite.corpus import GameEntry
from playsuite.runtimes import pygame_host
from playsuite.runtimes.acquire import DEBIAN_PYTHON, MANIFEST, installed_layers
from playsuite.runtimes.base import (
    GameExited,
    GameFailure,
    Observation,
    RunStatus,
    Runtime,
    RuntimeOptions,
    frames_per_slice,
    readiness,
)
from playsuite.runtimes.host_protocol import Expected, check_header, check_length, parse_header
from playsuite.runtimes.pygame_entry import resolve_entry
from playsuite.runtimes.timeline import KeysDown, schedule
from playsuite.sandbox import GAME_DIR, Bind, SandboxedProcess, SandboxUnavailable, game_policy

HOST_INSIDE = "/opt/playsuite/pygame_host.py"
LOG_NAME = "game.log"


def stall_report_s(slice_timeout_s: float) -> float:
    """When the host reports a hung slice: shortly before the harness's own limit, so its
    frames arrive in time (the harness's limit still holds if the report cannot be sent)."""
    return slice_timeout_s - min(2.0, slice_timeout_s / 4)


class PygameRuntime(Runtime):
    """A pygame game on a virtual clock, sandboxed."""

    def __init__(self, game: GameEntry, options: RuntimeOptions) -> None:
        super().__init__(game, options)
        self.proc: SandboxedProcess | None = None
        self._fd: int | None = None
        self._buffer = bytearray()
        self._size: tuple[int, int] = game.screen_size or (0, 0)
        self._frame: np.ndarray | None = None
        self._t = 0.0
        self._t0 = 0.0  # the host's game time at readiness; t_game counts from there
        self._probes: dict[str, Any] = {}
        self._log: IO[bytes] | None = None
        self.launch_s: float | None = None
        self.leftovers: list[int] = []
        self._keys_down = KeysDown()  # keys a live-mode hold left down between slices

    # ------------------------------------------------------------------ interface

    @property
    def screen_size(self) -> tuple[int, int]:
        return self._size

    @property
    def log_path(self) -> Path:
        return Path(self.options.workdir) / LOG_NAME

    def start(self) -> Observation:
        started = time.monotonic()
        workdir = Path(self.options.workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        game_opts = self.game.options
        opengl = bool(game_opts.get("opengl"))
        if opengl and not self.options.display:
            raise GameFailure(RunStatus.LAUNCH_FAILED, "OpenGL game needs an X display (Xvfb)")
        backend = self.options.sandbox
        sandboxed = backend != "none"
        game_dir = Path(self.options.game_dir).absolute()
        launch = resolve_entry(self.game, game_dir)  # a missing entry fails here, clearly
        python = self._python(game_dir, sandboxed)
        env = {
            "PYTHONHASHSEED": str(self.options.seed),
            "SDL_VIDEODRIVER": "x11" if opengl else "dummy",
            "TZ": "UTC",
            "LP_NUM_THREADS": "1",
            **{str(k): str(v) for k, v in (game_opts.get("env") or {}).items()},
        }
        host_script = Path(pygame_host.__file__).absolute()
        parts = [Path(part.__file__).absolute() for part in pygame_host.PARTS]
        host_binds = tuple(
            Bind(path, str(PurePosixPath(HOST_INSIDE).with_name(path.name))) for path in parts
        )
        policy = game_policy(
            workdir / "sandbox",
            game_dir,
            env=env,
            x11_display=self.options.display if opengl else None,
            extra_binds=(Bind(host_script, HOST_INSIDE), *host_binds),
            usr_layers=installed_layers(game_dir) if sandboxed else (),
        )
        config = {
            "entry": launch.entry,
            "args": list(launch.args),
            "cwd": launch.cwd,
            "path": list(launch.path),
            "call": game_opts.get("call"),
            "opengl": opengl,
            "seed": self.options.seed,
            "screen": list(self.game.screen_size) if self.game.screen_size else None,
            "probes": dict(self.game.probes),
            "game_dir": GAME_DIR if sandboxed else str(game_dir),
            "nowait_frames": game_opts.get("nowait_frames", 10),
            "blank_limit_s": game_opts.get("blank_limit_s", 30.0),
            "lazy_imports": bool(game_opts.get("lazy_imports", True)),
        }
        config["ready_settle_s"], config["ready_max_s"] = readiness(self.game)
        script = HOST_INSIDE if sandboxed else str(host_script)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in close()
        try:
            self.proc = SandboxedProcess(
                policy,
                [python, "-s", "-B", script],
                backend=backend,
                image=self.options.apptainer_image,
                stderr=self._log,
            )
        except (OSError, ValueError) as exc:
            # Our tool or our policy failed, not the game: the episode is replayed on a rerun.
            raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from exc
        assert self.proc.popen.stdout is not None
        self._fd = self.proc.popen.stdout.fileno()
        self._send(config)
        expected = Expected.launch(self.game.screen_size)
        header, payload = self._receive(self.options.launch_timeout_s, True, expected)
        self._t0 = float(header["t"])
        self._accept(header, payload)
        self.launch_s = time.monotonic() - started
        return self.observe()

    def observe(self) -> Observation:
        if self._frame is None:
            raise RuntimeError("observe() before start()")
        return Observation(self._frame, self._t, dict(self._probes))

    def act(self, actions: list[Action], seconds: float) -> list[np.ndarray]:
        if self.proc is None:
            raise RuntimeError("act() before start()")
        if seconds <= 0:
            raise ValueError("a slice must be a positive number of seconds")
        w, h = self._size
        events = schedule([clamp_to_screen(a, w, h) for a in actions], seconds, self._keys_down)
        count = frames_per_slice(seconds, self.video_fps)
        timeout = self.options.slice_timeout_s
        self._send(
            {
                "cmd": "act",
                "seconds": seconds,
                "frames": count,
                "events": [asdict(e) for e in events],
                "stall_s": stall_report_s(timeout),
            }
        )
        expected = Expected.slice(count, self._size)
        header, payload = self._receive(timeout, False, expected)
        if header.get("stalled"):  # the host's watchdog: the game hung inside the slice
            message = f"the slice did not finish within {timeout:g} s of wall time (game hung)"
            raise GameFailure(RunStatus.TIMEOUT, message, self._evidence(header, payload))
        return self._accept(header, payload)

    def probes(self) -> dict[str, Any]:
        return dict(self._probes)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.leftovers = list(self.proc.leftovers)
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    # ------------------------------------------------------------------ plumbing

    def _python(self, game_dir: Path, sandboxed: bool) -> str:
        manifest = game_dir.parent / MANIFEST
        python = DEBIAN_PYTHON
        if manifest.is_file():
            python = json.loads(manifest.read_text(encoding="utf-8")).get("python") or python
        if not sandboxed and python.startswith(GAME_DIR + "/"):
            python = str(game_dir / python[len(GAME_DIR) + 1 :])
        return python

    def _send(self, obj: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.popen.stdin is not None
        try:
            self.proc.popen.stdin.write(json.dumps(obj).encode() + b"\n")
            self.proc.popen.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # the host is gone; _receive reports why

    def _read(self, size: int, deadline: float, launching: bool) -> bytes:
        assert self._fd is not None
        while len(self._buffer) < size:
            left = deadline - time.monotonic()
            if left <= 0:
                status = RunStatus.LAUNCH_FAILED if launching else RunStatus.TIMEOUT
                what = "no first frame" if launching else "the slice did not finish"
                raise GameFailure(status, f"{what} within the wall-clock limit")
            ready, _, _ = select.select([self._fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(self._fd, max(size - len(self._buffer), 1 << 20))
            if not chunk:
                status = RunStatus.LAUNCH_FAILED if launching else RunStatus.CRASHED
                raise GameFailure(status, f"game process ended: {self._log_tail()}")
            self._buffer += chunk
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def _receive(
        self, timeout_s: float, launching: bool, expected: Expected
    ) -> tuple[dict[str, Any], bytes]:
        """The next message, checked against ``expected`` before its payload is read: game
        code can write to the protocol stream too (see :mod:`host_protocol`)."""
        deadline = time.monotonic() + timeout_s
        (length,) = struct.unpack(">I", self._read(4, deadline, launching))
        check_length(length)
        header = parse_header(self._read(length, deadline, launching))
        payload = self._read(check_header(header, expected), deadline, launching)
        if header["type"] == "exit":
            self._failure(header, payload, launching or header.get("launch", False))
        return header, payload

    def _failure(self, header: dict[str, Any], payload: bytes, launching: bool) -> None:
        error = header.get("error")
        code = header.get("code")
        frames = self._evidence(header, payload)
        if launching:
            raise GameFailure(
                RunStatus.LAUNCH_FAILED, f"game ended before its first frame: {error or code}"
            )
        if error or code not in (0, None):
            message = f"game crashed (exit {code}): {error or ''}"
            raise GameFailure(RunStatus.CRASHED, message, frames)
        raise GameExited("the game quit by itself", frames)

    def _evidence(self, header: dict[str, Any], payload: bytes) -> list[np.ndarray]:
        """The frames sent with a failure, or none when they cannot be decoded: the failure is
        the game's and must be recorded as such, with or without its last frames."""
        try:
            return self._decode(header, payload) if header.get("count") else []
        except ValueError:
            return []

    def _decode(self, header: dict[str, Any], payload: bytes) -> list[np.ndarray]:
        w, h, n = int(header["width"]), int(header["height"]), int(header["count"])
        if n == 0 or w == 0:
            return []
        array = np.frombuffer(payload, dtype=np.uint8).reshape(n, h, w, 3)
        return list(array)

    def _accept(self, header: dict[str, Any], payload: bytes) -> list[np.ndarray]:
        frames = self._decode(header, payload)
        self._size = (int(header["width"]), int(header["height"]))
        self._t = float(header["t"]) - self._t0
        self._probes = dict(header.get("probes") or {})
        if frames:
            self._frame = frames[-1]
        return frames

    def _log_tail(self, lines: int = 8) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        tail = [line for line in text.strip().splitlines() if line.strip()][-lines:]
        return " | ".join(tail) or "(empty log)"
