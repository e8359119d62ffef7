// Package featuregates is kube-apiserver v1.37's feature gates as fakeplane
// runs them: the gates, their stage and default (kube-apiserver-v1.37.txt,
// recorded from a real server's /metrics by hack/capture-feature-gates.sh),
// --feature-gates parsed by upstream's featuregate package with its errors,
// and the refusal of a gate set away from its default, which fakeplane does
// not build.
package featuregates
