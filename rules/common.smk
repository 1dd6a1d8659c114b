# Helpers shared by the workflow: configuration lookups and target lists (functions only).
# Each stage owns one *_targets() function below; final_outputs() is the default target.

from pathlib import Path

from playsuite.config import Condition, load_validated
from playsuite.registry import parse_registry

REGISTRY = parse_registry(load_validated(config["models"], "models"))

for _preset in config["presets"]:
    REGISTRY.preset(_preset)
for _judge in config["judges"]:
    REGISTRY.judge(_judge)
CONDITIONS = {name: Condition.parse(name) for name in config["conditions"]}


def catalog_targets():
    """Catalog curation outputs (funnel, curated tables, genre figure)."""
    return [
        f"results/catalog/{corpus}/{name}"
        for corpus in config.get("catalog", {}).get("corpora", {})
        for name in (
            "games.tsv",
            "funnel.csv",
            "funnel.md",
            "funnel.tex",
            "exclusions.csv",
            "genre_distribution.csv",
            "genre_distribution.pdf",
            "genre_distribution.png",
        )
    ]


def play_targets():
    """Episode directories of every (corpus, preset, condition, game)."""
    return []


def judge_targets():
    """Scores tables of every judge (rules/judge.smk): on once play_targets() lists episodes."""
    return JUDGE_PLAN.scores_targets()


def analysis_targets():
    """Tables, figures and the report inputs."""
    return [
        "results/tables/models.csv",
        "results/tables/models.md",
        "results/tables/models.tex",
    ]


def analysis_figure_targets():
    """Every statistic's table and figure per configured judge (rules/analysis.smk).

    Needs results/scores/{judge}.tsv: add to analysis_targets() once the judge stage makes it.
    """
    out = ["results/figures/efficiency.pdf", "results/figures/efficiency.png"]
    for judge in config["judges"]:
        tables = f"results/tables/{judge}"
        figures = f"results/figures/{judge}"
        for stem in ("main", "genres", "genre_rank_range", "stability", "cost"):
            out += [f"{tables}/{stem}.{ext}" for ext in ("csv", "md", "tex")]
        out += [f"{tables}/genre_rank_agreement.{ext}" for ext in ("csv", "md")]
        for stem in ("stability", "cost"):
            out += [f"{figures}/{stem}.{ext}" for ext in ("pdf", "png")]
        for corpus in config["corpora"]:
            out += [f"{figures}/genre_heatmap_{corpus}.{ext}" for ext in ("pdf", "png")]
        for name in ABLATIONS:
            out += [f"{figures}/ablation_{name}.{ext}" for ext in ("pdf", "png")]
            out += [f"{tables}/ablation_{name}.{ext}" for ext in ("csv", "md")]
        out += [f"results/report/{judge}/reproduction.{ext}" for ext in ("csv", "md")]
        out.append(f"results/inspect/{judge}")
        if ANALYSIS.ratings:
            out += [
                f"results/tables/{judge}/agreement.{ext}"
                for ext in ("csv", "md", "tex")
            ]
    return out


def final_outputs():
    """Everything the default target builds."""
    return catalog_targets() + play_targets() + judge_targets() + analysis_targets()
