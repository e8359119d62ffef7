package server

import (
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/store"
)

// kube-aggregator's autoregistration of CRDs: every group/version a CRD
// serves has a local APIService "<version>.<group>" (labelled
// automanaged=true, group priority 1000, version priority 100), removed when
// no CRD serves it any more. The built-in groups' APIServices come with the
// bootstrap objects.

const (
	apiServicesBucket = "apiregistration.k8s.io/apiservices"
	automanagedLabel  = "kube-aggregator.kubernetes.io/automanaged"
)

// syncCRDAPIServices creates the missing automanaged APIServices of a CRD
// group and, when prune is set (a CRD went or stopped serving a version),
// deletes those no CRD serves any more.
func (s *Server) syncCRDAPIServices(group string, prune bool) {
	if group == "" || s.registry.isBuiltinGroup(group) {
		return
	}
	want := map[string]string{} // name -> version
	for _, crd := range s.registry.allCRDs() {
		if crd.Spec.Group != group || crd.DeletionTimestamp != nil {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				want[v.Name+"."+group] = v.Name
			}
		}
	}
	if !prune {
		for name := range want {
			if _, err := s.store.Get(apiServicesBucket, name); err == nil {
				delete(want, name)
			}
		}
		s.createAPIServices(group, want)
		return
	}
	lst, err := s.store.List(apiServicesBucket, store.ListOptions{})
	if err != nil {
		return
	}
	for _, it := range lst.Items {
		var as apiregistrationv1.APIService
		if err := json.Unmarshal(it.Value, &as); err != nil || as.Spec.Group != group {
			continue
		}
		if _, ok := want[as.Name]; ok {
			delete(want, as.Name)
			continue
		}
		if as.Labels[automanagedLabel] == "true" {
			c := s.internalCall("apiregistration.k8s.io", "v1", "apiservices", "", as.Name, "delete")
			if _, _, err := s.deleteObject(c, as.Name, as.Name, &metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				s.log.Warn("apiservice", "name", as.Name, "err", err)
			}
		}
	}
	s.createAPIServices(group, want)
}

// createAPIServices creates automanaged APIServices (name -> version).
func (s *Server) createAPIServices(group string, want map[string]string) {
	for name, version := range want {
		as := &apiregistrationv1.APIService{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apiregistration.k8s.io/v1", Kind: "APIService"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{automanagedLabel: "true"}},
			Spec:       apiregistrationv1.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: 1000, VersionPriority: 100},
		}
		b, err := json.Marshal(as)
		if err != nil {
			continue
		}
		if err := s.Create(b); err != nil {
			s.log.Warn("apiservice", "name", name, "err", err)
		}
	}
}
