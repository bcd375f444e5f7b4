#!/bin/sh
# The default `rhoflow compare` writes the bytes it wrote before its units became typed and the
# job a plan (issue 31; files made by commit 353be26 in tests/data/golden/compare/): every text
# file of its folder (JSON, CSV and their sidecars, Markdown, LaTeX, gnuplot scripts and data,
# CITATION.bib) and what it prints. The figures' PNG/PDF/SVG are gnuplot's and not compared.
# Only the build's commit and whether the tree was modified are normalised.
# Usage: compare_golden.sh RHOFLOW GOLDEN_DIR WORK_DIR
set -eu
rhoflow=$1
golden=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export SOURCE_DATE_EPOCH=1764547200  # the provenance's date, as the golden files have it
fail() { echo "FAIL: $*" >&2; exit 1; }
norm() {
  sed -E 's/ \(with uncommitted changes\)//g; s/[0-9a-f]{40}/COMMIT/g; s/"commit_modified": (true|false)/"commit_modified": MODIFIED/' "$1"
}
same() {  # same FILE GOLDEN: byte for byte after normalising
  norm "$1" >"$1.norm"
  cmp "$1.norm" "$golden/$2" || { diff "$golden/$2" "$1.norm" | head -20 >&2; fail "$1 differs from $2"; }
}
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
