#!/bin/sh
# The prove examples' outputs are the bytes rhoflow wrote before prove became a job of the job
# table (commit ddf778b, files in tests/data/golden/prove/): certificates, summaries, the
# printed text, --output's file, --verify-fast's report, field --rigorous, CITATION.bib. Only
# the build's commit, whether the tree was modified and the search's wall time are normalised.
# One change since, on purpose: the box example's "enclosures computed" (30 -> 106) counts the
# witness points the search tries before the box (issue 32: a disproof needs one witness).
# Usage: prove_golden.sh RHOFLOW GOLDEN_DIR WORK_DIR
extra_norm='s/^\([0-9.]+ s on [0-9]+ threads\)$/(TIME)/'  # the search's wall time
. "$(dirname "$0")/golden_common.sh"
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
