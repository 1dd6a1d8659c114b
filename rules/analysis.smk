# Analysis: the paper's tables and figures from scores tables.


rule tabulate_models:
    input:
        config["models"],
    output:
        csv=report(
            "results/tables/models.csv",
            caption="../report/models.rst",
            category="Models",
        ),
        md="results/tables/models.md",
        tex="results/tables/models.tex",
    log:
        "results/logs/tabulate_models.log",
    conda:
        "../envs/playsuite.yaml"
    script:
        "../workflow/scripts/tabulate_models.py"
