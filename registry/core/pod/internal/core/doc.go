// Package core holds what fakeplane needs of the shape of kube-apiserver's
// internal core types (k8s.io/kubernetes/pkg/apis/core): a type decoded
// with encoding/json names its package and fields in the error, and a
// client reads that error in a 422.
package core
