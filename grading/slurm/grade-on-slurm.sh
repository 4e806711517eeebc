#!/usr/bin/env bash
# Grades a class on a Slurm cluster: N shards as one job array (one GPU each), then the merge.
#
#   grading/slurm/grade-on-slurm.sh SUBMISSIONS OUT [N]        (N: shards, default 4)
#
# SUBMISSIONS and OUT must be on a file system that every node sees. It writes OUT/seed once (the
# class's secret seed, mode 600; kept when it exists, so submitting again grades on the same seed
# and the tasks resume), submits grade-class.sbatch as `--array=0-(N-1)` and merge-class.sbatch
# with `--dependency=afterok:` on the array, and prints both job ids. Results: OUT/merged (gradebook
# and reports), OUT/shards/K (each shard's), OUT/logs (the jobs' output).
#
#   CUDALAB_BIN         the cudalab program (default: this project's build/default/bin/cudalab)
#   CUDALAB_BACKEND     gpu (default) or sim: the CPU simulator, no --gres (the local test uses it)
#   CUDALAB_GRADE_ARGS  more options for `cudalab grade` (--rubric FILE, --time-cap 1, ...)
#   CUDALAB_SBATCH_ARGS more options for both sbatch calls (--partition=gpu --account=course ...);
#                       sbatch's own SBATCH_PARTITION, SBATCH_ACCOUNT, ... variables work too
#   CUDALAB_CPUS        CPUs per grading task (default 8: compiles and checks run in parallel)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
die() {
  echo "grade-on-slurm.sh: $*" >&2
  exit 2
}
if [ $# -lt 2 ] || [ $# -gt 3 ]; then die "usage: grade-on-slurm.sh SUBMISSIONS OUT [N]"; fi
[ -d "$1" ] || die "$1 is not a folder of submissions"
submissions=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
shards=${3:-4}
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "N must be a whole number ≥ 1 (got '$shards')"
cudalab=${CUDALAB_BIN:-$project/build/default/bin/cudalab}
[ -x "$cudalab" ] || die "$cudalab is not a program (build cudalab, or set CUDALAB_BIN)"
backend=${CUDALAB_BACKEND:-gpu}
[ "$backend" = gpu ] || [ "$backend" = sim ] || die "CUDALAB_BACKEND must be gpu or sim (got '$backend')"
cpus=${CUDALAB_CPUS:-8}
[[ $cpus =~ ^[1-9][0-9]*$ ]] || die "CUDALAB_CPUS must be a whole number ≥ 1 (got '$cpus')"
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node"

# The seed: drawn once per class, readable by its owner only, never on a command line.
seed_file=$out/seed
if [ ! -s "$seed_file" ]; then
  (umask 077 && od -An -N8 -tu8 /dev/urandom | tr -d ' \n' >"$seed_file.new" && mv "$seed_file.new" "$seed_file")
fi
chmod 600 "$seed_file"
mkdir -p "$out/shards" "$out/logs"

export CUDALAB_SUBMISSIONS=$submissions CUDALAB_OUT=$out CUDALAB_SHARDS=$shards CUDALAB_BIN=$cudalab
export CUDALAB_SEED_FILE=$seed_file CUDALAB_BACKEND=$backend CUDALAB_GRADE_ARGS=${CUDALAB_GRADE_ARGS:-}
# shellcheck disable=SC2206  # a list of options
extra=(${CUDALAB_SBATCH_ARGS:-})

script=$here/grade-class.sbatch
if [ "$backend" = sim ]; then
  # No GPU asked for: the script's `#SBATCH --gres` line is left out (sbatch reads the script from stdin).
  script_args=()
  script_text=$(grep -v '^#SBATCH --gres' "$script")
else
  script_args=("$script")
  script_text=
fi
array=$(printf '%s\n' "$script_text" | sbatch --parsable --array="0-$((shards - 1))" \
  --cpus-per-task="$cpus" --output="$out/logs/grade-%A_%a.log" "${extra[@]}" "${script_args[@]}")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out/logs/merge-%j.log" "${extra[@]}" "$here/merge-class.sbatch")
merge=${merge%%;*}

echo "array job $array: $shards shard(s) of $submissions ($backend), each into $out/shards/K"
echo "merge job $merge: after every shard succeeded, into $out/merged"
echo "follow with: squeue -j $array,$merge    logs: $out/logs"
