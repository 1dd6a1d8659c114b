#!/usr/bin/env bash
# Start a real single-node Slurm on this machine (Debian 12, root), with accounting (slurmdbd on
# MariaDB) and optional fake GPUs so `gpu=N` resource requests can be scheduled. Idempotent: run it
# again and it only starts what is not running. Stop it with scripts/slurm/stop.sh.
#
# Why these settings (see ../shared/FIELD-NOTES.md "Snakemake 9 and Slurm"):
#   - the executor plugin strips SLURM_CONF before its inner srun: config lives at /etc/slurm;
#   - proctrack/linuxproc + task/none: no cgroups or systemd in a container;
#   - accounting on, so `sacct` works (the plugin checks job status with sacct);
#   - fake GPUs are character devices (/dev/null's numbers): count-only GRES are rejected.
# Environment: PLAYSUITE_FAKE_GPUS (default 2; 0 = none), PLAYSUITE_SLURM_TIMEOUT (default 60 s),
# PLAYSUITE_SLURM_CPUS (CPUs the node offers; default: nproc).
set -euo pipefail

[ "$(id -u)" -eq 0 ] || { echo "slurm/start.sh: must run as root" >&2; exit 1; }
GPUS=${PLAYSUITE_FAKE_GPUS:-2}
TIMEOUT=${PLAYSUITE_SLURM_TIMEOUT:-60}
NODE=$(hostname -s)
CLUSTER=playsuite
DB_PASS=playsuite-slurmdbd

packages=(slurmctld slurmd slurm-client slurmdbd munge mariadb-server)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

wait_for() {  # wait_for DESCRIPTION COMMAND...
  local what=$1; shift
  local deadline=$((SECONDS + TIMEOUT))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then echo "slurm/start.sh: timed out waiting for $what" >&2; return 1; fi
    sleep 0.5
  done
}

# --- munge ---------------------------------------------------------------------------------------
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! pgrep -x munged >/dev/null; then
  runuser -u munge -- /usr/sbin/munged
fi
wait_for munge bash -c 'munge -n | unmunge'

# --- MariaDB + slurmdbd (accounting) -------------------------------------------------------------
if ! pgrep -x mariadbd >/dev/null; then
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
  nohup /usr/sbin/mariadbd --user=mysql --datadir=/var/lib/mysql \
    --socket=/run/mysqld/mysqld.sock --pid-file=/run/mysqld/mysqld.pid \
    >/var/log/playsuite-mariadb.log 2>&1 &
fi
wait_for mariadb mariadb -e 'select 1'
mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
  CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '${DB_PASS}';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/slurm
cat >/etc/slurm/slurmdbd.conf <<CONF
# Written by playsuite scripts/slurm/start.sh
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=${DB_PASS}
StorageLoc=slurm_acct_db
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurm/slurmdbd.pid
CONF
chmod 600 /etc/slurm/slurmdbd.conf
if ! pgrep -x slurmdbd >/dev/null; then
  /usr/sbin/slurmdbd
fi

# --- slurm.conf, gres.conf -----------------------------------------------------------------------
CPUS=${PLAYSUITE_SLURM_CPUS:-$(nproc)}
MEM_MB=$(( $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) - 1024 ))
GRES_NODE=""
GRES_TYPES=""
: >/etc/slurm/gres.conf
if ((GPUS > 0)); then
  for ((i = 0; i < GPUS; i++)); do
    [ -e "/dev/playsuite-fake-gpu$i" ] || mknod "/dev/playsuite-fake-gpu$i" c 1 3
  done
  GRES_NODE="Gres=gpu:${GPUS}"
  GRES_TYPES="GresTypes=gpu"
  cat >/etc/slurm/gres.conf <<CONF
AutoDetect=off
NodeName=${NODE} Name=gpu File=/dev/playsuite-fake-gpu[0-$((GPUS - 1))]
CONF
fi
old_conf=$(cat /etc/slurm/slurm.conf /etc/slurm/gres.conf 2>/dev/null || true)
cat >/etc/slurm/slurm.conf <<CONF
# Written by playsuite scripts/slurm/start.sh: one node, accounting, optional fake GPUs.
ClusterName=${CLUSTER}
SlurmctldHost=${NODE}
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageTRES=gres/gpu
AccountingStoreFlags=job_comment
${GRES_TYPES}
NodeName=${NODE} CPUs=${CPUS} RealMemory=${MEM_MB} ${GRES_NODE} State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

wait_for slurmdbd sacctmgr -n show cluster
if ! sacctmgr -n -P show cluster format=cluster | grep -qx "${CLUSTER}"; then
  sacctmgr -i add cluster "${CLUSTER}" >/dev/null
fi
sacctmgr -n -P show account format=account | grep -qx playsuite \
  || sacctmgr -i add account playsuite Cluster="${CLUSTER}" >/dev/null
sacctmgr -n -P show user format=user | grep -qx root \
  || sacctmgr -i add user root Account=playsuite >/dev/null

daemon_running() {  # daemon_running NAME: its pid file names a live process
  local pid
  pid=$(cat "/run/slurm/$1.pid" 2>/dev/null) && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}
changed=0
[ "$old_conf" = "$(cat /etc/slurm/slurm.conf /etc/slurm/gres.conf)" ] || changed=1
if daemon_running slurmctld && ((changed)); then
  # Running with another configuration (e.g. other CPU or GPU counts): restart the node daemons.
  kill "$(cat /run/slurm/slurmd.pid)" "$(cat /run/slurm/slurmctld.pid)" 2>/dev/null || true
  wait_for "slurm daemons to stop" bash -c '! pgrep -x "slurmctld|slurmd"'
fi
daemon_running slurmctld || /usr/sbin/slurmctld
wait_for slurmctld scontrol ping
daemon_running slurmd || /usr/sbin/slurmd
wait_for "node ${NODE} idle" bash -c "sinfo -h -n ${NODE} -o %t | grep -Eq '^(idle|mix|alloc)'"
echo "slurm: node ${NODE} ready (${CPUS} CPUs, ${MEM_MB} MB, ${GPUS} fake GPUs, accounting on)"
