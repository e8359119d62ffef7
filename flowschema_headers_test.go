package fakeplane_test

import (
	"net/http"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// flowNames maps the FlowSchemas' and priority levels' UIDs to their names.
func flowNames(t *testing.T, cp *fakeplane.ControlPlane) map[string]string {
	t.Helper()
	cs := clientset(t, cp)
	ctx := ctxT(t)
	names := map[string]string{}
	fss, err := cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, fs := range fss.Items {
		names[string(fs.UID)] = fs.Name
	}
	pls, err := cs.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range pls.Items {
		names[string(pl.UID)] = pl.Name
	}
	return names
}

// classifiedAs sends a request as the admin, impersonating user and groups
// when set, and returns the code and the names of the FlowSchema and
// priority level its answer's headers name ("" when they name none).
func classifiedAs(t *testing.T, cp *fakeplane.ControlPlane, names map[string]string, method, path, as string, groups ...string) (code int, schema, level string) {
	t.Helper()
	h := http.Header{}
	if as != "" {
		h.Set("Impersonate-User", as)
	}
	for _, g := range groups {
		h.Add("Impersonate-Group", g)
	}
	code, answer, _ := rawExchange(t, cp, method, path, "", nil, h)
	return code, names[answer.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)], names[answer.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)]
}

// TestAnswersNameTheirFlowSchemaAsKubeAPIServer: every answer to a request
// past authentication names, in X-Kubernetes-PF-FlowSchema-UID and
// X-Kubernetes-PF-PriorityLevel-UID, the FlowSchema API priority and
// fairness classified it to and its priority level; the expected names
// were recorded from refplane (kube-apiserver v1.37.2) for the same
// requests. 403s and 404s carry them too.
func TestAnswersNameTheirFlowSchemaAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	names := flowNames(t, cp)
	for _, tc := range []struct {
		method, path, as string
		groups           []string
		code             int
		schema, level    string
	}{
		{"GET", "/version", "", nil, 200, "exempt", "exempt"},
		{"GET", "/nope", "", nil, 404, "exempt", "exempt"},
		{"GET", "/api/v1/namespaces", "system:serviceaccount:kube-system:foo", nil, 403, "kube-system-service-accounts", "workload-high"},
		{"GET", "/api/v1/namespaces/default/pods", "system:serviceaccount:default:bar", nil, 403, "service-accounts", "workload-low"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", "system:node:n1", []string{"system:nodes"}, 403, "system-node-high", "node-high"},
		{"PATCH", "/api/v1/nodes/n1/status", "system:node:n1", []string{"system:nodes"}, 403, "system-node-high", "node-high"},
		{"GET", "/api/v1/pods", "system:node:n1", []string{"system:nodes"}, 403, "system-nodes", "system"},
		{"GET", "/api/v1/namespaces/kube-system/endpoints/kube-scheduler", "system:kube-scheduler", nil, 403, "kube-scheduler", "workload-high"},
		{"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x", "system:kube-controller-manager", nil, 404, "system-leader-election", "leader-election"},
		{"GET", "/api/v1/pods", "system:kube-controller-manager", nil, 200, "kube-controller-manager", "workload-high"},
		{"GET", "/healthz", "alice", nil, 200, "probes", "exempt"},
		{"GET", "/readyz/ping", "alice", nil, 403, "probes", "exempt"},
		{"GET", "/apis", "alice", []string{"system:authenticated"}, 200, "global-default", "global-default"},
		{"GET", "/api/v1/namespaces/default/configmaps", "alice", nil, 403, "global-default", "global-default"},
	} {
		code, schema, level := classifiedAs(t, cp, names, tc.method, tc.path, tc.as, tc.groups...)
		if code != tc.code || schema != tc.schema || level != tc.level {
			t.Errorf("%s %s as %q %v: %d %q %q, want %d %q %q", tc.method, tc.path, tc.as, tc.groups, code, schema, level, tc.code, tc.schema, tc.level)
		}
	}
}

// TestFlowSchemaClassificationFollowsTheStoredSchemas: a FlowSchema created
// with a higher precedence than global-default takes the requests it
// matches once its priority level exists (a dangling one matches nothing),
// and gives them back once deleted.
func TestFlowSchemaClassificationFollowsTheStoredSchemas(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "alice"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "alices"},
			MatchingPrecedence:         500,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects:         []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "alice"}}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}},
			}},
		},
	}
	if _, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check := func(when, wantSchema, wantLevel string) {
		t.Helper()
		_, schema, level := classifiedAs(t, cp, flowNames(t, cp), "GET", "/apis/apps", "alice", "system:authenticated")
		if schema != wantSchema || level != wantLevel {
			t.Errorf("%s: GET /apis/apps as alice: %q %q, want %q %q", when, schema, level, wantSchema, wantLevel)
		}
	}
	check("while its level is missing", "global-default", "global-default")
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "alices"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited, Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
		}},
	}
	if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	check("once its level exists", "alice", "alices")
	if err := cs.FlowcontrolV1().FlowSchemas().Delete(ctx, "alice", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	check("once deleted", "global-default", "global-default")
}
