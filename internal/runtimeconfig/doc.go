// Package runtimeconfig is kube-apiserver v1.37's --runtime-config as
// fakeplane takes it: the key=value pairs completed, validated and merged
// into the default API enablement as upstream's options and resourceconfig
// packages do (written after them), with their errors (an
// unknown group or version, a key that is not one, a value that is not a
// bool, api/all=false alone or turning off the flowcontrol API under
// priority and fairness), and the refusal of a value that would turn on or
// off an API version or resource kube-apiserver serves, which fakeplane
// does not build: it serves the versions kube-apiserver serves by default.
// A value that leaves them as they are (apps/v1=true, api/ga=true, a
// version kube-apiserver registers but no longer serves) is accepted.
package runtimeconfig
