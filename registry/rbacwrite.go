package registry

import (
	"github.com/fakeplane/fakeplane/auth"
)

// checkRBACWrite runs upstream's escalation and bind checks before a write
// to roles, clusterroles and their bindings.
func (s *Registry) checkRBACWrite(c *Request, o, old *Object) error {
	if c.Res.Group != "rbac.authorization.k8s.io" || s.hooks.RBACWriteCheck == nil {
		return nil
	}
	w := auth.RBACWrite{User: c.User, Namespace: o.Meta.GetNamespace(), Name: o.Meta.GetName(), Object: o.Obj}
	if old != nil {
		w.Old = old.Obj
	}
	return s.hooks.RBACWriteCheck(c.Context(), c.Res.GR, w)
}
