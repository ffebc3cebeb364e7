#!/usr/bin/env bash
# The package as a user gets it: packs the two npm packages (this one, and npm/linux-x64-gnu with the built addon),
# checks the main tarball (no .node inside; declarations right for every resolution mode, with attw) and the addon in
# the platform one (it exports what lib/ uses: no binding only specs call), then installs
# both tarballs into a fresh ESM app (zod 4) and a fresh CommonJS app (zod 3.25, through zod/v4) in a temp dir, with
# cargo and rustc shadowed by failing stand-ins, and runs a fold + query through a real MCP client in each.
# Needs a built tree (`npm run build`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

name=$(node -p "require('./package.json').name")
version=$(node -p "require('./package.json').version")
installed_version() { node -p "JSON.parse(require('fs').readFileSync('node_modules/$1/package.json', 'utf8')).version"; }
sdk_version=$(installed_version @modelcontextprotocol/sdk)
zod4_version=$(installed_version zod)

# As a release does it (.github/workflows/release.yml): the addon goes into its platform package (there `napi
# artifacts` moves all seven; it refuses to run with one missing, so here the one built is copied), `napi pre-publish`
# lists the platform packages in optionalDependencies (here in a staging copy, and without publishing: a release drops
# --skip-optional-publish and publishes them first), then both are packed.
echo "[pack] the addon into its platform package, the main package staged with its optionalDependencies"
cp "$name.linux-x64-gnu.node" npm/linux-x64-gnu/
mkdir -p "$work/stage" "$work/out"
npm pack --silent --pack-destination "$work" >/dev/null
tar xzf "$work/$name-$version.tgz" -C "$work/stage" --strip-components=1
rm "$work/$name-$version.tgz"
cp -r npm "$work/stage/npm"
# pre-publish checks every platform package (its manifest against the target, its files present): the six addons not
# built here get empty stand-ins in the staging copy, which is not packed.
for dir in "$work"/stage/npm/*/; do
  addon="$dir$(node -p "require('$dir/package.json').main")"
  [ -f "$addon" ] || touch "$addon"
done
(cd "$work/stage" && "$root/node_modules/.bin/napi" pre-publish -t npm --skip-optional-publish --no-gh-release)
npm pack --silent --pack-destination "$work/out" "$work/stage" >/dev/null
(cd npm/linux-x64-gnu && npm pack --silent --pack-destination "$work/out" >/dev/null)
main_tgz="$work/out/$name-$version.tgz"
platform_tgz="$work/out/$name-linux-x64-gnu-$version.tgz"
ls -l "$main_tgz" "$platform_tgz"

# Every platform package, at this version (npm skips those it cannot find or that do not fit the machine).
optional=$(tar xzf "$main_tgz" -O package/package.json | node -p "JSON.stringify(JSON.parse(require('fs').readFileSync(0, 'utf8')).optionalDependencies)")
expected=$(node -p "const p = require('./package.json'); JSON.stringify(Object.fromEntries(
  ['darwin-arm64', 'darwin-x64', 'linux-arm64-gnu', 'linux-arm64-musl', 'linux-x64-gnu', 'linux-x64-musl', 'win32-x64-msvc']
    .map((platform) => [p.name + '-' + platform, p.version])))")
if [ "$(node -p "JSON.stringify(Object.fromEntries(Object.entries($optional).sort()))")" != "$expected" ]; then
  echo "[pack] the main package must list every platform package in optionalDependencies, got $optional" >&2
  exit 1
fi

if tar tzf "$main_tgz" | grep -q '\.node$'; then
  echo "[pack] the main tarball must not carry a .node (it comes from the platform package)" >&2
  exit 1
fi
tar tzf "$platform_tgz" | grep -q "package/$name.linux-x64-gnu.node" || {
  echo "[pack] the platform tarball lacks the addon" >&2
  exit 1
}
mkdir -p "$work/platform"
tar xzf "$platform_tgz" -C "$work/platform" "package/$name.linux-x64-gnu.node"
node scripts/smoke/addon-exports.cjs "$work/platform/package/$name.linux-x64-gnu.node" dist

# The newest glibc symbol version the addon needs is the oldest glibc it loads on.
glibc_floor=$(objdump -T "npm/linux-x64-gnu/$name.linux-x64-gnu.node" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
echo "[glibc] the addon needs $glibc_floor or later"
if [ "$(printf '%s\n' "$glibc_floor" GLIBC_2.17 | sort -V | tail -1)" != GLIBC_2.17 ]; then
  echo "[glibc] $glibc_floor is above the 2.17 floor of the napi cross toolchain: was the addon built by npm run build?" >&2
  exit 1
fi

echo "[attw] declarations of the packed tarball"
npx attw "$main_tgz"

# cargo and rustc are shadowed on the PATH by stand-ins that record a call and fail: the install must not build
# anything from source. (Dropping every directory that holds them would drop /usr/bin where Debian's rustc-web, which
# scripts/cross.sh installs, puts its own.)
no_rust="$work/no-rust"
mkdir -p "$no_rust"
for tool in cargo rustc; do
  printf '#!/bin/sh\necho "$0 $*" >>"%s/called"\nexit 1\n' "$no_rust" >"$no_rust/$tool"
  chmod +x "$no_rust/$tool"
done

smoke_app() { # <dir> <module type> <zod version> <script>
  local dir="$work/$1"
  mkdir -p "$dir"
  printf '{ "name": "smoke-%s", "private": true, "type": "%s" }\n' "$1" "$2" >"$dir/package.json"
  cp "$root/scripts/smoke/$4" "$root/scripts/smoke/orders-server.cjs" "$dir/"
  (
    cd "$dir"
    export PATH="$no_rust:$PATH"
    unset CARGO RUSTC
    npm install --loglevel=error --no-audit --no-fund --prefer-offline \
      "$main_tgz" "$platform_tgz" "@modelcontextprotocol/sdk@$sdk_version" "zod@$3"
    node "$4"
    if [ -e "$no_rust/called" ]; then
      echo "[smoke] the install or the app ran a Rust tool: $(cat "$no_rust/called")" >&2
      exit 1
    fi
  )
}

echo "[smoke] fresh ESM app (zod $zod4_version)"
smoke_app esm-app module "$zod4_version" fold-and-query.mjs
echo "[smoke] fresh CommonJS app (zod 3.25)"
smoke_app cjs-app commonjs "^3.25.0" fold-and-query.cjs
