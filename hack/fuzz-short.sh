#!/usr/bin/env bash
# Runs every fuzz target for a short while (FUZZTIME, default 10s each), one
# after the other: go test fuzzes one target of one package per run. The
# first run of a package builds it with coverage instrumentation (a rebuild
# of its dependencies too, kept in the build cache for the next runs).
# Usage: hack/fuzz-short.sh [FUZZTIME]   e.g. hack/fuzz-short.sh 60s
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-${FUZZTIME:-10s}}
# Minimizing each new interesting input (default 60s) would take most of a
# short run: the targets send requests, hundreds a second, not millions;
# a hundred calls minimize a failing input well enough.
minimizetime=${FUZZMINIMIZETIME:-100x}

# package and target, one pair a line.
targets="
. FuzzRequestBody
. FuzzPatch
. FuzzSelectors
. FuzzListQuery
. FuzzEgressSelectorConfigFile
. FuzzWriteKubeconfig
./fixtures FuzzLoadPaths
./server FuzzApplyPatchParse
./registry FuzzApplyMergePatch
./scheduler FuzzLoadConfig
./kubelet FuzzParseStages
./kubelet FuzzParseDebugConfig
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

echo "$targets" | while read -r pkg target; do
  [ -n "$pkg" ] || continue
  rel=$(go list "$pkg")
  rm -rf "$(go env GOCACHE)/fuzz/${rel}/${target}"
  echo "== fuzz $pkg $target ($fuzztime)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" "$pkg"
done
