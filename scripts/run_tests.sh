#!/usr/bin/env bash
# The whole test suite (`make test`), as three pytest sessions side by side: the Slurm workflow
# tests (about 35 minutes, spent mostly waiting on Slurm and on each job's own Snakemake start)
# and the engine tests (about 40 minutes, the real vLLM CPU build serving tiny models) run in the
# background while every other test runs in the foreground, so the suite's wall time is about
# the longest of the three rather than their sum. All must pass. The background sessions' output
# follows the main session's; each writes under its own pytest base directory.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV=.venv/bin

slurm_log=$(mktemp -t playsuite-slurm-tests.XXXXXX)
# A fresh base directory each run: Slurm's accounting outlives a run, and the tests pick their
# jobs out of it by working directory, so a reused path would count an earlier run's jobs too.
slurm_tmp=$(mktemp -d -t playsuite-slurm-tests.XXXXXX)
"$VENV/pytest" -m slurm --basetemp="$slurm_tmp" -p no:cacheprovider >"$slurm_log" 2>&1 &
slurm_pid=$!
trap 'kill "$slurm_pid" 2>/dev/null' INT TERM

engine_log=$(mktemp -t playsuite-engine-tests.XXXXXX)
engine_tmp=$(mktemp -d -t playsuite-engine-tests.XXXXXX)
"$VENV/pytest" -m "engine and not slurm" --basetemp="$engine_tmp" -p no:cacheprovider \
  >"$engine_log" 2>&1 &
engine_pid=$!
trap 'kill "$slurm_pid" "$engine_pid" 2>/dev/null' INT TERM

"$VENV/pytest" -m "not slurm and not engine"
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
rm -f "$slurm_log"
[ "$slurm_rc" -eq 5 ] && slurm_rc=0 # no Slurm test collected
echo "main session: exit $main_rc; engine session: exit $engine_rc; Slurm session: exit $slurm_rc"
[ "$main_rc" -eq 0 ] && [ "$engine_rc" -eq 0 ] && [ "$slurm_rc" -eq 0 ]
