#!/bin/sh
# Installs every Debian package that building rhoflow, running its tests and drawing its
# figures needs (Open MPI's libopenmpi-dev and openmpi-bin for `mpirun -n N rhoflow ...`; the
# Python module's pybind11 and headers, and NumPy, pytest, matplotlib and pandas for its tests
# and examples, all for Debian's /usr/bin/python3; pdflatex with graphicx, color, amsmath,
# booktabs and siunitx (texlive-latex-base, -recommended, texlive-science) to compile the LaTeX
# figures and tables in the tests, and pdftoppm (poppler-utils) to look at the PDF figures as
# images; `locales` for the tests that build a decimal-comma locale with localedef:
# docs/dependencies.md).
# Idempotent: when everything is already installed it touches nothing.
# Run as root on Debian 12 (bookworm); uses sudo when not root and sudo exists.
set -eu
PKGS="build-essential cmake git locales libboost-dev libeigen3-dev doctest-dev libcli11-dev libfmt-dev
nlohmann-json3-dev libtomlplusplus-dev librandom123-dev gnuplot-nox libopenmpi-dev openmpi-bin libflint-arb-dev
python3-mpmath pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest python3-matplotlib python3-pandas
texlive-latex-base texlive-latex-recommended texlive-science poppler-utils"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "setup: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && SUDO=sudo || { echo "setup: need root to install:$missing" >&2; exit 1; }
fi
echo "setup: installing$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
