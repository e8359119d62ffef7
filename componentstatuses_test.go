package fakeplane_test

import (
	"context"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// TestComponentStatusesAsKubeAPIServer checks the deprecated
// componentstatuses against kube-apiserver v1.37's answers (recorded with
// refplane and curl): typed JSON (items without kind and apiVersion, fields
// in the type's order), selectors on the list, the singular resource in a
// NotFound, an empty ListMeta in a metadata list, a 405 for a watch, and
// protobuf through client-go.
func TestComponentStatusesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const warn = `299 - "v1 ComponentStatus is deprecated in v1.19+"`
	const (
		cm   = `{"metadata":{"name":"controller-manager"},"conditions":[{"type":"Healthy","status":"True","message":"ok"}]}`
		sch  = `{"metadata":{"name":"scheduler"},"conditions":[{"type":"Healthy","status":"True","message":"ok"}]}`
		etcd = `{"metadata":{"name":"etcd-0"},"conditions":[{"type":"Healthy","status":"True","message":"ok"}]}`
	)
	for _, tc := range []struct {
		name, path, accept string
		code               int
		body               string
	}{
		{"list", "/api/v1/componentstatuses", "", 200,
			`{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[` + cm + `,` + sch + `,` + etcd + `]}` + "\n"},
		{"get", "/api/v1/componentstatuses/etcd-0", "", 200,
			`{"kind":"ComponentStatus","apiVersion":"v1",` + etcd[1:] + "\n"},
		{"field selector", "/api/v1/componentstatuses?fieldSelector=metadata.name%3Detcd-0", "", 200,
			`{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[` + etcd + `]}` + "\n"},
		{"label selector", "/api/v1/componentstatuses?labelSelector=a%3Db", "", 200,
			`{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[]}` + "\n"},
		{"limit is ignored", "/api/v1/componentstatuses?limit=1", "", 200,
			`{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[` + cm + `,` + sch + `,` + etcd + `]}` + "\n"},
		{"unknown field selector", "/api/v1/componentstatuses?fieldSelector=spec.x%3Dy", "", 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"\"spec.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"","reason":"BadRequest","code":400}` + "\n"},
		{"missing", "/api/v1/componentstatuses/zz", "", 404,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"componentstatus \"zz\" not found","reason":"NotFound","details":{"name":"zz","kind":"componentstatus"},"code":404}` + "\n"},
		{"watch", "/api/v1/componentstatuses?watch=1", "", 405,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"watch is not supported on resources of kind \"componentstatuses\"","reason":"MethodNotAllowed","details":{"kind":"componentstatuses"},"code":405}` + "\n"},
		{"metadata list", "/api/v1/componentstatuses?fieldSelector=metadata.name%3Dscheduler", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", 200,
			`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"scheduler"}}]}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.accept != "" {
				h.Set("Accept", tc.accept)
			}
			code, hdr, body := rawExchange(t, cp, http.MethodGet, tc.path, "", nil, h)
			if code != tc.code || string(body) != tc.body {
				t.Fatalf("GET %s: %d\n%s\nwant %d\n%s", tc.path, code, body, tc.code, tc.body)
			}
			if got := hdr.Get("Warning"); got != warn {
				t.Fatalf("GET %s: Warning %q, want %q", tc.path, got, warn)
			}
		})
	}

	// client-go asks for protobuf.
	cfg := cp.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	cs := kubernetes.NewForConfigOrDie(cfg)
	//nolint:staticcheck // the deprecated API is what is tested.
	list, err := cs.CoreV1().ComponentStatuses().List(context.Background(), metav1.ListOptions{FieldSelector: "metadata.name=etcd-0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "etcd-0" || len(list.Items[0].Conditions) != 1 ||
		list.Items[0].Conditions[0].Type != corev1.ComponentHealthy || list.Items[0].Conditions[0].Status != corev1.ConditionTrue {
		t.Fatalf("protobuf list: %+v", list.Items)
	}
	//nolint:staticcheck // the deprecated API is what is tested.
	if _, err := cs.CoreV1().ComponentStatuses().Get(context.Background(), "zz", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get of a missing component: %v, want NotFound", err)
	}
}
