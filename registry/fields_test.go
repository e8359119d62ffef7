package registry

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// convertFieldLabel is how the server converts a field selector label of a
// resource: with its strategy's conversion, or the metadata-only default.
func convertFieldLabel(gr schema.GroupResource) func(string) (string, bool) {
	if st, ok := For(gr); ok {
		if fl, ok := st.(strategy.FieldLabeler); ok {
			return fl.ConvertFieldLabel
		}
	}
	return strategy.ConvertMetaFieldLabel
}

// TestFieldLabelsAcceptedPerResource checks, per resource with a field
// label conversion of its own, the labels it accepts and the field each is
// matched against, and labels it rejects; and that the other resources
// accept only the metadata labels.
func TestFieldLabelsAcceptedPerResource(t *testing.T) {
	meta := map[string]string{"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace"}
	same := func(base map[string]string, labels ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for _, l := range labels {
			m[l] = l
		}
		return m
	}
	name := map[string]string{"metadata.name": "metadata.name"}
	withAliases := func(m map[string]string, aliases map[string]string) map[string]string {
		for k, v := range aliases {
			m[k] = v
		}
		return m
	}
	for _, tc := range []struct {
		gr       schema.GroupResource
		accepted map[string]string
		rejected []string
	}{
		{gr: schema.GroupResource{Resource: "pods"},
			accepted: withAliases(same(meta, "spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
				"spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"),
				map[string]string{"spec.host": "spec.nodeName"}),
			rejected: []string{"spec.priority", "status.hostIP"}},
		{gr: schema.GroupResource{Resource: "nodes"}, accepted: same(name, "spec.unschedulable"), rejected: []string{"metadata.namespace", "spec.podCIDR"}},
		{gr: schema.GroupResource{Resource: "replicationcontrollers"}, accepted: same(meta, "status.replicas"), rejected: []string{"spec.replicas"}},
		{gr: schema.GroupResource{Resource: "events"},
			accepted: same(meta, "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
				"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
				"reason", "reportingComponent", "source", "type"),
			rejected: []string{"regarding.kind", "reportingController", "message"}},
		{gr: schema.GroupResource{Resource: "namespaces"}, accepted: same(name, "status.phase"), rejected: []string{"metadata.namespace"}},
		{gr: schema.GroupResource{Resource: "secrets"}, accepted: same(meta, "type"), rejected: []string{"immutable"}},
		{gr: schema.GroupResource{Resource: "services"}, accepted: same(meta, "spec.clusterIP", "spec.type"), rejected: []string{"spec.clusterIPs"}},
		{gr: schema.GroupResource{Group: "batch", Resource: "jobs"}, accepted: same(meta, "status.successful"), rejected: []string{"status.failed"}},
		{gr: schema.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}, accepted: same(name, "spec.signerName"), rejected: []string{"metadata.namespace"}},
		{gr: schema.GroupResource{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}, accepted: same(name, "spec.signerName"), rejected: []string{"metadata.namespace"}},
		{gr: schema.GroupResource{Group: "certificates.k8s.io", Resource: "podcertificaterequests"},
			accepted: same(name, "spec.signerName", "spec.podName", "spec.nodeName"), rejected: []string{"metadata.namespace"}},
		{gr: schema.GroupResource{Group: "events.k8s.io", Resource: "events"},
			accepted: withAliases(same(meta, "reason", "type"), map[string]string{
				"regarding.kind": "involvedObject.kind", "regarding.namespace": "involvedObject.namespace", "regarding.name": "involvedObject.name",
				"regarding.uid": "involvedObject.uid", "regarding.apiVersion": "involvedObject.apiVersion",
				"regarding.resourceVersion": "involvedObject.resourceVersion", "regarding.fieldPath": "involvedObject.fieldPath",
				"reportingController": "reportingComponent",
			}),
			rejected: []string{"source", "involvedObject.kind", "reportingComponent"}},
		{gr: schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"},
			accepted: same(name, "spec.nodeName", "spec.driver", "spec.pool.name"), rejected: []string{"metadata.namespace", "spec.allNodes"}},
		{gr: schema.GroupResource{Group: "apps", Resource: "replicasets"}, accepted: meta, rejected: []string{"status.replicas"}},
		{gr: schema.GroupResource{Resource: "configmaps"}, accepted: meta, rejected: []string{"data.x"}},
		{gr: schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}, accepted: meta, rejected: []string{"provisioner"}},
	} {
		t.Run(tc.gr.String(), func(t *testing.T) {
			convert := convertFieldLabel(tc.gr)
			for label, want := range tc.accepted {
				if got, ok := convert(label); !ok || got != want {
					t.Errorf("%s: %q, %v; want %q, true", label, got, ok, want)
				}
			}
			for _, label := range append(tc.rejected, "", "metadata.uid") {
				if got, ok := convert(label); ok {
					t.Errorf("%s accepted as %q", label, got)
				}
			}
		})
	}
}

// TestFieldLabelersAreServed checks that every strategy with a field label
// conversion of its own belongs to a served resource, and accepts
// metadata.name, as every upstream conversion does.
func TestFieldLabelersAreServed(t *testing.T) {
	served := map[schema.GroupResource]bool{}
	for _, r := range builtin.Resources() {
		served[schema.GroupResource{Group: r.Group, Resource: r.Resource}] = true
	}
	n := 0
	for gr, st := range strategies() {
		fl, ok := st.(strategy.FieldLabeler)
		if !ok {
			continue
		}
		n++
		if !served[gr] {
			t.Errorf("%s: not served", gr)
		}
		if got, ok := fl.ConvertFieldLabel("metadata.name"); !ok || got != "metadata.name" {
			t.Errorf("%s: metadata.name converted to %q, %v", gr, got, ok)
		}
	}
	if n != 13 {
		t.Errorf("%d strategies convert field labels, want 13", n)
	}
}
