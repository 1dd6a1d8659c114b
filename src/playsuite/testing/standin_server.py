"""A stand-in for ``vllm serve``: an OpenAI-compatible HTTP server on a Unix socket, with no model.

This is a *test double* for the one boundary this project cannot cross on a machine without a GPU
or model weights: vLLM inference. It speaks the same protocol as ``vllm serve --uds PATH``
(``GET /health``, ``GET /v1/models``, ``POST /v1/chat/completions``, the same error shapes, the
same request checks that matter to us), so the server lifecycle, the client, the agents, the
judge and the harness run their real code against it. Its answers come from a baseline policy
(random or explorer actions in the standard Observation/Reasoning/Action format) or, for
``response_format`` ``json_schema`` requests, from a minimal instance of the requested schema. It
never looks at the images: nothing it says is a model's judgement.

It can also misbehave on purpose, to test recovery paths: refuse connections for a while
(``--startup-delay``: the socket is bound but not listening, as vLLM's is while the model loads),
answer slowly (``--latency``), send an answer a byte at a time (``--trickle``: every read
returns soon, the answer never ends in time; what a per-read timeout misses), exit abruptly
(``--crash-after``), hang (``--stall-after``), ignore SIGTERM (``--ignore-sigterm``), answer
invalid JSON to the first schema requests (``--invalid-json-first``), or give set texts to the
first chat requests (``--answers``, a JSON list: JSON escapes carry what no command line can,
such as a lone surrogate ``\ud800``). It is also the server behind
``benchmarks/inference_client.py``.

Standard library only at startup (the random baseline is imported in the background after the
socket listens), so it is ready in a fraction of a second::

    python -m playsuite.testing.standin_server --uds /tmp/m.sock --latency 0.2
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import json
import os
import random
import signal
import socket
import socketserver
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playsuite.testing.standin_requests import (
    CHARS_PER_TOKEN,
    IMAGE_TOKENS,
    VIDEO_TOKENS,
    Limits,
    ParsedRequest,
    RequestError,
    check_chat_request,
    minimal_instance,
)

# --- baseline answers -------------------------------------------------------------------------

#: Keys the explorer stand-in cycles through; movement keys are held, the others tapped.
_EXPLORER_KEYS = ("enter", "space", "right", "up", "left", "down", "z", "x", "a", "d", "w", "s")
_HELD = frozenset({"right", "up", "left", "down", "a", "d", "w", "s"})
_FALLBACK_KEYS = ("left", "right", "up", "down", "space", "enter", "z", "x", "a", "d", "w", "s")

_sampler_lock = threading.Lock()
_sampler: list[Callable[[int, int, tuple[int, int]], str] | None] = []


def _random_sampler() -> Callable[[int, int, tuple[int, int]], str] | None:
    """The agents' random baseline (imported on first use, off the startup path), if present."""
    with _sampler_lock:
        if not _sampler:
            try:
                from playsuite.agents.baselines import RandomPolicy

                _sampler.append(lambda seed, step, screen: RandomPolicy(seed).sample(step, screen))
            except Exception as exc:  # a broken or missing agents package: use the fallback
                sys.stderr.write(f"standin: random baseline unavailable ({exc!r}); fallback\n")
                _sampler.append(None)
        return _sampler[0]


def _fallback_random(seed: int, step: int, screen: tuple[int, int]) -> str:
    rng = random.Random(f"{seed}:{step}")
    width, height = screen
    draw = rng.random()
    if draw < 0.6:
        return rng.choice(_FALLBACK_KEYS)
    if draw < 0.9:
        return f"click:{rng.randrange(width)},{rng.randrange(height)}"
    return "wait"


def policy_text(policy: str, seed: int, step: int, screen: tuple[int, int]) -> str:
    """One answer in the standard format (Observation/Reasoning/Action, standard grammar).

    ``random`` is the agents' random baseline (:class:`playsuite.agents.baselines.RandomPolicy`)
    drawing step ``step`` with ``seed``. ``explorer`` is a stateless stand-in for the explorer
    baseline, which needs each episode's previous frames: it cycles through common game keys
    and clicks the screen centre every fifth step.
    """
    width, height = screen
    if policy == "explorer":
        if step % 5 == 4:
            action = f"click:{width // 2},{height // 2}"
        else:
            key = _EXPLORER_KEYS[step % len(_EXPLORER_KEYS)]
            action = f"hold:{key}:1.0" if key in _HELD else key
        why = "Cycle through the keys and clicks that usually start and move a game."
    else:
        action = (_random_sampler() or _fallback_random)(seed, step, screen)
        why = "Random baseline: the action is drawn uniformly, independent of the screen."
    return (
        f"Observation: a {width}x{height} game screen (the stand-in server does not look at it).\n"
        f"Reasoning: {why}\n"
        f"Action: {action}"
    )


# --- the server -------------------------------------------------------------------------------


@dataclass
class Behaviour:
    """What the stand-in answers and how it misbehaves."""

    model: str = "standin"
    policy: str = "random"
    seed: int = 0
    latency_s: float = 0.0
    trickle_s: float = 0.0  # seconds between the bytes of a chat answer's body (0: all at once)
    crash_after: int | None = None
    stall_after: int | None = None
    invalid_json_first: int = 0
    answers: list[str] = field(default_factory=list)  # texts of the first chat answers
    limits: Limits = field(default_factory=Limits)


class StandInState:
    """Counters shared by the handler threads."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.lock = threading.Lock()
        self.chat_requests = 0
        self.json_requests = 0
        self.stalled = threading.Event()
        self.started = int(time.time())

    def next_request(self) -> int:
        with self.lock:
            self.chat_requests += 1
            return self.chat_requests

    def next_json_request(self) -> int:
        with self.lock:
            self.json_requests += 1
            return self.json_requests


def _estimate_tokens(chars: int) -> int:
    return max(1, -(-chars // CHARS_PER_TOKEN))


def answer(state: StandInState, parsed: ParsedRequest, number: int, index: int) -> tuple[str, str]:
    """The answer text and its finish reason for one checked request."""
    body, beh = parsed.body, state.behaviour
    fmt = body.get("response_format") or {"type": "text"}
    if fmt["type"] == "json_schema":
        if state.next_json_request() <= beh.invalid_json_first:
            return '{"truncated": ', "length"
        text = json.dumps(minimal_instance(fmt["json_schema"]["schema"]))
    elif fmt["type"] == "json_object":
        text = "{}"
    elif number <= len(beh.answers):
        text = beh.answers[number - 1]
    else:
        seed = body.get("seed")
        if seed is not None:  # same seed + same prompt -> same answer, as with vLLM
            key = f"{beh.seed}:{seed}:{parsed.digest}".encode()
            policy_seed, step = int(hashlib.sha256(key).hexdigest()[:15], 16), index
        else:
            policy_seed, step = beh.seed, number - 1 + index
        text = policy_text(beh.policy, policy_seed, step, parsed.screen)
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens")
    if max_tokens is not None and _estimate_tokens(len(text)) > max_tokens:
        return text[: max_tokens * CHARS_PER_TOKEN], "length"
    return text, "stop"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "playsuite-standin/1"
    server: _UnixHTTPServer

    def address_string(self) -> str:  # Unix sockets have no peer address
        return "uds"

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"standin: {self.address_string()} {format % args}\n")

    def _send_json(self, status: int, obj: Any, trickle_s: float = 0.0) -> None:
        payload = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if trickle_s <= 0:
            self.wfile.write(payload)
            return
        self.wfile.flush()
        for sent in range(len(payload)):
            try:
                self.wfile.write(payload[sent : sent + 1])
                self.wfile.flush()
            except OSError:  # the client gave up: say so, as vLLM logs an aborted request
                sys.stderr.write(f"standin: client hung up after {sent} of {len(payload)} bytes\n")
                sys.stderr.flush()
                self.close_connection = True
                return
            time.sleep(trickle_s)

    def _send_error(self, exc: RequestError) -> None:
        error = {"message": str(exc), "type": exc.kind, "param": None, "code": exc.status}
        self._send_json(exc.status, {"error": error})

    def _stall_if_stalled(self) -> None:
        if self.server.state.stalled.is_set():
            threading.Event().wait()  # hang like a wedged engine; only a signal ends it

    def do_GET(self) -> None:
        self._stall_if_stalled()
        state = self.server.state
        if self.path == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/v1/models":
            beh = state.behaviour
            entry = {
                "id": beh.model,
                "object": "model",
                "created": state.started,
                "owned_by": "playsuite-standin",
                "root": beh.model,
                "parent": None,
                "max_model_len": beh.limits.max_model_len,
            }
            self._send_json(200, {"object": "list", "data": [entry]})
        elif self.path == "/version":
            self._send_json(200, {"version": "standin"})
        else:
            self._send_json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        self._stall_if_stalled()
        length = self.headers.get("Content-Length")
        if length is None:
            self._send_error(RequestError("Content-Length required", 411, "LengthRequired"))
            return
        raw = self.rfile.read(int(length))
        if self.path != "/v1/chat/completions":
            self._send_json(404, {"detail": "Not Found"})
            return
        state, beh = self.server.state, self.server.state.behaviour
        number = state.next_request()
        if beh.crash_after is not None and number > beh.crash_after:
            sys.stderr.write(f"standin: simulated crash at request {number}\n")
            sys.stderr.flush()
            os._exit(70)
        if beh.stall_after is not None and number > beh.stall_after:
            sys.stderr.write(f"standin: simulated stall at request {number}\n")
            state.stalled.set()
            self._stall_if_stalled()
        try:
            try:
                body = json.loads(raw)
            except ValueError as exc:
                raise RequestError(f"request body is not valid JSON: {exc}") from None
            parsed = check_chat_request(body, beh.model, beh.limits)
            n = parsed.body.get("n") or 1
            answers = [answer(state, parsed, number, i) for i in range(n)]
        except RequestError as exc:
            self._send_error(exc)
            return
        except Exception as exc:  # a bug here must look like vLLM's 500, not a dropped connection
            sys.stderr.write(f"standin: internal error: {exc!r}\n")
            self._send_error(RequestError(repr(exc), 500, "InternalServerError"))
            return
        if beh.latency_s > 0:
            time.sleep(beh.latency_s)
        prompt_tokens = (
            _estimate_tokens(parsed.prompt_chars)
            + IMAGE_TOKENS * parsed.media["image"]
            + VIDEO_TOKENS * parsed.media["video"]
        )
        completion_tokens = sum(_estimate_tokens(len(text)) for text, _ in answers)
        choices = [
            {
                "index": i,
                "message": {
                    "role": "assistant",
                    "content": text,
                    "reasoning_content": None,
                    "tool_calls": [],
                },
                "logprobs": None,
                "finish_reason": reason,
                "stop_reason": None,
            }
            for i, (text, reason) in enumerate(answers)
        ]
        self._send_json(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": beh.model,
                "choices": choices,
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
                "prompt_logprobs": None,
            },
            trickle_s=beh.trickle_s,
        )


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, path: str, state: StandInState) -> None:
        self.state = state
        super().__init__(path, _Handler, bind_and_activate=False)


def _remove_stale_socket(path: str) -> None:
    if not os.path.exists(path):
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        os.unlink(path)  # nobody listens: a leftover from a killed server
    else:
        raise SystemExit(f"standin: another server is listening on {path}")
    finally:
        probe.close()


def serve(uds: str, behaviour: Behaviour, startup_delay_s: float = 0.0) -> None:
    """Serve on ``uds`` until SIGTERM/SIGINT (or until the process is killed).

    Like vLLM, the socket is bound first and listened on only once the "model" is loaded: during
    ``startup_delay_s`` the socket file exists but connections are refused.
    """
    _remove_stale_socket(uds)
    server = _UnixHTTPServer(uds, StandInState(behaviour))
    try:
        server.server_bind()
        if startup_delay_s > 0:
            sys.stderr.write(f"standin: loading (simulated, {startup_delay_s:g} s)\n")
            time.sleep(startup_delay_s)
        server.server_activate()
        if behaviour.policy == "random":  # load the baseline now, but off the startup path
            threading.Thread(target=_random_sampler, daemon=True).start()
        sys.stderr.write(f"standin: serving {behaviour.model!r} on unix:{uds}\n")
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        if os.path.exists(uds):
            os.unlink(uds)
        sys.stderr.write("standin: stopped\n")


def _text_list(value: str) -> list[str]:
    texts = json.loads(value)
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise argparse.ArgumentTypeError("--answers must be a JSON list of strings")
    return texts


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m playsuite.testing.standin_server",
        description="Test double for `vllm serve --uds`: OpenAI-compatible, no model.",
    )
    p.add_argument("--uds", required=True, help="Unix socket path to listen on")
    p.add_argument("--model", default="standin", help="served model name (default: standin)")
    p.add_argument("--policy", choices=("random", "explorer"), default="random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--latency", type=float, default=0.0, help="seconds per chat answer")
    p.add_argument("--trickle", type=float, default=0.0, help="seconds between answer bytes")
    p.add_argument("--startup-delay", type=float, default=0.0, help="seconds before listening")
    p.add_argument("--crash-after", type=int, help="exit abruptly on chat request N+1")
    p.add_argument("--stall-after", type=int, help="hang on chat request N+1 and after")
    p.add_argument("--invalid-json-first", type=int, default=0, help="invalid schema answers")
    p.add_argument("--answers", type=_text_list, default=[], help="JSON list: first chat answers")
    p.add_argument("--ignore-sigterm", action="store_true", help="only SIGKILL stops it")
    p.add_argument("--limit-mm-per-prompt", type=json.loads, default={"image": 4, "video": 1})
    p.add_argument("--max-model-len", type=int, default=32768)
    p.add_argument("--allowed-local-media-path")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    limits = Limits(args.limit_mm_per_prompt, args.max_model_len, args.allowed_local_media_path)
    behaviour = Behaviour(
        model=args.model,
        policy=args.policy,
        seed=args.seed,
        latency_s=args.latency,
        trickle_s=args.trickle,
        crash_after=args.crash_after,
        stall_after=args.stall_after,
        invalid_json_first=args.invalid_json_first,
        answers=args.answers,
        limits=limits,
    )

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if args.ignore_sigterm else stop)
    serve(args.uds, behaviour, args.startup_delay)
    return 0


if __name__ == "__main__":
    sys.exit(main())
