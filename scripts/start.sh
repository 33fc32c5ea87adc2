#!/usr/bin/env bash
# `npm start`: the whole product on this machine. Installs dependencies if missing, makes sure
# PostgreSQL, RabbitMQ and Redis are up, creates the database, builds, migrates, starts every app.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON=false NX_NO_CLOUD=true
# A development machine: a secret left unset takes its development default, published in this
# repository (every app refuses that without this flag). Services listen on 127.0.0.1 (HOST).
export ALLOW_INSECURE_DEV_DEFAULTS="${ALLOW_INSECURE_DEV_DEFAULTS:-true}"
[ -d node_modules ] || bash scripts/install.sh
bash scripts/services.sh
node tools/ensure-database.mjs
npm run --silent build
# This machine's own keys (each calling app's, the admin CLI's, their public keys) and LOG_PATH_SECRET,
# kept in .local/dev-settings.env, where the admin CLI reads them.
node tools/dev-settings.mjs
set -a
. .local/dev-settings.env
set +a
npm run --silent migrate
# The demo shop at /chat/demo (development only): its account's key goes to the chat app.
CHAT_DEMO_KEY="$(node tools/demo.mjs key)"
export CHAT_DEMO_KEY
exec node tools/run-all.mjs
