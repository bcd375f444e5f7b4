"""Each figure rhoflow draws reads on paper: no blank band, every key entry seen in the plot.

Usage (a ctest, tests/CMakeLists.txt; /usr/bin/python3 with NumPy, pdftoppm from poppler-utils):
  figure_check.py outputs RHOFLOW SCRATCH   run a small compare (with the effective dynamics and a
                                            step-size study) and a small sweep (`rhoflow run`, where
                                            three of four cells never hit) and check every fig_*.pdf
                                            they drew
  figure_check.py planted SCRATCH           the check must fail: fig_gap redrawn with its median's
                                            curve hidden (its key sample kept) is refused, and so is
                                            the sweep's fig_hit_L with its no-hit triangles hidden
  figure_check.py check FOLDER              check the fig_*.pdf of any folder

Each figure's PDF (the pdfcairo one) is rendered by pdftoppm at 100 dpi and
  - no blank band: no run of blank pixel rows (every pixel within 5 of white) between the first
    and the last drawn row longer than MAX_BAND (4%) of the height: the plot, its x label and
    the key below it follow each other without a gap;
  - every key entry is seen: the plot's clauses with a title are read from NAME.gp (colour
    `lc rgb '#RRGGBB'`; a transparent fill's colour over white), and at least MIN_PIXELS pixels
    of the plot area (above the lowest `set bmargin at screen` of the script, where the key
    cannot be) are within TOLERANCE of that colour in every channel;
  - (outputs mode) each LaTeX variant NAME-latex.tex, input in a two-column article, is
    \\columnwidth wide, and 150pt wide after \\def\\rhoflowfigurewidth{150pt} (within 1pt).
Exits 1 listing every failure."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

MAX_BAND = 0.04
MIN_PIXELS = 25
TOLERANCE = 30
DPI = 100
NAMED = {"black": (0, 0, 0), "white": (255, 255, 255), "gray50": (127, 127, 127), "gray40": (102, 102, 102)}


def render(pdf):
    """The first page of `pdf` as an (H, W, 3) uint8 array (pdftoppm's PPM output)."""
    out = subprocess.run(["pdftoppm", "-r", str(DPI), "-f", "1", "-l", "1", pdf], capture_output=True, check=True).stdout
    fields, at = [], 0
    while len(fields) < 4:  # P6 W H MAXVAL, separated by whitespace
        while out[at:at + 1].isspace():
            at += 1
        end = at
        while not out[end:end + 1].isspace():
            end += 1
        fields.append(out[at:end])
        at = end
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(out[at + 1:at + 1 + w * h * 3], dtype=np.uint8).reshape(h, w, 3)


def clauses(plot):
    """The comma-separated clauses of a gnuplot `plot` command (quotes and brackets respected)."""
    parts, depth, quote, cur = [], 0, False, ""
    for ch in plot:
        if ch == "'":
            quote = not quote  # a doubled quote inside a title toggles twice
        elif not quote and ch in "([":
            depth += 1
        elif not quote and ch in ")]":
            depth -= 1
        if ch == "," and not quote and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def first_pass(script):
    """The commands of the script's first terminal pass (the PNG's; the PDF's body is the same)."""
    body = script.split("\nreset\n")[1]
    return body.split("\nunset output\n")[0]


def key_entries(script):
    """(title, colour) of every titled clause of every plot command in the body."""
    entries = []
    for line in first_pass(script).splitlines():
        if not line.startswith("plot "):
            continue
        for c in clauses(line[5:]):
            title = re.search(r"\btitle \(?[^']*'((?:[^']|'')*)'", c)  # also title (i == 4 ? 'T' : '')
            colour = re.search(r"lc rgb '([^']+)'", c)
            if not title or not colour:
                continue
            name = colour.group(1)
            rgb = NAMED[name] if name in NAMED else tuple(int(name[i:i + 2], 16) for i in (1, 3, 5))
            alpha = re.search(r"fs transparent solid ([0-9.]+)", c)
            if alpha:  # drawn over white: the blend
                a = float(alpha.group(1))
                rgb = tuple(round(a * v + (1 - a) * 255) for v in rgb)
            entries.append((title.group(1).replace("''", "'"), rgb))
    return entries


def check(folder, name, failures):
    script = open(os.path.join(folder, name + ".gp"), encoding="utf-8").read()
    img = render(os.path.join(folder, name + ".pdf")).astype(int)
    h = img.shape[0]
    blank = (img >= 250).all(axis=(1, 2))
    drawn = np.flatnonzero(~blank)
    run = longest = 0
    for y in range(drawn[0], drawn[-1] + 1):
        run = run + 1 if blank[y] else 0
        longest = max(longest, run)
    if longest > MAX_BAND * h:
        failures.append(f"{name}: a blank band of {longest} pixel rows ({100 * longest / h:.1f}% of the height; "
                        f"at most {100 * MAX_BAND:.0f}%)")
    bottoms = [float(b) for b in re.findall(r"set bmargin at screen ([0-9.]+)", first_pass(script))]
    plot_rows = int(round((1 - min(bottoms)) * h)) if bottoms else h
    area = img[:plot_rows]
    entries = key_entries(script)
    if not entries:
        failures.append(f"{name}: no key entry found in {name}.gp")
    for title, rgb in entries:
        seen = int((np.abs(area - np.array(rgb)) <= TOLERANCE).all(axis=2).sum())
        if seen < MIN_PIXELS:
            failures.append(f"{name}: the key entry '{title}' (colour {rgb}) is not seen in the plot area "
                            f"({seen} pixels of that colour, at least {MIN_PIXELS} wanted)")
    return len(entries)


def latex_widths(folder, names, failures):
    """Each LaTeX variant's width at \\columnwidth and at a width chosen in the document."""
    doc = ["\\documentclass[twocolumn]{article}", "\\usepackage{graphicx,color,amsmath}", "\\begin{document}",
           "\\newsavebox\\figbox"]
    for n in names:
        pic = f"\\sbox\\figbox{{\\input{{{n}-latex.tex}}}}"
        doc.append(f"{pic}\\typeout{{RHOFLOWWIDTH {n} \\the\\wd\\figbox\\space\\the\\columnwidth}}")
        doc.append(f"{{\\def\\rhoflowfigurewidth{{150pt}}{pic}\\typeout{{RHOFLOWWIDTH {n} \\the\\wd\\figbox\\space 150pt}}}}")
    doc.append("\\end{document}")
    open(os.path.join(folder, "doc_width.tex"), "w").write("\n".join(doc) + "\n")
    p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc_width.tex"], cwd=folder,
                       capture_output=True, text=True)
    found = re.findall(r"RHOFLOWWIDTH (\S+) ([0-9.]+)pt ([0-9.]+)pt", p.stdout)
    if p.returncode != 0 or len(found) != 2 * len(names):
        failures.append(f"the LaTeX variants do not compile in a two-column article (pdflatex exit {p.returncode})")
    for n, width, wanted in found:
        if abs(float(width) - float(wanted)) > 1:
            failures.append(f"{n}-latex.tex is {width}pt wide where {wanted}pt was asked for")
    return len(found)


def check_folder(folder):
    names = sorted(f[:-3] for f in os.listdir(folder) if f.startswith("fig_") and f.endswith(".gp"))
    failures, entries = [], 0
    for name in names:
        entries += check(folder, name, failures)
    return names, entries, failures


SWEEP = """title = "figure check sweep"
out = "run"
[[task]]
name = "sweep"
command = "compare"
L = [1000, 3000]
theta = [0.25, 2.0]
R = 500
d = 100
trials = 4
steps = 4000
eta0 = 0.5
k0 = 100
rho0 = "uniform"
no-study = true
effective-samples = 200
effective-paths = 200
"""


def outputs(rhoflow, scratch):
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    # A small compare with every figure: the effective dynamics, a study, the seed figure.
    args = [rhoflow, "compare", "--trials", "8", "--steps", "4000", "--study-eta0", "0.08,0.04,0.02",
            "--study-trials", "4", "--out", "cmp", "--quiet"]
    p = subprocess.run(args, cwd=scratch, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} exited {p.returncode}: {p.stderr}")
    # A small sweep: at theta = 0.25 no trial reaches 0.99 by the run's end, at theta = 2 one cell
    # of two does (measured: L = 3000 at t = 163 of 186), so its hitting figures draw both.
    open(os.path.join(scratch, "sweep.toml"), "w").write(SWEEP)
    p = subprocess.run([rhoflow, "run", "sweep.toml"], cwd=scratch, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rhoflow run sweep.toml exited {p.returncode}: {p.stderr}")
    return [os.path.join(scratch, "cmp"), os.path.join(scratch, "run", "sweep")]


def planted(scratch):
    """fig_gap with its median drawn as 1/0 (nothing), key sample kept, and the sweep's fig_hit_L
    with its no-hit triangles drawn as 1/0: the check must refuse both."""
    out = []
    for src, name, clause in [(os.path.join(scratch, "cmp"), "fig_gap", ("'' using 1:5 with", "'' using 1:(1/0) with")),
                              (os.path.join(scratch, "run", "sweep"), "fig_hit_L", (":15 with points", ":(1/0) with points"))]:
        dst = os.path.join(scratch, "planted_" + name)
        shutil.rmtree(dst, ignore_errors=True)
        os.makedirs(dst)
        for f in os.listdir(src):
            if f.endswith(".dat") or f == name + ".gp":
                shutil.copy(os.path.join(src, f), dst)
        gp = open(os.path.join(dst, name + ".gp"), encoding="utf-8").read()
        hidden = gp.replace(*clause)
        if hidden == gp:
            sys.exit(f"planted: {name}.gp has no clause {clause[0]!r} to hide")
        open(os.path.join(dst, name + ".gp"), "w", encoding="utf-8").write(hidden)
        subprocess.run(["gnuplot", name + ".gp"], cwd=dst, check=True, capture_output=True)
        out.append(dst)
    return out


def main():
    mode = sys.argv[1]
    if mode == "outputs":
        folders = outputs(sys.argv[2], sys.argv[3])
    elif mode == "planted":
        folders = planted(sys.argv[2])
    else:
        folders = [sys.argv[2]]
    names, entries, widths, failures = [], 0, 0, []
    for folder in folders:
        n, e, f = check_folder(folder)
        if mode == "outputs":
            widths += latex_widths(folder, n, f)
        names += n
        entries += e
        failures += [f"{os.path.basename(folder)}/{x}" for x in f]
    for f in failures:
        print("FAIL:", f)
    if mode == "planted":
        caught = [any(f"{os.path.basename(d)}/" in f and "not seen" in f for f in failures) for d in folders]
        print("the hidden median curve was", "caught" if caught[0] else "NOT caught")
        print("the hidden no-hit triangles were", "caught" if caught[1] else "NOT caught")
        return 0 if all(caught) else 1
    if not names or any(not check_folder(f)[0] for f in folders):
        print(f"FAIL: no fig_*.gp in one of {folders}")
        return 1
    print(f"{len(names)} figures ({', '.join(names)}), {entries} key entries and {widths} LaTeX widths checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
