#!/usr/bin/env bash
# The README's test command (`npm test`): every Rust test, the type tests (strict apps and the README's code compiled
# with tsc), then every vitest spec against the built addon (and the test addon, for the bindings it alone has).
# Installs what a fresh machine lacks: redis-server and the sqlite3 shell (apt, as root) and the npm dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "[test] installing redis-server (the Redis suites start their own on a loopback port)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "[test] redis-server is missing: install it (apt-get install -y redis-server) and run again" >&2
    exit 1
  fi
fi

if ! command -v sqlite3 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "[test] installing the sqlite3 shell (the outage suite locks a SQLite file from another process)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null
  else
    echo "[test] the sqlite3 shell is missing: install it (apt-get install -y sqlite3) and run again" >&2
    exit 1
  fi
fi

[ -d node_modules ] || npm ci --no-audit --no-fund

# CI builds once and sets this for both Node versions; otherwise make sure the addon matches the sources
# (a no-op build takes a few seconds), and build the test addon: a debug build with the bindings only specs call
# (feature test-bindings, into __test__/bindings/), which the specs that need them load beside the shipped one.
if [ -z "${RESULT_HANDLES_PREBUILT:-}" ]; then
  npm run build
  npm run build:test-bindings
fi

echo "[test] node $(node --version), napi $(node -p process.versions.napi)"
cargo test --target x86_64-unknown-linux-gnu
node scripts/type-tests.mjs
npx vitest run
