"""Acquire and launch-check the games of a generated registry corpus table; print pass counts per
runtime and the failure reasons, counted (playsuite.catalog.launch_survey).

    .venv/bin/python benchmarks/registry_corpus.py results/catalog/debian/games.tsv \
        [--limit 40 [--sample --seed 0]] [--runtime native] [--timeout 30] \
        [--work results/registry-survey] [--checked-only] [--conformance [--launch-passed]]

Results are kept per game under --work, so a second run resumes (--fresh checks again);
--checked-only summarises the rows of the table checked so far and checks nothing new.
--conformance puts each row through the whole runtime contract (playsuite.harness.conformance:
the launch check plus the video check) and keeps those results apart; --launch-passed limits it
to the rows whose launch check passed in an earlier survey under the same --work; --new to the
rows no earlier survey (launch or conformance) checked. --write-passed PATH writes the rows that
passed, with the entry the check found, as a corpus table (config/corpora/registry.tsv); an
existing table there is updated, not replaced: rows this survey did not check stay, and a
passed row keeps the probes and tasks declared on it by hand.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from playsuite.catalog.launch_survey import (
    checked,
    merge_passed,
    passed,
    passed_launch,
    summary,
    survey,
)
from playsuite.corpus import load_corpus, write_corpus_tsv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", help="corpus table (games.tsv or a corpus YAML)")
    parser.add_argument("--limit", type=int, default=0, help="check the first N rows (0: all)")
    parser.add_argument("--sample", action="store_true", help="a random --limit rows (--seed)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runtime", default="", help="only rows of this runtime")
    parser.add_argument("--work", default="results/registry-survey", help="work folder")
    parser.add_argument("--timeout", type=float, default=30.0, help="launch timeout (s)")
    parser.add_argument("--fresh", action="store_true", help="ignore earlier results")
    parser.add_argument("--checked-only", action="store_true", help="only rows checked before")
    parser.add_argument("--conformance", action="store_true", help="the whole runtime contract")
    parser.add_argument("--launch-passed", action="store_true", help="rows whose launch passed")
    parser.add_argument("--new", action="store_true", help="rows no earlier survey checked")
    parser.add_argument("--write-passed", default="", help="write the passed rows to this table")
    args = parser.parse_args()
    rows = [r for r in load_corpus(args.table) if not args.runtime or r.runtime == args.runtime]
    if args.checked_only:
        rows = [r for r in rows if checked(args.work, r.id, conformance=args.conformance)]
    if args.new:
        rows = [
            r
            for r in rows
            if not checked(args.work, r.id) and not checked(args.work, r.id, conformance=True)
        ]
    if args.launch_passed:
        rows = [r for r in rows if passed_launch(args.work, r.id)]
    if args.sample:
        random.Random(args.seed).shuffle(rows)
    if args.limit:
        rows = rows[: args.limit]
    started = time.monotonic()
    results = []
    results_of = survey(
        rows,
        args.work,
        timeout_s=args.timeout,
        resume=not args.fresh,
        conformance=args.conformance,
    )
    for result in results_of:
        results.append(result)
        verdict = "ok" if passed(result) else f"{result['status']}: {result.get('error', '')}"
        print(
            f"{result['game']:32} {result['runtime']:8} {result.get('wall_s', 0):6.1f}s  "
            f"{verdict[:100]}",
            flush=True,
        )
    print(
        f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.table}, "
        f"{len(results)} games in {time.monotonic() - started:.0f} s\n"
    )
    print(summary(results))
    if args.write_passed:
        earlier = load_corpus(args.write_passed) if Path(args.write_passed).is_file() else []
        kept = merge_passed(earlier, rows, results)
        write_corpus_tsv(kept, args.write_passed)
        print(f"\n{len(kept)} rows written to {args.write_passed} ({len(earlier)} before)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
