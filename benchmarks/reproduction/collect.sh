#!/bin/sh
# Copy the finished runs of reproduce.sh into the repository (docs/reproduction.md):
#
#   sh benchmarks/reproduction/collect.sh [ROOT] [DEST]
#
# ROOT (default runs/repro) is reproduce.sh's folder; DEST (default
# benchmarks/results/reproduction) gets, for every finished run directory below ROOT (one
# holding results.json), its config.toml, results.json (every unit's metrics and learning
# curve) and report.md, under the same relative path.  Models, plots and the per-unit files
# (each test example's score: about 1 MB a run) stay in ROOT; unfinished runs are left out
# and listed.
set -eu
ROOT=${1:-runs/repro}
DEST=${2:-benchmarks/results/reproduction}
find "$ROOT" -name config.toml -not -path "*/models/*" | sort | while read -r config; do
    run=$(dirname "$config")
    rel=${run#"$ROOT"/}
    if [ ! -f "$run/results.json" ]; then
        echo "unfinished: $run"
        continue
    fi
    mkdir -p "$DEST/$rel"
    cp "$run/config.toml" "$run/results.json" "$DEST/$rel/"
    [ -f "$run/report.md" ] && cp "$run/report.md" "$DEST/$rel/"
    echo "collected: $run -> $DEST/$rel"
done
