#!/bin/sh
# The default `rhoflow compare` writes the bytes it wrote before its units became typed and the
# job a plan (issue 31; files made by commit 353be26 in tests/data/golden/compare/, eight of them
# made again with issue 33's second pass, whose only changes to them are intended: compare.json's
# abs_rho_ode_final and hitting_time.sga_plateau{,_after}, every fitted slope as +- its 95%
# half-width, the plateau time and "the ODE ends at 1.0000" in the printed text): every text
# file of its folder (JSON, CSV and their sidecars, Markdown, LaTeX, gnuplot scripts and data,
# CITATION.bib) and what it prints. The figures' PNG/PDF/SVG are gnuplot's and not compared.
# Only the build's commit and whether the tree was modified are normalised.
# Usage: compare_golden.sh RHOFLOW GOLDEN_DIR WORK_DIR
. "$(dirname "$0")/golden_common.sh"
"$rhoflow" compare --out c --quiet >compare.stdout 2>compare.stderr || fail "rhoflow compare"
same compare.stdout compare.stdout
n=0
for g in "$golden"/*; do
  name=$(basename "$g")
  [ "$name" = compare.stdout ] && continue
  [ -f "c/$name" ] || fail "c/$name is missing"
  same "c/$name" "$name"
  n=$((n + 1))
done
# Every text file rhoflow writes is one the golden set holds: a new one would go unchecked.
for f in c/*; do
  case "$f" in *.png|*.pdf|*.svg|*.norm) continue ;; esac
  [ -f "$golden/$(basename "$f")" ] || fail "$f is not in the golden set"
done
echo "the default compare's $n text files and its output are the golden bytes"
