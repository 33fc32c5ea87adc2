#!/usr/bin/env bash
# What running the product needs: the npm dependencies, from nothing, with `npm ci`. The tools only
# the tests and benchmarks need (Chromium, promtool, HAProxy, wrk) come with scripts/install-test-tools.sh.
#
# The registry mirror this machine reaches lacks other platforms' optional binaries (@swc/core-darwin-*,
# …), so npm can leave them out of the lock file and then `npm ci` calls the lock file out of sync; only
# in that case it falls back to `npm install --no-save`, which installs the same pinned versions
# without touching the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! npm ci --no-audit --no-fund; then
  echo "install: npm ci refused the lock file; installing the pinned versions with npm install --no-save" >&2
  npm install --no-audit --no-fund --no-save
fi
