#!/usr/bin/env bash
# Builds the Debian package with CPack: build/rdsm_<version>_<arch>.deb (scripts/build.sh first).
# Install it with `apt-get install ./build/rdsm_<version>_<arch>.deb`; scripts/test-package.sh checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh "$@"
(cd build && cpack -G DEB >/dev/null)
ls build/rdsm_*.deb
