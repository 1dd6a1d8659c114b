"""Ingest and metadata-screen time for a large itch.io dump (the paper's is ~1.7M projects).

Replicates the sample dump's rows to N records (default 200,000), then times the ingest and
screen steps the workflow runs, and prints seconds, records/s and peak memory.

    .venv/bin/python benchmarks/catalog_ingest.py [--records 200000]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

from playsuite.catalog.curate import step_ingest, step_screen

SAMPLE = Path(__file__).resolve().parents[1] / "tests/data/catalog/itch_sample.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    args = parser.parse_args()
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    tmp = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    try:
        dump = tmp / "itch.jsonl"
        with open(dump, "w") as fh:
            for i in range(args.records):
                fh.write(json.dumps({**rows[i % len(rows)], "id": str(i)}) + "\n")
        t0 = time.perf_counter()
        step_ingest({"itch": str(dump)}, tmp / "records.jsonl")
        ingest = time.perf_counter() - t0
        t0 = time.perf_counter()
        step_screen(tmp / "records.jsonl", None, {}, tmp / "screen.tsv")
        screen = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        n = args.records
        print(
            f"{n} records | ingest {ingest:.1f} s ({n / ingest:,.0f}/s) | "
            f"screen {screen:.1f} s ({n / screen:,.0f}/s) | peak RSS {peak:.0f} MB"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
