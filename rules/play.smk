# Play: acquire games, run episodes in shard jobs (one inference server per node).
# A play job is one shard of one (corpus, preset, condition) run (playsuite.planning.play): it starts the
# preset's model server on its node (none for baselines), plays the shard's games with W workers,
# and writes the shard manifest as its one declared output. Episode directories
# results/runs/{corpus}/{preset}/{condition}/{game}/ are written beside it, each atomically; a
# rerun plays only the games without a finished episode.


wildcard_constraints:
    shard="s[0-9]{4}",
    preset="[a-z0-9][a-z0-9._-]*",
    condition="k[0-9]+-hz[0-9.]+-[a-z][a-z0-9_]*",
    corpus="[a-z0-9][a-z0-9_-]*",
    game="[a-z0-9]+(-[a-z0-9]+)*",


rule acquire_game:
    input:
        catalog=lambda wc: corpus_of_game(wc.game),
    output:
        "results/games/{game}/acquired.json",
    log:
        "results/logs/acquire/{game}.log",
    benchmark:
        "results/benchmarks/acquire/{game}.tsv"
    conda:
        "../envs/playsuite.yaml"
    params:
        games_dir=lambda wc, output: Path(output[0]).parent.parent,
    script:
        "../workflow/scripts/acquire_game.py"


# Launch validation: the game renders non-blank frames and reacts to input (two short seeded
# runs, idle vs. scripted input; playsuite.runtimes.validate). A failing game is recorded in
# launch.json with ok: false, not as a failed job.
rule validate_launch:
    input:
        catalog=lambda wc: corpus_of_game(wc.game),
        acquired="results/games/{game}/acquired.json",
    output:
        "results/games/{game}/launch.json",
    log:
        "results/logs/validate/{game}.log",
    benchmark:
        "results/benchmarks/validate/{game}.tsv"
    conda:
        "../envs/playsuite.yaml"
    script:
        "../workflow/scripts/validate_launch.py"


# A block of a corpus's acquired games (the corpus cut like a main run's shards,
# playsuite.planning.play.game_blocks): a local bookkeeping job that waits for the block's acquire_game
# jobs, so that a play shard depends on a few block files instead of one file per game. This keeps
# the paper's DAG plannable in well under a minute (docs/cluster.md, benchmarks/plan_paper.py).
rule acquired_block:
    input:
        lambda wc: [
            f"results/games/{game}/acquired.json"
            for game in GAME_BLOCKS[wc.corpus][wc.block]
        ],
    output:
        "results/games/blocks/{corpus}/{block}.txt",
    log:
        "results/logs/acquire/blocks/{corpus}/{block}.log",
    wildcard_constraints:
        block="s[0-9]{4}",
    localrule: True
    conda:
        "../envs/playsuite.yaml"
    shell:
        "printf '%s\\n' {input} > {output} 2> {log}"


# A tiny random-weight model (registry `tiny`: the engine checks' presets and judge), built by
# the engine's own Python into the hf_id folder the preset serves from (playsuite.inference.
# engine.build_tiny_model: deterministic, offline, replaced atomically). Play and judge shards of
# tiny presets depend on it.
rule build_tiny_model:
    output:
        directory("results/engine/models/{arch}"),
    log:
        "results/logs/engine/build_tiny_model/{arch}.log",
    benchmark:
        "results/benchmarks/engine/build_tiny_model/{arch}.tsv"
    wildcard_constraints:
        arch="|".join(TINY_ARCHITECTURES),
    conda:
        "../envs/playsuite.yaml"
    params:
        vllm=ENGINE_VLLM,
    script:
        "../workflow/scripts/build_tiny_model.py"


rule play_shard:
    input:
        catalog=lambda wc: config["corpora"][wc.corpus]["table"],
        acquired=lambda wc: [
            f"results/games/blocks/{wc.corpus}/{block}.txt"
            for block in blocks_of(play_unit(wc), GAME_BLOCK_OF)
        ],
        model=play_model,
    output:
        manifest="results/runs/{corpus}/{preset}/{condition}/shards/{shard}.tsv",
    log:
        "results/logs/play/{corpus}/{preset}/{condition}/{shard}.log",
    benchmark:
        "results/benchmarks/play/{corpus}/{preset}/{condition}/{shard}.tsv"
    conda:
        "../envs/playsuite.yaml"
    threads: PLAY["workers"]
    resources:
        gpu=lambda wc: REGISTRY.preset(wc.preset).gpus,
        cpus_per_task=lambda wc: preset_resource(
            wc.preset, "cpus_per_task", PLAY["workers"]
        ),
        mem_mb=lambda wc: preset_resource(wc.preset, "mem_mb", 4000 * PLAY["workers"]),
        runtime=lambda wc: preset_resource(wc.preset, "runtime", 120),
    params:
        games=lambda wc: ",".join(play_unit(wc).games),
        steps=lambda wc: (
            f"--steps {PLAY['steps']}" if PLAY["steps"] is not None else ""
        ),
        workers=PLAY["workers"],
        wall_timeout=PLAY["wall_timeout_s"],
        seed=config.get("seed", 0),
        models=config["models"],
        server_argv=server_argv_option,
        vllm=ENGINE_VLLM,
        sandbox=sandbox_option(config),
        faults=fault_options(config),
        playsuite=PLAYSUITE,
    shell:
        "{params.playsuite} play-shard --corpus {wildcards.corpus} --catalog {input.catalog}"
        " --preset {wildcards.preset} --condition {wildcards.condition}"
        " --shard {wildcards.shard} --games {params.games} --workers {params.workers}"
        " {params.steps} --wall-timeout {params.wall_timeout} --seed {params.seed}"
        " --models {params.models}{params.server_argv}{params.sandbox}{params.faults}"
        " --vllm {params.vllm}"
        " --runs-dir results/runs/{wildcards.corpus}/{wildcards.preset}/{wildcards.condition}"
        " --games-dir results/games --manifest {output.manifest}"
        " --log-dir results/logs/play/{wildcards.corpus}/{wildcards.preset}/{wildcards.condition}"
        " --costs results/costs/{wildcards.corpus}/{wildcards.preset}/{wildcards.condition}/{wildcards.shard}.tsv"
        " > {log} 2>&1"
