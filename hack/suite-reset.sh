#!/usr/bin/env bash
# A RESET_CMD for ../shared/tools/upstream-suites: restarts a bare fakeplane
# (--preset envtest, as envtest runs kube-apiserver) with a fresh state before
# each package, writing its kubeconfig where the runner reads it.
#   go build -o /tmp/fp-suite ./cmd/fakeplane && hack/suite-reset.sh
#   RESET_CMD=$PWD/hack/suite-reset.sh ../shared/tools/upstream-suites/controller-runtime.sh /tmp/fp-suite.kubeconfig
set -u
bin=${FAKEPLANE_BIN:-/tmp/fp-suite}
kubeconfig=${FAKEPLANE_KUBECONFIG:-/tmp/fp-suite.kubeconfig}
data=${FAKEPLANE_DATA:-/tmp/fp-suite-data}
pkill -f "$bin --listen" ; sleep 0.5
rm -rf "$data"
"$bin" --listen 127.0.0.1:0 --preset envtest --kubeconfig "$kubeconfig" --data-dir "$data" > "$data.log" 2>&1 &
for _ in $(seq 1 100); do
  [ -s "$kubeconfig" ] && grep -q "is serving" "$data.log" 2>/dev/null && exit 0
  sleep 0.1
done
echo "hack/suite-reset.sh: $bin did not start; see $data.log" >&2
exit 1
