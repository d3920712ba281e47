#!/usr/bin/env bash
# build.sh prepares build/kfake-kip1289 (the pinned kfake module, patched with
# kfake.patch and extended with refbroker/kfake/*.go) and builds the reference
# broker into bin/sharechaos-refbroker. kfake stays a module dependency: no kfake
# source is ever committed here, only the hook patch, applied to a fresh copy of
# the module cache's files.
#
#   refbroker/build.sh          prepare the tree and build the binary
#   refbroker/build.sh tree     prepare the tree only (for go test)
#
# It is idempotent and does nothing when the patch, our files and the pinned
# version are unchanged since the last run (a stamp holds their hash).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
GO=${GO:-go}
tree="$root/build/kfake-kip1289"
mod=github.com/twmb/franz-go/pkg/kfake

# The version is the one the main module pins; the refbroker module must pin
# the same so that its replace stands in for exactly that version.
version=$(cd "$root" && "$GO" list -m -f '{{.Version}}' "$mod")
refversion=$(cd "$here" && "$GO" list -m -f '{{.Version}}' "$mod")
if [[ "$version" != "$refversion" ]]; then
	echo "build.sh: main module pins $mod $version, refbroker/go.mod $refversion" >&2
	exit 1
fi
(cd "$root" && "$GO" mod download "$mod@$version")
src=$(cd "$root" && "$GO" list -m -f '{{.Dir}}' "$mod")

stamp=$( { echo "$version"; cat "$here/kfake.patch"; for f in "$here"/kfake/*.go; do echo "$f"; cat "$f"; done; } | sha256sum | cut -d' ' -f1)
if [[ ! -f "$tree/.stamp" || "$(cat "$tree/.stamp")" != "$stamp" ]]; then
	rm -rf "$tree.tmp"
	mkdir -p "$(dirname "$tree")"
	cp -R "$src" "$tree.tmp"
	chmod -R u+w "$tree.tmp"
	# The module cache's copy keeps its own go.mod; the refbroker module's
	# build list decides the versions of kfake's dependencies.
	(cd "$tree.tmp" && patch -p1 --quiet --no-backup-if-mismatch < "$here/kfake.patch")
	cp "$here"/kfake/*.go "$tree.tmp/"
	echo "$stamp" > "$tree.tmp/.stamp"
	rm -rf "$tree"
	mv "$tree.tmp" "$tree"
	echo "build.sh: prepared $tree from $mod@$version"
fi

if [[ "${1:-}" == tree ]]; then
	exit 0
fi
mkdir -p "$root/bin"
(cd "$here" && "$GO" build -o "$root/bin/sharechaos-refbroker" .)
echo "build.sh: built bin/sharechaos-refbroker"
