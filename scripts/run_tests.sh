#!/usr/bin/env bash
# The whole test suite (`make test`), as pytest sessions in four lanes side by side (on two cores
# the machine is busy most of the run, so the lanes are balanced to end at about the same time):
#   games     the harness, runtimes, sandbox, agents and actions tests (most play real games)
#   rest      every other test without a lane of its own (analysis, workflow, judge, human, ...)
#   engine    the real vLLM CPU build serving tiny models (marker `engine`)
#   Slurm     the Slurm workflow tests (marker `slurm`), then tests/catalog (real registry
#             games and the sample catalog's launch dry-runs)
# The engine and Slurm lanes collect only their own folders (tests/test_lanes.py keeps those
# markers there). The first two split the rest of the suite about evenly by measured time. The
# suite's wall time is about the longest lane rather than their sum. All must pass. The
# background lanes' output follows the games lane's; each session has its own pytest base
# directory.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=.venv/bin

CATALOG=tests/catalog
GAMES=(tests/harness tests/runtimes tests/sandbox tests/agents tests/actions)
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
rest_log=$(mktemp -t playsuite-rest-tests.XXXXXX)

# A fresh base directory each run matters most to the Slurm tests: Slurm's accounting outlives a
# run, and the tests pick their jobs out of it by working directory.
(
  session slurm "$slurm_log" tests/cluster -m slurm
  slurm_rc=$?
  echo "================ Catalog tests (after the Slurm tests) ================" >>"$slurm_log"
  session catalog "$slurm_log" "$CATALOG" -m "$NOT_OWN"
  catalog_rc=$?
  [ "$slurm_rc" -eq 0 ] && [ "$catalog_rc" -eq 0 ]
) &
slurm_pid=$!
session engine "$engine_log" tests/engine -m "engine and not slurm" &
engine_pid=$!
# every directory not in another lane, so a new test folder is run without naming it here
session rest "$rest_log" -m "$NOT_OWN" --ignore="$CATALOG" "${GAMES[@]/#/--ignore=}" &
rest_pid=$!
# Interrupted: stop every session (the background lanes' pytest too), then this script.
trap 'trap - INT TERM; kill 0' INT TERM

"$VENV/pytest" -m "$NOT_OWN" "${GAMES[@]}"
main_rc=$?
wait "$rest_pid"
rest_rc=$?
wait "$engine_pid"
engine_rc=$?
wait "$slurm_pid"
slurm_rc=$?

for lane in "The other tests:$rest_log" "Engine tests:$engine_log" \
  "Slurm workflow tests:$slurm_log"; do
  echo
  echo "================ ${lane%%:*} (run beside the others) ================"
  cat "${lane#*:}"
  rm -f "${lane#*:}"
done
echo "games session: exit $main_rc; the others: exit $rest_rc; engine: exit $engine_rc;" \
  "Slurm+catalog: exit $slurm_rc"
[ "$main_rc" -eq 0 ] && [ "$rest_rc" -eq 0 ] && [ "$engine_rc" -eq 0 ] && [ "$slurm_rc" -eq 0 ]
