#!/usr/bin/env bash
# Regenerates internal/featuregates/kube-apiserver-v1.37.txt from a reference
# kube-apiserver started with its default feature gates (../shared/tools/refplane):
#   hack/capture-feature-gates.sh ~/.cache/refplane/kubeconfig
# Each line is a gate kube-apiserver's /metrics lists in
# kubernetes_feature_enabled: name, stage (ALPHA, BETA, GA or DEPRECATED)
# and whether it is on.
set -euo pipefail
out=$(dirname "$0")/../internal/featuregates/kube-apiserver-v1.37.txt
kubectl --kubeconfig "${1:?kubeconfig}" get --raw /metrics |
  sed -nE 's/^kubernetes_feature_enabled\{name="([^"]+)",stage="([^"]*)"\} ([01])$/\1 \2 \3/p' |
  awk '{ if (NF == 2) { print $1, "GA", $2 } else { print $1, $2, $3 } }' | sort >"$out"
echo "wrote $(wc -l <"$out") gates to $out"
