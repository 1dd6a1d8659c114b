"""`playsuite serve`: print a preset's command; run a given server command until SIGTERM."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys

import pytest

from playsuite.cli import main
from playsuite.inference import InferenceClient
from playsuite.inference.engine import DEFAULT_VLLM
from playsuite.testing.standin import standin_argv


def test_print_command(capsys):
    assert main(["serve", "qwen3-vl-8b", "--uds", "/tmp/m.sock", "--print-command"]) == 0
    argv = shlex.split(capsys.readouterr().out)
    assert argv[:3] == [DEFAULT_VLLM, "serve", "Qwen/Qwen3-VL-8B-Instruct"]
    assert argv[argv.index("--limit-mm-per-prompt") + 1] == '{"image":4}'


def test_baseline_and_unknown_presets_are_errors(capsys):
    assert main(["serve", "random", "--uds", "/tmp/m.sock", "--print-command"]) == 2
    assert main(["serve", "nope", "--uds", "/tmp/m.sock", "--print-command"]) == 2
    assert "unknown preset, judge or classifier 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_server_argv_serves_until_sigterm(sock_dir):
    uds = str(sock_dir / "cli.sock")
    template = json.dumps(standin_argv("{uds}", model="{preset}"))
    cmd = [sys.executable, "-m", "playsuite.cli", "serve", "qwen3-vl-8b", "--uds", uds]
    cmd += ["--server-argv", template]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as proc:
        line = proc.stdout.readline()
        assert line.startswith("ready: qwen3-vl-8b"), line
        with InferenceClient(uds, "qwen3-vl-8b") as client:
            assert client.chat([{"role": "user", "content": "x"}]).text.startswith("Observation")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    assert "standin: stopped" in (sock_dir / "cli.sock.log").read_text()


def test_server_argv_must_be_a_json_list(capsys):
    assert main(["serve", "qwen3-vl-8b", "--uds", "/tmp/m.sock", "--server-argv", "vllm"]) == 2
    assert "--server-argv is not JSON" in capsys.readouterr().err
