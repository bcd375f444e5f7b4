#!/bin/sh
# The MPI build end to end, through mpirun (registered with ctest only when rhoflow is built
# with MPI; see tests/CMakeLists.txt). Small models (d = 8, L = 20 ... 200, few steps): each
# case takes seconds.
#
#   sh mpi_test.sh CASE RHOFLOW MPIEXEC WORKDIR
#
# CASE: run_same_bytes | sga_compare_same_bytes | resume_after_kill | failing_cell_names_rank |
#       input_refused_by_one_rank | input_differs_between_ranks | dead_rank_fails_job |
#       prove_same_bytes | run_prove_same_bytes | atlas_same_bytes | registered_job_same_bytes (RHOFLOW: rhoflow-jobs,
#       the command line with the toy job of tests/jobs/)
set -eu
case_name=$1
rhoflow=$2
mpiexec=$3
work=$4/$case_name
rm -rf "$work"
mkdir -p "$work"
cd "$work"

mpi() {  # mpi N ARGS...: rhoflow on N ranks (as root too, as the README's commands run)
  n=$1
  shift
  "$mpiexec" --oversubscribe --allow-run-as-root -n "$n" "$rhoflow" "$@"
}

descendants() {  # the processes started under PID, at any depth
  for c in $(pgrep -P "$1" || true); do
    echo "$c"
    descendants "$c"
  done
}

gone_or_fail() {  # the processes given all end within 10 s (no rank outlives its job)
  for p in "$@"; do
    i=0
    while kill -0 "$p" 2>/dev/null; do
      i=$((i + 1))
      [ $i -lt 200 ] || fail "process $p outlived its job"
      sleep 0.05
    done
  done
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run.json without its "execution" field (the one place where runs on different ranks differ).
without_execution() {
  awk '/^  "execution": /{skip=1} skip && /^  },?$/{skip=0; next} !skip' "$1"
}

# Every file of two run folders is the same, run.json's "execution" aside.
same_run_folder() {
  diff -r -x run.json "$1" "$2" || fail "$1 and $2 differ"
  without_execution "$1/run.json" >a.json
  without_execution "$2/run.json" >b.json
  cmp a.json b.json || fail "$1/run.json and $2/run.json differ beyond \"execution\""
  grep -q '"execution"' "$2/run.json" || fail "$2/run.json has no execution field"
}

write_sweep() {
  cat >"$1" <<'EOF'
title = "mpi test"
[defaults]
d = 8
L = 20
R = 4
[[task]]
name = "s"
command = "sga"
steps = 1000
trials = 5
theta = [0.5, 1.5]
[[task]]
name = "c"
command = "compare"
steps = 1500
trials = 4
horizon = 1
study-trials = 3
L = [20, 40]
[[task]]
name = "p"
command = "phase"
field = "meanfield"
scan = 64
[[task]]
name = "f"
command = "field"
rho = [[0.0, 0.5], [1.0]]
EOF
}

case $case_name in
run_same_bytes)
  write_sweep e.toml
  mkdir one r1 r2 r3
  (cd one && "$rhoflow" run ../e.toml --out out >stdout 2>stderr) || fail "one process failed"
  for n in 1 2 3; do
    (cd r$n && mpi $n run ../e.toml --out out >stdout 2>stderr) || { cat r$n/stderr >&2; fail "$n ranks failed"; }
    same_run_folder one/out r$n/out
    cmp one/stdout r$n/stdout || fail "the printed summaries differ on $n ranks"
  done
  grep -q '"ranks": 3' r3/out/run.json || fail "run.json does not say 3 ranks"
  grep -q '"ranks": 1' one/out/run.json || fail "run.json does not say 1 rank"
  ;;
sga_compare_same_bytes)
  args="--d 8 --L 20 --R 4 --steps 2000 --trials 6 --json"
  "$rhoflow" sga $args >sga1.json
  mpi 2 sga $args >sga2.json
  cmp sga1.json sga2.json || fail "sga --json differs on 2 ranks"
  cargs="--d 8 --L 20 --R 4 --steps 2000 --trials 6 --study-trials 5 --horizon 1 --no-figures --quiet --json"
  mkdir one two
  (cd one && "$rhoflow" compare $cargs --out c >c.json)
  (cd two && mpi 2 compare $cargs --out c >c.json)
  cmp one/c.json two/c.json || fail "compare --json differs on 2 ranks"
  diff -r one/c two/c || fail "compare's folder differs on 2 ranks"
  ;;
resume_after_kill)
  # About 1 s a cell, so that the kill lands while cells remain; the build under the sanitizers
  # (RHOFLOW_SANITIZED=1 from tests/CMakeLists.txt) is 10-30 times slower, a tenth of the steps there.
  steps=40000
  [ "${RHOFLOW_SANITIZED:-0}" = 1 ] && steps=4000
  cat >k.toml <<EOF
[defaults]
d = 8
L = 200
R = 4
[[task]]
name = "s"
command = "sga"
steps = $steps
trials = 8
threads = 1
seed = [1, 2, 3, 4, 5, 6, 7, 8]
EOF
  mkdir one two
  (cd one && "$rhoflow" run ../k.toml --out o >/dev/null 2>&1) || fail "one process failed"
  cd two
  (exec "$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$rhoflow" run ../k.toml --out o >/dev/null 2>err1) &
  pid=$!  # mpirun itself (exec), which forwards SIGTERM to the ranks
  i=0
  until grep -q '"complete"' .o.partial/manifest.json 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 2400 ] || fail "no cell completed within 120 s"
    sleep 0.05
  done
  ranks=$(descendants $pid)
  kill -TERM $pid
  if wait $pid; then fail "the killed run exited 0"; fi
  gone_or_fail $ranks
  [ ! -e o ] || fail "the killed run left a final folder"
  [ -d .o.partial ] || fail "the killed run left no .o.partial to resume from"
  grep -q '"complete"' .o.partial/manifest.json || fail "the manifest lost the completed cells"
  mpi 2 run ../k.toml --out o >/dev/null 2>err2 || { cat err2 >&2; fail "the resumed run failed"; }
  grep -q "complete from an earlier run, not recomputed" err2 || fail "the resumed run recomputed everything"
  cd ..
  same_run_folder one/o two/o
  ;;
failing_cell_names_rank)
  cat >f.toml <<'EOF'
[defaults]
d = 8
L = 20
R = 4
[[task]]
name = "s"
command = "sga"
steps = 1000
trials = 4
seed = [1, 2]
[[task]]
name = "ph"
command = "phase"
theta = 60
table-points = 33
EOF
  if mpi 3 run f.toml --out o >stdout 2>stderr; then fail "a failing cell exited 0"; fi
  cat stderr >&2
  grep -q "numerical failure: rank [0-9]: task 'ph' cell ph/run: .*not resolved" stderr ||
    fail "the error does not name the rank and the cell"
  [ ! -e o ] || fail "a failed run left a final folder"
  grep -q '"failed"' .o.partial/manifest.json || fail "the manifest does not record the failed cell"
  ;;
input_refused_by_one_rank)
  # Ranks that disagree about the input (an experiment file only some nodes see) must fail the
  # job at once, each refusing rank naming itself, instead of leaving the others waiting.
  write_sweep e.toml
  mkdir A B
  cp e.toml A/
  for order in "A B" "B A"; do
    set -- $order
    rc=0
    timeout 60 "$mpiexec" --oversubscribe --allow-run-as-root -n 1 -wdir "$work/$1" "$rhoflow" run e.toml --out o : \
      -n 1 -wdir "$work/$2" "$rhoflow" run e.toml --out o >stdout 2>stderr || rc=$?
    [ $rc -ne 0 ] || fail "ranks in $order: a job whose input one rank refused exited 0"
    [ $rc -ne 124 ] || fail "ranks in $order: the job hung"
    cat stderr >&2
    rank=1
    [ "$1" = A ] || rank=0
    grep -q "rhoflow: rank $rank: error: .*e.toml" stderr || fail "ranks in $order: the refusing rank $rank is not named"
    [ "$(grep -c '^rhoflow' stderr)" -eq 1 ] || fail "ranks in $order: more than one message"
    [ ! -e A/o ] && [ ! -e B/o ] || fail "ranks in $order: a final folder appeared"
  done
  # Help is printed once, not once per rank.
  [ "$(mpi 3 run --help | grep -c '^Usage')" -eq 1 ] || fail "--help printed more than once on 3 ranks"
  ;;
input_differs_between_ranks)
  # Ranks given different command lines (mpirun's ':' syntax) or experiment files whose bytes
  # differ (node-local copies) must fail before any work, naming the first rank that differs:
  # before the check, rank 1 silently ran its trials with its own seed under rank 0's record.
  sargs="sga --d 8 --L 20 --R 4 --steps 200 --trials 4 --json"
  rc=0
  timeout 60 "$mpiexec" --oversubscribe --allow-run-as-root -n 1 "$rhoflow" $sargs --seed 5 : \
    -n 1 "$rhoflow" $sargs --seed 6 >stdout 2>stderr || rc=$?
  cat stderr >&2
  [ $rc -ne 0 ] || fail "ranks with different seeds: the job exited 0"
  [ $rc -ne 124 ] || fail "ranks with different seeds: the job hung"
  grep -q "rhoflow: error: rank 1 was started with a command line that differs from rank 0's" stderr ||
    fail "ranks with different seeds: rank 1 is not named"
  [ ! -s stdout ] || fail "ranks with different seeds: a result was printed"
  write_sweep e.toml
  mkdir A B C
  cp e.toml A/
  cp e.toml B/
  sed 's/steps = 1000/steps = 1001/' e.toml >C/e.toml
  for dirs in "A C" "A B C" "C A"; do
    set -- $dirs
    line=""
    for d in "$@"; do line="$line${line:+ : }-n 1 -wdir $work/$d $rhoflow run e.toml --out o"; done
    rc=0
    # shellcheck disable=SC2086 # (the line is split on purpose: ':'-separated application contexts)
    timeout 60 "$mpiexec" --oversubscribe --allow-run-as-root $line >stdout 2>stderr || rc=$?
    cat stderr >&2
    [ $rc -ne 0 ] || fail "files in $dirs: a job whose ranks read different files exited 0"
    [ $rc -ne 124 ] || fail "files in $dirs: the job hung"
    differing=$(($# - 1))  # the last folder's rank, the first that differs from rank 0's
    [ "$1" = A ] || differing=1
    grep -q "rhoflow: error: rank $differing read a file e.toml whose bytes differ from rank 0's" stderr ||
      fail "files in $dirs: rank $differing is not named"
    [ "$(grep -c '^rhoflow: error' stderr)" -eq 1 ] || fail "files in $dirs: more than one error"
    for d in A B C; do
      [ ! -e $d/o ] && [ ! -e $d/.o.partial ] || fail "files in $dirs: $d has an output folder"
    done
  done
  ;;
dead_rank_fails_job)
  # A rank killed outright (SIGKILL: no code runs) must end the whole job non-zero, not leave
  # rank 0 waiting. Open MPI's mpirun notices the dead process and kills the others.
  cat >d.toml <<'EOF'
[defaults]
d = 8
L = 200
R = 4
[[task]]
name = "s"
command = "sga"
steps = 200000
trials = 4
threads = 1
seed = [1, 2, 3, 4]
EOF
  start=$(date +%s)
  (exec "$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$rhoflow" run d.toml --out o >/dev/null 2>stderr) &
  pid=$!
  victim=""
  i=0
  while [ -z "$victim" ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || fail "rank 1 not found"
    sleep 0.05
    for p in $(descendants $pid); do
      tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && victim=$p
    done
  done
  sleep 0.5
  ranks=$(descendants $pid)
  kill -KILL "$victim"
  if wait $pid; then fail "the job exited 0 after a rank was killed"; fi
  gone_or_fail $ranks
  [ $(($(date +%s) - start)) -lt 60 ] || fail "the job took over a minute to end"
  [ ! -e o ] || fail "a job with a dead rank left a final folder"
  ;;
run_prove_same_bytes)
  # prove, prove --verify and field --rigorous as cells of an experiment file: each cell runs on
  # one rank, and the run folder is the same bytes on one process and on 2 ranks.
  "$rhoflow" prove --claim monotone --d 5 --L 100 --R 50 --quiet --output cert.json >/dev/null || fail "the certificate"
  cat >e.toml <<EOF
[[task]]
name = "proofs"
command = "prove"
claim = ["monotone", "positive-drift"]
theta = "0.99:1"
d = 5
L = 100
R = 50
cells = 4
[[task]]
name = "recheck"
command = "prove"
verify = "$work/cert.json"
verify-fast = true
[[task]]
name = "balls"
command = "field"
rigorous = true
rho = [[-1, 0.3]]
d = 5
L = 100
R = 50
EOF
  mkdir one two
  (cd one && "$rhoflow" run ../e.toml --out out >stdout 2>stderr) || { cat one/stderr >&2; fail "one process failed"; }
  (cd two && mpi 2 run ../e.toml --out out >stdout 2>stderr) || { cat two/stderr >&2; fail "2 ranks failed"; }
  same_run_folder one/out two/out
  cmp one/stdout two/stdout || fail "the printed summaries differ on 2 ranks"
  grep -q '"verdict": "proved"' two/out/proofs/claim=positive-drift/certificate.json || fail "no proof on 2 ranks"
  grep -q '"valid": true' two/out/recheck/run/verification.json || fail "no re-check on 2 ranks"
  ;;
registered_job_same_bytes)
  # A job registered in one file (tests/jobs/toy_job.cpp) runs on 2 ranks as on one: its cells
  # go to any rank and their results come back to rank 0 by the kind's name; the subcommand
  # runs on every rank and prints once.
  cat >e.toml <<'EOF'
[[task]]
name = "squares"
command = "toy"
n = [10, 100, 1000]
power = [2, 3]
EOF
  mkdir one two
  (cd one && "$rhoflow" run ../e.toml --out out >stdout 2>stderr) || { cat one/stderr >&2; fail "one process failed"; }
  (cd two && mpi 2 run ../e.toml --out out >stdout 2>stderr) || { cat two/stderr >&2; fail "2 ranks failed"; }
  same_run_folder one/out two/out
  grep -q '"sum": 250500250000.0' two/out/squares/n=1000_power=3/result.json || fail "the sum of cubes to 1000 on 2 ranks"
  mpi 2 toy --n 10 >toy.txt || fail "toy on 2 ranks failed"
  [ "$(cat toy.txt)" = "S_2(10) = 385 (error <= 5.1e-13)" ] || fail "toy on 2 ranks printed: $(cat toy.txt)"
  ;;
atlas_same_bytes)
  # rhoflow atlas is an experiment: its cells (a map of 2 theta boxes x 2 rows) go to any rank,
  # and the atlas folder is the same bytes on one process and on 2 ranks. d = 5, L = 20, R = 2
  # is monotone below theta* in [0.89, 0.93]; L = 40, R = 4 above 0.9.
  args="atlas --d 5 --L 20,40 --theta-lo 0.6 --theta-hi 1.2 --theta-cells 2 --threshold-width 0 --threads 1 --no-figures"
  mkdir one two
  (cd one && "$rhoflow" $args --out a >stdout 2>stderr) || { cat one/stderr >&2; fail "one process failed"; }
  (cd two && mpi 2 $args --out a >stdout 2>stderr) || { cat two/stderr >&2; fail "2 ranks failed"; }
  same_run_folder one/a two/a
  grep -q "| L = 20, R = 2 | fails | fails | fails at θ = 0.9 |" two/a/map/atlas.md || fail "the map on 2 ranks: $(cat two/a/map/atlas.md)"
  grep -q "| L = 40, R = 4 | holds | fails | holds on \[0.6, 0.9\]; fails at θ = 1.2 |" two/a/map/atlas.md \
    || fail "the map on 2 ranks: $(cat two/a/map/atlas.md)"
  ;;
prove_same_bytes)
  # rhoflow prove spreads each batch of cells over the ranks (pool, then broadcast): the
  # certificate and summary are the same bytes on one process and on 2 ranks, and the checker
  # on 2 ranks confirms it and still refuses a tampered copy (exit 2).
  args="prove --claim positive-drift --d 5 --L 100 --R 50 --theta 0.99:1 --cells 4 --quiet"
  mkdir one two
  (cd one && "$rhoflow" $args --out p >stdout 2>stderr) || fail "one process failed"
  (cd two && mpi 2 $args --out p >stdout 2>stderr) || { cat two/stderr >&2; fail "2 ranks failed"; }
  cmp one/p/certificate.json two/p/certificate.json || fail "certificate.json differs on 2 ranks"
  cmp one/p/summary.md two/p/summary.md || fail "summary.md differs on 2 ranks"
  grep -q "on 2 MPI ranks" two/stdout || fail "the 2-rank run does not say it used 2 ranks"
  mpi 2 prove --verify one/p/certificate.json --verify-fast >verify.txt || fail "--verify on 2 ranks failed"
  grep -q "verdict 'proved' confirmed" verify.txt || fail "--verify on 2 ranks did not confirm"
  sed 's/"role": "dj>0"/"role": "dj<0"/' one/p/certificate.json >bad.json
  set +e
  mpi 2 prove --verify bad.json --verify-fast >/dev/null 2>bad.err
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "a tampered certificate on 2 ranks exits $rc, not 2"
  grep -q "role" bad.err || fail "the tampered certificate's error does not name the role"
  ;;
*)
  fail "unknown case $case_name"
  ;;
esac
echo "ok: $case_name"
