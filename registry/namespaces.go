package registry

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// RootCAConfigMapName is the ConfigMap published in every namespace with the
// cluster CA (by controllers.RootCACertPublisher).
const RootCAConfigMapName = "kube-root-ca.crt"

// terminating reports whether a stored namespace is being deleted.
func terminating(data []byte) bool {
	var ns struct {
		Metadata struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(data, &ns)
	return ns.Metadata.DeletionTimestamp != nil
}

// internalCall builds a call for the server's own writes: made from Go, as
// the server itself.
func (s *Registry) internalCall(group, version, res, ns, name, verb string) *Request {
	r, _ := s.served.Lookup(group, version, res)
	return &Request{Res: r, Namespace: ns, User: systemUser, GoCtx: apirequest.WithUser(context.Background(), systemUser),
		Info: &apirequest.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, APIVersion: version, Resource: res, Namespace: ns, Name: name}}
}

// Create creates an object given as JSON with apiVersion and kind, as the
// server itself, ignoring AlreadyExists. Fixtures use it.
func (s *Registry) Create(data []byte) error { return s.create(data, "") }

// CreateAll creates many objects (JSON with apiVersion and kind) as the
// server itself, ignoring AlreadyExists, with the managedFields entry of
// kube-apiserver's own writes. Bootstrap uses it.
func (s *Registry) CreateAll(docs [][]byte) error {
	for _, d := range docs {
		if err := s.create(d, serverManager); err != nil {
			return err
		}
	}
	return nil
}

// serverManager is the field manager of kube-apiserver's own writes,
// through its loopback client.
const serverManager = "kube-apiserver"

// create creates an object given as JSON, as the server itself; manager,
// if set, is recorded in its managedFields.
func (s *Registry) create(data []byte, manager string) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("decode object: %w", err)
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return err
	}
	res, ok := s.served.ForKind(gv.WithKind(head.Kind))
	if !ok {
		return fmt.Errorf("no resource serves %s %s", head.APIVersion, head.Kind)
	}
	c := s.internalCall(res.Group, res.Version, res.Resource.Resource, "", "", "create")
	o, err := c.Res.DecodeObject(data)
	if err != nil {
		return err
	}
	if c.Res.Namespaced {
		c.Namespace = o.Meta.GetNamespace()
		if c.Namespace == "" {
			c.Namespace = metav1.NamespaceDefault
		}
	}
	if manager != "" {
		s.trackCreate(c, o, data, manager)
	}
	_, err = s.CreateObject(c, o, false)
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
