#!/bin/sh
# The prove examples' outputs are the bytes rhoflow wrote before prove became a job of the job
# table (commit ddf778b, files in tests/data/golden/prove/): certificates, summaries, the
# printed text, --output's file, --verify-fast's report, field --rigorous, CITATION.bib. Only
# the build's commit, whether the tree was modified and the search's wall time are normalised.
# Usage: prove_golden.sh RHOFLOW GOLDEN_DIR WORK_DIR
set -eu
rhoflow=$1
golden=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export SOURCE_DATE_EPOCH=1764547200  # the provenance's date, as the golden files have it
fail() { echo "FAIL: $*" >&2; exit 1; }
norm() {  # the commit, the tree's state and the timing line
  sed -E 's/ \(with uncommitted changes\)//g; s/[0-9a-f]{40}/COMMIT/g; s/"commit_modified": (true|false)/"commit_modified": MODIFIED/; s/^\([0-9.]+ s on [0-9]+ threads\)$/(TIME)/' "$1"
}
same() {  # same FILE GOLDEN: byte for byte after normalising
  norm "$1" >"$1.norm"
  cmp "$1.norm" "$golden/$2" || { diff "$golden/$2" "$1.norm" | head -20 >&2; fail "$1 differs from $2"; }
}
"$rhoflow" prove --claim monotone --d 5 --L 100 --R 50 --out proof >p1.stdout 2>p1.stderr || fail "prove --out"
same proof/certificate.json monotone.certificate.json
same proof/summary.md monotone.summary.md
same proof/CITATION.bib CITATION.bib
same p1.stdout monotone.stdout
"$rhoflow" prove --claim positive-drift --d 5 --L 100 --R 50 --theta 0.99:1 --cells 4 --quiet --out pd --output pd.json \
  >p2.stdout 2>p2.stderr || fail "prove --output"
same pd.json positive-drift.output.json
same pd/summary.md positive-drift.summary.md
"$rhoflow" prove --verify proof/certificate.json --json --verify-fast >v2.stdout || fail "prove --verify-fast"
same v2.stdout verify-fast.json
"$rhoflow" field --rigorous --d 50 --L 50 --R 25 --rho -1 >f1.stdout || fail "field --rigorous"
same f1.stdout rigorous-field.txt
"$rhoflow" field --rigorous --theta 0.1 --rho 0.3 --precision 256 >f3.stdout || fail "field --rigorous --precision"
same f3.stdout rigorous-field-256.txt
echo "the prove examples' outputs are the golden bytes"
