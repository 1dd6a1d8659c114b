"""The workflow layer: what a Snakemake run plays, judges and curates, and where each file lives.

The rules in ``rules/*.smk`` ask this package which targets exist; nothing below it knows about
the workflow. :mod:`.play` plans play shards and engine checks, :mod:`.judge` the judge shards,
:mod:`.catalog` the catalog stage's inputs.
"""
