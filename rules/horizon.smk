# Trajectories as data (GameHorizon; docs/horizon.md). Off unless the configuration has a
# horizon: section. One job per configured run annotates its episodes (horizon.json beside each,
# one model server for the run) and writes the run's annotation index; the question set is built
# from every index; each answering preset answers it with its own server; the accuracy table and
# the offline-online correlation come last. Nothing here is in `all`: `snakemake horizon` (rule
# horizon below) builds it all, and every file is a target of its own. HORIZON (the plan of the
# horizon: section) and the target lists are in rules/common.smk.


rule horizon:
    input:
        horizon_targets(),


rule annotate_horizon_run:
    input:
        manifests=horizon_run_manifests,
        model=HORIZON.model(HORIZON.annotator) if HORIZON else [],
    output:
        index=paths.HORIZON_INDEX,
    log:
        paths.log("horizon", "annotate", "{corpus}", "{preset}", "{condition}"),
    benchmark:
        paths.benchmark("horizon", "annotate", "{corpus}", "{preset}", "{condition}")
    conda:
        "../envs/playsuite.yaml"
    resources:
        gpu=HORIZON.resource(HORIZON.annotator, "gpu", 0) if HORIZON else 0,
        cpus_per_task=(
            HORIZON.resource(HORIZON.annotator, "cpus_per_task", 1) if HORIZON else 1
        ),
        mem_mb=HORIZON.resource(HORIZON.annotator, "mem_mb", 2000) if HORIZON else 2000,
        runtime=HORIZON.resource(HORIZON.annotator, "runtime", 60) if HORIZON else 60,
    params:
        annotator=HORIZON.annotator if HORIZON else "",
        run_dir=paths.RUN_DIR,
        settings=HORIZON.settings if HORIZON else {},
        catalogs=JUDGE_PLAN.catalogs(),
        games_dir=paths.GAMES_DIR,
        vllm=ENGINE_VLLM,
    script:
        "../workflow/scripts/horizon_annotate.py"


rule build_horizon_questions:
    input:
        indexes=HORIZON.indexes() if HORIZON else [],
    output:
        questions=paths.HORIZON_QUESTIONS,
    log:
        paths.log("horizon", "questions"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        settings=HORIZON.settings if HORIZON else {},
    script:
        "../workflow/scripts/horizon_questions.py"


rule answer_horizon_questions:
    input:
        questions=paths.HORIZON_QUESTIONS,
        model=lambda wc: HORIZON.model(wc.preset) if HORIZON else [],
    output:
        answers=paths.HORIZON_ANSWERS,
    log:
        paths.log("horizon", "answer", "{preset}"),
    benchmark:
        paths.benchmark("horizon", "answer", "{preset}")
    conda:
        "../envs/playsuite.yaml"
    resources:
        gpu=lambda wc: HORIZON.resource(wc.preset, "gpu", 0),
        cpus_per_task=lambda wc: HORIZON.resource(wc.preset, "cpus_per_task", 1),
        mem_mb=lambda wc: HORIZON.resource(wc.preset, "mem_mb", 2000),
        runtime=lambda wc: HORIZON.resource(wc.preset, "runtime", 60),
    params:
        preset="{preset}",
        settings=HORIZON.settings if HORIZON else {},
        vllm=ENGINE_VLLM,
    script:
        "../workflow/scripts/horizon_answer.py"


rule tabulate_horizon_accuracy:
    input:
        answers=HORIZON.answers() if HORIZON else [],
    output:
        tsv=report(
            paths.table("horizon_accuracy", "tsv"),
            caption="../report/horizon_accuracy.rst",
            category="Offline track",
        ),
        md=paths.table("horizon_accuracy", "md"),
    log:
        paths.log("horizon", "accuracy"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        bootstrap={
            "resamples": PLAN.analysis.bootstrap.resamples,
            "confidence": PLAN.analysis.bootstrap.confidence,
            "seed": PLAN.analysis.bootstrap.seed,
        },
    script:
        "../workflow/scripts/horizon_accuracy.py"


rule correlate_horizon_progress:
    input:
        accuracy=paths.table("horizon_accuracy", "tsv"),
        scores=(
            SCORES_GIVEN.get(HORIZON.judge, paths.scores(HORIZON.judge))
            if HORIZON
            else []
        ),
    output:
        tsv=report(
            paths.table("horizon_correlation", "tsv"),
            caption="../report/horizon_correlation.rst",
            category="Offline track",
        ),
        md=paths.table("horizon_correlation", "md"),
    log:
        paths.log("horizon", "correlation"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/horizon_correlation.py"
