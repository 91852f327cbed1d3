#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the llama.cpp source node-llama-cpp ships (a git bundle of one commit),
# offline, and caches the binary outside the clone, keyed by the bundle's commit:
#   ${FAIRGROUND_LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fairground/llama-server}/<commit>/llama-server
# Prints the binary's path on its last line. A cached binary is reused (a few ms); the first build takes
# about 8-12 min on 2 quiet cores (31 min measured at load 13-23, 80 min at load 15-19). Flags below; what the server accepts and ignores: docs/remote.md.
# Other llama.cpp tools from the same source: FAIRGROUND_LLAMA_TARGETS="llama-bench" (or "llama-server llama-bench")
# builds those into the same folder and prints the first one's path. FAIRGROUND_LLAMA_CUDA=1 builds with CUDA
# (needs nvcc; FAIRGROUND_CUDA_ARCHS, default native) into <commit>-cuda/, for `npm run gpu-check`.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=node_modules/node-llama-cpp/llama/gitRelease.bundle
[ -f "$bundle" ] || { echo "build-llama-server: $bundle is missing (run npm ci first)" >&2; exit 1; }
commit=$(git bundle list-heads "$bundle" | head -n 1 | cut -c1-12)
[ -n "$commit" ] || { echo "build-llama-server: cannot read the commit of $bundle" >&2; exit 1; }
root="${FAIRGROUND_LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fairground/llama-server}"
read -r -a targets <<<"${FAIRGROUND_LLAMA_TARGETS:-llama-server}"
[ "${#targets[@]}" -gt 0 ] || { echo "build-llama-server: FAIRGROUND_LLAMA_TARGETS names no target" >&2; exit 1; }
cuda_flags=()
variant=""
if [ "${FAIRGROUND_LLAMA_CUDA:-0}" = 1 ]; then
  cuda_flags=(-DGGML_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=${FAIRGROUND_CUDA_ARCHS:-native}")
  variant="-cuda"
fi
dest="$root/$commit$variant"
cached=1
for t in "${targets[@]}"; do
  [ -x "$dest/$t" ] && "$dest/$t" --version >/dev/null 2>&1 || cached=0
done
if [ "$cached" = 1 ]; then
  echo "$dest/${targets[0]}"; exit 0
fi
command -v cmake >/dev/null || { echo "build-llama-server: cmake is required (apt-get install cmake g++)" >&2; exit 1; }
mkdir -p "$root"
work=$(mktemp -d "$root/build-$commit.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "build-llama-server: building ${targets[*]} $commit$variant (first time only; ~8-12 min on 2 quiet cores)..." >&2
git -c advice.detachedHead=false clone -q "$bundle" "$work/src"
jobs=${FAIRGROUND_BUILD_JOBS:-$(nproc)}
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DBUILD_SHARED_LIBS=OFF "${cuda_flags[@]}" >"$work/cmake.log" 2>&1 || { tail -n 40 "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" --target "${targets[@]}" -j"$jobs" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
# Each binary lands by rename, so a reader sees the old one or the new one, never half a file.
mkdir -p "$dest"
for t in "${targets[@]}"; do
  cp "$work/build/bin/$t" "$dest/.$t.tmp"
  mv -f "$dest/.$t.tmp" "$dest/$t"
done
echo "$dest/${targets[0]}"
