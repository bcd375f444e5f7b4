#!/usr/bin/env python3
"""Fails when a document or a header cites a repository file that does not exist.

Scans README.md, docs/*.md, lib/rhoflow/README.md and the comments of lib/ and apps/ sources for
file names in backticks (Markdown) or in comments: a name with a directory part
(`lib/rhoflow/model/sample.cpp`, `rhoflow/check/certify_test.cpp`, `tests/data/x.csv`,
`detail/ball.hpp`) must exist relative to the repository root, tests/, lib/, lib/rhoflow/, a
part of lib/rhoflow/ or the citing file's folder (or be generated from NAME.in); a bare source name
(`sample.cpp`) must exist somewhere under lib/, apps/, tests/ or python/. Names of files rhoflow
writes (certificate.json, fig_*.pdf, OUT/...) are not repository paths and are skipped: only
source-like extensions are checked for bare names, a path only when its first folder is one of
the repository's, and globs, braces and placeholders in capitals are skipped.
Run as: doc_paths.py REPO_ROOT
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
SOURCE_EXT = (".cpp", ".hpp", ".py", ".sh", ".toml", ".cmake", ".pyi")
ANY_EXT = SOURCE_EXT + (".md", ".csv", ".txt", ".json", ".cff", ".bib", ".in")
bases = ["", "tests", "lib", "lib/rhoflow", "apps", "python"]

names = set()
for top in ("lib", "apps", "tests", "python", "scripts", "experiments", "cmake", "docs"):
    for d, _, files in os.walk(os.path.join(root, top)):
        names.update(files)


parts = sorted(os.listdir(os.path.join(root, "lib", "rhoflow")))
tops = set(os.listdir(root)) | {"rhoflow", "detail"} | set(parts)


def exists(token, citing):
    if "/" in token:
        here = [os.path.dirname(citing)] + [os.path.join("lib", "rhoflow", p) for p in parts]
        return any(os.path.exists(os.path.join(root, b, t)) for b in bases + here for t in (token, token + ".in"))
    return token in names or token + ".in" in names


def candidates(text, in_code):
    # backticked spans in Markdown; in sources, words that look like file names in comments
    if not in_code:
        spans = re.findall(r"`([^`\n]+)`", text)
    else:
        spans = []
        for line in text.splitlines():
            m = re.search(r"//(.*)$", line)
            if m:
                spans.extend(m.group(1).split())
    for s in spans:
        for tok in re.split(r"[\s,;()\"']+", s):
            tok = tok.strip(".:").rstrip(")")
            if not tok.endswith(ANY_EXT) or any(c in tok for c in "*{}<>$|=[]"):
                continue
            if re.search(r"(^|/)[A-Z][A-Z_]+(/|$)", tok) or tok.startswith(("http", "/", "~", "..")):
                continue  # placeholders (OUT/, DIR/), URLs, absolute or outside paths
            if "/" not in tok and not tok.endswith(SOURCE_EXT):
                continue  # an output file name (table.csv, certificate.json)
            if "/" in tok and tok.split("/")[0] not in tops:
                continue  # a path in an output folder (a/certificate.json, OUT.partial/manifest.json)
            yield tok


bad = []
docs = ["README.md", "lib/rhoflow/README.md"] + [
    os.path.join("docs", f) for f in sorted(os.listdir(os.path.join(root, "docs"))) if f.endswith(".md")
]
sources = []
for top in ("lib", "apps"):
    for d, _, files in os.walk(os.path.join(root, top)):
        sources += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith((".cpp", ".hpp"))]
for rel, in_code in [(f, False) for f in docs] + [(f, True) for f in sorted(sources)]:
    with open(os.path.join(root, rel), encoding="utf-8") as fh:
        text = fh.read()
    for tok in sorted(set(candidates(text, in_code))):
        if f"cat > {tok}" in text:
            continue  # a script the document itself writes
        if not exists(tok, rel):
            bad.append(f"{rel}: cites '{tok}', which is not in the repository")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"every file cited by {len(docs)} documents and {len(sources)} sources exists")
