#!/bin/sh
# Every .tex table rhoflow writes compiles with pdflatex in a minimal document that loads only the
# packages its header comment names ("% rhoflow table; packages: a, b"), names nothing beyond
# booktabs, siunitx, amsmath and longtable, and two sweep cells' tables (every table of a run in
# one document) do not collide: no label is defined twice (docs/verification.md, tables).
#   sh latex_tables.sh MODE RHOFLOW PDFLATEX SCRATCH
# MODE: outputs (write the outputs into SCRATCH), alone (compile each .tex alone), together
# (all of them in one document, no label twice), bibtex (compare's CITATION.bib cited with plain
# BibTeX: no warning, no empty author, the version and commit and the seed paper's author in the
# reference). Exits 0 when every case passes;
# prints each failure.
set -u
mode=$1 rhoflow=$2 pdflatex=$3 dir=$4
fail=0
say() { echo "latex_tables: $*"; }
bad() { say "FAIL: $*"; fail=1; }
# The tables: every .tex but the test's own documents and the figures' captions and LaTeX
# variants (tests/rhoflow/io/figures_test.cpp compiles those inside a figure environment).
tables() { find . -name '*.tex' ! -name 'doc_*' ! -name '*.caption.tex' ! -name '*-latex.tex' | sort; }

if ! command -v "$pdflatex" >/dev/null 2>&1; then
  say "FAIL: pdflatex not found ($pdflatex): run scripts/setup.sh (texlive-latex-base, -recommended, -science)"
  exit 1
fi

case $mode in
outputs)
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
  # compare with its study, compare without the effective dynamics, a 2-D check map (a longtable),
  # and a sweep: two compare cells, two stationary cells and a 1-D check (summaries and cell tables).
  "$rhoflow" compare --trials 4 --steps 2000 --study-eta0 0.08,0.04,0.02 --study-trials 2 --no-figures \
    --out cmp >/dev/null 2>&1 || bad "rhoflow compare failed"
  "$rhoflow" compare --trials 3 --steps 2000 --no-study --no-effective --no-figures \
    --table-columns step,t,rho_ode,sga,median,gap_mean,nuisance --out cmp_plain >/dev/null 2>&1 ||
    bad "rhoflow compare --no-effective failed"
  "$rhoflow" check --claim monotone --theta 0.5:2 --L 100:1000 --grid 7 --no-figures --out map \
    >/dev/null 2>&1; [ -f map/points.tex ] || bad "rhoflow check wrote no points.tex"
  cat > sweep.toml <<'TOML'
title = "Tables test: two cells per task & 100% of them_named"
out = "sweep-out"
[[task]]
name = "cmp"
command = "compare"
L = [100, 200]
R = 20
trials = 3
steps = 1000
no-study = true
horizon = 2
[[task]]
name = "stat"
command = "stationary"
eta = [0.01, 0.02]
nodes = 8
samples = 400
bootstrap = 10
[[task]]
name = "chk"
command = "check"
claim = "monotone"
theta = "0.5:2"
grid = 3
TOML
  "$rhoflow" run sweep.toml --no-figures >/dev/null 2>&1 || bad "rhoflow run sweep.toml failed"
  n=$(find . -name '*.tex' | wc -l)
  [ "$n" -ge 14 ] || bad "expected at least 14 .tex files, found $n"
  ;;
alone)
  cd "$dir" || exit 1
  n=0
  for tex in $(tables); do
    n=$((n + 1))
    head=$(head -n 1 "$tex")
    case $head in
      "% rhoflow table; packages: "*) ;;
      *) bad "$tex: first line is not '% rhoflow table; packages: ...': $head"; continue ;;
    esac
    pkgs=$(echo "${head#% rhoflow table; packages: }" | tr -d ' ' | tr ',' ' ')
    uses=""
    for p in $pkgs; do
      case $p in booktabs|siunitx|amsmath|longtable|graphicx) uses="$uses\\usepackage{$p}" ;;
        *) bad "$tex names the package '$p' (accepted: booktabs, siunitx, amsmath, longtable, graphicx)" ;; esac
    done
    # One column (article: 345 pt) and two (229.5 pt columns, 469 pt text): it compiles and
    # fits, no Overfull \hbox over 1 pt (a table wider than a column goes across both).
    for cls in article '[twocolumn]{article}'; do
      case $cls in article) doc=doc_$n opt='{article}' ;; *) doc=doc_${n}_two opt=$cls ;; esac
      printf '\\documentclass%s\n%s\n\\begin{document}\n\\input{%s}\n\\end{document}\n' "$opt" "$uses" "$tex" > $doc.tex
      if ! "$pdflatex" -halt-on-error -interaction=nonstopmode $doc.tex >$doc.out 2>&1; then
        bad "$tex does not compile with only [$pkgs] in $opt:"; grep -A3 '^!' $doc.out | head -8
      elif grep -q 'multiply defined' $doc.log; then
        bad "$tex defines a label twice"; grep 'multiply defined' $doc.log
      fi
      over=$(sed -n 's/^Overfull \\hbox (\([0-9.]*\)pt too wide).*/\1/p' $doc.log | awk '$1 > 1' | head -1)
      [ -z "$over" ] || bad "$tex is ${over} pt too wide in $opt"
    done
  done
  [ "$n" -ge 14 ] || bad "only $n .tex files to compile (outputs missing?)"
  say "$n tables compiled alone, each in one and in two columns, none too wide"
  ;;
together)
  cd "$dir" || exit 1
  { printf '\\documentclass{article}\n\\usepackage{booktabs}\\usepackage{longtable}\\usepackage{graphicx}\n\\begin{document}\n'
    for tex in $(tables); do printf '\\input{%s}\\clearpage\n' "$tex"; done
    printf '\\end{document}\n'; } > doc_together.tex
  cells=$(find sweep-out/cmp -name table.tex | wc -l)
  [ "$cells" -eq 2 ] || bad "expected 2 compare cells' table.tex in sweep-out/cmp, found $cells"
  if ! "$pdflatex" -halt-on-error -interaction=nonstopmode doc_together.tex >doc_together.out 2>&1; then
    bad "the tables do not compile together:"; grep -A3 '^!' doc_together.out | head -8
  fi
  grep 'multiply defined' doc_together.log && bad "a label is defined twice"
  labels=$(grep -ho '\\label{[^}]*}' $(find . -name '*.tex' ! -name 'doc_*') | sort | uniq -d)
  [ -z "$labels" ] || bad "labels used twice: $labels"
  say "$(grep -c input doc_together.tex) tables compiled together"
  ;;
bibtex)
  cd "$dir" || exit 1
  bibtex=$(dirname "$(command -v "$pdflatex")")/bibtex
  [ -x "$bibtex" ] || bibtex=bibtex
  cp cmp/CITATION.bib doc_cite.bib || bad "compare wrote no CITATION.bib"
  printf '\\documentclass{article}\n\\begin{document}\nrhoflow~\\cite{rhoflow}, the seed paper~\\cite{seed-paper-2606.22406}.\n\\bibliographystyle{plain}\n\\bibliography{doc_cite}\n\\end{document}\n' > doc_cite.tex
  "$pdflatex" -halt-on-error -interaction=nonstopmode doc_cite.tex >doc_cite.out 2>&1 || bad "doc_cite.tex does not compile"
  "$bibtex" doc_cite >doc_cite.bibout 2>&1 || { bad "bibtex failed:"; cat doc_cite.bibout; }
  grep '^Warning--' doc_cite.blg && bad "plain BibTeX warns on CITATION.bib"
  grep -i 'empty author' doc_cite.blg && bad "an entry of CITATION.bib has no author"
  version=$("$rhoflow" --version | sed -n 's/^rhoflow \([^ ,]*\).*/\1/p')
  bbl=$(tr '\n' ' ' < doc_cite.bbl | tr -s ' ')  # BibTeX breaks long lines
  case $bbl in *"Version $version, git commit"*) ;; *) bad "the reference lacks 'Version $version, git commit': $bbl" ;; esac
  case $bbl in *"Asymptotic Signal Subspace Recovery"*) ;; *) bad "the seed paper is not in the references: $bbl" ;; esac
  case $bbl in *"Lan"?"V. Truong"*) ;; *) bad "the seed paper's author is not in the references: $bbl" ;; esac
  [ $fail -eq 0 ] && say "CITATION.bib cited with plain BibTeX: $(grep -c bibitem doc_cite.bbl) references, no warning"
  ;;
*) say "unknown mode $mode"; exit 2 ;;
esac
exit $fail
