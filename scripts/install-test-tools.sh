#!/usr/bin/env bash
# What the test command needs beyond the npm dependencies (`npm test` runs this; `npm start` does not):
# Debian's Chromium for the browser tests, promtool for the alert rules, HAProxy for the chaos run, and
# wrk for bench:gateway. Each is installed only when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium for the widget's real-browser tests (playwright-core drives /usr/bin/chromium): Debian's
# package, installed only when missing.
if [ ! -x /usr/bin/chromium ]; then
  echo "install: /usr/bin/chromium is missing; installing Debian's chromium package" >&2
  if ! { apt-get update && apt-get install -y chromium; } || [ ! -x /usr/bin/chromium ]; then
    echo "install: could not install chromium (apt-get update && apt-get install -y chromium, as root); the browser tests (*.browser e2e) need /usr/bin/chromium" >&2
    exit 1
  fi
fi

# wrk drives `npm run bench:gateway` (a small C load generator: autocannon, the fallback, takes a
# large share of a 2-core machine itself). Optional: installed when missing and apt-get can.
if ! command -v wrk >/dev/null 2>&1; then
  { apt-get install -y wrk || { apt-get update && apt-get install -y wrk; }; } >/dev/null 2>&1 \
    || echo "install: wrk is not installed (apt-get install -y wrk, as root); bench:gateway falls back to autocannon" >&2
fi

# promtool tests the alert rules (tools/alert-rules.spec.ts): taken out of Debian's prometheus
# package, which would otherwise also install and start a Prometheus server.
if ! command -v promtool >/dev/null 2>&1; then
  deb_dir="$(mktemp -d)"
  if ! { (cd "$deb_dir" && { apt-get download prometheus || { apt-get update && apt-get download prometheus; }; } \
    && dpkg-deb -x prometheus_*.deb . && install -m 755 usr/bin/promtool /usr/local/bin/promtool); } >/dev/null 2>&1; then
    echo "install: could not install promtool (from Debian's prometheus package, as root); the alert rule tests need it" >&2
    rm -rf "$deb_dir"
    exit 1
  fi
  rm -rf "$deb_dir"
fi

# HAProxy is the load balancer of `npm run chaos` (two replicas of every app; the outage tier runs a
# short one): Debian's package, installed only when missing.
if ! command -v haproxy >/dev/null 2>&1; then
  echo "install: haproxy is missing; installing Debian's haproxy package" >&2
  if ! { apt-get install -y haproxy || { apt-get update && apt-get install -y haproxy; }; } >/dev/null 2>&1; then
    echo "install: could not install haproxy (apt-get install -y haproxy, as root); npm run chaos and its outage test need it" >&2
    exit 1
  fi
fi
