# Judge validation (paper Table 10; docs/judging.md): a blinded sample of played episodes per
# corpus (validation.per_corpus), judged by every validation judge (validation.judges) with the
# judge shard machinery of rules/judge.smk (one job, one model server per judge), and turned
# into rating rows that rule judge_agreement (rules/analysis.smk) sets beside the human ones.
# Off unless the configuration has a validation: section, and with analysis.scores (nothing is
# played then).

from playsuite.judge.validation import validation_settings

VALIDATION = None if SCORES_GIVEN else validation_settings(config)
if VALIDATION:
    for _judge in VALIDATION.judges:
        REGISTRY.judge(_judge)


rule validation_sample:
    input:
        manifests=validation_play_manifests() if VALIDATION else [],
    output:
        sample=paths.VALIDATION_SAMPLE,
        raters=paths.VALIDATION_RATERS,
        videos=directory(paths.VALIDATION_VIDEOS),
    log:
        paths.log("validation", "sample"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        per_corpus=VALIDATION.per_corpus if VALIDATION else {},
        seed=VALIDATION.seed if VALIDATION else 0,
    script:
        "../workflow/scripts/validation_sample.py"


rule validation_judge:
    input:
        sample=paths.VALIDATION_SAMPLE,
        model=PLAN.judge_model,
    output:
        manifest=paths.VALIDATION_JUDGE_MANIFEST,
    log:
        paths.log("validation", "judge", "{judge}"),
    conda:
        "../envs/playsuite.yaml"
    resources:
        gpu=JUDGE_PLAN.resource("gpu", 0),
        cpus_per_task=JUDGE_PLAN.resource("cpus_per_task", 1),
        mem_mb=JUDGE_PLAN.resource("mem_mb", 2000),
        runtime=JUDGE_PLAN.resource("runtime", 60),
    params:
        judge="{judge}",
        judgement_dir=paths.VALIDATION_JUDGEMENT_DIR,
        catalogs=JUDGE_PLAN.catalogs(),
        settings=JUDGE_PLAN.settings,
        server_argv=JUDGE_PLAN.settings["server_argv"] or [],
        vllm=ENGINE_VLLM,
        games_dir=paths.GAMES_DIR,
    script:
        "../workflow/scripts/validation_judge.py"


rule validation_ratings:
    input:
        sample=paths.VALIDATION_SAMPLE,
        manifests=[
            paths.validation_judge_manifest(judge)
            for judge in (VALIDATION.judges if VALIDATION else ())
        ],
    output:
        csv=paths.VALIDATION_RATINGS,
    log:
        paths.log("validation", "judge_ratings"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        judges=list(VALIDATION.judges) if VALIDATION else [],
    script:
        "../workflow/scripts/validation_ratings.py"
