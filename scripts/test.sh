#!/usr/bin/env bash
# `npm test`: every tier. Lint (with Nx module boundaries and no import cycles), type check, build,
# then each project's Nx targets: `test` (unit, *.spec.ts), `test-integration` (*.integration-spec.ts)
# and `test-e2e` (*.e2e-spec.ts), against the real PostgreSQL, Redis and RabbitMQ on 127.0.0.1;
# the suites that stop a shared service (`test-outage`, *.outage-spec.ts) run afterwards, one
# project at a time. Every target is cached in .nx/: a second run repeats only what a change reaches.
# `npm test -- <path or pattern>` runs those suites with Jest directly instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
[ -d node_modules ] || bash scripts/install.sh
bash scripts/install-test-tools.sh
bash scripts/services.sh
if [ $# -gt 0 ]; then
  npm run --silent build
  exec npx jest --ci "$@"
fi
# Each tier says when it starts and how long the whole run has taken so far.
tier() { echo "npm test: $1 (at ${SECONDS} s)"; }
tier lint
npm run --silent lint
tier typecheck
npm run --silent typecheck
tier build
npm run --silent build
tier 'unit and integration'
npx nx run-many -t test test-integration --outputStyle=static
# End-to-end suites start whole stacks: one project at a time, three of its suites at once (Jest's workers: a suite
# waits on its processes a third of the time, so two cores keep three busy).
tier end-to-end
npx nx run-many -t test-e2e --parallel=1 --outputStyle=static
tier outage
npx nx run-many -t test-outage --parallel=1 --outputStyle=static
tier 'done'
