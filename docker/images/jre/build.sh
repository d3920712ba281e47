#!/usr/bin/env bash
# Builds the JRE base image (default sharechaos/jre:17) without any image
# registry: debootstrap a minimal Debian bookworm with OpenJDK 17's headless
# JRE from the machine's own apt mirror, then `docker import` the tree.
# Skipped when the image exists and was built from the same inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"

image=${SHARECHAOS_JRE_IMAGE:-sharechaos/jre:17}
suite=bookworm
packages=openjdk-17-jre-headless

# The mirror is not part of the hash: any Debian mirror gives the same suite.
hash=$(printf 'debootstrap --variant=minbase --include=%s %s\n' "$packages" "$suite" |
  cat - "$0" | sha256sum | cut -d' ' -f1)
if up_to_date "$image" "$hash"; then
  report_skipped "$image" "$hash"
  exit 0
fi

# debian_mirror prints the URI that serves $suite in the machine's apt
# configuration (deb822 .sources files first, then the one-line format), so
# that no registry host is ever written into this repository.
debian_mirror() {
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # Paragraph mode: one deb822 stanza per record.
    uri=$(awk -v suite="$suite" 'BEGIN { RS = "" }
      {
        u = ""; hit = 0; types = 0
        n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          split(lines[i], w, /[ \t]+/)
          if (w[1] == "URIs:") u = w[2]
          if (w[1] == "Types:") for (j = 2; j in w; j++) if (w[j] == "deb") types = 1
          if (w[1] == "Suites:") for (j = 2; j in w; j++) if (w[j] == suite) hit = 1
        }
        if (u != "" && hit && types) { print u; exit }
      }' "$f")
    if [ -n "$uri" ]; then echo "$uri"; return 0; fi
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri=$(awk -v suite="$suite" '$1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i + 1) == suite) { print $i; exit }
      }' "$f")
    if [ -n "$uri" ]; then echo "$uri"; return 0; fi
  done
  return 1
}

start=$(date +%s)
mirror=$(debian_mirror) || {
  echo "jre: no apt source for $suite found in /etc/apt; cannot debootstrap" >&2
  exit 1
}
if ! command -v debootstrap >/dev/null 2>&1; then
  echo "jre: installing debootstrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq debootstrap >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
fi

root=$(mktemp -d /var/tmp/sharechaos-jre.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "jre: debootstrap $suite with $packages (takes a few minutes)"
debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror" \
  >"$root.log" 2>&1 || { tail -30 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
# What a running broker never needs: downloaded packages, package lists, docs.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
tar -C "$root" -c . | docker import \
  --change "LABEL $HASH_LABEL=$hash" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  - "$image" >/dev/null
version=$(docker run --rm "$image" java -version 2>&1)
echo "jre: ${version%%$'\n'*}"
report_built "$image" "$start"
