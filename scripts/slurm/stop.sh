#!/usr/bin/env bash
# Stop the single-node Slurm started by scripts/slurm/start.sh (jobs are cancelled first).
# Daemons are stopped by the pid files start.sh's daemons write, never by process name, so other
# programs of the same name are left alone. PLAYSUITE_SLURM_STOP_ALL=0 keeps munge and MariaDB.
set -u
command -v scancel >/dev/null && scancel --full --quiet --user=root 2>/dev/null

stop_pidfile() {  # stop_pidfile FILE: SIGTERM, wait up to 10 s, then SIGKILL
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  kill -9 "$pid" 2>/dev/null
}

for daemon in slurmd slurmctld slurmdbd; do
  stop_pidfile "/run/slurm/$daemon.pid"
done
if [ "${PLAYSUITE_SLURM_STOP_ALL:-1}" = 1 ]; then
  stop_pidfile /run/mysqld/mysqld.pid
  stop_pidfile /run/munge/munged.pid
fi
# A stopped cluster should answer "no controller" at once: with the default MessageTimeout every
# Slurm client call (scontrol, and so every `snakemake` start, whose Slurm plugin runs scontrol
# when it is imported) waits 9 s for a controller that is not there. start.sh rewrites the file.
conf=/etc/slurm/slurm.conf
if head -n 1 "$conf" 2>/dev/null | grep -q "scripts/slurm/start.sh" && ! grep -q "^MessageTimeout=" "$conf"; then
  printf '# stopped by scripts/slurm/stop.sh: clients fail fast\nMessageTimeout=1\n' >>"$conf"
fi
echo "slurm: stopped"
exit 0
