#!/usr/bin/env bash
# `npm test`: every tier. Lint (with Nx module boundaries), type check, build, then Jest runs unit
# (*.spec.ts), integration (*.integration-spec.ts) and end-to-end (*.e2e-spec.ts) tests against
# the real PostgreSQL, Redis and RabbitMQ on 127.0.0.1. Suites that stop a shared service
# (*.outage-spec.ts) run afterwards, alone.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true
[ -d node_modules ] || bash scripts/install.sh
bash scripts/install-test-tools.sh
bash scripts/services.sh
npm run --silent lint
npm run --silent typecheck
npm run --silent build
npx jest --ci "$@"
npx jest --ci --runInBand --passWithNoTests --testMatch '**/*.outage-spec.ts' "$@"
