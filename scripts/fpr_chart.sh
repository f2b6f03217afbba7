#!/usr/bin/env bash
# Draws docs/fpr.svg: the false-positive rate of every Bloom layout family and
# of the counting filter against the memory they spend per item, from the
# formulas bloom_fpr_for uses (scripts/fpr_table.cpp). Choosing a layout is
# choosing a point on this chart. `--check` draws into a scratch file and
# fails when the committed chart differs from it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$ROOT/docs/fpr.svg
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
[ "${1:-}" = --check ] && out=$scratch/fpr.svg

make -C "$ROOT" -s scripts/fpr_table >/dev/null
"$ROOT/scripts/fpr_table" >"$scratch/fpr.tsv"
gnuplot <<GNUPLOT
set terminal svg size 860,560 dynamic font "sans,13" background "white"
set termoption noenhanced
set output "$out"
set title "False-positive rate against memory per item (best K' of each layout)"
set xlabel "bits of memory per item"
set ylabel "false-positive rate"
set logscale y
set format y "1e%T"
set xrange [2:64]
set yrange [1e-8:1]
set xtics 4
set grid xtics ytics mytics lc rgb "#dddddd"
set key bottom left box opaque
set datafile separator "\t"
plot for [i=2:8] "$scratch/fpr.tsv" using 1:i with lines lw 2 title columnhead(i)
GNUPLOT
if [ "${1:-}" = --check ]; then
    cmp -s "$out" "$ROOT/docs/fpr.svg" || { echo "docs/fpr.svg is not what scripts/fpr_chart.sh draws now: run it and commit the chart"; exit 1; }
    echo "docs/fpr.svg is current"
fi
