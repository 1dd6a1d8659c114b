"""LLM genre classifier over the real Unix-socket client, against the protocol-faithful stand-in
server (the test double for vLLM: its answers are minimal schema instances, not judgements)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from playsuite.catalog.curate import step_genres, write_jsonl
from playsuite.catalog.genre_labels import label_games, read_labels
from playsuite.catalog.genre_llm import LLMGenreClassifier, system_prompt, validate_answer
from playsuite.catalog.genres import load_taxonomy
from playsuite.catalog.ingest import read_dump
from playsuite.inference import InferenceClient, RetryPolicy, VLLMServer, standin_argv

DATA = Path(__file__).resolve().parents[1] / "data" / "catalog"
TAXONOMY = load_taxonomy()


@pytest.fixture
def server() -> Iterator[callable]:
    folder = Path(tempfile.mkdtemp(prefix="psc-", dir="/tmp"))  # short socket path
    started: list[VLLMServer] = []

    def start(**opts) -> VLLMServer:
        uds = str(folder / f"s{len(started)}.sock")
        srv = VLLMServer(
            standin_argv(uds, model="genre-llm", **opts),
            uds,
            ready_timeout_s=20.0,
            poll_interval_s=0.05,
            stop_timeout_s=5.0,
        )
        started.append(srv)
        return srv.start()

    yield start
    for srv in started:
        srv.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def games():
    return read_dump(DATA / "itch_sample.jsonl", "itch") + read_dump(
        DATA / "pyweek_sample.csv", "pyweek"
    )


def test_prompt_carries_every_definition() -> None:
    prompt = system_prompt(TAXONOMY)
    for genre in TAXONOMY.genres:
        assert f"- {genre.name}: {genre.definition}" in prompt
    assert '"categories"' in prompt and '"confidence"' in prompt and '"reasoning"' in prompt


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"categories": ["Action", "Puzzle"], "confidence": 0.5, "reasoning": ""}, "exactly one"),
        ({"categories": [], "confidence": 0.5, "reasoning": ""}, "exactly one"),
        ({"categories": ["Horror"], "confidence": 0.5, "reasoning": ""}, "unknown genre"),
        ({"categories": ["Action"], "confidence": 1.5, "reasoning": ""}, "outside"),
        ({"categories": ["Action"], "confidence": True, "reasoning": ""}, "not a number"),
        ({"categories": ["Action"], "confidence": 0.5, "reasoning": 3}, "reasoning"),
        (["Action"], "JSON object"),
    ],
)
def test_invalid_answers_are_refused(answer, error) -> None:
    with pytest.raises(ValueError, match=error):
        validate_answer(answer, TAXONOMY)


def test_valid_answer_is_normalised() -> None:
    answer = {"categories": ["sports & racing"], "confidence": 0.8, "reasoning": "cars"}
    assert validate_answer(answer, TAXONOMY) == ("Sports & Racing", 0.8, "cars")


def test_classifier_over_unix_socket(server, games) -> None:
    srv = server(invalid_json_first=1)  # the first answer is not JSON: asked again
    pyweek = next(g for g in games if g.id == "pyweek-35-clockwork")
    with InferenceClient(srv.uds, "genre-llm", retry=RetryPolicy(attempts=2)) as client:
        classifier = LLMGenreClassifier(client, TAXONOMY)
        label = classifier(pyweek)
        user = classifier.messages(pyweek)[1]["content"][-1]["text"]
    assert label.method == "llm" and label.genre in TAXONOMY.names
    assert 0 <= label.confidence <= 1
    assert "Clockwork Keeper" in user and "Development diary" in user and "README" in user


def test_labels_use_tags_first_and_the_llm_for_the_rest(server, games) -> None:
    srv = server()
    picked = [g for g in games if g.id in ("itch-1001", "itch-1020", "pyweek-32-drift")]
    with InferenceClient(srv.uds, "genre-llm") as client:
        labels = {
            lb.id: lb for lb in label_games(picked, TAXONOMY, LLMGenreClassifier(client, TAXONOMY))
        }
    assert (labels["itch-1001"].genre, labels["itch-1001"].method) == ("Sports & Racing", "tags")
    assert labels["itch-1020"].method == "llm" and labels["pyweek-32-drift"].method == "llm"
    unlabelled = {lb.id: lb for lb in label_games(picked, TAXONOMY)}
    assert unlabelled["itch-1020"].genre is None and unlabelled["itch-1020"].method == "none"


def test_failures_are_recorded_not_fatal(server, games, tmp_path) -> None:
    srv = server(invalid_json_first=10)
    kept = tmp_path / "kept.jsonl"
    write_jsonl([{"game": g.to_dict()} for g in games if g.id in ("itch-1001", "itch-1020")], kept)
    out = tmp_path / "labels.tsv"
    step_genres(
        kept,
        DATA.parents[2] / "config" / "genres.yaml",
        {"uds": srv.uds, "model": "genre-llm"},
        out,
    )
    labels = read_labels(out)
    assert labels["itch-1001"].genre == "Sports & Racing"
    assert labels["itch-1020"].genre is None
    assert "classifier failed" in labels["itch-1020"].reasoning
    with pytest.raises(FileNotFoundError, match="socket"):
        step_genres(
            kept,
            DATA.parents[2] / "config" / "genres.yaml",
            {"uds": str(tmp_path / "none.sock"), "model": "m"},
            out,
        )
    assert json.loads(kept.read_text().splitlines()[0])["game"]["id"] == "itch-1001"
