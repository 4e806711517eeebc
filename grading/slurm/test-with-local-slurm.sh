#!/usr/bin/env bash
# Proves grading/slurm/ against a real Slurm on this one machine (Debian's slurm-wlm 22.05 and
# munge): a temporary munged, slurmctld and slurmd (state, sockets and logs in a temp folder; this
# host as the one node, 2 CPUs, no GPU), then grade-on-slurm.sh on a generated class with the CPU
# simulator (CUDALAB_BACKEND=sim: no --gres), waiting for the array and the merge. It checks that
# the merged gradebook has every student exactly once, each in one shard, with the grades of one
# non-sharded `cudalab grade` on the same seed, and prints a short summary. The daemons are stopped
# at the end whatever happens (bounded waits). Not part of ctest: it starts daemons.
#
#   grading/slurm/test-with-local-slurm.sh [STUDENTS [SHARDS]]     (default 6 students, 3 shards)
#
#   CUDALAB_BIN        the cudalab program (default: build/default/bin/cudalab; cudalab-grading
#                      must be next to it)
#   KEEP=1             keep the temp folder (class, gradebooks, logs) for a look afterwards
#   TEST_TIMEOUT       seconds to wait for the jobs (default 900)
# Runs as root (slurmd must) or as a user who may start munged and slurmd; exit 0 all checks
# passed, 1 a check failed, 2 set-up error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
students=${1:-6}
shards=${2:-3}
cudalab=${CUDALAB_BIN:-$project/build/default/bin/cudalab}
timeout_s=${TEST_TIMEOUT:-900}

setup_error() {
  echo "test-with-local-slurm: $*" >&2
  exit 2
}
for tool in munged mungekey munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel python3; do
  command -v "$tool" >/dev/null || setup_error "$tool is missing (apt-get install slurm-wlm munge python3)"
done
[ -x "$cudalab" ] || setup_error "$cudalab is not a program (build cudalab, or set CUDALAB_BIN)"
[ -x "$(dirname "$cudalab")/cudalab-grading" ] || setup_error "cudalab-grading is not next to $cudalab"
[[ $students =~ ^[1-9][0-9]*$ && $shards =~ ^[1-9][0-9]*$ ]] || setup_error "usage: $0 [STUDENTS [SHARDS]]"

tmp=$(mktemp -d /tmp/cudalab-slurm-test.XXXXXX)
chmod 700 "$tmp"
daemons=()   # pids of what this script started, in start order
job_ids=()
started=$(date +%s)

# shellcheck disable=SC2317  # stop and cleanup run from the EXIT trap
# Stops one process this script started: SIGTERM, up to 10 s, then SIGKILL.
stop() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# shellcheck disable=SC2317
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  # The jobs first: their steps are not the daemons' children and would outlive them.
  if [ ${#job_ids[@]} -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
    timeout 10 scancel "${job_ids[@]}" 2>/dev/null || true
    for _ in $(seq 1 30); do
      [ -z "$(timeout 5 squeue -h -j "$(IFS=,; echo "${job_ids[*]}")" -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do stop "${daemons[$i]}"; done
  if [ "${KEEP:-0}" = 1 ] || [ "$status" -ne 0 ]; then
    echo "test-with-local-slurm: files kept in $tmp" >&2
  else
    rm -rf "$tmp"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- munge: a key and a daemon of our own, on a socket in the temp folder ---------------------
mkdir -m 700 "$tmp/munge"
mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$tmp/munge/munge.key"
socket=$tmp/munge/munge.socket
# --force: munged refuses root, and a socket folder it does not trust, without it.
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" \
  >"$tmp/munge/munged.out" 2>&1 &
daemons+=($!)
for _ in $(seq 1 50); do
  [ -S "$socket" ] && break
  sleep 0.2
done
munge -n -S "$socket" | unmunge -S "$socket" >/dev/null 2>&1 ||
  setup_error "munged did not start: $(tail -3 "$tmp/munge/munged.log" "$tmp/munge/munged.out" 2>/dev/null)"

# --- Slurm: this host as the one node, daemons in the foreground, state in the temp folder ----
host=$(hostname -s)
read -r ctld_port slurmd_port < <(python3 -c '
import socket
ports = []
socks = []
for _ in range(2):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s); ports.append(s.getsockname()[1])
print(*ports)')
mkdir -p "$tmp/slurm/state" "$tmp/slurm/spool"
: >"$tmp/slurm/plugstack.conf"
cat >"$tmp/slurm/slurm.conf" <<EOF
ClusterName=cudalabtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/slurm/state
SlurmdSpoolDir=$tmp/slurm/spool
SlurmctldPidFile=$tmp/slurm/slurmctld.pid
SlurmdPidFile=$tmp/slurm/slurmd.pid
SlurmctldLogFile=$tmp/slurm/slurmctld.log
SlurmdLogFile=$tmp/slurm/slurmd.log
PlugStackConfig=$tmp/slurm/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm/slurm.conf
slurmctld -D -c -f "$SLURM_CONF" >"$tmp/slurm/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$tmp/slurm/slurmd.out" 2>&1 &
daemons+=($!)
state=
for _ in $(seq 1 120); do
  state=$(timeout 5 sinfo -h -N -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  setup_error "the node did not come up (state '${state}'): $(tail -5 "$tmp/slurm/slurmctld.log" "$tmp/slurm/slurmd.log" 2>/dev/null)"
fi
echo "slurm: $(sinfo --version) on $host (node idle, 2 CPUs, no GPU), munge on $socket"

# --- the class, graded on Slurm ---------------------------------------------------------------
python3 "$project/scripts/make_demo_class.py" "$tmp/class" "$students" >/dev/null
export CUDALAB_CACHE_DIR=$tmp/cache   # a cache of its own; every task shares it (one node)
cd "$tmp"
submitted=$(CUDALAB_BACKEND=sim CUDALAB_CPUS=1 CUDALAB_BIN=$cudalab "$here/grade-on-slurm.sh" "$tmp/class" "$tmp/out" "$shards")
echo "$submitted"
array=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' <<<"$submitted")
merge=$(sed -n 's/^merge job \([0-9]*\):.*/\1/p' <<<"$submitted")
if [ -z "$array" ] || [ -z "$merge" ]; then setup_error "grade-on-slurm.sh printed no job ids"; fi
job_ids=("$array" "$merge")

deadline=$(($(date +%s) + timeout_s))
while [ -n "$(timeout 10 squeue -h -j "$array,$merge" -o %i 2>/dev/null || echo busy)" ]; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "test-with-local-slurm: the jobs did not finish in ${timeout_s} s:" >&2
    timeout 10 squeue -j "$array,$merge" >&2 || true
    exit 1
  fi
  sleep 2
done
grading_s=$(($(date +%s) - started))

failed=0
check() { # check DESCRIPTION COMMAND...: runs it, says PASS or FAIL
  if "${@:2}"; then
    echo "  PASS  $1"
  else
    echo "  FAIL  $1"
    failed=1
  fi
}
job_states() { timeout 10 scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort | uniq -c | xargs; }
array_states=$(job_states "$array")
merge_state=$(job_states "$merge")
echo "array job $array: ${array_states:-unknown}; merge job $merge: ${merge_state:-unknown}"

# One grading of the whole class on the same seed, to compare with.
"$cudalab" grade "$tmp/class" --out "$tmp/single" --backend sim --seed-file "$tmp/out/seed" --jobs 2 \
  --color never >"$tmp/single.log" 2>&1 || setup_error "the single grading failed: $(tail -3 "$tmp/single.log")"

echo "checks:"
check "every array task completed" test "$array_states" = "$shards COMPLETED"
check "the merge job completed" test "$merge_state" = "1 COMPLETED"
check "the merged reports are written" test -s "$tmp/out/merged/report.html" -a -s "$tmp/out/merged/grades.csv"
check "merged grades.csv is the single run's" cmp -s "$tmp/out/merged/grades.csv" "$tmp/single/grades.csv"
check "the seed file is private (mode 600)" test "$(stat -c %a "$tmp/out/seed")" = 600
python3 - "$tmp" "$shards" <<'EOF' || failed=1
import os, sqlite3, sys

tmp, shards = sys.argv[1], int(sys.argv[2])
LATEST = ("SELECT student, exercise, verdict, total, max FROM attempts "
          "WHERE id IN (SELECT MAX(id) FROM attempts GROUP BY student, exercise)")

def students(db):
    q = "SELECT student FROM attempts UNION SELECT student FROM student_notes"
    return {r[0] for r in sqlite3.connect(db).execute(q)}

def latest(db):
    return {(s, e): (v, t, m) for s, e, v, t, m in sqlite3.connect(db).execute(LATEST)}

ok = True
def check(what, good):
    global ok
    print(("  PASS  " if good else "  FAIL  ") + what)
    ok = ok and good

merged_db = os.path.join(tmp, "out", "merged", "gradebook.sqlite")
single_db = os.path.join(tmp, "single", "gradebook.sqlite")
shard_dbs = [os.path.join(tmp, "out", "shards", str(k), "gradebook.sqlite") for k in range(shards)]
per_shard = [students(db) for db in shard_dbs]
everyone = students(single_db)
in_shards = [s for part in per_shard for s in part]
check(f"every student in exactly one shard ({' + '.join(str(len(p)) for p in per_shard)} = {len(everyone)})",
      sorted(in_shards) == sorted(everyone))
merged_con = sqlite3.connect(merged_db)
twice = merged_con.execute("SELECT COUNT(*) FROM (SELECT student, exercise FROM attempts "
                           "GROUP BY student, exercise HAVING COUNT(*) > 1)").fetchone()[0]
check(f"the merged gradebook has every student ({len(students(merged_db))}) and each attempt once",
      students(merged_db) == everyone and twice == 0)
m, s = latest(merged_db), latest(single_db)
check(f"the same verdicts and scores as one non-sharded run ({len(m)} attempts)", m == s)
seeds = {sqlite3.connect(db).execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()[0]
         for db in shard_dbs + [merged_db, single_db]}
check("one seed in every gradebook", len(seeds) == 1)
totals = {}
for (student, _), (_, total, _) in m.items():
    totals[student] = totals.get(student, 0) + total
print("  totals: " + ", ".join(f"{k} {v:g}" for k, v in sorted(totals.items())))
sys.exit(0 if ok else 1)
EOF

echo
echo "summary: $students students in $shards shards graded on a local Slurm ($(sinfo --version)) with the" \
  "simulator in $grading_s s (array $array, merge $merge); merged into $tmp/out/merged:" \
  "$([ $failed = 0 ] && echo "all checks passed" || echo "CHECKS FAILED")"
tail -n +1 "$tmp/out/logs"/merge-*.log | sed -n '1,3p' | sed 's/^/  merge log: /'
exit $failed
