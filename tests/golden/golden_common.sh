# Shared by the golden scripts (sourced with their arguments RHOFLOW GOLDEN_DIR WORK_DIR): a
# fresh work folder, the provenance's fixed date, and `same FILE GOLDEN`, byte for byte after
# normalising the build's commit and whether the tree was modified, plus the caller's own
# `extra_norm` sed expression (empty: nothing more).
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
  sed -E "s/ \\(with uncommitted changes\\)//g; s/[0-9a-f]{40}/COMMIT/g; s/\"commit_modified\": (true|false)/\"commit_modified\": MODIFIED/${extra_norm:+; $extra_norm}" "$1"
}
same() {  # same FILE GOLDEN
  norm "$1" >"$1.norm"
  cmp "$1.norm" "$golden/$2" || { diff "$golden/$2" "$1.norm" | head -20 >&2; fail "$1 differs from $2"; }
}
