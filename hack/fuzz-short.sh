#!/usr/bin/env bash
# Runs every fuzz target for a short while, one after the other: go test
# fuzzes one target of one package per run. The first run of a package
# builds it with coverage instrumentation (a rebuild of its dependencies
# too, kept in the build cache for the next runs).
#
# A short run is a count of calls per target (about ten seconds' worth on
# a 2-core machine), not a duration: with a duration, Go's fuzzing
# coordinator (through go1.26) can report its own deadline as a failure,
# "context deadline exceeded" with no failing input, when the time runs out
# while a worker is mid-call (golang/go#75804, fixed in go1.27). A count has
# no deadline to race. FUZZTIME (or the first argument) overrides every
# target's count with one -fuzztime value, a count or a duration.
# Usage: hack/fuzz-short.sh [FUZZTIME]   e.g. hack/fuzz-short.sh 60s
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-${FUZZTIME:-}}
# Minimizing each new interesting input (default 60s) would take most of a
# short run: the targets send requests, hundreds a second, not millions;
# a hundred calls minimize a failing input well enough.
minimizetime=${FUZZMINIMIZETIME:-100x}

# package, target and its short run's count of calls, one target a line.
targets="
. FuzzRequestBody 3000x
. FuzzPatch 3000x
. FuzzSelectors 2500x
. FuzzListQuery 3000x
. FuzzEgressSelectorConfigFile 4000x
. FuzzWriteKubeconfig 4000x
./fixtures FuzzLoadPaths 10000x
./server FuzzApplyPatchParse 8000x
./registry FuzzApplyMergePatch 10000x
./scheduler FuzzLoadConfig 10000x
./kubelet FuzzParseStages 8000x
./kubelet FuzzParseDebugConfig 8000x
"

# Fail if a fuzz target exists that this list forgets.
listed=$(echo "$targets" | awk 'NF {print $2}' | sort)
found=$(git grep -h -o '^func Fuzz[A-Za-z0-9_]*' -- '*_test.go' | sed 's/^func //' | sort)
if [ "$listed" != "$found" ]; then
  echo "hack/fuzz-short.sh: the target list differs from the Fuzz functions in the tree:"
  diff <(echo "$listed") <(echo "$found") || true
  exit 1
fi

# A short run starts from the committed seed corpus alone: the inputs earlier
# runs on this machine found (kept in the build cache) would otherwise grow
# the baseline that must run before fuzzing starts, until it alone outlasts
# the run's time ("context deadline exceeded").

echo "$targets" | while read -r pkg target count; do
  [ -n "$pkg" ] || continue
  rel=$(go list "$pkg")
  rm -rf "$(go env GOCACHE)/fuzz/${rel}/${target}"
  budget=${fuzztime:-$count}
  echo "== fuzz $pkg $target ($budget)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$budget" -fuzzminimizetime "$minimizetime" "$pkg"
done
