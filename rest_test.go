package fakeplane_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane"
)

// TestYAMLInAndOut creates from a YAML body and reads back YAML.
func TestYAMLInAndOut(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  greeting: hello\n"
	code, ctype, out := rawRequest(t, cp, "POST", "/api/v1/namespaces/default/configmaps", "application/yaml", []byte(body), http.Header{"Accept": {"application/yaml"}})
	if code != 201 || ctype != "application/yaml" {
		t.Fatalf("create: %d %s %s", code, ctype, out)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(out, &cm); err != nil || cm.Data["greeting"] != "hello" || cm.UID == "" {
		t.Fatalf("YAML answer: %v %s", err, out)
	}
	code, ctype, out = rawRequest(t, cp, "GET", "/api/v1/namespaces/default/configmaps?labelSelector=", "", nil, http.Header{"Accept": {"application/yaml"}})
	if code != 200 || ctype != "application/yaml" || !strings.Contains(string(out), "kind: ConfigMapList") {
		t.Errorf("YAML list: %d %s %s", code, ctype, out)
	}
	// Malformed YAML is a 400 and creates nothing.
	code, _, out = rawRequest(t, cp, "POST", "/api/v1/namespaces/default/configmaps", "application/yaml", []byte("metadata: [unclosed"), nil)
	if code != 400 {
		t.Errorf("malformed YAML: %d %s", code, out)
	}
	// An Accept the server cannot satisfy is a 406.
	code, _, out = rawRequest(t, cp, "GET", "/api/v1/namespaces/default/configmaps", "", nil, http.Header{"Accept": {"text/html"}})
	if code != 406 {
		t.Errorf("Accept text/html: %d %s", code, out)
	}
}

// TestDryRunPersistsNothing runs create, update, patch and delete with
// dryRun=All.
func TestDryRunPersistsNothing(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cms := cs.CoreV1().ConfigMaps("default")
	dry := []string{metav1.DryRunAll}
	out, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry"}}, metav1.CreateOptions{DryRun: dry})
	if err != nil || out.UID == "" || out.ResourceVersion != "" {
		t.Fatalf("dry-run create: %v %+v", err, out.ObjectMeta)
	}
	if _, err := cms.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run create persisted: %v", err)
	}
	real, _ := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "real"}}, metav1.CreateOptions{})
	real.Data = map[string]string{"a": "b"}
	upd, err := cms.Update(ctx, real, metav1.UpdateOptions{DryRun: dry})
	if err != nil || upd.Data["a"] != "b" || upd.ResourceVersion != real.ResourceVersion {
		t.Fatalf("dry-run update: %v %+v", err, upd)
	}
	if err := cms.Delete(ctx, "real", metav1.DeleteOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	got, err := cms.Get(ctx, "real", metav1.GetOptions{})
	if err != nil || len(got.Data) != 0 || got.ResourceVersion != real.ResourceVersion {
		t.Fatalf("dry-run update or delete persisted: %v %+v", err, got)
	}
}

// TestDeleteCollectionAndWatchTimeout covers deletecollection with a label
// selector and a watch's timeoutSeconds.
func TestDeleteCollectionAndWatchTimeout(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cms := cs.CoreV1().ConfigMaps("default")
	for _, n := range []string{"a", "b", "c"} {
		labels := map[string]string{"batch": "one"}
		if n == "c" {
			labels["batch"] = "two"
		}
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: labels}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "batch=one"}); err != nil {
		t.Fatal(err)
	}
	l, _ := cms.List(ctx, metav1.ListOptions{})
	var names []string
	for _, it := range l.Items {
		names = append(names, it.Name)
	}
	if strings.Join(names, ",") != "c,kube-root-ca.crt" {
		t.Errorf("after deletecollection: %v", names)
	}

	timeout := int64(1)
	w, err := cms.Watch(ctx, metav1.ListOptions{TimeoutSeconds: &timeout, ResourceVersion: l.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-w.ResultChan():
		if ok {
			t.Error("unexpected event")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the watch did not end after timeoutSeconds")
	}
}

// TestDeleteAnswers checks what a delete returns: a Status for most
// resources, the object for those upstream returns it for.
func TestDeleteAnswers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	rawRequest(t, cp, "POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(`{"metadata":{"name":"x"}}`), nil)
	code, _, out := rawRequest(t, cp, "DELETE", "/api/v1/namespaces/default/configmaps/x", "", nil, nil)
	var st metav1.Status
	_ = json.Unmarshal(out, &st)
	if code != 200 || st.Kind != "Status" || st.Status != metav1.StatusSuccess || st.Details.Name != "x" || st.Details.Kind != "configmaps" || st.Details.UID == "" {
		t.Errorf("configmap delete: %d %s", code, out)
	}
	rawRequest(t, cp, "POST", "/api/v1/namespaces/default/pods", "application/json", []byte(`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`), nil)
	code, _, out = rawRequest(t, cp, "DELETE", "/api/v1/namespaces/default/pods/p", "", nil, nil)
	var pod corev1.Pod
	_ = json.Unmarshal(out, &pod)
	if code != 200 || pod.Kind != "Pod" || pod.Name != "p" {
		t.Errorf("pod delete returns the pod: %d %s", code, out)
	}
}

// TestProtobuf reads objects, lists and watches in protobuf, as client-go's
// typed clients and kube-scheduler ask for them.
func TestProtobuf(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	pb := http.Header{"Accept": {"application/vnd.kubernetes.protobuf, application/json"}}
	code, ctype, out := rawRequest(t, cp, "GET", "/api/v1/namespaces/default/configmaps/kube-root-ca.crt", "", nil, pb)
	if code != 200 || ctype != "application/vnd.kubernetes.protobuf" || !bytes.HasPrefix(out, []byte("k8s\x00")) {
		t.Fatalf("get: %d %s %q", code, ctype, out[:min(len(out), 20)])
	}
	cs := protobufClientset(t, cp)
	ctx := ctxT(t)
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "0", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pb"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil || len(l.Items) != 1 || l.Continue == "" || l.ResourceVersion == "" {
		t.Fatalf("protobuf list: %v %+v", err, l.ListMeta)
	}
	var names []string
	for len(names) < 2 {
		select {
		case ev := <-w.ResultChan():
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if ok && ev.Type == watch.Bookmark {
				continue // the end of the initial events, as upstream's
			}
			if !ok || ev.Type != watch.Added {
				t.Fatalf("event %s %T", ev.Type, ev.Object)
			}
			names = append(names, cm.Name+"="+cm.Data["k"])
		case <-ctx.Done():
			t.Fatalf("protobuf watch saw %v", names)
		}
	}
	if names[1] != "pb=v" {
		t.Errorf("protobuf watch events: %v", names)
	}
	// Custom resources and Tables have no protobuf: JSON is answered.
	code, ctype, _ = rawRequest(t, cp, "GET", "/api/v1/namespaces", "", nil, http.Header{"Accept": {"application/json;as=Table;v=v1;g=meta.k8s.io, application/vnd.kubernetes.protobuf"}})
	if code != 200 || ctype != "application/json" {
		t.Errorf("table before protobuf: %d %s", code, ctype)
	}
}

// TestBuiltinDefaults checks the defaults kube-apiserver v1.37 stores for a
// minimal Deployment, Service and Pod (compared with a real server).
func TestBuiltinDefaults(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	dep, err := cs.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "d"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ps := dep.Spec.Template.Spec
	if *dep.Spec.Replicas != 1 || dep.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || dep.Spec.Strategy.RollingUpdate.MaxSurge.String() != "25%" ||
		*dep.Spec.RevisionHistoryLimit != 10 || *dep.Spec.ProgressDeadlineSeconds != 600 || ps.DNSPolicy != corev1.DNSClusterFirst ||
		ps.SchedulerName != "default-scheduler" || *ps.TerminationGracePeriodSeconds != 30 || ps.Containers[0].ImagePullPolicy != corev1.PullAlways ||
		ps.Containers[0].TerminationMessagePath != "/dev/termination-log" {
		t.Errorf("deployment defaults: %+v", dep.Spec)
	}
	svc, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "x"}, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || !strings.HasPrefix(svc.Spec.ClusterIP, "10.0.0.") || svc.Spec.ClusterIP == "10.0.0.1" ||
		svc.Spec.Ports[0].TargetPort.IntValue() != 80 || svc.Spec.Ports[0].Protocol != corev1.ProtocolTCP || svc.Spec.IPFamilies[0] != corev1.IPv4Protocol {
		t.Errorf("service defaults: %+v", svc.Spec)
	}
	// An update that omits the ClusterIP keeps it.
	svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
	svc.Labels = map[string]string{"x": "y"}
	upd, err := cs.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{})
	if err != nil || upd.Spec.ClusterIP == "" {
		t.Errorf("service update: %v %q", err, upd.Spec.ClusterIP)
	}
	_, err = cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s2"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.0.0.1", Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "provided IP is already allocated") {
		t.Errorf("taken ClusterIP: %v", err)
	}
	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ServiceAccountName != "default" || len(pod.Spec.Volumes) != 1 || !strings.HasPrefix(pod.Spec.Volumes[0].Name, "kube-api-access-") ||
		len(pod.Spec.Tolerations) != 2 || *pod.Spec.Priority != 0 || !*pod.Spec.EnableServiceLinks || pod.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("pod defaults: %+v", pod.Spec)
	}
	_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p2"},
		Spec: corev1.PodSpec{ServiceAccountName: "nope", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || err.Error() != `pods "p2" is forbidden: error looking up service account default/nope: serviceaccount "nope" not found` {
		t.Errorf("missing service account: %v", err)
	}
}

// TestImmutableFields checks upstream's immutable-field rules and messages
// (recorded from a real v1.37 server).
func TestImmutableFields(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	yes := true
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "imm"}, Data: map[string]string{"a": "b"}, Immutable: &yes}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "imm"}, Data: map[string][]byte{"a": []byte("b")}, Immutable: &yes}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
	}}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := "10.0.0.250"
	if svc.Spec.ClusterIP == other {
		other = "10.0.0.251"
	}
	for _, tc := range []struct {
		name string
		do   func() error
		want string
	}{
		{"configmap data", func() error {
			_, err := cs.CoreV1().ConfigMaps("default").Patch(ctx, "imm", types.MergePatchType, []byte(`{"data":{"a":"c"}}`), metav1.PatchOptions{})
			return err
		}, "ConfigMap \"imm\" is invalid: data: Forbidden: field is immutable when `immutable` is set"},
		{"configmap immutable", func() error {
			_, err := cs.CoreV1().ConfigMaps("default").Patch(ctx, "imm", types.MergePatchType, []byte(`{"immutable":false}`), metav1.PatchOptions{})
			return err
		}, "ConfigMap \"imm\" is invalid: immutable: Forbidden: field is immutable when `immutable` is set"},
		{"secret data", func() error {
			_, err := cs.CoreV1().Secrets("default").Patch(ctx, "imm", types.MergePatchType, []byte(`{"data":{"a":"Yw=="}}`), metav1.PatchOptions{})
			return err
		}, "Secret \"imm\" is invalid: data: Forbidden: field is immutable when `immutable` is set"},
		{"deployment selector", func() error {
			_, err := cs.AppsV1().Deployments("default").Patch(ctx, "d", types.MergePatchType, []byte(`{"spec":{"selector":{"matchLabels":{"app":"y"}},"template":{"metadata":{"labels":{"app":"y"}}}}}`), metav1.PatchOptions{})
			return err
		}, `Deployment.apps "d" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"y"}}: field is immutable`},
		{"service clusterIP", func() error {
			_, err := cs.CoreV1().Services("default").Patch(ctx, "s", types.MergePatchType, []byte(`{"spec":{"clusterIP":"`+other+`","clusterIPs":["`+other+`"]}}`), metav1.PatchOptions{})
			return err
		}, `Service "s" is invalid: spec.clusterIPs[0]: Invalid value: ["` + other + `"]: may not change once set`},
	} {
		if err := tc.do(); !apierrors.IsInvalid(err) || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// TestListItemsTypeMeta checks the JSON of list answers: the items of a
// built-in type's list have no kind and apiVersion, as kube-apiserver's
// don't, while a custom resource's items keep theirs; a get keeps them.
func TestListItemsTypeMeta(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cs := clientset(t, cp)
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "tm"}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ct := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]any{"name": "c"}}}
	if _, err := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default").Create(ctx, ct, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path     string
		wantKind bool
	}{
		{"/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dtm", false},
		{"/apis/stable.example.com/v1/namespaces/default/crontabs", true},
	} {
		code, _, body := rawRequest(t, cp, "GET", tc.path, "", nil, nil)
		var list struct {
			Kind  string           `json:"kind"`
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(body, &list); code != 200 || err != nil || len(list.Items) != 1 {
			t.Fatalf("GET %s: %d %v %s", tc.path, code, err, body)
		}
		_, hasKind := list.Items[0]["kind"]
		_, hasAPIVersion := list.Items[0]["apiVersion"]
		if hasKind != tc.wantKind || hasAPIVersion != tc.wantKind || list.Items[0]["metadata"] == nil {
			t.Errorf("GET %s: item %v, want kind and apiVersion %v", tc.path, list.Items[0], tc.wantKind)
		}
	}
	// The object itself still has them, and client-go's typed list decodes.
	cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "tm", metav1.GetOptions{})
	if err != nil || cm.Data["a"] != "b" {
		t.Fatalf("get: %v %v", cm, err)
	}
	code, _, body := rawRequest(t, cp, "GET", "/api/v1/namespaces/default/configmaps/tm", "", nil, nil)
	if code != 200 || !bytes.HasPrefix(body, []byte(`{"kind":"ConfigMap","apiVersion":"v1",`)) {
		t.Errorf("get: %d %s", code, body)
	}
	l, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=tm"})
	if err != nil || len(l.Items) != 1 || l.Items[0].Data["a"] != "b" {
		t.Fatalf("typed list: %v %v", l, err)
	}
}
