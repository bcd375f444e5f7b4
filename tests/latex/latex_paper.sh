#!/bin/sh
# Every LaTeX table rhoflow writes fits a two-column paper (issue 33): the outputs of a small
# compare (with its step-size study), a 2-D check map, and a tiny run (a compare sweep over two
# cells, a stationary cell and a prove task: their summaries, sweep.tex and stationary.tex), all
# made with --table-width WIDTH, go into one \documentclass[twocolumn]{article}; pdflatex must
# report no Overfull \hbox over 1 pt. The figures' LaTeX variants (the compare's, the check map's
# and the sweep's) go in too when they scale to \columnwidth. At WIDTH=column every table is a `table` (one column); at page every table is a
# `table*` (but a prove task's summary: prove has no width). The pages are rendered to PNG
# (pdftoppm -r 80) for a reader to look at (docs/verification.md).
#   sh latex_paper.sh RHOFLOW PDFLATEX SCRATCH WIDTH
# Exits 0 when the paper compiles and nothing is too wide; prints each failure.
set -u
rhoflow=$1 pdflatex=$2 dir=$3 width=$4
fail=0
say() { echo "latex_paper($width): $*"; }
bad() { say "FAIL: $*"; fail=1; }
command -v "$pdflatex" >/dev/null 2>&1 || { say "FAIL: pdflatex not found ($pdflatex)"; exit 1; }

rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
"$rhoflow" compare --trials 4 --steps 2000 --study-eta0 0.08,0.04,0.02 --study-trials 2 --effective-samples 200 \
  --effective-paths 200 --table-width "$width" --out cmp >cmp.out 2>&1 || { bad "rhoflow compare failed"; cat cmp.out; }
"$rhoflow" check --claim monotone --theta 0.5:2 --L 100:1000 --grid 5 --table-width "$width" \
  --out map >map.out 2>&1; [ -f map/points.tex ] || { bad "rhoflow check wrote no points.tex"; cat map.out; }
cat > paper.toml <<TOML
title = "A paper's study, tiny"
out = "run"
[defaults]
table-width = "$width"
[[task]]
name = "recovery"
command = "compare"
L = [1000, 3000]
theta = [0.25, 1.0]
R = 500
d = 100
trials = 3
steps = 1000
eta0 = 0.5
k0 = 100
rho0 = "uniform"
no-study = true
horizon = 2
effective-samples = 200
effective-paths = 200
[[task]]
name = "stat"
command = "stationary"
eta = [0.01, 0.02]
nodes = 8
samples = 400
bootstrap = 10
[[task]]
name = "proof"
command = "prove"
claim = "monotone"
theta = ["1", "2"]
TOML
"$rhoflow" run paper.toml >run.out 2>&1 || { bad "rhoflow run failed"; tail -5 run.out; }

# The tables (not the figures' captions, which go with their figures) and the packages they name.
tables=$(find cmp map run -name '*.tex' ! -name '*.caption.tex' ! -name '*-latex.tex' | sort)
[ "$(echo "$tables" | wc -w)" -ge 14 ] || bad "expected at least 14 tables, found: $tables"
pkgs=$(for t in $tables; do head -n 1 "$t" | sed -n 's/^% rhoflow table; packages: //p' | tr ',' '\n'; done |
  tr -d ' ' | sort -u | tr '\n' ',' | sed 's/,$//')
figures=""
for f in $(find cmp map run -maxdepth 2 -name '*-latex.tex' | sort); do  # (not the cells': their names repeat cmp's)
  grep -q columnwidth "$f" && figures="$figures ${f%.tex}"
done
[ -n "$figures" ] || say "no figure's LaTeX variant scales to the column width yet: figures left out"
dirs=$(for f in $figures; do echo "{$(dirname "$f")/}"; done | sort -u | tr -d '\n')
{ printf '\\documentclass[twocolumn]{article}\n\\usepackage{%s,color,graphicx}\n\\graphicspath{%s}\n\\begin{document}\n' "$pkgs" "$dirs"
  printf 'A two-column paper made of the tables rhoflow writes at --table-width %s.\n' "$width"
  for t in $tables; do printf '\\input{%s}\n' "$t"; done
  printf '\\clearpage\n'  # (LaTeX holds at most 18 floats unplaced)
  for f in $figures; do
    printf '\\begin{figure}\\centering\\input{%s}\\input{%s.caption}\\end{figure}\n' "$f" "${f%-latex}"
  done
  printf '\\end{document}\n'; } > paper.tex
# Twice: the continued parts of a long table refer to its number.
"$pdflatex" -halt-on-error -interaction=nonstopmode paper.tex >/dev/null 2>&1
if ! "$pdflatex" -halt-on-error -interaction=nonstopmode paper.tex >paper.stdout 2>&1; then
  bad "paper.tex does not compile:"; grep -A3 '^!' paper.stdout | head -8
fi
# Which table is too wide: pdflatex names the input line; the file is the last one opened.
over=$(awk '/^Overfull \\hbox \(/ { w = $3; sub(/\(/, "", w); sub(/pt/, "", w); if (w + 0 > 1) print w " pt" }' paper.log)
[ -z "$over" ] || { bad "Overfull \\hbox over 1 pt: $over"; grep -B2 -A1 '^Overfull' paper.log | head -20; }
narrow=$(cat $tables | grep -c '\\begin{table}') wide=$(cat $tables | grep -c '\\begin{table\*}')
case $width in
  # (a prove task has no --table-width: its summary and its atlas stay one column wide)
  page) [ "$narrow" -eq "$(cat run/proof/summary.tex run/proof/atlas.tex | grep -c '\\begin{table}')" ] ||
    bad "$narrow tables are one column wide at --table-width page" ;;
  column) [ "$wide" -eq 0 ] || bad "$wide tables go across the page at --table-width column" ;;
esac
if command -v pdftoppm >/dev/null 2>&1; then pdftoppm -r 80 -png paper.pdf page; fi
[ $fail -eq 0 ] && say "$(echo "$tables" | wc -w) tables ($narrow one column, $wide across the page) in a two-column paper, none too wide"
exit $fail
