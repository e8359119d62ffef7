package server

import (
	"github.com/fakeplane/fakeplane/auth"
)

// checkRBACWrite runs upstream's escalation and bind checks before a write
// to roles, clusterroles and their bindings.
func (s *Server) checkRBACWrite(c *request, o, old *object) error {
	if c.res.Group != "rbac.authorization.k8s.io" || s.rbacWriteCheck == nil {
		return nil
	}
	w := auth.RBACWrite{User: c.user, Namespace: o.meta.GetNamespace(), Name: o.meta.GetName(), Object: o.obj}
	if old != nil {
		w.Old = old.obj
	}
	return s.rbacWriteCheck(c.ctx(), c.res.gr, w)
}
