"""Figure 10c: judge throughput per setting, from the judge jobs' cost records and manifests."""

import sys

from playsuite.analysis.cost import read_cost_records
from playsuite.analysis.efficiency import judge_throughput, manifest_unit
from playsuite.files import write_text_atomic

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

costs = read_cost_records(snakemake.params.costs)
manifests = {manifest_unit(path): path for path in snakemake.input.manifests}
table = judge_throughput(costs, manifests)
print(table.to_string(index=False), file=sys.stderr)
write_text_atomic(snakemake.output[0], table.to_csv(sep="\t", index=False))
