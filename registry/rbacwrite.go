package registry

import (
	"github.com/fakeplane/fakeplane/auth"
)

// checkRBACWrite runs upstream's escalation and bind checks before a write
// to roles, clusterroles and their bindings. As upstream's policy-based
// storage, the "escalate" check is made for the request's own name: a
// create by POST has none, so "escalate" granted only for some
// resourceNames lets that user update (or create by PUT or apply) those
// roles but not create them by POST.
func (s *Registry) checkRBACWrite(c *Request, o, old *Object) error {
	if c.Res.Group != "rbac.authorization.k8s.io" || s.hooks.RBACWriteCheck == nil {
		return nil
	}
	// Upstream's handler refuses an object of another namespace than the
	// request's before its storage sees it.
	if err := EnsureRequestNamespace(c, o.Meta); err != nil {
		return err
	}
	// The request's namespace, as upstream's storage takes it from the
	// context: the object's may not be set yet.
	w := auth.RBACWrite{User: c.User, Namespace: c.Namespace}
	if c.Info != nil {
		w.Name = c.Info.Name
	}
	w.Object = o.Obj
	if old != nil {
		w.Old = old.Obj
	}
	if err := s.hooks.RBACWriteCheck(c.Context(), c.Res.GR, w); err != nil {
		// An error that is no API status (a binding's unsupported role
		// kind) is upstream's bare 500.
		return ErrUnknown(err)
	}
	return nil
}
