# The probe scripts' shared harness (sourced, not run): fail, no_nonfinite, expect, absent, finish.
# Needs BIN (the rhoflow binary) and W (the scratch folder) set by the script that sources it.

PROBE_CASES=0
PROBE_FAILS=0

fail() {
    PROBE_FAILS=$((PROBE_FAILS + 1))
    echo "FAIL: $1: $2"
}

# Fails NAME when FILE shows a non-finite number (NaN, nan, inf, Infinity) as a value.
no_nonfinite() {
    if grep -qE '(^|[^A-Za-z_])(-?[Nn]a[Nn]|-?[Ii]nf(inity)?)([^A-Za-z_]|$)' "$2"; then
        fail "$1" "non-finite number in $(basename "$2"): $(grep -m1 -E '(^|[^A-Za-z_])(-?[Nn]a[Nn]|-?[Ii]nf(inity)?)([^A-Za-z_]|$)' "$2" | cut -c1-160)"
    fi
}

expect() {
    _name=$1
    _code=$2
    _pattern=$3
    shift 3
    PROBE_CASES=$((PROBE_CASES + 1))
    if command -v timeout >/dev/null 2>&1; then
        timeout 120 "$BIN" "$@" >"$W/out" 2>"$W/err"
    else
        "$BIN" "$@" >"$W/out" 2>"$W/err"
    fi
    _rc=$?
    if [ "$_rc" -ne "$_code" ]; then
        fail "$_name" "exit $_rc, expected $_code; stderr: $(head -c 400 "$W/err")"
        return 0
    fi
    if [ -n "$_pattern" ] && ! grep -qF -- "$_pattern" "$W/err" "$W/out"; then
        fail "$_name" "expected '$_pattern'; stderr: $(head -c 400 "$W/err")"
    fi
    no_nonfinite "$_name" "$W/out"
    return 0
}

# Fails NAME when PATTERN (a fixed string) appears in stderr or stdout of the last case.
absent() {
    if grep -qF -- "$2" "$W/err" "$W/out"; then fail "$1" "unexpected '$2': $(grep -m1 -F -- "$2" "$W/err" "$W/out" | cut -c1-200)"; fi
}

finish() {
    echo "$PROBE_CASES cases, $PROBE_FAILS failed"
    [ "$PROBE_FAILS" -eq 0 ]
    exit $?
}

