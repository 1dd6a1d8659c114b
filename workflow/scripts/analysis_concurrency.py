"""Figure 10b: throughput of the same games played with 1..W workers sharing one model server."""

import sys

from playsuite.analysis.cost import read_cost_records
from playsuite.analysis.efficiency import throughput_table
from playsuite.files import write_text_atomic
from playsuite.records.manifest import read_manifest

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

runs = []
for workers, manifest, costs in zip(
    snakemake.params.workers, snakemake.input.manifests, snakemake.params.costs, strict=True
):
    statuses = [row.status for row in read_manifest(manifest)]
    runs.append((int(workers), statuses, read_cost_records(costs)))
table = throughput_table(runs)
print(table.to_string(index=False), file=sys.stderr)
write_text_atomic(snakemake.output[0], table.to_csv(sep="\t", index=False))
