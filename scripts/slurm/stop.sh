#!/usr/bin/env bash
# Stop the single-node Slurm started by scripts/slurm/start.sh (jobs are cancelled first).
set -u
command -v scancel >/dev/null && scancel --full --quiet --user=root 2>/dev/null
for daemon in slurmd slurmctld slurmdbd; do
  pkill -x "$daemon" 2>/dev/null
done
for _ in $(seq 1 40); do
  pgrep -x 'slurmd|slurmctld|slurmdbd' >/dev/null || break
  sleep 0.25
done
pkill -9 -x 'slurmd|slurmctld|slurmdbd' 2>/dev/null
if [ "${PLAYSUITE_SLURM_STOP_ALL:-1}" = 1 ]; then
  pkill -x mariadbd 2>/dev/null
  pkill -x munged 2>/dev/null
fi
echo "slurm: stopped"
exit 0
