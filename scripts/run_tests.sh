#!/usr/bin/env bash
# The whole test suite (`make test`), as pytest sessions side by side: the Slurm workflow tests
# (about 25 minutes, spent mostly waiting on Slurm and on each job's own Snakemake start), then
# the catalog tests (tests/catalog: real package-registry games and the sample catalog's launch
# dry-runs), in one background chain; the engine tests (about 30 minutes, the real vLLM CPU build
# serving tiny models) in another; every other test in the foreground. The suite's wall time is
# about the longest of the three rather than their sum. All must pass. The background sessions'
# output follows the main session's; each writes under its own pytest base directory.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=.venv/bin

#: The catalog tests run after the Slurm tests, in their background chain (both wait a lot on
#: real processes: Slurm jobs, game launches, package downloads), not in the foreground session.
CATALOG=tests/catalog

slurm_log=$(mktemp -t playsuite-slurm-tests.XXXXXX)
catalog_log=$(mktemp -t playsuite-catalog-tests.XXXXXX)
# A fresh base directory each run: Slurm's accounting outlives a run, and the tests pick their
# jobs out of it by working directory, so a reused path would count an earlier run's jobs too.
slurm_tmp=$(mktemp -d -t playsuite-slurm-tests.XXXXXX)
catalog_tmp=$(mktemp -d -t playsuite-catalog-tests.XXXXXX)
(
  "$VENV/pytest" -m slurm --basetemp="$slurm_tmp" -p no:cacheprovider >"$slurm_log" 2>&1
  slurm_rc=$?
  [ "$slurm_rc" -eq 5 ] && slurm_rc=0 # no Slurm test collected
  "$VENV/pytest" "$CATALOG" -m "not slurm and not engine" --basetemp="$catalog_tmp" \
    -p no:cacheprovider >"$catalog_log" 2>&1
  catalog_rc=$?
  [ "$catalog_rc" -eq 5 ] && catalog_rc=0 # no catalog test collected
  echo "Slurm session: exit $slurm_rc; catalog session: exit $catalog_rc" >>"$catalog_log"
  [ "$slurm_rc" -eq 0 ] && [ "$catalog_rc" -eq 0 ]
) &
slurm_pid=$!

engine_log=$(mktemp -t playsuite-engine-tests.XXXXXX)
engine_tmp=$(mktemp -d -t playsuite-engine-tests.XXXXXX)
"$VENV/pytest" -m "engine and not slurm" --basetemp="$engine_tmp" -p no:cacheprovider \
  >"$engine_log" 2>&1 &
engine_pid=$!
# Interrupted: stop every session (the background chain's pytest too), then this script.
trap 'trap - INT TERM; kill 0' INT TERM

"$VENV/pytest" -m "not slurm and not engine" --ignore="$CATALOG"
main_rc=$?
wait "$engine_pid"
engine_rc=$?
wait "$slurm_pid"
slurm_rc=$?

echo
echo "================ Engine tests (run beside the others) ================"
cat "$engine_log"
rm -f "$engine_log"
[ "$engine_rc" -eq 5 ] && engine_rc=0 # no engine test collected
echo
echo "================ Slurm workflow tests (run beside the others) ================"
cat "$slurm_log"
echo
echo "================ Catalog tests (after the Slurm tests) ================"
cat "$catalog_log"
rm -f "$slurm_log" "$catalog_log"
echo "main session: exit $main_rc; engine session: exit $engine_rc; Slurm+catalog: exit $slurm_rc"
[ "$main_rc" -eq 0 ] && [ "$engine_rc" -eq 0 ] && [ "$slurm_rc" -eq 0 ]
