# Judging: milestones from episode videos, progress levels, scores tables (docs/judging.md).
# Judge jobs have the shape of play jobs: one job per (judge, corpus, preset, condition, shard of
# games); a Video-LLM judge job runs one model server for its shard. Each job writes a judgement
# per episode and a shard manifest (its one declared output); judge_scores collects the manifests.
# Which shards exist is planned by playsuite.planning.judge from play_targets(); the engine checks'
# shards (engine_check_play_targets()) are judged by the check judge only.

from playsuite.analysis.settings import analysis_settings
from playsuite.planning.judge import JudgePlan

JUDGE_COSTS = analysis_settings(config).judge_costs  # judge jobs' cost records
JUDGE_PLAN = JudgePlan(
    config, REGISTRY, play_targets, ENGINE_CHECKS.judge, engine_check_play_targets
)


wildcard_constraints:
    shard="[se][0-9]{4}",
    preset="[a-z0-9][a-z0-9._-]*",
    condition="k[0-9]+-hz[0-9.]+-[a-z][a-z0-9_]*",


rule judge_shard:
    input:
        JUDGE_PLAN.inputs,
        model=judge_model,
    output:
        manifest="results/judgements/{judge}/{corpus}/{preset}/{condition}/shards/{shard}.tsv",
    log:
        "results/logs/judge/{judge}/{corpus}/{preset}/{condition}/{shard}.log",
    conda:
        "../envs/playsuite.yaml"
    resources:
        gpu=JUDGE_PLAN.resource("gpu", 0),
        cpus_per_task=JUDGE_PLAN.resource("cpus_per_task", 1),
        mem_mb=JUDGE_PLAN.resource("mem_mb", 2000),
        runtime=JUDGE_PLAN.resource("runtime", 60),
    params:
        judge="{judge}",
        episodes=JUDGE_PLAN.episodes,
        play_manifest=JUDGE_PLAN.play_manifest,
        judgement_dir="results/judgements/{judge}/{corpus}/{preset}/{condition}",
        catalogs=JUDGE_PLAN.catalogs(),
        settings=JUDGE_PLAN.settings,
        server_argv=JUDGE_PLAN.server_argv,
        vllm=ENGINE_VLLM,
        games_dir="results/games",
        # one cost record per attempt, apart from the play jobs' (docs/analysis.md "Cost records")
        costs=lambda wc: (
            f"{JUDGE_COSTS}/{wc.judge}/{wc.corpus}/{wc.preset}/{wc.condition}/{wc.shard}.tsv"
        ),
        gpus=JUDGE_PLAN.resource("gpu", 0),
        batched_tokens=lambda wc: (REGISTRY.judge(wc.judge).serve or {}).get(
            "max_num_batched_tokens", ""
        ),
    script:
        "../workflow/scripts/judge_shard.py"


rule judge_scores:
    input:
        manifests=JUDGE_PLAN.manifests,
    output:
        scores="results/scores/{judge}.tsv",
    log:
        "results/logs/judge/{judge}/scores.log",
    wildcard_constraints:
        judge=JUDGE_SCORES_WILDCARD,
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        families={name: p.family for name, p in REGISTRY.presets.items()},
        genres=JUDGE_PLAN.genres,
    script:
        "../workflow/scripts/judge_scores.py"
