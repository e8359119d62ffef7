package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// userInfo is an authenticated identity.
type userInfo struct {
	Name   string
	Groups []string
}

// anonymous is the identity of a request without credentials.
var anonymousGroups = []string{"system:unauthenticated"}

// authenticate identifies the caller from its verified client certificate
// (CN is the user, O the groups), as kube-apiserver's x509 authenticator;
// without one the caller is system:anonymous.
func (s *Server) authenticate(r *http.Request) *userInfo {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
		cert := r.TLS.VerifiedChains[0][0]
		groups := append([]string{}, cert.Subject.Organization...)
		groups = append(groups, "system:authenticated")
		return &userInfo{Name: cert.Subject.CommonName, Groups: groups}
	}
	return &userInfo{Name: "system:anonymous", Groups: anonymousGroups}
}

// publicPaths are the non-resource paths anonymous users may read
// (system:public-info-viewer).
var publicPaths = []string{"/healthz", "/livez", "/readyz", "/version"}

// authorize lets authenticated users do everything and anonymous users read
// only the public paths. (RBAC comes with the authentication work.)
func (s *Server) authorize(u *userInfo, info *apirequest.RequestInfo) error {
	if u.Name != "system:anonymous" {
		return nil
	}
	if !info.IsResourceRequest {
		for _, p := range publicPaths {
			if info.Path == p || strings.HasPrefix(info.Path, p+"/") {
				return nil
			}
		}
		return apierrors.NewForbidden(schema.GroupResource{}, "", fmt.Errorf("User %q cannot %s path %q", u.Name, info.Verb, info.Path))
	}
	msg := fmt.Sprintf("User %q cannot %s resource %q in API group %q", u.Name, info.Verb, info.Resource, info.APIGroup)
	if info.Subresource != "" {
		msg = fmt.Sprintf("User %q cannot %s resource \"%s/%s\" in API group %q", u.Name, info.Verb, info.Resource, info.Subresource, info.APIGroup)
	}
	if info.Namespace != "" {
		msg += fmt.Sprintf(" in the namespace %q", info.Namespace)
	} else {
		msg += " at the cluster scope"
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Name, fmt.Errorf("%s", msg))
}

// serveVirtual answers create on the review resources that are computed,
// not stored.
func (s *Server) serveVirtual(c *call) error {
	switch c.res.Resource.Resource {
	case "bindings":
		if c.info.Verb != "create" {
			return c.errMethodNotSupported()
		}
		return s.serveBindingsCollection(c)
	case "componentstatuses":
		return s.serveComponentStatuses(c)
	}
	if c.info.Verb != "create" {
		return c.errMethodNotSupported()
	}
	data, err := c.objectBody()
	if err != nil {
		return err
	}
	o, err := c.res.decodeObject(data)
	if err != nil {
		return err
	}
	m, err := toMap(o.obj)
	if err != nil {
		return err
	}
	user := map[string]any{"username": c.user.Name, "groups": c.user.Groups}
	switch c.res.Resource.Resource {
	case "selfsubjectreviews":
		m["status"] = map[string]any{"userInfo": user}
	case "selfsubjectaccessreviews", "subjectaccessreviews", "localsubjectaccessreviews":
		m["status"] = map[string]any{"allowed": true}
	case "selfsubjectrulesreviews":
		m["status"] = map[string]any{
			"resourceRules":    []any{map[string]any{"verbs": []any{"*"}, "apiGroups": []any{"*"}, "resources": []any{"*"}}},
			"nonResourceRules": []any{map[string]any{"verbs": []any{"*"}, "nonResourceURLs": []any{"*"}}},
			"incomplete":       false,
		}
	case "tokenreviews":
		m["status"] = map[string]any{"authenticated": false, "user": map[string]any{}}
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	md["creationTimestamp"] = nil
	m["metadata"] = md
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.writeObject(c, http.StatusCreated, b)
}

// serveBindingsCollection answers POST /api/v1/namespaces/{ns}/bindings.
func (s *Server) serveBindingsCollection(c *call) error {
	data, err := c.objectBody()
	if err != nil {
		return err
	}
	o, err := c.res.decodeObject(data)
	if err != nil {
		return err
	}
	b, err := json.Marshal(o.obj)
	if err != nil {
		return err
	}
	var binding struct {
		metav1.ObjectMeta `json:"metadata"`
	}
	_ = json.Unmarshal(b, &binding)
	return s.serveBindingBody(c, binding.Name, b)
}

// serveComponentStatuses answers get/list of the deprecated componentstatuses.
func (s *Server) serveComponentStatuses(c *call) error {
	item := func(name string) map[string]any {
		return map[string]any{
			"kind": "ComponentStatus", "apiVersion": "v1",
			"metadata":   map[string]any{"name": name},
			"conditions": []any{map[string]any{"type": "Healthy", "status": "True", "message": "ok"}},
		}
	}
	names := []string{"etcd-0", "controller-manager", "scheduler"}
	switch c.info.Verb {
	case "get":
		for _, n := range names {
			if n == c.info.Name {
				b, _ := json.Marshal(item(n))
				return s.writeObject(c, http.StatusOK, b)
			}
		}
		return apierrors.NewNotFound(c.res.gr, c.info.Name)
	case "list":
		var items []any
		for _, n := range names {
			items = append(items, item(n))
		}
		c.w.Header().Add("Warning", `299 - "v1 ComponentStatus is deprecated in v1.19+"`)
		return writeEncoded(c, http.StatusOK, map[string]any{"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": map[string]any{}, "items": items})
	}
	return c.errMethodNotSupported()
}
