"""Rule fetch_npm_names: npm's complete name list (all-the-package-names' names.json)."""

from playsuite.catalog.npm_index import fetch_names

with open(snakemake.log[0], "w") as log:
    fetch_names(snakemake.output[0], log)
