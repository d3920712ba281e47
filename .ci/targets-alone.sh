#!/usr/bin/env bash
# targets-alone: every Makefile target the README names must build what it
# uses on a fresh clone, run on its own and in any order (round 7 found
# `make mutants` failing on a fresh clone: it used the Java worker's jar that
# only `make test` had built). On a clean clone of HEAD, `make -n TARGET`
# must succeed and its recipe must contain the command that builds each
# artifact the target uses. Seconds: nothing is built.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
clone=$(mktemp -d /var/tmp/sharechaos-targets.XXXXXX)
trap 'rm -rf "$clone"' EXIT
git clone -q "$here" "$clone"

# target: the patterns its dry run must show, one per artifact it uses.
builds_cli='-o bin/sharechaos ./cmd/sharechaos'
builds_ref='refbroker/build.sh'
builds_jar='clients/java/worker/build.sh'
declare -A needs=(
  [chaos]="$builds_cli|$builds_ref"
  [nightly]="$builds_cli|$builds_ref"
  [bench]="$builds_cli|$builds_ref"
  [bench-nightly]="$builds_cli|$builds_ref"
  [mutants]="$builds_ref|$builds_jar"
  [hunt-mutants]="$builds_ref|$builds_jar"
  [mutants-cli]="$builds_ref|-tags mutants -o bin/sharechaos-mutants"
  [test]="$builds_ref|$builds_jar"
  [test-long]="$builds_ref|$builds_jar"
  [java-worker]="$builds_jar"
  [refbroker]="$builds_ref"
  [bench-checker]="-o bin/benchchecker"
  [test-short]="go test"
  [images]="docker/build-images.sh"
  [ssh-hosts]="docker/build-images.sh|.ci/ssh-hosts.sh"
)
# Every target the README mentions must be in the table.
for t in $(grep -oE 'make [a-z][a-z-]*' "$here/README.md" | awk '{print $2}' | sort -u); do
  [[ -v "needs[$t]" ]] || { echo "targets-alone: the README names make $t, which this check does not know: add it" >&2; exit 1; }
done
fail=0
for t in "${!needs[@]}"; do
  out=$(cd "$clone" && make -n "$t" 2>&1) || { echo "targets-alone: make -n $t fails on a fresh clone:"; echo "$out" | tail -5; fail=1; continue; }
  IFS='|' read -ra pats <<<"${needs[$t]}"
  for p in "${pats[@]}"; do
    grep -qF -- "$p" <<<"$out" || { echo "targets-alone: make $t on a fresh clone does not build what it uses: no '$p' in its recipe"; fail=1; }
  done
done
[ "$fail" = 0 ] && echo "targets-alone: ${#needs[@]} targets build what they use on a fresh clone"
exit "$fail"
