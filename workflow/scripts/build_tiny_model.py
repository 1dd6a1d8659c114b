"""Build one tiny random-weight model (engine checks) with the configured engine's Python."""

import json
import sys

from playsuite.inference.engine import build_tiny_model

sys.stderr = open(snakemake.log[0], "w")  # noqa: SIM115

arch = snakemake.wildcards.arch
summary = build_tiny_model(arch, snakemake.output[0], vllm=snakemake.params.vllm)
print(f"{snakemake.output[0]}: {arch}: {json.dumps(summary)}", file=sys.stderr)
