# The registry survey (docs/catalog-survey.md): the catalog stages over a whole registry, one
# corpus per registry named survey-{source} (config/survey.yaml), and per registry a table of every
# candidate with its outcome and the date. The verdicts under results/catalog/survey-*/launch/ and
# the tables under results/catalog/survey/ are committed, so a survey carries across machines.


rule survey_table:
    input:
        records=paths.catalog_file(paths.SURVEY_CORPUS, "records.jsonl"),
        decisions=paths.catalog_file(paths.SURVEY_CORPUS, "decisions.tsv"),
        snapshot=paths.catalog_file(paths.SURVEY_CORPUS, "snapshot.json"),
        pypi=paths.catalog_file(paths.SURVEY_CORPUS, "snapshot.pypi.json"),
        npm=paths.catalog_file(paths.SURVEY_CORPUS, "snapshot.npm.json"),
        launch=CATALOG_IN.survey_launch_files,
    output:
        table=paths.survey_file("{source}.tsv"),
        summary=paths.survey_file("{source}.md"),
    log:
        paths.log("catalog", "survey", "{source}"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/survey_table.py"


# npm has no category of games: its survey reads the registry's complete name list (the npm
# package all-the-package-names, about 4.5 M names), narrowed by config/catalog/npm.yaml's name
# words at ingest (docs/catalog.md "Registry sources (npm)"). Not committed: the survey's
# snapshot.json pins the list's sha256.
SURVEY_NPM = paths.SURVEY_CORPUS.format(source="npm")


rule fetch_npm_names:
    output:
        paths.catalog_file(SURVEY_NPM, "names.json"),
    log:
        paths.log("catalog", SURVEY_NPM, "fetch_npm_names"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/fetch_npm_names.py"
