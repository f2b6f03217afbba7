#!/usr/bin/env bash
# docs/fpr.svg is what scripts/fpr_chart.sh draws from today's formulas: a
# change of a formula or a layout that moves a curve must redraw the chart.
set -euo pipefail
: "${SKETCH_ROOT:?}"
bash "$SKETCH_ROOT/scripts/fpr_chart.sh" --check
