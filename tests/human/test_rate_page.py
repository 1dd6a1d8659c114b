"""Two raters rate at once through the rating page in real Chromium: their answers land once
each in the ratings CSV that ``playsuite agreement`` reads, ids are stable, resuming works."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from playsuite.harness.recorder import VideoWriter
from playsuite.human.identity import study_secret
from playsuite.human.rate import RatingStudy, serve_ratings
from playsuite.judge.agreement import RATING_COLUMNS, agreement_table, read_ratings
from playsuite.judge.schema import BOOLEAN_FIELDS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
VIDEOS = ("v001", "v002", "v003")
NOTHING = {**dict.fromkeys(BOOLEAN_FIELDS, False), "distinct_interactions": 0}
NOTHING["death_or_game_over_count"] = 0


@pytest.fixture
def study(tmp_path: Path) -> RatingStudy:
    folder = tmp_path / "validation" / "videos"
    folder.mkdir(parents=True)
    for n, video_id in enumerate(VIDEOS):
        writer = VideoWriter(folder / f"{video_id}.mp4", 10.0)
        for i in range(20):
            writer.add(np.full((48, 64, 3), (40 * n + 5 * i) % 255, dtype=np.uint8))
        writer.close()
    raters = tmp_path / "validation" / "raters.csv"
    pd.DataFrame({"video_id": VIDEOS, "video": [str(folder / f"{v}.mp4") for v in VIDEOS]}).to_csv(
        raters, index=False
    )
    secret = study_secret(tmp_path / "study.secret")
    return RatingStudy.load(raters, tmp_path / "ratings.csv", secret)


@pytest.fixture
def url(study: RatingStudy):
    ready, stop, box = threading.Event(), threading.Event(), {}

    def on_ready(address: str) -> None:
        box["url"] = address
        ready.set()

    thread = threading.Thread(
        target=serve_ratings, args=(study,), kwargs={"on_ready": on_ready, "until": stop}
    )
    thread.start()
    assert ready.wait(30)
    yield box["url"]
    stop.set()
    thread.join(10)


def login(page, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#name", name)
    page.click("#go")
    page.wait_for_selector("#rating:not([hidden])")


def answer(page, seen_score: bool) -> str:
    """Watch a little of the video, answer every question, submit; the video rated."""
    video_id, done = fill(page, seen_score)
    page.click("#submit")
    page.wait_for_function(f"document.getElementById('done').textContent === '{done + 1}'")
    return video_id


def fill(page, seen_score: bool) -> tuple[str, int]:
    """Answer every question of the video shown; its id and the count rated so far."""
    page.wait_for_function("document.getElementById('video').readyState >= 1", timeout=15000)
    assert page.evaluate("document.getElementById('video').error") is None
    video_id = page.inner_text("#video-id")
    done = int(page.inner_text("#done"))
    for field in BOOLEAN_FIELDS:
        yes = field in ("gameplay_happened", "player_control_evident") or (
            seen_score and field == "score_or_resource_increased"
        )
        page.check(f"input[name='{field}'][value='{'true' if yes else 'false'}']")
    page.fill("input[name='distinct_interactions']", "3")
    page.fill("input[name='death_or_game_over_count']", "0")
    return video_id, done


def test_two_raters_at_once_resume_and_feed_the_agreement_table(
    browser, url: str, study: RatingStudy
) -> None:
    alice_ctx, bob_ctx = browser.new_context(), browser.new_context()
    alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
    login(alice, url, "Alice")
    login(bob, url, "Bob")
    alice_id, bob_id = alice.inner_text("#rater"), bob.inner_text("#rater")
    assert alice_id != bob_id and alice_id == study.rater_id("alice")
    # unanswered questions are refused on the page, nothing is written
    alice.click("#submit")
    assert "Please answer" in alice.inner_text("#message")
    # both submit at the same moment
    (first_alice, _), (first_bob, _) = fill(alice, True), fill(bob, False)
    alice.click("#submit", no_wait_after=True)
    bob.click("#submit", no_wait_after=True)
    for page in (alice, bob):
        page.wait_for_function("document.getElementById('done').textContent === '1'")
    rated_alice, rated_bob = [first_alice], [first_bob, answer(bob, seen_score=False)]
    rated_alice.append(answer(alice, seen_score=True))
    # Alice reloads: the page resumes at her third video, by the id kept in the browser
    alice.reload()
    alice.wait_for_selector("#rating:not([hidden])")
    assert alice.inner_text("#done") == "2" and alice.inner_text("#rater") == alice_id
    assert alice.inner_text("#video-id") not in rated_alice
    # Bob in a fresh browser types his name again: the same id, resuming where he was
    bob_ctx.close()
    bob = browser.new_page()
    login(bob, url, "  BOB ")
    assert bob.inner_text("#rater") == bob_id and bob.inner_text("#done") == "2"
    rated_bob.append(answer(bob, seen_score=False))
    rated_alice.append(answer(alice, seen_score=True))
    assert sorted(rated_alice) == sorted(rated_bob) == list(VIDEOS)
    assert "All videos rated" in alice.inner_text("#message")
    # a second answer for a rated video (a stale tab) is refused, the first one stands
    status = alice.evaluate(
        """async ([rater, answers]) => {
            const token = new URLSearchParams(location.search).get('token');
            const r = await fetch('/api/rate?token=' + token, {method: 'POST',
                body: JSON.stringify({rater, video_id: 'v001', answers})});
            return r.status; }""",
        [alice_id, NOTHING],
    )
    assert status == 409
    alice_ctx.close()

    table = read_ratings(study.ratings)
    assert list(table.columns) == list(RATING_COLUMNS) and len(table) == 6
    assert not table.duplicated(["video_id", "rater"]).any()
    levels = table.groupby("rater")["level"].unique().to_dict()
    assert {k: list(v) for k, v in levels.items()} == {alice_id: ["2"], bob_id: ["1"]}
    assert agreement_table(table).iloc[0]["pairs"] == 3
