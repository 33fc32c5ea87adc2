#!/usr/bin/env bash
# Makes sure PostgreSQL (5432), RabbitMQ (5672) and Redis (6379) answer on 127.0.0.1: starts the
# installed ones that are down, and says precisely how to get the ones that are missing.
set -uo pipefail

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() { # name port seconds
  for _ in $(seq 1 "$3"); do answers "$2" && return 0; sleep 1; done
  echo "services: $1 did not come up on 127.0.0.1:$2 within $3 s" >&2
  return 1
}

start_postgres() {
  command -v pg_ctlcluster >/dev/null || return 1
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
}
start_redis() {
  command -v redis-server >/dev/null || return 1
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/svc.log
}
start_rabbitmq() {
  command -v rabbitmq-server >/dev/null || return 1
  rabbitmq-server -detached
}

ensure() { # name port start-function seconds how-to-install
  if answers "$2"; then echo "services: $1 is up on 127.0.0.1:$2"; return 0; fi
  echo "services: $1 is down on 127.0.0.1:$2; starting it"
  if ! "$3" >/dev/null 2>&1; then
    echo "services: $1 is not installed here. Install it ($5), or point the apps at one with the settings in docs/configuration.md." >&2
    return 1
  fi
  wait_for "$1" "$2" "$4"
}

status=0
ensure PostgreSQL 5432 start_postgres 30 'Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql' || status=1
ensure Redis 6379 start_redis 15 'Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis' || status=1
ensure RabbitMQ 5672 start_rabbitmq 90 'Debian/Ubuntu: apt-get install rabbitmq-server; macOS: brew install rabbitmq' || status=1
exit $status
