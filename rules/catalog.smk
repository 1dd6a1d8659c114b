# Catalog curation: ingest platform dumps, filter, triage archives, launch gate, genres, funnel.
# Per corpus under config["catalog"]["corpora"]; outputs under results/catalog/{corpus}/
# (docs/catalog.md). Two checkpoints: which archives to fetch depends on the metadata screen, and
# which games to launch (rule catalog_launch) depends on triage (quarantined games never are).

from playsuite.planning.catalog import CatalogInputs

CATALOG = config.get("catalog") or {}
CATALOG_GENRES = CATALOG.get("genres", "config/genres.yaml")
CATALOG_HARM = CATALOG.get("harm") or {}
CATALOG_DEBTAGS = CATALOG.get("debtag_genres", "config/catalog/debtag_genres.yaml")
CATALOG_PYPI_RULES = CATALOG.get("pypi_rules", "config/catalog/pypi.yaml")
CATALOG_NPM_RULES = CATALOG.get("npm_rules", "config/catalog/npm.yaml")
CATALOG_IN = CatalogInputs(config, checkpoints, storage)


# Registry indexes (debian: apt | a Packages file; pypi, npm: a name list | a snapshot) are read
# here too; snapshot.json pins every source read (hashes, the apt Release dates) and
# snapshot.Packages / snapshot.pypi.json / snapshot.npm.json are the excerpts the Debian / PyPI /
# npm records came from: name one as the corpus's debian / pypi / npm source to reproduce them.
rule catalog_ingest:
    input:
        unpack(CATALOG_IN.dumps),
        debtag_genres=CATALOG_DEBTAGS,
        pypi_rules=CATALOG_PYPI_RULES,
        npm_rules=CATALOG_NPM_RULES,
    output:
        records=paths.catalog_file("{corpus}", "records.jsonl"),
        snapshot=paths.catalog_file("{corpus}", "snapshot.json"),
        excerpt=paths.catalog_file("{corpus}", "snapshot.Packages"),
        pypi_excerpt=paths.catalog_file("{corpus}", "snapshot.pypi.json"),
        npm_excerpt=paths.catalog_file("{corpus}", "snapshot.npm.json"),
    log:
        paths.log("catalog", "{corpus}", "ingest"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        indexes=CATALOG_IN.indexes,
        pypi_lookups=CATALOG_IN.pypi_lookups,
        npm_lookups=CATALOG_IN.npm_lookups,
    script:
        "../workflow/scripts/catalog_ingest.py"


checkpoint catalog_screen:
    input:
        records=paths.catalog_file("{corpus}", "records.jsonl"),
        exclusions=CATALOG_IN.exclusions,
    output:
        screen=paths.catalog_file("{corpus}", "screen.tsv"),
        checks=paths.catalog_file("{corpus}", "screen_checks.tsv"),
    log:
        paths.log("catalog", "{corpus}", "screen"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        filters=CATALOG.get("filters", {}),
        validator=CATALOG.get("technical_validator"),
    script:
        "../workflow/scripts/catalog_screen.py"


checkpoint catalog_triage:
    input:
        records=paths.catalog_file("{corpus}", "records.jsonl"),
        screen=paths.catalog_file("{corpus}", "screen.tsv"),
        exclusions=CATALOG_IN.exclusions,
        archives=CATALOG_IN.archives,
    output:
        paths.catalog_file("{corpus}", "triage.jsonl"),
    log:
        paths.log("catalog", "{corpus}", "triage"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    threads: 4
    params:
        ids=CATALOG_IN.candidate_ids,
        packages=CATALOG_IN.registry_ids,
        triage=CATALOG.get("triage", {}),
    script:
        "../workflow/scripts/catalog_triage.py"


# Launch dry-run: a candidate that passed triage is unpacked from its archive (a fresh triage of
# the bytes first; quarantined archives never are) and started for real in the sandbox by the
# runtimes' launch validator. Point a corpus's launch_results at results/catalog/{corpus}/launch
# to gate the funnel on it (playsuite.catalog.launch; docs/catalog.md). A verdict depends on the
# game's archive (or package and version, params) and the check, not on when the corpus's records
# were last written: records and triage are ancient, so a survey's committed verdicts
# (docs/catalog-survey.md) stay done in a fresh clone whose ingest ran again.
rule catalog_launch:
    input:
        records=ancient(paths.catalog_file("{corpus}", "records.jsonl")),
        triage=ancient(paths.catalog_file("{corpus}", "triage.jsonl")),
        archive=CATALOG_IN.archive_of,
    output:
        paths.catalog_file("{corpus}", "launch/{game}.json"),
    log:
        paths.log("catalog", "{corpus}", "launch", "{game}"),
    conda:
        "../envs/playsuite.yaml"
    params:
        timeout_s=CATALOG.get("launch", {}).get("timeout_s", 30),
        package=lambda w, input: input.archive or CATALOG_IN.package_of(w),
        version=CATALOG_IN.version_of,
        conformance=CATALOG_IN.conformance,
        games_dir=paths.catalog_file("{corpus}", "games"),
    script:
        "../workflow/scripts/catalog_launch.py"


rule catalog_decide:
    input:
        records=paths.catalog_file("{corpus}", "records.jsonl"),
        screen=paths.catalog_file("{corpus}", "screen.tsv"),
        triage=paths.catalog_file("{corpus}", "triage.jsonl"),
        exclusions=CATALOG_IN.exclusions,
        launch=CATALOG_IN.launch_files,
    output:
        decisions=paths.catalog_file("{corpus}", "decisions.tsv"),
        kept=paths.catalog_file("{corpus}", "kept.jsonl"),
        exclusions=paths.catalog_file("{corpus}", "exclusions.csv"),
        funnel_csv=report(
            paths.catalog_file("{corpus}", "funnel.csv"),
            caption="../report/catalog_funnel.rst",
            category="Catalog",
        ),
        funnel_md=paths.catalog_file("{corpus}", "funnel.md"),
        funnel_tex=paths.catalog_file("{corpus}", "funnel.tex"),
        technical_csv=paths.catalog_file("{corpus}", "technical_exclusions.csv"),
        technical_md=paths.catalog_file("{corpus}", "technical_exclusions.md"),
    log:
        paths.log("catalog", "{corpus}", "decide"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        launch_ids=CATALOG_IN.launch_ids,
        launch_configured=CATALOG_IN.launch_configured,
        mirror=CATALOG_IN.mirror,
        filters=CATALOG.get("filters", {}),
    script:
        "../workflow/scripts/catalog_decide.py"


# Table 4: harm-category candidates of the kept games by tag/keyword matching, each checked by
# a model when catalog.harm.validator names one (playsuite.catalog.harm; docs/catalog.md).
rule catalog_harm:
    input:
        kept=paths.catalog_file("{corpus}", "kept.jsonl"),
        categories=CATALOG_HARM.get("categories", "config/catalog/harm_categories.yaml"),
    output:
        candidates=paths.catalog_file("{corpus}", "harm_candidates.tsv"),
        csv=paths.catalog_file("{corpus}", "harm_categories.csv"),
        md=paths.catalog_file("{corpus}", "harm_categories.md"),
    log:
        paths.log("catalog", "{corpus}", "harm"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        validator=CATALOG_HARM.get("validator"),
    script:
        "../workflow/scripts/catalog_harm.py"


rule catalog_genres:
    input:
        kept=paths.catalog_file("{corpus}", "kept.jsonl"),
        genres=CATALOG_GENRES,
    output:
        paths.catalog_file("{corpus}", "genre_labels.tsv"),
    log:
        paths.log("catalog", "{corpus}", "genres"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    params:
        llm=CATALOG.get("genre_llm"),
    script:
        "../workflow/scripts/catalog_genres.py"


rule catalog_table:
    input:
        kept=paths.catalog_file("{corpus}", "kept.jsonl"),
        labels=paths.catalog_file("{corpus}", "genre_labels.tsv"),
        genres=CATALOG_GENRES,
    output:
        games=paths.catalog_file("{corpus}", "games.tsv"),
        distribution=paths.catalog_file("{corpus}", "genre_distribution.csv"),
        pdf=paths.catalog_file("{corpus}", "genre_distribution.pdf"),
        png=report(
            paths.catalog_file("{corpus}", "genre_distribution.png"),
            caption="../report/catalog_genres.rst",
            category="Catalog",
        ),
    log:
        paths.log("catalog", "{corpus}", "table"),
    conda:
        "../envs/playsuite.yaml"
    container:
        PLAYSUITE_IMAGE
    script:
        "../workflow/scripts/catalog_table.py"
