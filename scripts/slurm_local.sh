#!/usr/bin/env bash
# (Copied from the team's shared/slurm/ recipe, see RECIPE.md there; used by crates/warpforge/tests/sweep_slurm.rs.)
# slurm_local.sh - throwaway single-node Slurm "cluster" for CI, built from
# Debian 12 (bookworm) packages: slurmctld + slurmd + slurm-client + munge
# (Slurm 22.05.8, MUNGE 0.5.15).  Everything it creates lives in one work
# directory; it never writes the system Slurm/MUNGE config and never touches
# the packaged systemd/init services.
#
# Usage:  slurm_local.sh [-w WORKDIR] COMMAND [ARGS]
#   install          apt-get update + install the packages (no recommends)
#   start            generate MUNGE key + slurm.conf, start munged, slurmctld,
#                    slurmd; wait until the node is idle
#   submit-test      8-task job array writing result files + `srun -n1 hostname`
#   wait JOBID [S]   poll until JOBID (job or array) has finished, max S
#                    seconds; exit 0 only if every task is COMPLETED
#   status           sinfo + squeue
#   env              print `export SLURM_CONF=...` (use: eval "$(... env)")
#   stop             cancel jobs, stop slurmd, slurmctld, munged by PID
#   ci               start + submit-test + stop, with timings
#
# Parameters (environment):
#   SLURM_LOCAL_DIR        work dir (default $PWD/.slurm-local); -w wins
#   SLURM_LOCAL_CTLD_PORT  slurmctld port (default 6817)
#   SLURM_LOCAL_SLURMD_PORT slurmd port   (default 6818)
#   SLURM_LOCAL_NODENAME   node name     (default: hostname -s)
#   SLURM_LOCAL_CPUS / SLURM_LOCAL_MEM_MB  override detected CPUs / RealMemory
#   SLURM_LOCAL_TIMEOUT    seconds to wait for daemons / jobs (default 120)
#   SLURM_LOCAL_CTLD_HOST  SlurmctldHost name (default: hostname -s; "localhost"
#                          also works and needs no name resolution at all)
#   SLURM_LOCAL_EXTRA_CONF extra slurm.conf lines appended (last value wins)
#
# Must run as root (slurmd launches jobs as the submitting user).
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

WORKDIR=${SLURM_LOCAL_DIR:-$PWD/.slurm-local}
while getopts "w:h" opt; do
  case $opt in
    w) WORKDIR=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
CMD=${1:-}; [ $# -gt 0 ] && shift

WORKDIR=$(realpath -m "$WORKDIR")          # slurm.conf needs absolute paths
CTLD_PORT=${SLURM_LOCAL_CTLD_PORT:-6817}
SLURMD_PORT=${SLURM_LOCAL_SLURMD_PORT:-6818}
CTLD_HOST=${SLURM_LOCAL_CTLD_HOST:-$(hostname -s)}  # must be this host's name (or localhost)
NODE=${SLURM_LOCAL_NODENAME:-$CTLD_HOST}
TIMEOUT=${SLURM_LOCAL_TIMEOUT:-120}

CONF=$WORKDIR/etc/slurm.conf
MUNGE_DIR=$WORKDIR/munge
MUNGE_SOCK=$MUNGE_DIR/munge.sock
RUN=$WORKDIR/run
LOG=$WORKDIR/log
export SLURM_CONF=$CONF

log()  { printf '[slurm_local %s] %s\n' "$(date +%T)" "$*" >&2; }
die()  { log "ERROR: $*"; exit 1; }
now()  { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

need_root() { [ "$(id -u)" -eq 0 ] || die "must run as root"; }
need_bins() {
  local b
  for b in munged mungekey munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel srun; do
    command -v "$b" >/dev/null || die "$b not found - run: $0 install"
  done
}

alive() {                                   # alive PID: exists and is not a zombie
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ "${st#Z}" = "$st" ]
}

pid_of() {                                  # pid_of PIDFILE -> pid if alive
  local p
  [ -s "$1" ] || return 1
  p=$(cat "$1")
  alive "$p" && echo "$p"
}

wait_for() {                                # wait_for SECONDS CMD...
  local t=$1 end; shift
  end=$(( $(date +%s) + t ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -ge "$end" ] && return 1
    sleep 0.2
  done
}

wait_daemon() {                             # wait_daemon PIDFILE SECONDS CMD...
  # like wait_for, but gives up at once if the daemon wrote its pid file and died
  local pf=$1 t=$2 end; shift 2
  end=$(( $(date +%s) + t ))
  until "$@" >/dev/null 2>&1; do
    if [ -s "$pf" ] && ! pid_of "$pf" >/dev/null; then return 1; fi
    [ "$(date +%s)" -ge "$end" ] && return 1
    sleep 0.2
  done
  pid_of "$pf" >/dev/null                   # the answer must come from *our* daemon
}

stop_pids() {                               # stop_pids PID... : TERM, wait 10 s, KILL
  local p i left
  [ $# -gt 0 ] || return 0
  for p in "$@"; do log "SIGTERM $(ps -o comm= -p "$p" 2>/dev/null) ($p)"; kill -TERM "$p" 2>/dev/null || true; done
  for i in $(seq 100); do
    left=""; for p in "$@"; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  log "still alive after 10 s:$left - SIGKILL"
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null || true
  sleep 1
}

cmd_install() {
  need_root
  local t0; t0=$(now)
  if dpkg-query -W -f '${Status}\n' slurmctld slurmd slurm-client munge 2>/dev/null |
       grep -c 'install ok installed' | grep -qx 4; then
    log "already installed"; return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # --no-install-recommends: 8 packages (~3.5 MB) instead of ~43 (hdf5, rocm, ...)
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
  log "installed in $(since "$t0") s: $(dpkg-query -W -f '${Package} ${Version}  ' slurmctld slurmd slurm-client munge)"
}

node_hw() {                                 # prints "CPUS SOCKETS CORES THREADS MEM"
  local c s co th m line
  line=$(slurmd -C 2>/dev/null | head -1 || true)
  c=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$line")
  s=$(sed -n 's/.*SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$line")
  co=$(sed -n 's/.*CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$line")
  th=$(sed -n 's/.*ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$line")
  m=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$line")
  [ -n "$c" ] || { c=$(nproc); s=1; co=$c; th=1; }
  [ -n "$m" ] || m=$(free -m | awk '/^Mem:/{print $2}')
  echo "$c $s $co $th $m"
}

write_conf() {
  local c s co th m topo
  read -r c s co th m < <(node_hw)
  if [ -n "${SLURM_LOCAL_CPUS:-}" ] && [ "$SLURM_LOCAL_CPUS" != "$c" ]; then
    topo="CPUs=$SLURM_LOCAL_CPUS"             # explicit override: plain CPU count
  else
    topo="CPUs=$c SocketsPerBoard=$s CoresPerSocket=$co ThreadsPerCore=$th"
  fi
  m=${SLURM_LOCAL_MEM_MB:-$m}
  cat >"$CONF" <<EOF
# generated by slurm_local.sh - single-node throwaway cluster
ClusterName=localci
SlurmctldHost=${CTLD_HOST}(127.0.0.1)
SlurmctldPort=${CTLD_PORT}
SlurmdPort=${SLURMD_PORT}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${MUNGE_SOCK}
StateSaveLocation=${WORKDIR}/state
SlurmdSpoolDir=${WORKDIR}/spool
SlurmctldPidFile=${RUN}/slurmctld.pid
SlurmdPidFile=${RUN}/slurmd.pid
SlurmctldLogFile=${LOG}/slurmctld.log
SlurmdLogFile=${LOG}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=${WORKDIR}/etc/plugstack.conf
MailProg=$(type -P true)
# no cgroups, no accounting daemon
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=${LOG}/jobcomp.log
MpiDefault=none
SwitchType=switch/none
# scheduling: one task per core, memory not a consumable resource
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=5
MinJobAge=300
NodeName=${NODE} NodeAddr=127.0.0.1 ${topo} RealMemory=${m} State=UNKNOWN
PartitionName=debug Nodes=${NODE} Default=YES MaxTime=INFINITE State=UP
EOF
  if [ -n "${SLURM_LOCAL_EXTRA_CONF:-}" ]; then
    printf '# SLURM_LOCAL_EXTRA_CONF\n%s\n' "$SLURM_LOCAL_EXTRA_CONF" >>"$CONF"
  fi
  : >"$WORKDIR/etc/plugstack.conf"   # do not pick up the system plugstack.conf.d
}

node_state() { sinfo -h -n "$NODE" -o %T 2>/dev/null; }
node_idle()  { [ "$(node_state)" = idle ]; }
ctld_up()    { scontrol ping 2>/dev/null | grep -q 'is UP'; }
munge_ok()   { munge -n -S "$MUNGE_SOCK" | unmunge -S "$MUNGE_SOCK"; }

cmd_start() {
  need_root; need_bins
  local t0 t p
  for p in munge/munged.pid run/slurmctld.pid run/slurmd.pid; do
    pid_of "$WORKDIR/$p" >/dev/null && die "already running ($WORKDIR/$p) - run: $0 -w $WORKDIR stop"
  done
  # on any failure below: tear down whatever was started, then exit non-zero
  trap 'rc=$?; if [ $rc -ne 0 ]; then log "start failed - tearing down"; cmd_stop || true; fi' EXIT
  mkdir -p "$WORKDIR"/{etc,state,spool,log,run,jobs} "$MUNGE_DIR"
  chmod 0755 "$WORKDIR" "$MUNGE_DIR"       # munged: socket dir must be world-x
  chmod 1777 "$WORKDIR/jobs"               # scratch for non-root submitters
  [ -s "$MUNGE_DIR/munge.key" ] || mungekey --create --bits=1024 --keyfile="$MUNGE_DIR/munge.key"
  chmod 0600 "$MUNGE_DIR/munge.key"
  write_conf
  t0=$(now)

  t=$(now)
  munged --socket="$MUNGE_SOCK" --key-file="$MUNGE_DIR/munge.key" \
         --pid-file="$MUNGE_DIR/munged.pid" --log-file="$MUNGE_DIR/munged.log" \
         --seed-file="$MUNGE_DIR/munged.seed" \
    || die "munged failed: $(tail -n 3 "$MUNGE_DIR/munged.log" 2>/dev/null)"
  wait_for 10 munge_ok || die "munge self-test failed"
  log "munged pid $(cat "$MUNGE_DIR/munged.pid") ok ($(since "$t") s)"

  t=$(now)
  slurmctld -c -f "$CONF" || die "slurmctld failed to start"   # -c: clear old state
  wait_daemon "$RUN/slurmctld.pid" "$TIMEOUT" ctld_up ||
    { tail -n 20 "$LOG/slurmctld.log" >&2; die "slurmctld not up (log: $LOG/slurmctld.log)"; }
  log "slurmctld pid $(cat "$RUN/slurmctld.pid") up ($(since "$t") s)"

  t=$(now)
  slurmd -c -f "$CONF" -N "$NODE" || die "slurmd failed to start"
  wait_daemon "$RUN/slurmd.pid" "$TIMEOUT" node_idle || {
    tail -n 20 "$LOG/slurmd.log" >&2; scontrol show node "$NODE" >&2 || true
    die "node $NODE not idle (state: $(node_state))"; }
  log "slurmd pid $(cat "$RUN/slurmd.pid") registered, node $NODE idle ($(since "$t") s)"

  trap - EXIT
  echo "export SLURM_CONF=$CONF" >"$WORKDIR/env.sh"
  log "cluster up in $(since "$t0") s.  Use: export SLURM_CONF=$CONF"
}

TERMINAL='^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$'

cmd_wait() {                                # cmd_wait JOBID [TIMEOUT]
  local jid=${1:?job id} t=${2:-$TIMEOUT} end out states bad
  end=$(( $(date +%s) + t ))
  while :; do
    if out=$(scontrol -o show job "$jid" 2>&1); then
      states=$(grep -o 'JobState=[A-Z_]*' <<<"$out" | cut -d= -f2)
      if ! grep -qvE "$TERMINAL" <<<"$states"; then break; fi
    elif grep -q 'Invalid job id' <<<"$out"; then
      die "job $jid unknown (purged after MinJobAge?)"
    fi                                       # other errors: controller busy, retry
    [ "$(date +%s)" -ge "$end" ] && die "job $jid not finished after $t s"
    sleep 1
  done
  bad=$(awk '!/JobState=COMPLETED/ { for (i = 1; i <= NF; i++)
           if ($i ~ /^(JobId|ArrayTaskId|JobState|ExitCode)=/) printf "%s ", $i; print "" }' <<<"$out")
  if [ -n "$bad" ]; then log "job $jid: not all tasks COMPLETED: $bad"; return 1; fi
  log "job $jid: all $(wc -l <<<"$out") task(s) COMPLETED"
}

cmd_submit_test() {
  need_bins
  ctld_up || die "cluster not running (SLURM_CONF=$CONF)"
  local n=8 out t0 jid got h
  out=$WORKDIR/jobs/array-$(date +%Y%m%d-%H%M%S)-$$
  mkdir -p "$out"
  t0=$(now)
  jid=$(sbatch --parsable --array=0-$((n - 1)) --job-name=ci-array --chdir="$out" \
          --output="$out/slurm-%A_%a.out" --time=5 \
          --wrap 'echo "task=$SLURM_ARRAY_TASK_ID job=$SLURM_ARRAY_JOB_ID host=$(hostname) cpus=$SLURM_CPUS_ON_NODE" > result_$SLURM_ARRAY_TASK_ID.txt; sleep 1')
  log "submitted array job $jid ($n tasks) -> $out"
  cmd_wait "$jid"
  got=$(find "$out" -name 'result_*.txt' | wc -l)
  [ "$got" -eq "$n" ] || die "expected $n result files, found $got"
  log "array: $got/$n result files in $(since "$t0") s"
  t0=$(now)
  h=$(timeout 60 srun -n1 --time=1 hostname) || die "srun failed"
  log "srun -n1 hostname -> '$h' ($(since "$t0") s)"
}

cmd_stop() {
  need_root
  local p jobs pids="" ctld sd mg
  ctld=$(pid_of "$RUN/slurmctld.pid" || true)
  sd=$(pid_of "$RUN/slurmd.pid" || true)
  mg=$(pid_of "$MUNGE_DIR/munged.pid" || true)
  if [ -n "$ctld" ] && ctld_up; then
    jobs=$(squeue -h -o %A 2>/dev/null | sort -u | paste -sd' ' || true)
    if [ -n "$jobs" ]; then
      log "cancelling jobs: $jobs"
      # shellcheck disable=SC2086
      scancel $jobs || true
      wait_for 30 bash -c '[ -z "$(squeue -h 2>/dev/null)" ]' || log "jobs still listed after 30 s"
    fi
  fi
  # job-step processes (slurmstepd + tasks) still alive on this node, if any
  if [ -n "$sd" ]; then                     # task pids + their slurmstepd parents
    for p in $(scontrol listpids 2>/dev/null | awk 'NR>1 && $1 ~ /^[0-9]+$/ {print $1}'); do
      pids="$pids $p"
      p=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ') || continue
      [ "$(ps -o comm= -p "$p" 2>/dev/null)" = slurmstepd ] && pids="$pids $p"
    done
    pids=$(tr ' ' '\n' <<<"$pids" | sort -un | paste -sd' ')
  fi
  # slurm daemons first (together), munged last: they use it while shutting down
  stop_pids $sd $ctld
  stop_pids $mg
  for p in $pids; do kill -KILL "$p" 2>/dev/null && log "killed leftover step pid $p"; done
  [ -n "$pids" ] && sleep 1
  for p in $ctld $sd $mg $pids; do
    alive "$p" && die "pid $p still alive"
  done
  rm -f "$WORKDIR/env.sh"
  log "stopped (work dir $WORKDIR kept: logs in $LOG)"
}

cmd_status() { sinfo; squeue; }

case $CMD in
  install)     cmd_install ;;
  start)       cmd_start ;;
  submit-test) cmd_submit_test ;;
  wait)        cmd_wait "$@" ;;
  status)      cmd_status ;;
  env)         echo "export SLURM_CONF=$CONF" ;;
  stop)        cmd_stop ;;
  ci)          # each step in its own process so `set -e`/die cannot skip the teardown
               T0=$(now); rc=0
               bash "$0" -w "$WORKDIR" start || rc=$?
               [ $rc -eq 0 ] && { bash "$0" -w "$WORKDIR" submit-test || rc=$?; }
               log "start -> results collected: $(since "$T0") s (rc=$rc)"
               bash "$0" -w "$WORKDIR" stop || rc=$?
               log "total incl. teardown: $(since "$T0") s"
               exit $rc ;;
  *)           usage >&2; exit 2 ;;
esac
