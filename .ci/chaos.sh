#!/usr/bin/env bash
# CI's chaos step: build, then run a profile on real Kafka (--backend docker)
# into the run directory $SHARECHAOS_RUN_DIR (default runs/ci-PROFILE-TIME).
# The exit code is the run's verdict (0 PASS, 1 ANOMALY, 2 UNKNOWN,
# 3 THRESHOLD-FAILED, 4 HARNESS-ERROR, 64 usage): a workflow's status is the
# verdict. The run directory (junit.xml, report.html, result.json, histories)
# is kept whatever the verdict, for the artefacts.
#
#   .ci/chaos.sh PROFILE [more sharechaos run flags]
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:?usage: .ci/chaos.sh PROFILE [flags]}
shift
out=${SHARECHAOS_RUN_DIR:-runs/ci-$profile-$(date +%s)}
make build
echo "chaos: profile $profile, run directory $out"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "run_dir=$out" >>"$GITHUB_OUTPUT"
fi
bin/sharechaos version
exec bin/sharechaos run --backend docker --profile "$profile" --out "$out" "$@"
