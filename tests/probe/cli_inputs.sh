#!/bin/sh
# Probe: bad inputs to the command line (issue 15's second probe, part B, in its fast form). Each
# case runs the rhoflow binary once and checks its exit code (2 invalid input naming the flag, 3
# numerical failure, 0 success) and its message; no case may print NaN or inf on stdout.
# Covers: bad numbers, out-of-range values, overflow hints (D18), hitting levels (D5), flat fields
# (D20), bounded confidence intervals (D21), memory checked up front (D9, D10), the lists of jobs
# and compare's refused flags (D15), field results whose error swamps them (exit 3).
# Usage: sh cli_inputs.sh RHOFLOW EMPTY_SCRATCH_DIR    (exit 0 when every case behaves)
set -u
BIN=${1:?usage: cli_inputs.sh RHOFLOW EMPTY_SCRATCH_DIR}
W=${2:?usage: cli_inputs.sh RHOFLOW EMPTY_SCRATCH_DIR}
mkdir -p "$W" || exit 2

. "$(dirname "$0")/harness/probe_lib.sh"

SMALL="--d 8 --L 20 --R 4 --threads 1"

# ---- bad numbers: exit 2 naming the flag
expect "d not an integer" 2 "invalid --d: d = '2.5' is not an integer" field --rho 0.1 --d 2.5
expect "hexadecimal" 2 "invalid --rho: rho = '0x10' is not a number" field --rho 0x10
expect "leading +" 2 "invalid --L: L = '+5' is not an integer" field --L +5
expect "empty value" 2 "invalid --eta0: eta0 = '' is not a number" sga --eta0 ""
expect "blank-padded" 2 "invalid --theta" field --theta " 1"
expect "negative seed" 2 "invalid --seed" sga --seed -3
expect "trials 0" 2 "invalid --trials" sga --trials 0
expect "R > L" 2 "invalid --R: R = 2000 is out of range" field --R 2000
expect "theta inf" 2 "invalid --theta" field --theta inf
expect "sigma 0" 2 "invalid --sigma" field --sigma 0
expect "beta*sigma > 12" 2 "invalid --beta" field --beta 20
expect "points 1" 2 "invalid --points" ode --points 1
expect "hit 1.5" 2 "invalid --hit" ode --hit 1.5
expect "rho0 1.01" 2 "invalid --rho0" sga --rho0 1.01
expect "eta0 1e155" 2 "invalid --eta0: eta0 = 1e+155 is out of range" sga --eta0 1e155
expect "unknown subcommand" 2 "unknown subcommand 'fields'" fields
expect "range for a value" 2 "is a range" field --theta 1:2

# ---- D18: out of range, not "not an integer"; hints name the parameter at fault
expect "L past 64 bits" 2 "invalid --L: L = '18446744073709551615' is out of range" sga --L 18446744073709551615
absent "L past 64 bits" "is not an integer"
expect "steps 1e300" 2 "invalid --steps: steps = '1e300' is out of range" sga --steps 1e300
expect "sigma 1e300 hint" 3 "reduce sigma" sga --sigma 1e300 --steps 10 --trials 2 --threads 1
absent "sigma 1e300 hint" "eta0 or theta"
expect "theta 1e100 sga hint" 3 "reduce theta" sga --theta 1e100 --steps 200 --trials 2 --threads 1
expect "theta 1e100 ode hint" 3 "beta*theta = 1e+100" ode --theta 1e100 --points 3
absent "theta 1e100 ode hint" "beta*sigma -> 0"
expect "theta 1e100 field exit 3" 3 "the error exceeds the value" field --theta 1e100 --rho 0.5

# ---- D5: hitting levels
expect "hit rounds to 1" 2 "invalid --hit: " ode --rho0 0.9999999999999999 --hit 1e-17
expect "hit rounds to 1 (message)" 2 "rounds to 1 in double precision" ode --hit 1e-17
expect "rho0 already at the level" 2 "already at the hitting level" ode --rho0 0.9999999999999999 --hit 1e-15
expect "sga hit rounds to 1" 2 "invalid --hit: " sga --hit 1e-17
expect "check hit rounds to 1" 2 "invalid --hit: " check --claim 'hitting-time<=10' --hit 1e-17
expect "rho0 = 1 is a start" 0 "" ode --rho0 1 --field meanfield --points 3 --json
expect "no error estimate" 0 "(error not estimated)" ode --field meanfield --no-error-estimate --points 3

# ---- D20: flat fields
expect "stationary theta 0" 2 "invalid --theta: " stationary --theta 0
expect "stationary theta 0 (message)" 2 "no attractor near +1" stationary --theta 0
absent "stationary theta 0 (message)" "plain_ode"
expect "stationary R 0" 2 "invalid --R: " stationary --R 0

# ---- D21: a CI of |rho| inside [0, 1]; 2 trials say so
expect "2 trials" 0 "# note: 2 trials" sga --steps 20 --trials 2 --seed 2 $SMALL
PROBE_CASES=$((PROBE_CASES + 1))
ci=$(sed -n 's/^mean |rho_final| = .* (95% CI \[\([^],]*\), \([^]]*\)\].*/\1 \2/p' "$W/out")
if [ -z "$ci" ] || ! echo "$ci" | awk '{ exit !($1 >= 0 && $2 <= 1 && $1 <= $2) }'; then
    fail "CI of |rho| in [0, 1]" "interval '$ci' leaves [0, 1]"
fi
expect "2 trials JSON" 0 "" sga --steps 20 --trials 2 --seed 2 $SMALL --json
PROBE_CASES=$((PROBE_CASES + 1))
ci=$(tr -d ' \n' <"$W/out" | sed -n 's/.*"ci95":\[\([^],]*\),\([^]]*\)\].*/\1 \2/p')
if [ -z "$ci" ] || ! echo "$ci" | awk '{ exit !($1 >= 0 && $2 <= 1) }'; then
    fail "ci95 in [0, 1]" "ci95 '$ci' leaves [0, 1]"
fi

# ---- D9, D10: memory checked up front, naming the flag and the limit
expect "sga L 1e9" 2 "invalid --L: the job needs about" sga --L 1e9 --steps 10 --trials 2
absent "sga L 1e9" "bad_alloc"
expect "full d 1e9" 2 "invalid --d: the job needs about" sga --sampler full --d 1e9 --L 1e6 --steps 10 --trials 2
expect "trials 1e7 json" 2 "invalid --trials: the job needs about" sga --trials 1e7 --json
expect "limit named" 2 "more than the " sga --trials 1e7 --json
expect "effective paths" 2 "invalid --effective-paths: " compare --effective-paths 1e7 --max-memory 1G
expect "ode points" 2 "invalid --points: " ode --points 1e7 --max-memory 1G
expect "check points" 2 "invalid --max-points: " check --claim monotone --theta 1:2 --max-points 1e7 --max-memory 4G
expect "bad max-memory" 2 "invalid --max-memory: " sga --max-memory 12X
expect "zero max-memory" 2 "invalid --max-memory: " sga --max-memory 0
expect "text keeps no records" 0 "100000 trials x 2 steps" sga --trials 1e5 --steps 2 $SMALL --max-memory 64M
printf '[[task]]\nname = "s"\ncommand = "sga"\nsteps = 10\ntrials = [2, 10000000]\n' >"$W/big.toml"
expect "run checks every cell" 2 "key 'trials': the job needs about" run "$W/big.toml" --out "$W/big-out"
PROBE_CASES=$((PROBE_CASES + 1))
[ -e "$W/big-out" ] || [ -e "$W/.big-out.partial" ] && fail "run checks every cell" "an output folder was created"

# ---- D15: the lists of jobs; compare's refused flags; check's help
expect "run help lists every job" 0 "field|ode|phase|sga|compare|stationary|check|prove" run --help
printf '[[task]]\ncommand = "nope"\n' >"$W/nope.toml"
expect "TOML command list" 2 "(accepted: field, ode, phase, sga, compare, stationary, check, prove, threshold)" run "$W/nope.toml"
expect "compare --record" 2 "invalid --record: compare does not take --record" compare --record 5
expect "compare --first-trial" 2 "invalid --first-trial: " compare --first-trial 3
expect "compare --records-per-decade" 2 "invalid --records-per-decade: " compare --records-per-decade=3
expect "check help: tol range" 0 "0 < tol <= 1" check --help
absent "check help: tol range" "=monotone"

# ---- every subcommand's help exits 0; results hold no NaN or inf
for sub in field ode phase sga compare stationary check run; do
    PROBE_CASES=$((PROBE_CASES + 1))
    "$BIN" "$sub" --help >"$W/out" 2>"$W/err" || fail "help $sub" "exit $?: $(head -c 300 "$W/err")"
    grep -qF -- "--help" "$W/out" || fail "help $sub" "no help text"
done
expect "field at the ends" 0 "" field --rho -1,0,1 --json
expect "field montecarlo" 0 "" field --rho 1 --method montecarlo --samples 200 --json
expect "ode" 0 "" ode --field meanfield --points 5 --json
expect "phase" 0 "" phase --field meanfield --json
expect "sga full" 0 "" sga --sampler full --steps 50 --trials 3 $SMALL --json
expect "sga constant step" 0 "constant step" sga --gamma 0 --steps 50 --trials 3 $SMALL --json
expect "stationary" 0 "" stationary --field meanfield --nodes 8 --samples 200 --bootstrap 10 --cells 200 $SMALL --json

finish
