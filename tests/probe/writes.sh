#!/bin/sh
# Probe: writes (issue 15's second probe, part B, in its fast form): every write to standard
# output is checked (a full disk, a closed descriptor), a FIFO without a reader and a hung gnuplot
# end in an error instead of blocking, devices are written in place and never replaced; and the
# first pass's fixes still hold: shell metacharacters in paths are data, an interruption removes
# the partial output, no NaN reaches a JSON document.
# Usage: sh writes.sh RHOFLOW EMPTY_SCRATCH_DIR    (exit 0 when every case behaves)
set -u
BIN=${1:?usage: writes.sh RHOFLOW EMPTY_SCRATCH_DIR}
W=${2:?usage: writes.sh RHOFLOW EMPTY_SCRATCH_DIR}
mkdir -p "$W" || exit 2

. "$(dirname "$0")/harness/probe_lib.sh"

SGA="sga --steps 100 --trials 300 --d 8 --L 20 --R 4 --threads 1 --json"
CMP="compare --d 10 --L 40 --R 8 --theta 1.5 --steps 2000 --trials 3 --eta0 0.02 --k0 500 --horizon 3
     --field meanfield --no-study --no-effective --quiet"

# ---- D3: standard output
PROBE_CASES=$((PROBE_CASES + 1))
"$BIN" $SGA >/dev/full 2>"$W/err"
rc=$?
[ $rc -eq 1 ] || fail "stdout to /dev/full" "exit $rc, expected 1"
grep -qF "rhoflow: error: writing standard output: No space left on device" "$W/err" ||
    fail "stdout to /dev/full" "no message: $(cat "$W/err")"
PROBE_CASES=$((PROBE_CASES + 1))
"$BIN" --help >/dev/full 2>"$W/err"
rc=$?
[ $rc -eq 1 ] || fail "help to /dev/full" "exit $rc, expected 1"
PROBE_CASES=$((PROBE_CASES + 1))
"$BIN" $SGA --output "$W/closed.json" >&- 2>"$W/err"
rc=$?
[ $rc -eq 1 ] || fail "closed stdout" "exit $rc, expected 1"
grep -qF "standard output is closed" "$W/err" || fail "closed stdout" "no message: $(cat "$W/err")"
[ -e "$W/closed.json" ] && fail "closed stdout" "the work ran (closed.json written)"

# ---- FIFOs: no reader ends with an error (after a bounded wait); a reader gets the document
mkfifo "$W/fifo" || fail "mkfifo" "cannot make a FIFO"
expect "FIFO without a reader" 1 "it is a FIFO with no reader" field --rho 0.3 --output "$W/fifo"
[ -p "$W/fifo" ] || fail "FIFO without a reader" "the FIFO was replaced"
PROBE_CASES=$((PROBE_CASES + 1))
cat "$W/fifo" >"$W/fifo.got" &
reader=$!
"$BIN" field --rho 0.3 --output "$W/fifo" >/dev/null 2>"$W/err"
rc=$?
wait $reader
[ $rc -eq 0 ] || fail "FIFO with a reader" "exit $rc: $(cat "$W/err")"
grep -qF '"points"' "$W/fifo.got" || fail "FIFO with a reader" "the reader got no document"
[ -p "$W/fifo" ] || fail "FIFO with a reader" "the FIFO was replaced"

# ---- devices: written in place, never replaced (first pass)
expect "output /dev/null" 0 "" field --rho 0.3 --output /dev/null
[ -c /dev/null ] || fail "output /dev/null" "/dev/null is no longer a device"
expect "output /dev/full" 1 "No space left on device" field --rho 0.3 --output /dev/full
[ -c /dev/full ] || fail "output /dev/full" "/dev/full is no longer a device"
expect "output a directory" 1 "it names a directory" field --rho 0.3 --output "$W/"

# ---- shell metacharacters in paths are data (first pass), with figures rendered if gnuplot is there
weird="$W/x'; touch \"$W/PWNED\"; echo \$(touch $W/PWNED2) 'y"
expect "metacharacters in --out" 0 "" $CMP --out "$weird"
[ -f "$weird/compare.json" ] || fail "metacharacters in --out" "no compare.json in the folder of that name"
expect "metacharacters in --output" 0 "" field --rho 0.3 --output "$weird.json"
[ -f "$weird.json" ] || fail "metacharacters in --output" "no file of that name"
[ -e "$W/PWNED" ] || [ -e "$W/PWNED2" ] && fail "metacharacters" "a path was run as a command"

# ---- no NaN in JSON (first pass): a comparison without the effective dynamics, figures data
expect "compare JSON" 0 "" $CMP --out "$W/cmp" --json
PROBE_CASES=$((PROBE_CASES + 1))
no_nonfinite "fig_trajectory.dat" "$W/cmp/fig_trajectory.dat"
no_nonfinite "compare.json" "$W/cmp/compare.json"

# ---- a hung gnuplot is killed after RHOFLOW_GNUPLOT_TIMEOUT, naming the figure
mkdir -p "$W/bin"
# (it sleeps a day: a rhoflow that did not kill it would run into the probe's ctest TIMEOUT, so no
# clock is read here)
printf '#!/bin/sh\n/bin/sleep 86400\n' >"$W/bin/gnuplot"
chmod +x "$W/bin/gnuplot"
PROBE_CASES=$((PROBE_CASES + 1))
PATH="$W/bin:$PATH" RHOFLOW_GNUPLOT_TIMEOUT=1 "$BIN" $CMP --out "$W/hung" >/dev/null 2>"$W/err"
rc=$?
[ $rc -eq 1 ] || fail "hung gnuplot" "exit $rc, expected 1: $(cat "$W/err")"
grep -qF "did not finish" "$W/err" && grep -qF "fig_trajectory.gp" "$W/err" ||
    fail "hung gnuplot" "no message naming the figure: $(cat "$W/err")"
[ -e "$W/hung" ] && fail "hung gnuplot" "a partial folder is left under its name"

# ---- interruption removes the partial output (first pass)
PROBE_CASES=$((PROBE_CASES + 1))
"$BIN" compare --d 8 --L 20 --R 4 --steps 200000 --trials 4 --eta0 0.05 --k0 200 --horizon 2 --no-study \
    --no-effective --field meanfield --threads 1 --out "$W/int" --quiet >/dev/null 2>"$W/int.err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! ls -a "$W" | grep -q '^\.int\.tmp\.'; do
    sleep 0.05
    i=$((i + 1))
done
sleep 0.2
kill -TERM $pid
wait $pid
rc=$?
if [ $rc -eq 143 ]; then
    grep -qF "interrupted (SIGTERM)" "$W/int.err" || fail "interruption" "no message: $(cat "$W/int.err")"
    [ -e "$W/int" ] && fail "interruption" "a partial folder is left under its name"
else
    [ $rc -eq 0 ] || fail "interruption" "exit $rc: $(cat "$W/int.err")"
fi
ls -a "$W" | grep -q '\.tmp\.' && fail "interruption" "temporaries left: $(ls -a "$W" | grep '\.tmp\.')"

finish
