#!/usr/bin/env bash
# Installs the Python bridges to SWI-Prolog into a virtual environment.
#
# Usage: .ci/install-bridges.sh VENV      (after .ci/install-prolog.sh)
#
#   pyswip     (pure Python, ctypes) -- uses Debian's SWI-Prolog 9.0.4: it runs the first
#              `swipl` on PATH (/usr/bin/swipl) to find libswipl and the home, unless both
#              LIBSWIPL_PATH and SWI_HOME_DIR are set.
#   janus-swi  (C extension, built here from its sdist) -- compiled and linked against the
#              SWI-Prolog 9.2.9 build in ${ILPKIT_CACHE:-$HOME/.cache/ilpkit}/swipl-9.2.9
#              (janus needs >= 9.1.12). The extension's RUNPATH points at that build's
#              libswipl, but libswipl looks for its home (boot.prc, library) through
#              $SWI_HOME_DIR, else through the `swipl` it finds on PATH -- Debian's 9.0.4, whose
#              boot file the 9.2.9 library rejects with a fatal error that aborts the process.
#              So `import janus_swi` needs SWI_HOME_DIR=<prefix>/lib/swipl while it runs
#              (the backend reads ILPKIT_SWIPL_JANUS_HOME, sets SWI_HOME_DIR for the import and
#              removes it afterwards: a SWI_HOME_DIR left in the environment breaks
#              /usr/bin/swipl subprocesses and pyswip).
#
# Only one libswipl can live in a process: a process uses pyswip or janus_swi, not both.
#
# Idempotent: each bridge is (re)installed only if the venv lacks a working one. pip's wheel
# cache is bypassed for janus-swi, since a cached wheel may be linked against another
# SWI-Prolog.
set -euo pipefail

PYSWIP_VERSION=0.3.3
JANUS_SWI_VERSION=1.5.3
SWIPL_VERSION=9.2.9
CACHE="${ILPKIT_CACHE:-$HOME/.cache/ilpkit}"
PREFIX="$CACHE/swipl-$SWIPL_VERSION"
JANUS_HOME="$PREFIX/lib/swipl"

log() { printf '== install-bridges: %s\n' "$*"; }
die() { printf 'install-bridges: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 VENV"
VENV=$1
PY="$VENV/bin/python"
[ -x "$PY" ] || die "no Python in $VENV (create it with: python3 -m venv $VENV)"
[ -x "$PREFIX/bin/swipl" ] || die "no SWI-Prolog $SWIPL_VERSION in $PREFIX (run .ci/install-prolog.sh)"

# Each check runs in its own process: one libswipl a process, and a version mismatch can abort.
pyswip_version() {
  env -u SWI_HOME_DIR -u LIBSWIPL_PATH "$PY" -c '
from pyswip import Prolog
print(list(Prolog().query("current_prolog_flag(version, V)"))[0]["V"])' 2>/dev/null
}
janus_version() {
  env SWI_HOME_DIR="$JANUS_HOME" "$PY" -c '
import janus_swi as janus
assert janus.query_once("X is 1+1")["X"] == 2
print(janus.apply_once("user", "current_prolog_flag", "version"))' 2>/dev/null
}

dist_version() {
  "$PY" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1" 2>/dev/null
}

if [ "$(dist_version pyswip || true)" = "$PYSWIP_VERSION" ] &&
   [ "$(pyswip_version || true)" = 90004 ]; then
  log "pyswip $PYSWIP_VERSION already installed"
else
  log "pip install pyswip==$PYSWIP_VERSION"
  "$PY" -m pip install -q "pyswip==$PYSWIP_VERSION"
fi

if [ "$(dist_version janus-swi || true)" = "$JANUS_SWI_VERSION" ] &&
   [ "$(janus_version || true)" = 90209 ]; then
  log "janus-swi $JANUS_SWI_VERSION already installed against $PREFIX"
else
  log "pip install janus-swi==$JANUS_SWI_VERSION (compiled against $PREFIX)"
  # janus-swi's setup.py asks $SWIPL (else the `swipl` on PATH) for include and lib dirs.
  SWIPL="$PREFIX/bin/swipl" "$PY" -m pip install -q --no-cache-dir --force-reinstall \
    --no-deps --no-binary janus-swi "janus-swi==$JANUS_SWI_VERSION"
fi

# Verify, each bridge in its own process.
pv=$(pyswip_version) || die "pyswip does not work in $VENV"
jv=$(janus_version) || die "janus_swi does not work in $VENV (SWI_HOME_DIR=$JANUS_HOME)"
[ "$pv" = 90004 ] || die "pyswip found SWI-Prolog $pv, expected Debian's 9.0.4 (90004)"
[ "$jv" = 90209 ] || die "janus_swi runs SWI-Prolog $jv, expected 9.2.9 (90209)"
log "pyswip $PYSWIP_VERSION -> SWI-Prolog $pv (/usr/bin/swipl; no env needed, SWI_HOME_DIR unset)"
log "janus-swi $JANUS_SWI_VERSION -> SWI-Prolog $jv (import with SWI_HOME_DIR=$JANUS_HOME)"
log "for the tests: export ILPKIT_SWIPL_JANUS_HOME=$JANUS_HOME"
