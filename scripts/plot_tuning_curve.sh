#!/usr/bin/env bash
# Draws the best time found against trials from the curve files that autotune and tessera-onnx tune
# write (CSV: trial,best_ms), one line per file, as a PNG with gnuplot.
#
#   scripts/plot_tuning_curve.sh OUT.png "TITLE" LABEL=curve.csv [LABEL=curve.csv ...]
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 OUT.png TITLE LABEL=curve.csv [LABEL=curve.csv ...]" >&2
  exit 2
fi
command -v gnuplot >/dev/null || { echo "$0: gnuplot is not installed (scripts/install_dependencies.sh installs it)" >&2; exit 1; }
out="$1"
title="$2"
shift 2
plots=()
for pair in "$@"; do
  label="${pair%%=*}"
  file="${pair#*=}"
  [ -r "$file" ] || { echo "$0: cannot read $file" >&2; exit 1; }
  # Trials before the first correct schedule have no best time (0): left out.
  plots+=("'$file' every ::1 using 1:(\$2 > 0 ? \$2 : NaN) with lines linewidth 2 title '$label'")
done
joined=$(IFS=,; echo "${plots[*]}")
gnuplot <<GNUPLOT
set terminal pngcairo size 900,540 font 'sans,11'
set output '$out'
set datafile separator ','
set title '$title'
set xlabel 'trials'
set ylabel 'best time found (ms)'
set key top right
set grid
plot $joined
GNUPLOT
echo "wrote $out"
