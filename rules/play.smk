# Play: acquire games, run episodes in shard jobs (one inference server per node).
# A play job is one shard of one (corpus, preset, condition) run (playsuite.planning.play): it starts the
# preset's model server on its node (none for baselines), plays the shard's games with W workers,
# and writes the shard manifest as its one declared output. Episode directories
# results/runs/{corpus}/{preset}/{condition}/{game}/ are written beside it, each atomically; a
# rerun plays only the games without a finished episode.
#
# One episode is a target too: results/runs/{corpus}/{preset}/{condition}/{game}/meta.json plays
# just that game (rule play_episode; with --forcerun, replays it). Campaign rules only ever ask
# for shard manifests, so play_episode runs only when someone names an episode's meta.json.


rule acquire_game:
    input:
        catalog=lambda wc: PLAN.corpus_of_game(wc.game),
    output:
        paths.ACQUIRED,
    log:
        paths.log("acquire", "{game}"),
    benchmark:
        paths.benchmark("acquire", "{game}")
    conda:
        "../envs/playsuite.yaml"
    params:
        games_dir=lambda wc, output: Path(output[0]).parent.parent,
        request=PLAN.acquire_request,
    script:
        "../workflow/scripts/acquire_game.py"


# Launch validation: the game renders non-blank frames and reacts to input (two short seeded
# runs, idle vs. scripted input; playsuite.runtimes.validate). A failing game is recorded in
# launch.json with ok: false, not as a failed job.
rule validate_launch:
    input:
        catalog=lambda wc: PLAN.corpus_of_game(wc.game),
        acquired=paths.ACQUIRED,
    output:
        paths.LAUNCH,
    log:
        paths.log("validate", "{game}"),
    benchmark:
        paths.benchmark("validate", "{game}")
    conda:
        "../envs/playsuite.yaml"
    script:
        "../workflow/scripts/validate_launch.py"


# Launch validation of a whole acquisition block in one job (what `all` asks for): at paper scale
# ~90 jobs instead of one sbatch per game (docs/cluster.md, "Job counts"). Each game still gets
# its own launch.json and log; games validated before are not run again.
rule validate_launch_block:
    input:
        catalog=lambda wc: PLAN.config["corpora"][wc.corpus]["table"],
        acquired=PLAN.block_games,
    output:
        paths.LAUNCH_BLOCK,
    log:
        paths.log("validate", "blocks", "{corpus}", "{block}"),
    benchmark:
        paths.benchmark("validate", "blocks", "{corpus}", "{block}")
    conda:
        "../envs/playsuite.yaml"
    # As many games at a time as a play shard runs (each its own display, sandbox, browser).
    threads: PLAY["workers"]
    resources:
        cpus_per_task=PLAY["workers"],
        mem_mb=3000 * PLAY["workers"],
    params:
        game_logs=paths.log_dir("validate"),
    script:
        "../workflow/scripts/validate_launch_block.py"


# Runtime conformance (playsuite.harness.conformance): a game through the runtime contract
# (launch, frozen while paused, exact slices, video length = game time, clean stop, input).
# Not part of `all`: ask for results/conformance/{corpus}.tsv to check a whole corpus.
rule check_conformance:
    input:
        catalog=lambda wc: PLAN.corpus_of_game(wc.game),
        acquired=paths.ACQUIRED,
    output:
        paths.CONFORMANCE,
    log:
        paths.log("conformance", "{game}"),
    benchmark:
        paths.benchmark("conformance", "{game}")
    conda:
        "../envs/playsuite.yaml"
    script:
        "../workflow/scripts/check_conformance.py"


rule conformance_table:
    input:
        PLAN.conformance_files,
    output:
        table=report(
            paths.CONFORMANCE_TABLE,
            caption="../report/conformance.rst",
            category="Games",
        ),
        summary=paths.CONFORMANCE_SUMMARY,
    log:
        paths.log("conformance", "{corpus}"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/conformance_table.py"


# A block of a corpus's acquired games (the corpus cut like a main run's shards,
# playsuite.planning.play.game_blocks): a local bookkeeping job that waits for the block's acquire_game
# jobs, so that a play shard depends on a few block files instead of one file per game. This keeps
# the paper's DAG plannable in well under a minute (docs/cluster.md, benchmarks/plan_paper.py).
rule acquired_block:
    input:
        PLAN.block_games,
    output:
        paths.ACQUIRED_BLOCK,
    log:
        paths.log("acquire", "blocks", "{corpus}", "{block}"),
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
        directory(paths.TINY_MODEL),
    log:
        paths.log("engine", "build_tiny_model", "{arch}"),
    benchmark:
        paths.benchmark("engine", "build_tiny_model", "{arch}")
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
        acquired=PLAN.block_files,
        model=PLAN.preset_model,
    output:
        manifest=paths.PLAY_MANIFEST,
    log:
        paths.log("play", "{corpus}", "{preset}", "{condition}", "{shard}"),
    benchmark:
        paths.benchmark("play", "{corpus}", "{preset}", "{condition}", "{shard}")
    conda:
        "../envs/playsuite.yaml"
    threads: PLAY["workers"]
    resources:
        gpu=lambda wc: REGISTRY.preset(wc.preset).gpus,
        cpus_per_task=lambda wc: PLAN.preset_resource(
            wc.preset, "cpus_per_task", PLAY["workers"]
        ),
        mem_mb=lambda wc: PLAN.preset_resource(
            wc.preset, "mem_mb", 4000 * PLAY["workers"]
        ),
        runtime=lambda wc: PLAN.preset_resource(wc.preset, "runtime", 120),
    params:
        games=lambda wc: ",".join(PLAN.unit(wc).games),
        steps=PLAN.steps_option(),
        workers=PLAY["workers"],
        wall_timeout=PLAY["wall_timeout_s"],
        seed=config["seed"],
        models=config["models"],
        server_argv=PLAN.server_argv,
        vllm=ENGINE_VLLM,
        sandbox=sandbox_option(config),
        faults=fault_options(config),
        playsuite=PLAYSUITE,
        run_dir=paths.RUN_DIR,
        games_dir=paths.GAMES_DIR,
        log_dir=paths.PLAY_LOG_DIR,
        costs=paths.PLAY_COSTS,
    shell:
        "{params.playsuite} play-shard --corpus {wildcards.corpus} --catalog {input.catalog}"
        " --preset {wildcards.preset} --condition {wildcards.condition}"
        " --shard {wildcards.shard} --games {params.games} --workers {params.workers}"
        " {params.steps} --wall-timeout {params.wall_timeout} --seed {params.seed}"
        " --models {params.models}{params.server_argv}{params.sandbox}{params.faults}"
        " --vllm {params.vllm} --runs-dir {params.run_dir} --games-dir {params.games_dir}"
        " --manifest {output.manifest} --log-dir {params.log_dir} --costs {params.costs}"
        " > {log} 2>&1"


# One episode as a target: the game played by play-shard restricted to it (same settings, seed
# and server as in its campaign shard, so the episode is the one the shard would have written).
# No shard manifest and no cost record: those belong to the campaign's shard jobs. Snakemake
# removes meta.json before a --forcerun, so the job finds no finished episode and plays it again.
rule play_episode:
    input:
        catalog=lambda wc: config["corpora"][wc.corpus]["table"],
        acquired=paths.ACQUIRED,
        model=PLAN.preset_model,
    output:
        meta=paths.EPISODE_META,
    log:
        paths.log("play", "{corpus}", "{preset}", "{condition}", "episodes", "{game}"),
    wildcard_constraints:
        preset=paths.PLAYED_PRESET,
    conda:
        "../envs/playsuite.yaml"
    threads: 1
    resources:
        gpu=lambda wc: REGISTRY.preset(wc.preset).gpus,
        cpus_per_task=1,
        mem_mb=lambda wc: PLAN.preset_resource(wc.preset, "mem_mb", 4000),
        runtime=lambda wc: PLAN.preset_resource(wc.preset, "runtime", 120),
    params:
        shard=lambda wc: PLAN.episode_unit(wc).shard,
        steps=PLAN.steps_option(),
        wall_timeout=PLAY["wall_timeout_s"],
        seed=config["seed"],
        models=config["models"],
        server_argv=PLAN.server_argv,
        vllm=ENGINE_VLLM,
        sandbox=sandbox_option(config),
        faults=fault_options(config),
        playsuite=PLAYSUITE,
        run_dir=paths.RUN_DIR,
        games_dir=lambda wc, input: Path(input.acquired).parent.parent,
        log_dir=paths.PLAY_LOG_DIR,
    shell:
        "{params.playsuite} play-shard --corpus {wildcards.corpus} --catalog {input.catalog}"
        " --preset {wildcards.preset} --condition {wildcards.condition}"
        " --shard {params.shard} --games {wildcards.game} --workers 1"
        " {params.steps} --wall-timeout {params.wall_timeout} --seed {params.seed}"
        " --models {params.models}{params.server_argv}{params.sandbox}{params.faults}"
        " --vllm {params.vllm} --runs-dir {params.run_dir} --games-dir {params.games_dir}"
        " --log-dir {params.log_dir} > {log} 2>&1"
