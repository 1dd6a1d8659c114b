"""Figure 10: launch overhead, play throughput and judge throughput from benchmark outputs."""

import sys

from playsuite.analysis.efficiency import read_benchmarks
from playsuite.analysis.figures import efficiency_figure, save_figure

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

bench = read_benchmarks(snakemake.params.benchmarks)
for name, table in bench.items():
    print(f"{name}: {'missing' if table is None else f'{len(table)} rows'}", file=sys.stderr)
save_figure(efficiency_figure(bench), snakemake.output.pdf, snakemake.output.png)
