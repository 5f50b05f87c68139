#!/usr/bin/env bash
# Build the C++ random bot into build/bot: C++ code from proto/arena/v1/ with protoc and its gRPC
# plugin, then g++ against Debian's grpc++ and protobuf. Rebuilds only what changed.
# Needs: g++, pkg-config, libgrpc++-dev, protobuf-compiler, protobuf-compiler-grpc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
protos="$(cd "$here/../../proto" && pwd)"
out="$here/build"
gen="$out/gen"
mkdir -p "$gen" "$out/obj"

for tool in g++ pkg-config protoc grpc_cpp_plugin; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is not installed" >&2; exit 1; }
done
flags="$(pkg-config --cflags grpc++ protobuf)"
libs="$(pkg-config --libs grpc++ protobuf)"

# Generated code, redone when any .proto is newer than it.
stamp="$gen/.stamp"
if [ ! -f "$stamp" ] || [ -n "$(find "$protos/arena/v1" -name '*.proto' -newer "$stamp")" ]; then
  protoc -I "$protos" --cpp_out="$gen" --grpc_out="$gen" \
    --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" "$protos"/arena/v1/*.proto
  touch "$stamp"
fi

# Each source compiled (two at a time) when it, a header or the generated code changed.
sources=("$gen"/arena/v1/*.pb.cc "$here"/src/*.cpp)
pids=()
objects=()
for src in "${sources[@]}"; do
  obj="$out/obj/$(basename "${src%.*}").o"
  objects+=("$obj")
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$stamp" -nt "$obj" ] \
     || [ -n "$(find "$here/src" -name '*.h' -newer "$obj")" ]; then
    g++ -std=c++17 -O1 -Wall -I "$gen" -I "$here/src" $flags -c "$src" -o "$obj" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
relink=0
[ -f "$out/bot" ] || relink=1
for obj in "${objects[@]}"; do [ "$obj" -nt "$out/bot" ] && relink=1; done
if [ $relink -eq 1 ]; then
  g++ -o "$out/bot.new" "${objects[@]}" $libs
  mv -f "$out/bot.new" "$out/bot"  # at once: a match starting meanwhile runs the old binary or the new one
  echo "built $out/bot"
else
  echo "$out/bot is up to date"
fi
