"""The catalog rules on the sample dumps: curated table, funnel with a reason for every excluded
game, Figure 8; archives fetched from the local mirror or over HTTP through Snakemake storage."""

from __future__ import annotations

import csv
import http.server
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import pandas as pd
import pytest

from playsuite.corpus import load_corpus
from playsuite.testing.repo import copy_repo

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
#: Every test here runs the catalog rules (the shared sample takes a minute or more).
pytestmark = pytest.mark.slow


def snakemake(work: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SNAKEMAKE, "--cores", "2", *args], cwd=work, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def sample(catalog_sample: Path) -> Path:
    """The sample corpus's catalog outputs (built once per session: conftest.catalog_sample)."""
    return catalog_sample / "results/catalog/sample"


def test_funnel_accounts_for_every_game(sample: Path) -> None:
    funnel = pd.read_csv(sample / "funnel.csv")
    records = (sample / "records.jsonl").read_text().splitlines()
    assert funnel.loc[0, "total remaining"] == len(records) == 31
    for source in ("itch.io", "PyWeek"):
        excluded = funnel[f"{source} excluded"].sum()
        assert (
            funnel.loc[0, f"{source} remaining"] - excluded
            == funnel.iloc[-1][f"{source} remaining"]
        )
        assert (funnel[f"{source} remaining"].diff().fillna(0) <= 0).all()
    exclusions = pd.read_csv(sample / "exclusions.csv")
    assert len(exclusions) == len(records) - funnel.iloc[-1]["total remaining"]
    assert exclusions["reason"].notna().all() and (exclusions["reason"].str.len() > 0).all()
    by_stage = exclusions.groupby("stage").size()
    for _, row in funnel.iloc[1:].iterrows():
        assert by_stage.get(row["stage"], 0) == row["itch.io excluded"] + row["PyWeek excluded"]
    # every stage of the paper's funnel excluded at least one sample game
    assert (funnel.iloc[1:][["itch.io excluded", "PyWeek excluded"]].sum(axis=1) > 0).all()
    assert "rating > 3.0" in (sample / "funnel.md").read_text()
    assert r"\begin{tabular}" in (sample / "funnel.tex").read_text()


def test_tables_4_and_5(sample: Path) -> None:
    """Table 5 is the funnel's technical rows; Table 4 has one row per configured category."""
    funnel = pd.read_csv(sample / "funnel.csv").set_index("stage")
    technical = pd.read_csv(sample / "technical_exclusions.csv")
    assert len(technical) == 5
    for _, row in technical.iterrows():
        stage = funnel.loc[row["stage"]]
        assert row["games"] == stage["itch.io excluded"] + stage["PyWeek excluded"]
    assert (
        "| Construct runtime freeze failure |" in (sample / "technical_exclusions.md").read_text()
    )
    harm = pd.read_csv(sample / "harm_categories.csv")
    assert len(harm) == 13 and harm["games"].isna().all()  # no validator on the sample
    candidates = pd.read_csv(sample / "harm_candidates.tsv", sep="\t")
    assert set(candidates["status"]) <= {"unvalidated"}
    assert harm["candidates"].sum() == len(candidates)


def test_quarantined_games_never_reach_launch(sample: Path) -> None:
    exclusions = pd.read_csv(sample / "exclusions.csv").set_index("id")
    assert exclusions.loc["itch-1014", "stage"] == "triage"  # path traversal in gift.zip
    assert "path_traversal" in exclusions.loc["itch-1014", "reason"]
    assert "corrupt" in exclusions.loc["itch-1015", "reason"]  # truncated download
    assert "c3runtime.js" in exclusions.loc["itch-1016", "reason"]
    assert exclusions.loc["itch-1018", "stage"] == "launch"
    triage = (sample / "triage.jsonl").read_text()
    assert "itch-1003" not in triage  # excluded by metadata: its archive was never fetched


def test_curated_table_is_a_valid_corpus(sample: Path) -> None:
    games = {g.id: g for g in load_corpus(sample / "games.tsv")}
    assert set(games) == {
        "itch-1001",
        "itch-1002",
        "itch-1019",
        "itch-1020",
        "itch-1021",
        "itch-1022",
        "pyweek-35-clockwork",
        "pyweek-32-drift",
    }
    assert games["itch-1001"].genre == "Racing"  # Racing (1) beats Action (1/3)
    assert games["itch-1002"].genre == "Puzzle"  # Puzzle (1/2) beats Platformer's Action (1/3)
    assert games["itch-1019"].genre == "Shooter"  # Shooter (1) beats Platformer's Action (1/3)
    assert games["itch-1019"].entry == "star-courier/start.sh"  # found by the launch check
    assert games["itch-1019"].runtime == "native"
    assert games["itch-1022"].options["triage"]["policy"] == "monitor"  # ships a .exe
    assert games["itch-1021"].options["triage"]["policy"] == "trusted"
    assert games["pyweek-32-drift"].runtime == "pygame"
    assert games["itch-1020"].genre is None  # untagged, no classifier configured
    for game in games.values():
        assert Path(sample.parents[2], game.package).is_file()


def test_genre_figure(sample: Path) -> None:
    with open(sample / "genre_distribution.csv") as fh:
        rows = {r["genre"]: r for r in csv.DictReader(fh)}
    assert list(rows)[:9] == [
        "Action",
        "Adventure",
        "Puzzle",
        "Shooter",
        "Simulation",
        "Survival",
        "Strategy",
        "Fighting",
        "Racing",
    ]
    assert rows["Action"]["total"] == "0" and rows["Racing"]["total"] == "1"
    assert (rows["Unclassified"]["itch"], rows["Unclassified"]["pyweek"]) == ("1", "2")
    assert (sample / "genre_distribution.png").read_bytes()[:4] == b"\x89PNG"
    assert (sample / "genre_distribution.pdf").read_bytes()[:4] == b"%PDF"


def test_archives_over_http(repo: Path, tmp_path: Path) -> None:
    """The same rules with archive URLs: Snakemake's HTTP storage fetches them."""
    work = copy_repo(repo, tmp_path / "repo")
    mirror = work / "tests/data/catalog/mirror"
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(mirror))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        dump = (work / "tests/data/catalog/itch_sample.jsonl").read_text()
        (tmp_path / "itch.jsonl").write_text(
            dump.replace('"archive": "itch/', f'"archive": "{base}/itch/')
        )
        (tmp_path / "cfg.yaml").write_text(
            f"catalog:\n  corpora:\n    web:\n      itch: {tmp_path}/itch.jsonl\n"
            "      exclusions: tests/data/catalog/exclusions.tsv\n"
        )
        out = snakemake(
            work,
            "results/catalog/web/games.tsv",
            "results/catalog/web/funnel.md",
            "--configfile",
            str(tmp_path / "cfg.yaml"),
        )
    finally:
        httpd.shutdown()
    assert out.returncode == 0, out.stderr[-3000:]
    funnel = (work / "results/catalog/web/funnel.md").read_text()
    assert "launch dry-run succeeds (not run)" in funnel  # no launch results configured
    games = {g.id: g for g in load_corpus(work / "results/catalog/web/games.tsv")}
    assert games["itch-1001"].package == f"{base}/itch/neon-drift.zip"
    assert "itch-1014" not in games and "itch-1015" not in games
