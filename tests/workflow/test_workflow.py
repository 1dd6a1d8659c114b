"""The workflow plans, lints clean, and rejects an invalid configuration."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([SNAKEMAKE, *args], cwd=repo, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_dry_run_plans_default_target(repo: Path) -> None:
    out = run(repo, "-n", "--forceall", "--quiet", "rules")
    assert out.returncode == 0, out.stderr
    assert "tabulate_models" in out.stdout + out.stderr


@pytest.mark.slow
def test_lint_is_clean(repo: Path) -> None:
    out = run(repo, "--lint")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Congratulations" in out.stdout + out.stderr


@pytest.mark.slow
def test_invalid_config_is_refused(repo: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("conditions: [k3-fast]\n")
    out = run(repo, "-n", "--configfile", str(bad))
    assert out.returncode != 0
    assert "conditions" in out.stdout + out.stderr


@pytest.mark.slow
def test_misspelt_key_and_unknown_prompt_variant_fail_the_plan(repo: Path, tmp_path: Path) -> None:
    """Both used to pass planning: a misspelt top-level key was ignored (its stage vanished) and
    an unknown prompt variant failed only inside each play job, after its server had started."""
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    typo = tmp_path / "typo.yaml"
    typo.write_text(yaml.safe_dump({**config, "catalogue": config["catalog"]}))
    out = run(repo, "-n", "--configfile", str(typo))
    assert out.returncode != 0 and "'catalogue' -> 'catalog'" in out.stdout + out.stderr
    variant = tmp_path / "variant.yaml"
    variant.write_text(yaml.safe_dump({**config, "conditions": ["k0-hz0.33-nosuch"]}))
    out = run(repo, "-n", "--configfile", str(variant))
    assert out.returncode != 0
    assert "needs prompt template 'standard+nosuch'" in out.stdout + out.stderr


@pytest.mark.slow
def test_models_table_is_built(repo_copy: Path) -> None:
    work = repo_copy
    out = run(work, "--cores", "1", "results/tables/models.csv")
    assert out.returncode == 0, out.stderr
    text = (work / "results/tables/models.md").read_text()
    assert "ui-tars-1.5-7b" in text and "| CUA |" in text
    assert "tiny" not in text  # the engine checks' random-weight models are no evaluated preset


def test_cpu_rules_carry_the_container(repo: Path) -> None:
    """Under --software-deployment-method apptainer every CPU-only rule runs in the image built
    from containers/game-sandbox.def; shard jobs that start servers and sandboxes run on the
    host (docs/cluster.md)."""
    import re

    host_rules = {
        "acquire_game",
        "acquired_block",
        "validate_launch",
        "validate_launch_block",  # the same, for a block of games in one job
        "check_conformance",  # plays the game in the host's sandbox, like validate_launch
        "play_shard",
        "play_episode",  # one episode of a play shard, as a target of its own
        "judge_shard",
        "judge_episode",  # one episode's judgement
        "validation_judge",  # a judge shard of the validation set
        "catalog_launch",
        "build_tiny_model",  # runs the engine's own Python (.venv-engine)
        "annotate_horizon_run",  # starts the annotator's model server, like a judge shard
        "answer_horizon_questions",  # starts the answering preset's model server
    }
    seen = set()
    for path in sorted((repo / "rules").glob("*.smk")):
        for match in re.finditer(
            r"(?ms)^(?:rule|checkpoint) (\w+):\n(.*?)(?=^\S|\Z)", path.read_text()
        ):
            name, body = match.groups()
            if not re.search(r"(?m)^    (script|shell|run):", body):
                continue  # a target-only rule runs nothing
            seen.add(name)
            has_container = "container:\n        PLAYSUITE_IMAGE" in body
            assert has_container == (name not in host_rules), name
    assert {"tabulate_models", "judge_scores", "catalog_table"} <= seen
    assert (repo / "containers" / "game-sandbox.def").is_file()


@pytest.mark.slow
def test_validation_rules_plan(repo: Path, tmp_path: Path) -> None:
    """With a validation: section the sample, one judge job per validation judge, their rating
    rows and the agreement table are planned, although no ratings CSV is configured."""
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    assert "validation" not in config  # the embedded default draws no validation set
    config["validation"] = {"judges": ["frame", "state"], "per_corpus": {"local": 3}}
    path = tmp_path / "validation.yaml"
    path.write_text(yaml.safe_dump(config))
    # the target before --configfile, which takes every word after it as a config file
    out = run(
        repo, "results/tables/agreement.csv", "-n", "--quiet", "rules", "--configfile", str(path)
    )
    assert out.returncode == 0, out.stdout + out.stderr
    counts = {
        parts[0]: int(parts[1])
        for line in out.stdout.splitlines()
        if len(parts := line.split()) == 2 and parts[1].isdigit()
    }
    assert counts["validation_sample"] == 1 and counts["validation_judge"] == 2
    assert counts["validation_ratings"] == 1 and counts["judge_agreement"] == 1
    assert counts["play_shard"] >= 2  # the sample is drawn from played shards
    assert "judge_shard" not in counts  # only the sampled episodes are judged


@pytest.mark.slow
def test_missing_corpus_table_names_what_builds_it(repo: Path, tmp_path: Path) -> None:
    """config/paper.yaml before the catalog stage: the plan stops on the first missing table,
    naming it and the command that builds it (it used to be a bare FileNotFoundError)."""
    from playsuite.config import ConfigError
    from playsuite.planning.play import require_corpus_tables

    if (repo / "results/catalog/itch/games.tsv").is_file():
        pytest.skip("this checkout has built the itch.io table")
    out = run(repo, "-n", "--replace-workflow-config", "--configfile", "config/paper.yaml")
    assert out.returncode != 0
    text = " ".join((out.stdout + out.stderr).split())
    assert "corpora.itch.table: results/catalog/itch/games.tsv does not exist" in text
    assert "snakemake --cores 4 results/catalog/itch/games.tsv --configfile CATALOG.yaml" in text
    table = tmp_path / "corpus.yaml"
    with pytest.raises(ConfigError, match="Point it at an existing corpus table"):
        require_corpus_tables({"corpora": {"mine": {"table": str(table)}}})
    table.write_text("games: []\n")
    require_corpus_tables({"corpora": {"mine": {"table": str(table)}}})


@pytest.mark.slow
def test_a_merged_config_file_removes_shipped_corpora_with_null(repo: Path, tmp_path: Path) -> None:
    """Snakemake merges --configfile into config.yaml; null entries take corpora out of the plan."""
    config = tmp_path / "mine.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "corpora": {"local": None, "mine": {"table": "config/corpora/local.yaml"}},
                "catalog": {"corpora": {"debian": None, "pypi": None}},
                "engine": {"checks": {"corpus": "mine"}},
            }
        )
    )
    out = run(repo, "-n", "--configfile", str(config))
    assert out.returncode == 0, out.stdout + out.stderr
    plan = out.stdout
    assert "results/runs/mine/" in plan and "results/runs/local/" not in plan
    assert "results/catalog/sample/" in plan
    assert "results/catalog/debian/" not in plan and "results/catalog/pypi/" not in plan


@pytest.mark.slow
def test_analysis_of_a_given_scores_table_plans_no_play(repo: Path, tmp_path: Path) -> None:
    """analysis.scores: the default target is the analysis of that table (here a CSV) alone."""
    from playsuite.analysis.scores import read_scores
    from playsuite.testing.synthetic_scores import SyntheticSpec, synthetic_scores

    spec = SyntheticSpec(presets={"random": ("baseline", 0.0)}, corpora={"local": 3}, judge="mine")
    scores = tmp_path / "scores.csv"
    synthetic_scores(spec).to_csv(scores, index=False)
    assert len(read_scores(scores)) == 6  # CSV by its suffix
    config = tmp_path / "scores.yaml"
    config.write_text(yaml.safe_dump({"analysis": {"scores": {"mine": str(scores)}}}))
    out = run(repo, "-n", "--quiet", "rules", "--configfile", str(config))
    assert out.returncode == 0, out.stdout + out.stderr
    jobs = {line.split()[0] for line in out.stdout.splitlines() if line.strip()}
    assert {"main_results", "ablation_figure", "reproduction_report", "inspection_pages"} <= jobs
    assert "dashboard" in jobs
    for stage in (
        "play_shard",
        "play_episode",  # one episode of a play shard, as a target of its own
        "judge_shard",
        "judge_episode",  # one episode's judgement
        "judge_scores",
        "catalog_table",
        "engine_checks_table",
    ):
        assert stage not in jobs
    # a table named at the judge stage's own place is read as it is, never rebuilt
    config.write_text(
        yaml.safe_dump({"analysis": {"scores": {"frame": "results/scores/frame.tsv"}}})
    )
    out = run(repo, "results/scores/frame.tsv", "-n", "--configfile", str(config))
    assert out.returncode != 0
    assert "No rule to produce results/scores/frame.tsv" in out.stdout + out.stderr
