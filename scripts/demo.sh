#!/usr/bin/env bash
# The main job: set up, build, install, start a throwaway cluster (or use the
# server PG* variables point at), and run examples/demo.sql in a database of
# its own, sketchshare_demo.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install_dependencies
build_and_install
cluster_start
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS sketchshare_demo" -c "CREATE DATABASE sketchshare_demo"
export PGDATABASE=sketchshare_demo
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION sketchshare"
echo "== running examples/demo.sql"
psql -X -v ON_ERROR_STOP=1 --echo-queries -f "$SKETCH_ROOT/examples/demo.sql"
echo "== demo finished"
