#!/bin/sh
# Copy the finished runs of reproduce.sh into the repository (docs/reproduction.md):
#
#   sh benchmarks/reproduction/collect.sh [ROOT] [DEST]
#
# ROOT (default runs/repro) is reproduce.sh's folder; DEST (default
# benchmarks/results/reproduction) gets, for every finished run directory below ROOT (one
# holding results.json), its config.toml, results.json, report.md and per-unit results
# (units/*.json: metrics and learning curves), under the same relative path.  Models and
# plots stay in ROOT (megabytes each); unfinished runs are left out and listed.
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
    mkdir -p "$DEST/$rel/units"
    cp "$run/config.toml" "$run/results.json" "$DEST/$rel/"
    [ -f "$run/report.md" ] && cp "$run/report.md" "$DEST/$rel/"
    if [ -d "$run/units" ]; then
        cp "$run"/units/*.json "$DEST/$rel/units/" 2>/dev/null || true
    fi
    echo "collected: $run -> $DEST/$rel"
done
