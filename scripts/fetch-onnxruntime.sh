#!/usr/bin/env bash
# Downloads ONNX Runtime's shared library for the onnxruntime engine plugin
# (plugins/onnxruntime), without npm: the npm package onnxruntime-node ships
# the official Linux builds of libonnxruntime.so.1, and the npm registry
# publishes each tarball's SHA-512.
#
#   scripts/fetch-onnxruntime.sh [DIR]      (default: build/_deps/onnxruntime)
#
# Puts DIR/lib/libonnxruntime.so.1 (x86-64 or AArch64 Linux) and prints its
# path. Nothing is done when that library of this version is already there.
# Use it with HODU_PLUGIN_ONNXRUNTIME_LIBRARY=<path>, or configure with
# -DHODU_ORT_LIBRARY=<path>.
#
# Environment: HODU_ORT_VERSION (default 1.30.0), HODU_NPM_REGISTRY (default
# https://registry.npmjs.org).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=${HODU_ORT_VERSION:-1.30.0}
registry=${HODU_NPM_REGISTRY:-https://registry.npmjs.org}
registry=${registry%/}
dir=${1:-$root/build/_deps/onnxruntime}

die() {
  echo "fetch-onnxruntime: error: $*" >&2
  exit 1
}
note() { echo "fetch-onnxruntime: $*" >&2; }

case $(uname -s) in
  Linux) ;;
  *) die "only Linux is supported (this is $(uname -s))" ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no ONNX Runtime build for $(uname -m) in onnxruntime-node (x86_64 and aarch64 only)" ;;
esac

lib_dir=$dir/lib
library=$lib_dir/libonnxruntime.so.1
stamp=$lib_dir/.onnxruntime-version
member=package/bin/napi-v6/linux/$arch/libonnxruntime.so.1

is_elf() {
  [[ -f $1 ]] && [[ $(head -c 4 "$1" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]]
}

if is_elf "$library" && [[ -f $stamp && $(cat "$stamp") == "onnxruntime-node $version $arch" ]]; then
  note "ONNX Runtime $version is already in $lib_dir"
  echo "$library"
  exit 0
fi

command -v curl >/dev/null || die "curl is not installed (Debian: apt-get install curl)"
command -v tar >/dev/null || die "tar is not installed"
command -v python3 >/dev/null || command -v openssl >/dev/null ||
  die "neither python3 nor openssl is installed: nothing to check the download's SHA-512 with"

mkdir -p "$lib_dir" || die "cannot create $lib_dir"
work=$(mktemp -d "$dir/.fetch.XXXXXX") || die "cannot make a temporary directory in $dir"
trap 'rm -rf "$work"' EXIT

# The registry's record of the version: its tarball's integrity string.
meta_url=$registry/onnxruntime-node/$version
curl -fsSL --retry 3 -o "$work/meta.json" "$meta_url" ||
  die "cannot fetch $meta_url (no network, or no onnxruntime-node $version on the registry)"
if command -v python3 >/dev/null; then
  integrity=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["dist"]["integrity"])' \
    "$work/meta.json" 2>/dev/null) || integrity=
else
  integrity=$(grep -o '"integrity" *: *"sha512-[A-Za-z0-9+/=]*"' "$work/meta.json" | head -n 1 |
    sed 's/.*"\(sha512-[^"]*\)"/\1/') || integrity=
fi
[[ $integrity == sha512-* ]] || die "the registry's record of onnxruntime-node $version has no sha512 integrity"

tarball_url=$registry/onnxruntime-node/-/onnxruntime-node-$version.tgz
note "downloading $tarball_url"
progress=(-sS)
[[ -t 2 ]] && progress=(--progress-bar)
curl -fL --retry 3 "${progress[@]}" -o "$work/package.tgz" "$tarball_url" ||
  die "cannot download $tarball_url"

if command -v openssl >/dev/null; then
  actual=sha512-$(openssl dgst -sha512 -binary "$work/package.tgz" | base64 | tr -d '\n')
else
  actual=sha512-$(python3 -c 'import base64, hashlib, sys
h = hashlib.sha512()
with open(sys.argv[1], "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
print(base64.b64encode(h.digest()).decode())' "$work/package.tgz")
fi
[[ $actual == "$integrity" ]] ||
  die "the download's SHA-512 does not match the registry's (expected $integrity, got $actual)"
note "SHA-512 matches the registry's"

tar -xzmf "$work/package.tgz" -C "$work" "$member" 2>/dev/null ||
  die "onnxruntime-node $version has no $member"
is_elf "$work/$member" || die "$member in onnxruntime-node $version is not an ELF library"

mv -f "$work/$member" "$library" || die "cannot write $library"
chmod 0644 "$library"
echo "onnxruntime-node $version $arch" >"$stamp"
note "ONNX Runtime $version ($arch) is in $lib_dir"
echo "$library"
