#!/bin/sh
# Extracts ThreadfoldKit's symbol graph from a debug build's module (swift build first) into $1,
# for `make docs` and the public-API baseline (Tests/ThreadfoldKitTests/API/PublicAPITests.swift).
set -eu
out=${1:?usage: packaging/symbol-graph.sh OUTPUT-FOLDER [MODULES-FOLDER] [public|package]}
modules=${2:-$(swift build --show-bin-path)/Modules}
level=${3:-public}
mkdir -p "$out"
set --
for map in Sources/C*/module.modulemap; do set -- "$@" -Xcc "-fmodule-map-file=$PWD/$map"; done
for dir in $(pkg-config --cflags-only-I libcmark gumbo libzstd zlib libbrotlienc | tr ' ' '\n' | sed -n 's/^-I//p'); do
  set -- "$@" -Xcc "-I$dir"
done
swift-symbolgraph-extract -module-name ThreadfoldKit -I "$modules" -target "$(uname -m)-unknown-linux-gnu" \
  -minimum-access-level "$level" -skip-synthesized-members -output-dir "$out" "$@"
