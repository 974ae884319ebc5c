#!/usr/bin/env bash
# Installs the Prolog engines the Prolog backends are tested against (Debian 12).
#
# What it installs, and where:
#   - apt packages, only those missing, without recommends:
#       swi-prolog-nox  Debian's SWI-Prolog 9.0.4 (/usr/bin/swipl, libswipl in
#                       /usr/lib/x86_64-linux-gnu, home /usr/lib/swi-prolog): the `swipl`
#                       subprocess backend and the pyswip bridge use it
#       gprolog         GNU Prolog 1.4.5 (/usr/bin/gprolog): the `gprolog` subprocess backend
#       cmake ninja-build gcc g++ pkg-config libgmp-dev zlib1g-dev libssl-dev libncurses-dev:
#                       what the SWI-Prolog 9.2.9 build below needs
#       python3-dev     headers to compile the janus-swi bridge (.ci/install-bridges.sh)
#   - SWI-Prolog 9.2.9 (janus-swi needs SWI-Prolog >= 9.1.12), built from the source of
#     Debian trixie's swi-prolog package (only the upstream tarball, not Debian's patches),
#     without X11/xpce, Java, ODBC, Qt, BerkeleyDB, archive, PCRE, YAML, TIPC, the Python
#     embedding (janus-swi brings its own library(janus)), readline/libedit, the
#     documentation and the tests. Installed into
#         ${ILPKIT_CACHE:-$HOME/.cache/ilpkit}/swipl-9.2.9
#     (bin/swipl; home lib/swipl; lib/swipl/lib/x86_64-linux/libswipl.so.9). Nothing of it
#     goes on PATH: /usr/bin/swipl stays Debian's 9.0.4.
#     The tarball swi-prolog_9.2.9+dfsg.orig.tar.gz is kept in the cache
#     (${ILPKIT_CACHE:-$HOME/.cache/ilpkit}/downloads) and checked against a pinned SHA-256.
#     To fetch it, a deb-src entry for trixie is written to
#     /etc/apt/sources.list.d/ilpkit-trixie-src.sources for the duration of the download and
#     removed afterwards (deb-src only: binary packages keep coming from bookworm).
#
# Idempotent: a finished build (stamp file in the prefix and `bin/swipl --version` saying
# 9.2.9) is reused, a cached tarball is not downloaded again, present packages are not
# reinstalled. apt steps need root (or sudo). About 2.5 minutes for the first build on two
# cores, a second or two afterwards.
#
# Usage: .ci/install-prolog.sh          (then .ci/install-bridges.sh VENV for the Python side)
set -euo pipefail

SWIPL_VERSION=9.2.9
SWIPL_TARBALL="swi-prolog_${SWIPL_VERSION}+dfsg.orig.tar.gz"
SWIPL_SHA256=6d6f2dd6e4558bccb7c87cc7a5cbcf582503384a5fa890efba0ae91a0aaf2258
CACHE="${ILPKIT_CACHE:-$HOME/.cache/ilpkit}"
PREFIX="$CACHE/swipl-$SWIPL_VERSION"
STAMP="$PREFIX/.ilpkit-build-complete"
SRC_LIST=/etc/apt/sources.list.d/ilpkit-trixie-src.sources

log() { printf '== install-prolog: %s\n' "$*"; }
die() { printf 'install-prolog: error: %s\n' "$*" >&2; exit 1; }

SUDO=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
fi
as_root() {
  if [ "$(id -u)" != 0 ] && [ ${#SUDO[@]} -eq 0 ]; then
    die "needs root (or sudo) for: $*"
  fi
  "${SUDO[@]}" "$@"
}

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = 'install ok installed' ]; }

apt_updated=0
apt_update() {
  if [ "$apt_updated" = 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
}

# 1. Debian packages ------------------------------------------------------------------------
pkgs=(swi-prolog-nox gprolog
      cmake ninja-build gcc g++ pkg-config libgmp-dev zlib1g-dev libssl-dev libncurses-dev
      python3-dev)
missing=()
for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  apt_update
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# 2. SWI-Prolog 9.2.9 from source -----------------------------------------------------------
have_build() {
  [ -f "$STAMP" ] && [ -x "$PREFIX/bin/swipl" ] &&
    [[ "$("$PREFIX/bin/swipl" --version 2>/dev/null || true)" == *"version $SWIPL_VERSION "* ]]
}

tarball_ok() {
  [ -f "$1" ] && echo "$SWIPL_SHA256  $1" | sha256sum -c --status -
}

remove_src_list() {
  if [ -e "$SRC_LIST" ]; then as_root rm -f "$SRC_LIST" || true; fi
}

fetch_tarball() {
  local dl="$CACHE/downloads"
  mkdir -p "$dl"
  if tarball_ok "$dl/$SWIPL_TARBALL"; then return; fi
  rm -f "$dl/$SWIPL_TARBALL"
  log "downloading $SWIPL_TARBALL (Debian trixie source package)"
  # Same deb822 style as /etc/apt/sources.list.d/debian.sources.
  local tmp
  tmp=$(mktemp)
  cat >"$tmp" <<'EOF'
# Written by ilpkit's .ci/install-prolog.sh for `apt-get source swi-prolog`; removed after.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  trap remove_src_list EXIT
  as_root install -m 0644 "$tmp" "$SRC_LIST"
  rm -f "$tmp"
  as_root apt-get update -qq
  apt_updated=1
  # The .dsc and .debian.tar.xz may 404 (they do from this project's build machines) while
  # the orig tarball, all we need, arrives: apt-get then exits non-zero. apt checks the
  # tarball against the signed Sources index; we check it against the pinned SHA-256 too.
  (cd "$dl" && apt-get source --download-only -qq swi-prolog/trixie) >"$dl/apt-get-source.log" 2>&1 ||
    log "apt-get source exited non-zero (the .dsc often 404s); checking for the tarball"
  remove_src_list
  trap - EXIT
  rm -f "$dl"/swi-prolog_*.dsc "$dl"/swi-prolog_*.debian.tar.*
  if ! tarball_ok "$dl/$SWIPL_TARBALL"; then
    cat "$dl/apt-get-source.log" >&2
    die "no $SWIPL_TARBALL with SHA-256 $SWIPL_SHA256 in $dl"
  fi
  rm -f "$dl/apt-get-source.log"
}

build_swipl() {
  local work="$CACHE/build-swipl-$SWIPL_VERSION"
  rm -rf "$work" "$PREFIX"
  mkdir -p "$work"
  tar -xzf "$CACHE/downloads/$SWIPL_TARBALL" -C "$work"
  local src="$work/swi-prolog_${SWIPL_VERSION}+dfsg"
  [ -f "$src/CMakeLists.txt" ] || die "unexpected tarball layout in $work"
  log "configuring SWI-Prolog $SWIPL_VERSION (prefix $PREFIX)"
  local gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  cmake -S "$src" -B "$work/build" "${gen[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" \
    -DSWIPL_PACKAGES_X=OFF -DSWIPL_PACKAGES_JAVA=OFF -DSWIPL_PACKAGES_ODBC=OFF \
    -DSWIPL_PACKAGES_QT=OFF -DSWIPL_PACKAGES_BDB=OFF -DSWIPL_PACKAGES_ARCHIVE=OFF \
    -DSWIPL_PACKAGES_PCRE=OFF -DSWIPL_PACKAGES_YAML=OFF -DSWIPL_PACKAGES_TIPC=OFF \
    -DSWIPL_PACKAGES_PYTHON=OFF -DSWIPL_PACKAGES_TERM=OFF \
    -DINSTALL_DOCUMENTATION=OFF -DBUILD_PDF_DOCUMENTATION=OFF \
    -DBUILD_TESTING=OFF -DINSTALL_TESTS=OFF -DUSE_TCMALLOC=OFF \
    >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log" >&2; die "cmake configure failed"; }
  log "building SWI-Prolog $SWIPL_VERSION (-j2; about 2 minutes)"
  cmake --build "$work/build" -j 2 >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log" >&2; die "build failed (log: $work/build.log)"; }
  cmake --install "$work/build" >"$work/install.log" 2>&1 ||
    { tail -40 "$work/install.log" >&2; die "install failed"; }
  [[ "$("$PREFIX/bin/swipl" --version)" == *"version $SWIPL_VERSION "* ]] ||
    die "$PREFIX/bin/swipl does not report version $SWIPL_VERSION"
  date -u +%FT%TZ >"$STAMP"
  rm -rf "$work"
}

if have_build; then
  log "SWI-Prolog $SWIPL_VERSION already built in $PREFIX"
else
  fetch_tarball
  build_swipl
fi

# 3. Report -------------------------------------------------------------------------------
version_of() { "$@" 2>&1 | head -n 1 || true; }
log "engines:"
printf '  %-34s %s\n' "$(command -v swipl || echo 'swipl: MISSING')" "$(version_of swipl --version)"
printf '  %-34s %s\n' "$(command -v gprolog || echo 'gprolog: MISSING')" "$(version_of gprolog --version)"
printf '  %-34s %s\n' "$PREFIX/bin/swipl" "$(version_of "$PREFIX/bin/swipl" --version)"
"$PREFIX/bin/swipl" --dump-runtime-variables | sed -n 's/^PLBASE="\(.*\)";$/  home (SWI_HOME_DIR) of '"$SWIPL_VERSION"': \1/p; s/^PLLIBSWIPL="\(.*\)";$/  libswipl of '"$SWIPL_VERSION"': \1/p'
