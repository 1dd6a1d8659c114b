# Judging: milestones from episode videos, progress levels, scores tables (docs/judging.md).
# Judge jobs have the shape of play jobs: one job per (judge, corpus, preset, condition, shard of
# games); a Video-LLM judge job runs one model server for its shard. Each job writes a judgement
# per episode and a shard manifest (its one declared output); judge_scores collects the manifests.
# Which shards exist is planned by PLAN.judge_plan (playsuite.planning.judge) from play_targets(); the
# engine checks' shards are judged by the check judge only.
#
# Episodes people played (results/runs/{corpus}/human/..., `playsuite human play`) that exist
# when the workflow plans are judged too, in shards of their own, and reach the scores table.
#
# One judgement is a target too: results/judgements/{judge}/{corpus}/{preset}/{condition}/{game}.json
# judges just that episode (rule judge_episode), playing it first when it has no meta.json.

JUDGE_COSTS = PLAN.analysis.judge_costs  # judge jobs' cost records
# People's episodes (playsuite human play) on disk are judged with the models' (a human row).
JUDGE_PLAN = PLAN.judge_plan(
    lambda: play_targets() + PLAN.human_targets(), engine_check_play_targets
)


rule judge_shard:
    input:
        JUDGE_PLAN.inputs,
        model=PLAN.judge_model,
    output:
        manifest=paths.JUDGE_MANIFEST,
    log:
        paths.log("judge", "{judge}", "{corpus}", "{preset}", "{condition}", "{shard}"),
    conda:
        "../envs/playsuite.yaml"
    resources:
        gpu=JUDGE_PLAN.resource("gpu", 0),
        cpus_per_task=JUDGE_PLAN.resource("cpus_per_task", 1),
        mem_mb=JUDGE_PLAN.resource("mem_mb", 2000),
        runtime=JUDGE_PLAN.resource("runtime", 60),
    params:
        judge="{judge}",
        shard="{shard}",
        episodes=JUDGE_PLAN.episodes,
        play_manifest=JUDGE_PLAN.play_manifest,
        judgement_dir=paths.JUDGEMENT_DIR,
        catalogs=JUDGE_PLAN.catalogs(),
        settings=JUDGE_PLAN.settings,
        server_argv=JUDGE_PLAN.server_argv,
        vllm=ENGINE_VLLM,
        games_dir=paths.GAMES_DIR,
        # one cost record per attempt, apart from the play jobs' (docs/analysis.md "Cost records")
        costs=lambda wc: paths.judge_costs(
            JUDGE_COSTS, wc.judge, wc.corpus, wc.preset, wc.condition, wc.shard
        ),
        gpus=JUDGE_PLAN.resource("gpu", 0),
        batched_tokens=lambda wc: (REGISTRY.judge(wc.judge).serve or {}).get(
            "max_num_batched_tokens", ""
        ),
    script:
        "../workflow/scripts/judge_shard.py"


# One episode's judgement as a target (same script, one episode, no shard manifest, no cost
# record). Campaign rules ask for judge manifests only, so it runs only when named.
rule judge_episode:
    input:
        meta=paths.EPISODE_META,
        model=PLAN.judge_model,
    output:
        judgement=paths.JUDGEMENT,
    log:
        paths.log(
            "judge",
            "{judge}",
            "{corpus}",
            "{preset}",
            "{condition}",
            "episodes",
            "{game}",
        ),
    conda:
        "../envs/playsuite.yaml"
    resources:
        gpu=JUDGE_PLAN.resource("gpu", 0),
        cpus_per_task=JUDGE_PLAN.resource("cpus_per_task", 1),
        mem_mb=JUDGE_PLAN.resource("mem_mb", 2000),
        runtime=JUDGE_PLAN.resource("runtime", 60),
    params:
        judge="{judge}",
        shard="{game}",
        episodes=lambda wc, input: [os.path.dirname(input.meta)],
        play_manifest="",
        judgement_dir=paths.JUDGEMENT_DIR,
        catalogs=JUDGE_PLAN.catalogs(),
        settings=JUDGE_PLAN.settings,
        server_argv=JUDGE_PLAN.episode_server_argv,
        vllm=ENGINE_VLLM,
        games_dir=paths.GAMES_DIR,
        costs="",  # no cost record: one episode's job is no part of a campaign
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
        scores=paths.SCORES,
    log:
        paths.log("judge", "{judge}", "scores"),
    wildcard_constraints:
        judge=JUDGE_SCORES_WILDCARD,
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        families={
            **{name: p.family for name, p in REGISTRY.presets.items()},
            paths.HUMAN_PRESET: paths.HUMAN_PRESET,
        },
        genres=JUDGE_PLAN.genres,
    script:
        "../workflow/scripts/judge_scores.py"
