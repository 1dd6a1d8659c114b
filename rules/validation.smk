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
        sample="results/validation/sample.tsv",
        raters="results/validation/raters.csv",
        videos=directory("results/validation/videos"),
    log:
        "results/logs/validation/sample.log",
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
        sample="results/validation/sample.tsv",
        model=PLAN.judge_model,
    output:
        manifest="results/validation/judgements/{judge}/manifest.tsv",
    log:
        "results/logs/validation/judge/{judge}.log",
    conda:
        "../envs/playsuite.yaml"
    resources:
        gpu=JUDGE_PLAN.resource("gpu", 0),
        cpus_per_task=JUDGE_PLAN.resource("cpus_per_task", 1),
        mem_mb=JUDGE_PLAN.resource("mem_mb", 2000),
        runtime=JUDGE_PLAN.resource("runtime", 60),
    params:
        judge="{judge}",
        judgement_dir="results/validation/judgements/{judge}",
        catalogs=JUDGE_PLAN.catalogs(),
        settings=JUDGE_PLAN.settings,
        server_argv=JUDGE_PLAN.settings["server_argv"] or [],
        vllm=ENGINE_VLLM,
        games_dir="results/games",
    script:
        "../workflow/scripts/validation_judge.py"


rule validation_ratings:
    input:
        sample="results/validation/sample.tsv",
        manifests=[
            f"results/validation/judgements/{judge}/manifest.tsv"
            for judge in (VALIDATION.judges if VALIDATION else ())
        ],
    output:
        csv="results/validation/judge_ratings.csv",
    log:
        "results/logs/validation/judge_ratings.log",
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        judges=list(VALIDATION.judges) if VALIDATION else [],
    script:
        "../workflow/scripts/validation_ratings.py"
