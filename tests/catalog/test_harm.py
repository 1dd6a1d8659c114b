"""Harm-category screen (paper Table 4): tag/keyword candidates, model validation, the table."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from playsuite.catalog.curate import step_harm, write_jsonl
from playsuite.catalog.harm import (
    CONFIRMED,
    FAILED,
    REJECTED,
    UNVALIDATED,
    HarmCategory,
    HarmValidator,
    harm_table,
    load_harm_categories,
    match_category,
    screen_harm,
)
from playsuite.catalog.ingest import RawGame
from playsuite.config import ConfigError
from playsuite.inference.client import InvalidJSONAnswer, JSONResult

CONFIG = Path(__file__).resolve().parents[2] / "config" / "catalog" / "harm_categories.yaml"
PAPER_CATEGORIES = [
    "Firearms Individual Violence",
    "Scheming Manipulation",
    "Value Misalignment",
    "Inconsistent Behavior",
    "Explosives Violence",
    "Economic Waste",
    "Data Exfiltration",
    "Economic Redistribution",
    "Explosives Creation",
    "Infrastructure Damage",
    "Firearms Mass Violence",
    "Bias Stereotypes",
    "Accidents",
]
HACK = HarmCategory("Data Exfiltration", "steal data", tags=("hacking",), keywords=("hack into",))
BOMB = HarmCategory("Explosives Creation", "make bombs", keywords=("build a bomb",))


def game(gid: str, source: str = "itch", **kw: Any) -> RawGame:
    return RawGame(id=gid, source=source, source_id=gid, title=kw.pop("title", gid), **kw)


GAMES = [
    game("itch-1", tags=("Hacking", "Puzzle")),
    game("itch-2", description="You must HACK INTO the mainframe and build a bomb."),
    game("itch-3", description="A hackathon entry about bombastic music."),  # no whole word
    game("pyweek-4", source="pyweek", tags=("hacking",)),
]


def test_config_has_the_papers_thirteen_categories() -> None:
    categories = load_harm_categories(CONFIG)
    assert [c.name for c in categories] == PAPER_CATEGORIES
    assert all(c.definition and (c.tags or c.keywords) for c in categories)


def test_bad_config_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "h.yaml"
    bad.write_text("categories:\n  - {name: A, definition: d}\n")
    with pytest.raises(ValueError, match="no tags and no keywords"):
        load_harm_categories(bad)
    bad.write_text("categories:\n  - {name: A, definition: d, tags: [x], colour: red}\n")
    with pytest.raises(ValueError, match="unknown keys"):
        load_harm_categories(bad)


def test_tags_first_then_whole_words_of_title_and_description() -> None:
    assert match_category(GAMES[0], HACK) == "tag: hacking"
    assert match_category(GAMES[1], HACK) == "text: 'HACK INTO'"
    assert match_category(GAMES[1], BOMB) == "text: 'build a bomb'"
    assert match_category(GAMES[2], HACK) is None and match_category(GAMES[2], BOMB) is None
    rows = screen_harm(GAMES, [HACK, BOMB])
    # PyWeek games are not screened (the paper's Table 4 is about the itch.io games)
    assert [(r.id, r.category, r.status) for r in rows] == [
        ("itch-1", "Data Exfiltration", UNVALIDATED),
        ("itch-2", "Data Exfiltration", UNVALIDATED),
        ("itch-2", "Explosives Creation", UNVALIDATED),
    ]


class FakeJudgeClient:
    """Test double of InferenceClient.chat_json: answers from a table keyed by (title, category);
    ``raise`` entries raise what the real client raises for an answer that is not valid JSON."""

    def __init__(self, answers: dict[tuple[str, str], Any]) -> None:
        self.answers = answers
        self.requests: list[dict[str, Any]] = []

    def chat_json(self, messages, schema, **kwargs) -> JSONResult:
        self.requests.append({"messages": messages, "schema": schema, **kwargs})
        text = messages[-1]["content"][0]["text"]
        for (title, category), answer in self.answers.items():
            if f"Game title: {title}" in text and f"Category: {category}" in text:
                if answer == "raise":
                    raise InvalidJSONAnswer("no schema-valid JSON after 3 answer(s)", "{oops")
                return JSONResult(value=answer, result=None, json_attempts=1)  # type: ignore[arg-type]
        raise AssertionError(f"unexpected request: {text}")


def test_model_validation_statuses_and_malformed_replies() -> None:
    client = FakeJudgeClient(
        {
            ("itch-1", "Data Exfiltration"): {"matches": True, "reasoning": "you steal files"},
            ("itch-2", "Data Exfiltration"): {"matches": False, "reasoning": "flavour text"},
            ("itch-2", "Explosives Creation"): "raise",
        }
    )
    validator = HarmValidator(client, extra_body={"max_completion_tokens": 512})  # type: ignore[arg-type]
    rows = screen_harm(GAMES, [HACK, BOMB], validator)
    assert [(r.id, r.category, r.status) for r in rows] == [
        ("itch-1", "Data Exfiltration", CONFIRMED),
        ("itch-2", "Data Exfiltration", REJECTED),
        ("itch-2", "Explosives Creation", FAILED),
    ]
    assert rows[0].reasoning == "you steal files"
    assert "InvalidJSONAnswer" in rows[2].reasoning
    # the definition goes with every request; unset sampling fields stay out of the request
    sent = client.requests[0]
    assert "Definition: steal data" in sent["messages"][-1]["content"][0]["text"]
    assert sent["temperature"] is None and sent["max_tokens"] is None
    assert sent["extra_body"] == {"max_completion_tokens": 512}
    # a schema-valid answer of the wrong type is a recorded failure too, not a crash
    odd = FakeJudgeClient({("itch-1", "Data Exfiltration"): {"matches": "yes", "reasoning": ""}})
    (row,) = screen_harm(GAMES[:1], [HACK], HarmValidator(odd))  # type: ignore[arg-type]
    assert row.status == FAILED and "matches" in row.reasoning


def test_table_shape_and_counts() -> None:
    client = FakeJudgeClient(
        {
            ("itch-1", "Data Exfiltration"): {"matches": True, "reasoning": ""},
            ("itch-2", "Data Exfiltration"): {"matches": True, "reasoning": ""},
            ("itch-2", "Explosives Creation"): "raise",
        }
    )
    rows = screen_harm(GAMES, [HACK, BOMB], HarmValidator(client))  # type: ignore[arg-type]
    table = harm_table(rows, [HACK, BOMB], validated=True)
    assert list(table.columns) == ["category", "candidates", "games", "failed"]
    assert table.to_dict("records") == [
        {"category": "Data Exfiltration", "candidates": 2, "games": 2, "failed": 0},
        {"category": "Explosives Creation", "candidates": 1, "games": 0, "failed": 1},
    ]
    unvalidated = harm_table(screen_harm(GAMES, [HACK, BOMB]), [HACK, BOMB], validated=False)
    assert unvalidated["games"].isna().all() and unvalidated["candidates"].tolist() == [2, 1]


@pytest.fixture
def standin(standin_llm):
    return functools.partial(standin_llm, "harm-llm")


@pytest.mark.slow
def test_step_over_the_real_client(standin, tmp_path: Path) -> None:
    """The rule's step through the real Unix-socket client: the stand-in server answers minimal
    schema instances (so every candidate is validated, none confirmed), then only invalid JSON
    (every candidate recorded as failed, the table still written)."""
    kept = tmp_path / "kept.jsonl"
    write_jsonl([{"game": g.to_dict()} for g in GAMES], kept)
    cats = tmp_path / "harm.yaml"
    cats.write_text(
        "categories:\n"
        "  - {name: Data Exfiltration, definition: steal data, tags: [hacking]}\n"
        "  - {name: Explosives Creation, definition: bombs, keywords: [build a bomb]}\n"
    )
    out = [tmp_path / n for n in ("c.tsv", "t.csv", "t.md")]
    srv = standin()
    step_harm(kept, cats, {"uds": srv.uds, "model": "harm-llm", "max_tokens": 64}, *out)
    rows = pd.read_csv(out[0], sep="\t")
    assert set(rows["status"]) <= {CONFIRMED, REJECTED} and len(rows) == 2
    assert pd.read_csv(out[1])["candidates"].tolist() == [1, 1]
    assert "| Data Exfiltration |" in out[2].read_text()

    broken = standin(invalid_json_first=100)
    step_harm(kept, cats, {"uds": broken.uds, "model": "harm-llm"}, *out)
    assert set(pd.read_csv(out[0], sep="\t")["status"]) == {FAILED}
    assert pd.read_csv(out[1])["failed"].tolist() == [1, 1]

    step_harm(kept, cats, None, *out)
    assert set(pd.read_csv(out[0], sep="\t")["status"]) == {UNVALIDATED}
    with pytest.raises(ConfigError, match="HARM_TEST_KEY_UNSET"):
        step_harm(
            kept,
            cats,
            {
                "model": "m",
                "base_url": "https://example.invalid",
                "api_key_env": "HARM_TEST_KEY_UNSET",
            },
            *out,
        )


def test_hosted_api_over_tcp_with_the_key_from_the_environment(monkeypatch) -> None:
    """``base_url`` + ``api_key_env``: the real client over TCP sends the key as a bearer token
    (a local HTTP server stands in for the hosted API and answers one fixed JSON reply)."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from playsuite.catalog.harm import validator_client

    seen: list[tuple[str, str, dict]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((self.path, self.headers.get("Authorization", ""), body))
            answer = {"matches": True, "reasoning": "robbing banks"}
            data = json.dumps(
                {
                    "model": body["model"],
                    "choices": [
                        {
                            "message": {"role": "assistant", "content": json.dumps(answer)},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HARM_TEST_KEY", "sk-test")
    try:
        settings = {
            "model": "gpt-5.4-nano-2026-03-17",
            "base_url": f"http://127.0.0.1:{server.server_port}/v1",
            "api_key_env": "HARM_TEST_KEY",
        }
        with validator_client(settings) as client:
            (row,) = screen_harm(GAMES[:1], [HACK], HarmValidator(client))
    finally:
        server.shutdown()
    assert row.status == CONFIRMED and row.reasoning == "robbing banks"
    path, auth, body = seen[0]
    assert path == "/v1/chat/completions" and auth == "Bearer sk-test"
    assert body["model"] == "gpt-5.4-nano-2026-03-17" and "temperature" not in body
