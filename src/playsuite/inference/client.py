"""OpenAI chat-completions client for a model server listening on a Unix socket, or for an
OpenAI-compatible HTTP endpoint with an API key (a hosted preset, the catalog's classifiers).

One client is shared by all game workers of a node: it is thread-safe, caps how many requests are
in flight at once (a semaphore, so W workers can share a server sized for fewer sequences; a
process-shared one and a request pacer bound a whole play job against a hosted endpoint,
playsuite.inference.limits), retries transient failures with exponential backoff, and reports
each answer's text together with token usage, latency and the failed attempts before it, so the
harness can record model time separately from game time and what a hosted model cost.

Every attempt ends by the client's ``timeout_s``, a deadline for the whole request rather than
httpx's per-read limit (playsuite.inference.deadline_http: the request is cancelled and its
connection closed, which makes vLLM abort it); a call's own ``timeout_s`` is the budget its
attempts, the waits between them and a server recovery share (docs/inference.md, "Deadlines").

Failures are sorted by whether retrying can help:

* connection refused / socket missing / timeouts / 5xx / 429 / a garbled reply: retried, after
  asking the optional ``recover`` hook (usually :meth:`VLLMServer.ensure_healthy`) to bring a
  crashed or hung server back; a ``Retry-After`` the server sends (429, 503) replaces the
  backoff delay, up to the policy's longest;
* 401 / 403: the API key was refused (:class:`InferenceAuthError`, naming the variable it came
  from), never retried;
* any other 4xx (a malformed request, too many images, unknown model): raised at once as
  :class:`InferenceRequestError`, because the same request will fail the same way.
"""

from __future__ import annotations

import email.utils
import json
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
import jsonschema

from playsuite.inference.deadline_http import DeadlineExceeded, DeadlineHTTP

#: Sampling fields the client forwards from a preset's ``sampling`` block.
SAMPLING_FIELDS: tuple[str, ...] = ("temperature", "max_tokens", "seed", "top_p")
#: HTTP statuses worth retrying: the server is overloaded, restarting or failed internally.
RETRY_STATUSES: frozenset[int] = frozenset({408, 429, 500, 502, 503, 504})
#: HTTP statuses that refuse the credentials: a wrong, expired or unauthorised API key.
AUTH_STATUSES: frozenset[int] = frozenset({401, 403})


class InferenceError(RuntimeError):
    """The model server could not produce an answer."""


class InferenceRequestError(InferenceError):
    """The server rejected the request itself (HTTP 4xx): retrying cannot help."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class InferenceAuthError(InferenceRequestError):
    """The endpoint refused the API key (HTTP 401 or 403): retrying cannot help, fixing the key
    (the environment variable the message names) can."""


class InferenceUnavailable(InferenceError):
    """Every attempt failed with a transient error (server down, hung, or failing)."""


class InvalidJSONAnswer(InferenceError):
    """The model's answers were not JSON valid under the requested schema, on every attempt."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry transient failures.

    ``attempts`` counts every try (1 = no retry). The delay before retry ``n`` (1-based) is
    ``backoff_s * 2**(n-1)``, capped at ``backoff_max_s``, times a random factor in
    ``[1 - jitter, 1 + jitter]`` so that workers that failed together do not retry together.
    """

    attempts: int = 5
    backoff_s: float = 0.5
    backoff_max_s: float = 30.0
    jitter: float = 0.25

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {self.attempts}")
        if self.backoff_s < 0 or self.backoff_max_s < 0 or not 0 <= self.jitter < 1:
            raise ValueError("backoff must be >= 0 and jitter in [0, 1)")

    def delay(self, retry: int, rng: random.Random | None = None) -> float:
        base = min(self.backoff_s * 2 ** (retry - 1), self.backoff_max_s)
        if self.jitter:
            base *= (rng or random).uniform(1 - self.jitter, 1 + self.jitter)
        return base

    def wait(
        self, retry: int, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        """The wait before retry ``retry``: what the server asked for (``Retry-After``, capped
        at ``backoff_max_s`` so a confused server cannot park a job for hours), else
        :meth:`delay`. A server's own figure gets no jitter: it already spreads its clients."""
        if retry_after is not None:
            return min(max(0.0, retry_after), self.backoff_max_s)
        return self.delay(retry, rng)


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delay-seconds or an HTTP date), or None
    when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class Pacer(Protocol):
    """Spaces request starts (playsuite.inference.limits.RequestPacer)."""

    def wait(self, latest: float | None = None) -> float | None: ...


class Slots(Protocol):
    """Bounds requests in flight: a ``threading`` or ``multiprocessing`` semaphore."""

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool: ...

    def release(self) -> None: ...


@dataclass(frozen=True)
class ChatResult:
    """One answer: its text, why generation stopped, token usage and timings."""

    text: str
    finish_reason: str | None
    usage: dict[str, int]
    latency_s: float  # the successful attempt alone
    wall_s: float  # from the first attempt to the answer, backoff included
    attempts: int
    model: str
    response: dict[str, Any] = field(repr=False)
    #: why each failed attempt before the answer failed, in order (``HTTP 429: ...``)
    retries: tuple[str, ...] = ()

    @property
    def truncated(self) -> bool:
        """True when generation hit ``max_tokens`` (the text may be cut mid-action)."""
        return self.finish_reason == "length"


@dataclass(frozen=True)
class JSONResult:
    """A schema-valid JSON answer and the chat result it came from."""

    value: Any
    result: ChatResult
    json_attempts: int


def json_schema_format(schema: Mapping[str, Any], name: str = "answer") -> dict[str, Any]:
    """The ``response_format`` asking vLLM for JSON constrained by ``schema``."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": dict(schema), "strict": True},
    }


def parse_json_answer(text: str) -> Any:
    """Parse a model's JSON answer, tolerating a Markdown code fence around it and raw control
    characters inside strings (xgrammar's JSON grammar lets a model emit them unescaped; the
    answer's structure is still what the schema asked for)."""
    stripped = text.strip()
    if stripped.startswith("```"):
        lines = stripped.splitlines()
        if len(lines) >= 2 and lines[-1].strip().startswith("```"):
            stripped = "\n".join(lines[1:-1])
    return json.loads(stripped, strict=False)


def _error_message(response: httpx.Response) -> str:
    """The message of an error reply in either of vLLM's shapes, or the raw body."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:500] or response.reason_phrase
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and "message" in inner:
            return str(inner["message"])
        if "message" in body:
            return str(body["message"])
        if "detail" in body:
            return str(body["detail"])
    return str(body)[:500]


class _Retryable(Exception):
    """Internal: an attempt failed in a way a retry may fix; ``retry_after`` is the wait the
    server asked for, if it did."""

    def __init__(self, reason: str, server_down: bool, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.server_down = server_down
        self.retry_after = retry_after


class _BudgetSpent(Exception):
    """Internal: a call's budget (its ``timeout_s``) ran out before an answer."""


class InferenceClient:
    """Thread-safe chat-completions client over a Unix socket.

    ``model`` is the name the server serves (vLLM's ``--served-model-name``); ``defaults`` are
    sampling fields sent with every request unless a call overrides them. ``recover`` is called
    (from the failing worker's thread) after a connection failure or timeout, before the next
    attempt; it should make the server healthy again or raise.

    ``base_url`` (the API root, e.g. ``https://api.openai.com/v1``) replaces the socket for a
    hosted endpoint, with ``api_key`` sent as a bearer token; ``uds`` is then ``None``.
    ``key_name`` (the environment variable the key came from) only names it in errors.

    ``slots`` replaces the client's own semaphore of ``max_concurrency`` (a process-shared one
    bounds all workers of a job together); ``pacer`` is waited on before every attempt.
    ``timeout_s`` is the deadline of one attempt, from sending the request to the answer's last
    byte; ``connect_timeout_s`` bounds the connect within it.
    """

    def __init__(
        self,
        uds: str | None,
        model: str,
        *,
        defaults: Mapping[str, Any] | None = None,
        timeout_s: float = 600.0,
        connect_timeout_s: float = 5.0,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 8,
        recover: Callable[[], None] | None = None,
        seed: int | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        key_name: str | None = None,
        slots: Slots | None = None,
        pacer: Pacer | None = None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if (uds is None) == (base_url is None):
            raise ValueError("give exactly one of uds (a socket) and base_url (an HTTP endpoint)")
        self.uds = "" if uds is None else str(uds)
        #: where requests go, for messages: the socket path or the endpoint
        self.where = self.uds or str(base_url)
        self.model = model
        self.defaults = {k: v for k, v in (defaults or {}).items() if k in SAMPLING_FIELDS}
        self.retry = retry or RetryPolicy()
        self.recover = recover
        self.max_concurrency = max_concurrency
        self._slots: Slots = slots or threading.BoundedSemaphore(max_concurrency)
        self.pacer = pacer
        self.key_name = key_name
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        self.timeout_s = timeout_s
        # vLLM serves the OpenAI API under /v1 of its socket; a hosted base_url already names it.
        self._api = "/v1" if base_url is None else ""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        self._http = DeadlineHTTP(
            uds=uds,
            base_url="http://localhost" if base_url is None else base_url,
            headers=headers,
            max_connections=max_concurrency,
            connect_timeout_s=connect_timeout_s,
        )

    @classmethod
    def for_preset(cls, preset: Any, uds: str, **kwargs: Any) -> InferenceClient:
        """A client for a registry preset or judge: served name = preset name, preset sampling."""
        return cls(uds, preset.name, defaults=preset.sampling, **kwargs)

    @classmethod
    def for_endpoint(cls, preset: Any, **kwargs: Any) -> InferenceClient:
        """A client for a hosted preset (kind ``openai``): its endpoint's URL, remote model name,
        timeout and retry policy, the key from the environment variable it names (a
        :class:`~playsuite.config.ConfigError` when unset), the preset's sampling."""
        endpoint = preset.endpoint
        if endpoint is None:
            raise ValueError(f"preset {preset.name!r} is {preset.kind!r}: it has no endpoint")
        kwargs.setdefault(
            "retry",
            RetryPolicy(
                attempts=endpoint.attempts,
                backoff_s=endpoint.backoff_s,
                backoff_max_s=endpoint.backoff_max_s,
            ),
        )
        kwargs.setdefault("timeout_s", endpoint.timeout_s)
        kwargs.setdefault("max_concurrency", endpoint.max_concurrency)
        return cls(
            None,
            endpoint.model,
            defaults=preset.sampling,
            base_url=endpoint.base_url,
            api_key=endpoint.api_key(preset.name),
            key_name=endpoint.api_key_env,
            **kwargs,
        )

    # -- plumbing -------------------------------------------------------------------------------

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> InferenceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _sleep_backoff(self, retry: int, retry_after: float | None, end: float | None) -> None:
        """Wait before retry ``retry``; a wait that would outlast the call's budget (``end``, on
        ``time.monotonic()``) is not begun: :class:`_BudgetSpent` at once."""
        with self._rng_lock:
            delay = self.retry.wait(retry, retry_after, self._rng)
        if end is not None and time.monotonic() + delay >= end:
            raise _BudgetSpent(f"the next attempt would start past it (a {delay:.2g} s wait)")
        time.sleep(delay)

    def health(self, timeout_s: float = 2.0) -> bool:
        """True if ``GET /health`` answers 200 within ``timeout_s`` (a deadline)."""
        try:
            return self._http.get("/health", timeout_s=timeout_s).status_code == 200
        except httpx.HTTPError:
            return False

    def models(self, timeout_s: float = 10.0) -> list[str]:
        """The model names the server serves (``GET /v1/models``), within ``timeout_s``."""
        response = self._http.get(f"{self._api}/models", timeout_s=timeout_s)
        if response.status_code != 200:
            raise InferenceRequestError(response.status_code, _error_message(response))
        return [entry["id"] for entry in response.json().get("data", [])]

    # -- requests -------------------------------------------------------------------------------

    def build_body(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        response_format: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        **sampling: Any,
    ) -> dict[str, Any]:
        """The request body: model, messages, defaults overridden by non-``None`` ``sampling``."""
        unknown = set(sampling) - set(SAMPLING_FIELDS)
        if unknown:
            raise TypeError(f"unknown sampling field(s): {', '.join(sorted(unknown))}")
        body: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        body.update(self.defaults)
        body.update({k: v for k, v in sampling.items() if v is not None})
        if response_format is not None:
            body["response_format"] = dict(response_format)
        if extra_body:
            body.update(extra_body)
        return body

    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        top_p: float | None = None,
        response_format: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout_s: float | None = None,
    ) -> ChatResult:
        """Send one chat completion and return the first choice's text with usage and timing.

        ``timeout_s`` is this call's budget (default: none beyond the attempts): every attempt,
        the waits between attempts, a wait for a free slot and a server recovery come out of it,
        and each attempt also ends by the client's own ``timeout_s``. When the budget is spent
        the call raises :class:`InferenceUnavailable` saying it timed out; nothing waits past it
        but a server recovery already under way, which other workers wait on too.
        """
        if timeout_s is not None and timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        body = self.build_body(
            messages,
            response_format=response_format,
            extra_body=extra_body,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            top_p=top_p,
        )
        started = time.perf_counter()
        end = None if timeout_s is None else time.monotonic() + timeout_s
        last = ""
        failed: list[str] = []
        retry_after: float | None = None
        try:
            for attempt in range(1, self.retry.attempts + 1):
                if attempt > 1:
                    self._sleep_backoff(attempt - 1, retry_after, end)
                try:
                    response, latency = self._attempt_in_slot(body, end)
                    wall = time.perf_counter() - started
                    return self._result(response, latency, wall, attempt, tuple(failed))
                except _Retryable as exc:
                    last = str(exc)
                    failed.append(last)
                    retry_after = exc.retry_after
                    if attempt < self.retry.attempts:
                        self._recover_after(exc, last, end)
        except _BudgetSpent as spent:
            raise InferenceUnavailable(
                f"timed out: the call's {timeout_s:g} s budget was spent after {len(failed)} "
                f"failed attempt(s) on {self.where} ({spent}); last: {last or 'none'}"
            ) from None
        raise InferenceUnavailable(
            f"no answer from {self.where} after {self.retry.attempts} attempt(s): {last}"
        )

    def _left(self, end: float | None) -> float:
        """Seconds the next attempt may take: the client's per-attempt deadline, within the
        call's budget (``end``); :class:`_BudgetSpent` when none is left."""
        if end is None:
            return self.timeout_s
        left = end - time.monotonic()
        if left <= 0:
            raise _BudgetSpent("no time left for another attempt")
        return min(self.timeout_s, left)

    def _attempt_in_slot(
        self, body: dict[str, Any], end: float | None
    ) -> tuple[dict[str, Any], float]:
        """One attempt inside a concurrency slot (waited for within the budget), after the pacer;
        returns the reply and the attempt's latency."""
        wait = None if end is None else max(0.0, end - time.monotonic())
        if not self._slots.acquire(timeout=wait):
            raise _BudgetSpent("every request slot stayed busy")
        try:
            if self.pacer is not None and self.pacer.wait(latest=end) is None:
                raise _BudgetSpent("the request pacer had no start time left")
            t0 = time.perf_counter()
            response = self._attempt(body, self._left(end))
            return response, time.perf_counter() - t0
        finally:
            self._slots.release()

    def _recover_after(self, failure: _Retryable, reason: str, end: float | None) -> None:
        """Ask the ``recover`` hook to bring the server back after a failure that suggests it is
        down, unless the call's budget is already spent."""
        if not failure.server_down or self.recover is None:
            return
        self._left(end)  # no recovery for a call that cannot try again
        try:
            self.recover()
        except Exception as rec:  # the server cannot come back: stop retrying
            raise InferenceUnavailable(f"{reason}; recovering the server failed: {rec}") from rec

    def _attempt(self, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        try:
            response = self._http.post(
                f"{self._api}/chat/completions", json=body, timeout_s=timeout_s
            )
        except DeadlineExceeded as exc:
            raise _Retryable(f"timed out after {timeout_s:g} s: {exc}", server_down=True) from exc
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
            raise _Retryable(f"connection failed: {exc!r}", server_down=True) from exc
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out: {exc!r}", server_down=True) from exc
        except httpx.TransportError as exc:
            raise _Retryable(f"transport error: {exc!r}", server_down=True) from exc
        if response.status_code in RETRY_STATUSES:
            raise _Retryable(
                f"HTTP {response.status_code}: {_error_message(response)}",
                server_down=False,
                retry_after=retry_after_s(response.headers.get("retry-after")),
            )
        if response.status_code in AUTH_STATUSES:
            source = f" (the key from ${self.key_name})" if self.key_name else ""
            raise InferenceAuthError(
                response.status_code,
                f"{self.where} refused the API key{source}: {_error_message(response)}",
            )
        if response.status_code != 200:
            raise InferenceRequestError(response.status_code, _error_message(response))
        try:
            data = response.json()
            choice = data["choices"][0]
            data["_text"] = choice["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _Retryable(f"malformed reply: {response.text[:200]!r}", False) from exc
        return data

    @staticmethod
    def _result(
        data: dict[str, Any],
        latency: float,
        wall: float,
        attempts: int,
        retries: tuple[str, ...] = (),
    ) -> ChatResult:
        text = data.pop("_text")
        usage = {k: int(v) for k, v in (data.get("usage") or {}).items() if isinstance(v, int)}
        return ChatResult(
            text=text,
            finish_reason=data["choices"][0].get("finish_reason"),
            usage=usage,
            latency_s=latency,
            wall_s=wall,
            attempts=attempts,
            model=str(data.get("model", "")),
            response=data,
            retries=retries,
        )

    def chat_json(
        self,
        messages: Sequence[Mapping[str, Any]],
        schema: Mapping[str, Any],
        *,
        name: str = "answer",
        json_attempts: int = 3,
        **kwargs: Any,
    ) -> JSONResult:
        """Ask for JSON constrained by ``schema``; parse and validate it, asking again if invalid.

        Constrained decoding should make every answer valid, but an answer cut off by
        ``max_tokens`` is not, and servers that ignore an unknown structured-output field answer
        free text: every answer is checked here rather than trusted.
        """
        if json_attempts < 1:
            raise ValueError("json_attempts must be >= 1")
        validator = jsonschema.Draft202012Validator(dict(schema))
        problem, text = "", ""
        for attempt in range(1, json_attempts + 1):
            result = self.chat(messages, response_format=json_schema_format(schema, name), **kwargs)
            text = result.text
            try:
                value = parse_json_answer(text)
            except ValueError as exc:
                problem = f"not JSON ({exc})"
                continue
            errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
            if errors:
                where = "/".join(str(p) for p in errors[0].path) or "(root)"
                problem = f"{where}: {errors[0].message}"
                continue
            return JSONResult(value=value, result=result, json_attempts=attempt)
        raise InvalidJSONAnswer(
            f"no schema-valid JSON after {json_attempts} answer(s); last: {problem}", text
        )
