#!/usr/bin/env bash
# The whole test suite (`make test`), as pytest sessions in four lanes side by side. Most of the
# suite waits rather than computes (Slurm jobs, real-time games, model servers starting, package
# downloads), so on two cores the lanes overlap well:
#   foreground  every test not in another lane
#   analysis    tests/analysis (workflow runs of the analysis stage, figures, the dashboard)
#   engine      the real vLLM CPU build serving tiny models (marker `engine`)
#   Slurm       the Slurm workflow tests (marker `slurm`), then tests/catalog (real registry
#               games and the sample catalog's launch dry-runs)
# The suite's wall time is about the longest lane rather than their sum. All must pass. The
# background lanes' output follows the foreground's; each session has its own pytest base
# directory.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=.venv/bin

CATALOG=tests/catalog
ANALYSIS=tests/analysis
NOT_OWN="not slurm and not engine" # markers with lanes of their own

# session NAME LOG ARGS...: one pytest session in the background lanes' form (its own base
# directory, no cache writes); exit code 5 (nothing collected) counts as a pass.
session() {
  local name=$1 log=$2
  shift 2
  local tmp
  tmp=$(mktemp -d -t "playsuite-$name-tests.XXXXXX")
  "$VENV/pytest" "$@" --basetemp="$tmp" -p no:cacheprovider >>"$log" 2>&1
  local rc=$?
  [ "$rc" -eq 5 ] && rc=0
  echo "$name session: exit $rc" >>"$log"
  return "$rc"
}

slurm_log=$(mktemp -t playsuite-slurm-tests.XXXXXX)
engine_log=$(mktemp -t playsuite-engine-tests.XXXXXX)
analysis_log=$(mktemp -t playsuite-analysis-tests.XXXXXX)

# A fresh base directory each run matters most to the Slurm tests: Slurm's accounting outlives a
# run, and the tests pick their jobs out of it by working directory.
(
  session slurm "$slurm_log" -m slurm
  slurm_rc=$?
  echo "================ Catalog tests (after the Slurm tests) ================" >>"$slurm_log"
  session catalog "$slurm_log" "$CATALOG" -m "$NOT_OWN"
  catalog_rc=$?
  [ "$slurm_rc" -eq 0 ] && [ "$catalog_rc" -eq 0 ]
) &
slurm_pid=$!
session engine "$engine_log" -m "engine and not slurm" &
engine_pid=$!
session analysis "$analysis_log" "$ANALYSIS" -m "$NOT_OWN" &
analysis_pid=$!
# Interrupted: stop every session (the background lanes' pytest too), then this script.
trap 'trap - INT TERM; kill 0' INT TERM

"$VENV/pytest" -m "$NOT_OWN" --ignore="$CATALOG" --ignore="$ANALYSIS"
main_rc=$?
wait "$analysis_pid"
analysis_rc=$?
wait "$engine_pid"
engine_rc=$?
wait "$slurm_pid"
slurm_rc=$?

for lane in "Analysis tests:$analysis_log" "Engine tests:$engine_log" \
  "Slurm workflow tests:$slurm_log"; do
  echo
  echo "================ ${lane%%:*} (run beside the others) ================"
  cat "${lane#*:}"
  rm -f "${lane#*:}"
done
echo "main session: exit $main_rc; analysis: exit $analysis_rc; engine: exit $engine_rc;" \
  "Slurm+catalog: exit $slurm_rc"
[ "$main_rc" -eq 0 ] && [ "$analysis_rc" -eq 0 ] && [ "$engine_rc" -eq 0 ] && [ "$slurm_rc" -eq 0 ]
