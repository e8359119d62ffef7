package registry

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// saGetter reads what service-account tokens refer to from the store.
type saGetter struct{ s *Registry }

func (g saGetter) get(group, version, res, ns, name string, into any) error {
	r, _ := g.s.served.Lookup(group, version, res)
	obj, err := g.s.store.Get(r.Bucket, ObjectKey(ns, name))
	if err != nil {
		return apierrors.NewNotFound(r.GR, name)
	}
	return JSONUnmarshal(obj.Value, into)
}

// ServiceAccount returns a stored ServiceAccount.
func (g saGetter) ServiceAccount(ns, name string) (*corev1.ServiceAccount, error) {
	sa := &corev1.ServiceAccount{}
	return sa, g.get("", "v1", "serviceaccounts", ns, name, sa)
}

// Secret returns a stored Secret.
func (g saGetter) Secret(ns, name string) (*corev1.Secret, error) {
	sec := &corev1.Secret{}
	return sec, g.get("", "v1", "secrets", ns, name, sec)
}

// Pod returns a stored Pod.
func (g saGetter) Pod(ns, name string) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	return pod, g.get("", "v1", "pods", ns, name, pod)
}

// Node returns a stored Node.
func (g saGetter) Node(name string) (*corev1.Node, error) {
	n := &corev1.Node{}
	return n, g.get("", "v1", "nodes", "", name, n)
}

// ServiceAccounts reads service accounts, their secrets, pods and nodes from
// the store, for token authentication and admission.
func (s *Registry) ServiceAccounts() saGetter { return saGetter{s} }
