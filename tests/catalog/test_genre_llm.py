"""LLM genre classifier: the Figure 7 prompt in content, answer validation, per-source endpoints,
over the real Unix-socket client against the protocol-faithful stand-in server (its answers are
minimal schema instances or set texts, not judgements) and over HTTP with an API key."""

from __future__ import annotations

import functools
import json
import string
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from playsuite.catalog.curate import step_genres, write_jsonl
from playsuite.catalog.genre_labels import label_games, read_labels
from playsuite.catalog.genre_llm import (
    MISSING,
    LLMGenreClassifier,
    answer_schema,
    endpoint_classifier,
    endpoint_client,
    load_prompt,
    render_prompt,
    validate_answer,
)
from playsuite.catalog.genres import load_taxonomy
from playsuite.catalog.ingest import read_dump
from playsuite.config import ConfigError
from playsuite.inference import InferenceClient, RetryPolicy

DATA = Path(__file__).resolve().parents[1] / "data" / "catalog"
GENRES = DATA.parents[2] / "config" / "genres.yaml"
TAXONOMY = load_taxonomy()


@pytest.fixture
def server(standin_llm):
    return functools.partial(standin_llm, "genre-llm")


@pytest.fixture(scope="module")
def games():
    return read_dump(DATA / "itch_sample.jsonl", "itch") + read_dump(
        DATA / "pyweek_sample.csv", "pyweek"
    )


def by_id(games, game_id: str):
    return next(g for g in games if g.id == game_id)


def test_prompt_renders_every_input_and_every_genre(games) -> None:
    game = replace(
        by_id(games, "pyweek-35-clockwork"),
        tags=("steampunk", "timing"),
        description="Wind the tower's clocks before midnight.",
        readme="Press SPACE to wind. Arrow keys climb between floors.",
        diary=("Day one: the tower works.", "Day two: added the clock sounds."),
    )
    prompt = render_prompt(load_prompt(), TAXONOMY, game)
    assert "Game name: Clockwork Keeper" in prompt
    assert "Tags: steampunk, timing" in prompt
    assert "Wind the tower's clocks before midnight." in prompt
    assert "Press SPACE to wind. Arrow keys climb between floors." in prompt
    assert "[1] Day one: the tower works. [2] Day two: added the clock sounds." in prompt
    for genre in TAXONOMY.genres:  # "Name: definition with examples", one line each
        assert f"\n{genre.name}: {genre.definition}\n" in prompt
    assert "$" not in prompt.replace("$$", "")  # every placeholder filled
    for rule in ("EXACTLY", "best guess", "setting", "two or three reasons", "low"):
        assert rule.lower() in prompt.lower()
    assert '"confidence": "high|medium|low"' in prompt


def test_missing_inputs_are_marked_not_left_blank(games) -> None:
    bare = replace(by_id(games, "itch-1020"), tags=(), description="", readme="", diary=())
    prompt = render_prompt(load_prompt(), TAXONOMY, bare)
    for label in ("Tags", "Game description", "README", "Developer diary entries"):
        assert f"{label}: {MISSING}" in prompt


def test_a_prompt_with_an_unknown_placeholder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("Genres: $categories\nGame: $titel\n")
    with pytest.raises(ConfigError, match=r"\$titel"):
        load_prompt(path)
    path.write_text("costs $ 5")
    with pytest.raises(ConfigError, match="dollar"):
        load_prompt(path)
    path.write_text("$categories / $title")
    assert isinstance(load_prompt(path), string.Template)


def test_answer_schema_names_only_taxonomy_genres() -> None:
    schema = answer_schema(TAXONOMY)
    assert schema["properties"]["categories"]["items"]["enum"] == list(TAXONOMY.names)
    assert schema["properties"]["confidence"]["enum"] == ["high", "medium", "low"]
    assert set(schema["required"]) == set(schema["properties"])  # strict mode needs all


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"categories": ["Action", "Puzzle"], "confidence": "high", "reasoning": ""}, "exactly"),
        ({"categories": [], "confidence": "high", "reasoning": ""}, "exactly one"),
        ({"categories": "Action", "confidence": "high", "reasoning": ""}, "exactly one"),
        ({"categories": ["Platformer"], "confidence": "high", "reasoning": ""}, "unknown genre"),
        ({"categories": ["Action"], "confidence": 0.9, "reasoning": ""}, "high|medium|low"),
        ({"categories": ["Action"], "confidence": "certain", "reasoning": ""}, "high|medium"),
        ({"categories": ["Action"], "confidence": "low", "reasoning": 3}, "reasoning"),
        ({"categories": ["Action"], "reasoning": "x"}, "confidence"),
        (["Action"], "JSON object"),
    ],
)
def test_invalid_answers_are_refused(answer, error) -> None:
    with pytest.raises(ValueError, match=error):
        validate_answer(answer, TAXONOMY)


def test_valid_answer_is_normalised() -> None:
    answer = {"categories": ["racing"], "confidence": "Medium", "reasoning": "cars"}
    assert validate_answer(answer, TAXONOMY) == ("Racing", "medium", "cars")


def test_classifier_over_unix_socket(server, games) -> None:
    srv = server(invalid_json_first=1)  # the first answer is not JSON: asked again
    pyweek = by_id(games, "pyweek-35-clockwork")
    with InferenceClient(srv.uds, "genre-llm", retry=RetryPolicy(attempts=2)) as client:
        classifier = LLMGenreClassifier(client, TAXONOMY, temperature=0.0)
        label = classifier(pyweek)
        (message,) = classifier.messages(pyweek)
    assert label.method == "llm" and label.genre in TAXONOMY.names
    assert label.confidence in ("high", "medium", "low")
    assert message["role"] == "user" and "Clockwork Keeper" in message["content"][-1]["text"]


def test_labels_use_tags_first_and_the_llm_for_the_rest(server, games) -> None:
    srv = server()
    picked = [by_id(games, i) for i in ("itch-1001", "itch-1020", "pyweek-32-drift")]
    with InferenceClient(srv.uds, "genre-llm") as client:
        classify = LLMGenreClassifier(client, TAXONOMY)
        labels = {lb.id: lb for lb in label_games(picked, TAXONOMY, classify)}
        pyweek_only = {lb.id: lb for lb in label_games(picked, TAXONOMY, {"pyweek": classify})}
    assert (labels["itch-1001"].genre, labels["itch-1001"].method) == ("Racing", "tags")
    assert labels["itch-1020"].method == "llm" and labels["pyweek-32-drift"].method == "llm"
    assert pyweek_only["pyweek-32-drift"].method == "llm"
    assert pyweek_only["itch-1020"].method == "none"
    assert "no classifier configured for itch" in pyweek_only["itch-1020"].reasoning


def test_malformed_answers_are_recorded_failures(server, games, tmp_path) -> None:
    srv = server(invalid_json_first=10)  # every answer is cut-off JSON
    kept = tmp_path / "kept.jsonl"
    picked = [g for g in games if g.id in ("itch-1001", "itch-1020")]
    write_jsonl([{"game": g.to_dict()} for g in picked], kept)
    out = tmp_path / "labels.tsv"
    step_genres(kept, GENRES, {"itch": {"uds": srv.uds, "model": "genre-llm"}}, out)
    labels = read_labels(out)
    assert labels["itch-1001"].genre == "Racing"  # by its tags: the model is never asked
    assert labels["itch-1020"].genre is None and labels["itch-1020"].method == "none"
    assert "classifier failed" in labels["itch-1020"].reasoning
    assert "no schema-valid JSON" in labels["itch-1020"].reasoning
    with pytest.raises(FileNotFoundError, match="socket"):
        step_genres(kept, GENRES, {"itch": {"uds": str(tmp_path / "none.sock"), "model": "m"}}, out)
    # An endpoint for a source no game needs is never opened.
    step_genres(kept, GENRES, {"pyweek": {"uds": str(tmp_path / "none.sock"), "model": "m"}}, out)


def test_socket_endpoint_takes_a_registry_classifiers_sampling(server) -> None:
    srv = server()
    sampling = {"temperature": 0.0, "max_tokens": 512, "seed": 41}
    registry = {"qwen2.5-14b-instruct": type("C", (), {"sampling": sampling})()}
    with endpoint_client({"uds": srv.uds, "model": "qwen2.5-14b-instruct"}, registry) as client:
        assert client.defaults == sampling
    with endpoint_client({"uds": srv.uds, "model": "other"}, registry) as client:
        assert client.defaults == {}


class _Recorder(BaseHTTPRequestHandler):
    """A hosted chat-completions endpoint: records each request, answers one fixed genre."""

    seen: ClassVar[list[tuple[str, str, dict]]] = []
    #: answer texts of the next requests; then a valid answer
    answers: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((self.path, self.headers.get("Authorization", ""), body))
        valid = {"categories": ["Puzzle"], "confidence": "low", "reasoning": "guess"}
        text = self.answers.pop(0) if self.answers else json.dumps(valid)
        reply = {
            "model": body["model"],
            "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


def test_hosted_endpoint_with_api_key_from_the_environment(games, monkeypatch) -> None:
    _Recorder.seen.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    endpoint = {
        "base_url": f"http://127.0.0.1:{httpd.server_address[1]}/v1",
        "api_key_env": "PLAYSUITE_TEST_GENRE_KEY",
        "model": "gpt-5.4-nano-2026-03-17",
        "extra_body": {"max_completion_tokens": 2048},
    }
    try:
        monkeypatch.delenv("PLAYSUITE_TEST_GENRE_KEY", raising=False)
        with pytest.raises(ConfigError, match="PLAYSUITE_TEST_GENRE_KEY"):
            endpoint_client(endpoint, {})
        monkeypatch.setenv("PLAYSUITE_TEST_GENRE_KEY", "sk-test")
        client, classify = endpoint_classifier(endpoint, TAXONOMY, {})
        with client:
            label = classify(by_id(games, "itch-1020"))
            # An off-list genre or a numeric confidence is not schema-valid: asked again, and
            # after three such answers the game is recorded as a failure, not guessed.
            off_list = {"categories": ["Horror"], "confidence": "high", "reasoning": "x"}
            numeric = {"categories": ["Action"], "confidence": 0.9, "reasoning": "x"}
            _Recorder.answers[:] = [json.dumps(off_list), json.dumps(numeric), "Action"]
            (failed,) = label_games([by_id(games, "itch-1020")], TAXONOMY, {"itch": classify})
    finally:
        httpd.shutdown()
    assert (label.genre, label.confidence, label.reasoning) == ("Puzzle", "low", "guess")
    assert failed.genre is None and failed.method == "none"
    assert "classifier failed" in failed.reasoning and "after 3 answer(s)" in failed.reasoning
    path, auth, body = _Recorder.seen[0]
    assert path == "/v1/chat/completions" and auth == "Bearer sk-test"
    assert body["model"] == "gpt-5.4-nano-2026-03-17" and body["max_completion_tokens"] == 2048
    assert "temperature" not in body and "max_tokens" not in body  # sent only when configured
    assert body["response_format"]["json_schema"]["schema"] == answer_schema(TAXONOMY)
