package fakeplane_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv1ac "k8s.io/client-go/applyconfigurations/autoscaling/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// controllerManager is the field manager of kube-controller-manager's
// writes: the deployment controller writes a Deployment's status (and
// revision annotation) as on a cluster, which the tests of the clients'
// managers leave aside.
const controllerManager = "kube-controller-manager"

// withoutControllerManager drops kube-controller-manager's entries from a
// "manager/operation " listing.
func withoutControllerManager(s string) string {
	return strings.ReplaceAll(s, controllerManager+"/Update ", "")
}

// managers lists an object's managedFields as manager/operation[/subresource],
// sorted (upstream orders entries by operation, then second, then manager),
// but kube-controller-manager's.
func managers(m metav1.Object) []string {
	var out []string
	for _, e := range m.GetManagedFields() {
		if e.Manager == controllerManager {
			continue
		}
		s := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			s += "/" + e.Subresource
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ownedFields returns one manager's fieldsV1 as JSON.
func ownedFields(t *testing.T, m metav1.Object, manager string) string {
	t.Helper()
	for _, e := range m.GetManagedFields() {
		if e.Manager == manager && e.FieldsV1 != nil {
			return string(e.FieldsV1.Raw)
		}
	}
	return ""
}

func TestServerSideApplyCreatesAndDetectsConflicts(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cms := clientset(t, cp).CoreV1().ConfigMaps("default")

	created, err := cms.Apply(ctx, corev1ac.ConfigMap("a", "default").WithLabels(map[string]string{"app": "x"}).WithData(map[string]string{"x": "1"}),
		metav1.ApplyOptions{FieldManager: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(managers(created), ","); got != "m1/Apply" {
		t.Errorf("managers after create: %s", got)
	}
	if got, want := ownedFields(t, created, "m1"), `{"f:data":{"f:x":{}},"f:metadata":{"f:labels":{"f:app":{}}}}`; got != want {
		t.Errorf("m1 owns %s, want %s", got, want)
	}

	// Applying the same configuration again changes nothing.
	again, err := cms.Apply(ctx, corev1ac.ConfigMap("a", "default").WithLabels(map[string]string{"app": "x"}).WithData(map[string]string{"x": "1"}),
		metav1.ApplyOptions{FieldManager: "m1"})
	if err != nil || again.ResourceVersion != created.ResourceVersion {
		t.Errorf("idempotent apply: %v, resourceVersion %s -> %s", err, created.ResourceVersion, again.ResourceVersion)
	}

	// A second manager setting the same field to another value conflicts.
	_, err = cms.Apply(ctx, corev1ac.ConfigMap("a", "default").WithData(map[string]string{"x": "2"}), metav1.ApplyOptions{FieldManager: "m2"})
	if !apierrors.IsConflict(err) || err.Error() != `Apply failed with 1 conflict: conflict with "m1": .data.x` {
		t.Fatalf("conflict: %v", err)
	}
	var status apierrors.APIStatus
	if !asStatus(err, &status) || len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Field != ".data.x" ||
		status.Status().Details.Causes[0].Type != metav1.CauseTypeFieldManagerConflict {
		t.Errorf("conflict causes: %+v", status.Status().Details)
	}
	// Setting it to the same value co-owns it.
	shared, err := cms.Apply(ctx, corev1ac.ConfigMap("a", "default").WithData(map[string]string{"x": "1", "y": "2"}), metav1.ApplyOptions{FieldManager: "m2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ownedFields(t, shared, "m2"); got != `{"f:data":{"f:x":{},"f:y":{}}}` {
		t.Errorf("m2 owns %s", got)
	}
	// Force takes the field.
	forced, err := cms.Apply(ctx, corev1ac.ConfigMap("a", "default").WithData(map[string]string{"x": "3", "y": "2"}), metav1.ApplyOptions{FieldManager: "m2", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if forced.Data["x"] != "3" || ownedFields(t, forced, "m1") != `{"f:metadata":{"f:labels":{"f:app":{}}}}` {
		t.Errorf("after force: data %v, m1 owns %s", forced.Data, ownedFields(t, forced, "m1"))
	}
	// A manager that stops applying a field it alone owns removes it.
	dropped, err := cms.Apply(ctx, corev1ac.ConfigMap("a", "default").WithData(map[string]string{"x": "3"}), metav1.ApplyOptions{FieldManager: "m2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dropped.Data["y"]; ok || dropped.Data["x"] != "3" || dropped.Labels["app"] != "x" {
		t.Errorf("after m2 dropped y: data %v labels %v", dropped.Data, dropped.Labels)
	}
}

func asStatus(err error, out *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*out = s
	}
	return ok
}

func TestServerSideApplyMergesListsByTheirKeys(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	deps := clientset(t, cp).AppsV1().Deployments("default")
	container := func(name, image string, ports ...*corev1ac.ContainerPortApplyConfiguration) *corev1ac.ContainerApplyConfiguration {
		c := corev1ac.Container().WithName(name)
		if image != "" {
			c.WithImage(image)
		}
		return c.WithPorts(ports...)
	}
	dep := func(containers ...*corev1ac.ContainerApplyConfiguration) *appsv1ac.DeploymentApplyConfiguration {
		return appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().
			WithTemplate(corev1ac.PodTemplateSpec().WithSpec(corev1ac.PodSpec().WithContainers(containers...))))
	}
	base := appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(2).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "web"})).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(map[string]string{"app": "web"}).
			WithSpec(corev1ac.PodSpec().WithContainers(container("nginx", "nginx", corev1ac.ContainerPort().WithContainerPort(80))))))
	if _, err := deps.Apply(ctx, base, metav1.ApplyOptions{FieldManager: "owner"}); err != nil {
		t.Fatal(err)
	}
	// Another manager adds a sidecar (containers merge by name) and a UDP
	// port on the same container port (ports merge by containerPort+protocol).
	out, err := deps.Apply(ctx, dep(
		container("nginx", "", corev1ac.ContainerPort().WithContainerPort(80).WithProtocol(corev1.ProtocolUDP)),
		container("sidecar", "busybox"),
	), metav1.ApplyOptions{FieldManager: "injector"})
	if err != nil {
		t.Fatal(err)
	}
	cs := out.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[0].Name != "nginx" || cs[0].Image != "nginx" || cs[1].Name != "sidecar" {
		t.Fatalf("containers: %+v", cs)
	}
	if len(cs[0].Ports) != 2 || cs[0].Ports[0].Protocol != corev1.ProtocolTCP || cs[0].Ports[1].Protocol != corev1.ProtocolUDP {
		t.Errorf("ports: %+v", cs[0].Ports)
	}
	// Defaults apply to what was merged in.
	if cs[1].TerminationMessagePath != "/dev/termination-log" || cs[1].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("sidecar not defaulted: %+v", cs[1])
	}
	// The owner re-applying its configuration leaves the injector's items.
	out, err = deps.Apply(ctx, base, metav1.ApplyOptions{FieldManager: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.Spec.Template.Spec.Containers); n != 2 {
		t.Errorf("containers after owner re-apply: %d", n)
	}
	// The injector withdrawing the sidecar removes it.
	out, err = deps.Apply(ctx, dep(container("nginx", "", corev1ac.ContainerPort().WithContainerPort(80).WithProtocol(corev1.ProtocolUDP))),
		metav1.ApplyOptions{FieldManager: "injector"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.Spec.Template.Spec.Containers); n != 1 || len(out.Spec.Template.Spec.Containers[0].Ports) != 2 {
		t.Errorf("after withdrawal: %+v", out.Spec.Template.Spec.Containers)
	}
	if got := strings.Join(managers(out), ","); got != "injector/Apply,owner/Apply" {
		t.Errorf("managers: %s", got)
	}
}

func TestServerSideApplyStatusAndScale(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	deps := clientset(t, cp).AppsV1().Deployments("default")
	base := appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(2).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "web"})).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(map[string]string{"app": "web"}).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("c").WithImage("nginx")))))
	if _, err := deps.Apply(ctx, base, metav1.ApplyOptions{FieldManager: "owner"}); err != nil {
		t.Fatal(err)
	}
	// The deployment controller reports 2 replicas (pods that no kubelet
	// runs) first, as on a cluster; the status applied below says the same.
	waitFor(t, func() bool {
		d, err := deps.Get(ctx, "web", metav1.GetOptions{})
		return err == nil && d.Status.ObservedGeneration == 1 && d.Status.Replicas == 2 && d.Status.UnavailableReplicas == 2
	})
	// Status through /status: spec untouched, recorded with its subresource.
	st, err := deps.ApplyStatus(ctx, appsv1ac.Deployment("web", "default").WithStatus(appsv1ac.DeploymentStatus().WithReplicas(2).WithObservedGeneration(1)),
		metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status.Replicas != 2 || *st.Spec.Replicas != 2 || st.Generation != 1 {
		t.Errorf("status apply: status %+v replicas %d generation %d", st.Status, *st.Spec.Replicas, st.Generation)
	}
	if got := strings.Join(managers(st), ","); got != "controller/Apply/status,owner/Apply" {
		t.Errorf("managers: %s", got)
	}
	// Status in a main-resource apply is not recorded or written.
	main, err := deps.Apply(ctx, base.WithStatus(appsv1ac.DeploymentStatus().WithReplicas(9)), metav1.ApplyOptions{FieldManager: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	if main.Status.Replicas == 9 || strings.Contains(ownedFields(t, main, "owner"), "f:status") {
		t.Errorf("status through main resource: %d, owner owns %s", main.Status.Replicas, ownedFields(t, main, "owner"))
	}

	// The scale subresource sees the owner of spec.replicas.
	_, err = deps.ApplyScale(ctx, "web", autoscalingv1ac.Scale().WithSpec(autoscalingv1ac.ScaleSpec().WithReplicas(5)), metav1.ApplyOptions{FieldManager: "hpa"})
	if !apierrors.IsConflict(err) || err.Error() != `Apply failed with 1 conflict: conflict with "owner": .spec.replicas` {
		t.Fatalf("scale conflict: %v", err)
	}
	sc, err := deps.ApplyScale(ctx, "web", autoscalingv1ac.Scale().WithSpec(autoscalingv1ac.ScaleSpec().WithReplicas(5)), metav1.ApplyOptions{FieldManager: "hpa", Force: true})
	if err != nil || sc.Spec.Replicas != 5 {
		t.Fatalf("forced scale: %v %+v", err, sc)
	}
	got, err := deps.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 5 || strings.Contains(ownedFields(t, got, "owner"), "f:replicas") || ownedFields(t, got, "hpa") != `{"f:spec":{"f:replicas":{}}}` {
		t.Errorf("after scale: replicas %d, owner %s, hpa %s", *got.Spec.Replicas, ownedFields(t, got, "owner"), ownedFields(t, got, "hpa"))
	}
	if m := managers(got); !slices.Contains(m, "hpa/Apply/scale") || !slices.Contains(m, "owner/Apply") {
		t.Errorf("managers after scale: %v", m)
	}
}

func TestManagedFieldsRecordEveryWrite(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cfg := cp.RESTConfig()
	cfg.UserAgent = "my-controller/v1.2.3 (linux/amd64) kubernetes/abcdef"
	cs := kubernetes.NewForConfigOrDie(cfg)
	cms := cs.CoreV1().ConfigMaps("default")

	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(managers(created), ","); got != "my-controller/Update" {
		t.Errorf("create: %s", got)
	}
	e := created.ManagedFields[0]
	if e.APIVersion != "v1" || e.FieldsType != "FieldsV1" || e.Time == nil || string(e.FieldsV1.Raw) != `{"f:data":{".":{},"f:k":{}}}` {
		t.Errorf("create entry: %+v %s", e, e.FieldsV1.Raw)
	}
	created.Data["k2"] = "v2"
	updated, err := cms.Update(ctx, created, metav1.UpdateOptions{FieldManager: "editor"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(managers(updated), ","); got != "editor/Update,my-controller/Update" || ownedFields(t, updated, "editor") != `{"f:data":{"f:k2":{}}}` {
		t.Errorf("update: %s %s", got, ownedFields(t, updated, "editor"))
	}
	patched, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"l":"1"}}}`), metav1.PatchOptions{FieldManager: "labeler"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ownedFields(t, patched, "labeler"); got != `{"f:metadata":{"f:labels":{".":{},"f:l":{}}}}` {
		t.Errorf("patch: %s", got)
	}
	// managedFields are reset by writing a list of one empty entry.
	reset, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"metadata":{"managedFields":[{}]}}`), metav1.PatchOptions{})
	if err != nil || len(reset.ManagedFields) != 0 {
		t.Errorf("reset: %v %v", err, managers(reset))
	}
}

func TestServerSideApplyRequestErrors(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	rc := clientset(t, cp).CoreV1().RESTClient()
	if _, err := clientset(t, cp).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "live"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, obj, query, body string
		pt                     types.PatchType
		code                   int32
		msg                    string
	}{
		{"field manager required", "a", "", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}", types.ApplyPatchType, 422,
			`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"force only for apply", "live", "force=true", `{}`, types.MergePatchType, 422,
			`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`},
		{"name must match", "a", "fieldManager=m", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}", types.ApplyPatchType, 400,
			"the name of the object (b) does not match the name on the URL (a)"},
		{"name required", "a", "fieldManager=m", "apiVersion: v1\nkind: ConfigMap\ndata: {x: \"z\"}", types.ApplyPatchType, 400,
			"the name of the object (a based on URL) was undeterminable: name must be provided"},
		{"namespace must match", "a", "fieldManager=m", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: other}", types.ApplyPatchType, 400,
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"kind must match", "a", "fieldManager=m", "apiVersion: v1\nkind: Secret\nmetadata: {name: a}", types.ApplyPatchType, 400,
			"invalid object type: /v1, Kind=Secret"},
		{"managedFields not allowed", "live", "fieldManager=m", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: live, managedFields: []}", types.ApplyPatchType, 400,
			"metadata.managedFields must be nil"},
		{"unknown field", "a", "fieldManager=m", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nfoo: bar", types.ApplyPatchType, 500,
			"failed to create typed patch object (/a; /v1, Kind=ConfigMap): .foo: field not declared in schema"},
		{"not YAML", "a", "fieldManager=m", "a: [b", types.ApplyPatchType, 400,
			"error encoding patch: yaml: line 1: did not find expected ',' or ']'"},
		{"patch type a built-in route does not consume", "live", "", `{}`, types.PatchType("application/json"), 415,
			"415: Unsupported Media Type"},
		{"duplicate field under Strict", "a", "fieldManager=m&fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1","k":"2"}}`, types.ApplyPatchType, 400,
			"error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key \"k\" already set in map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := rc.Patch(tc.pt).Namespace("default").Resource("configmaps").Name(tc.obj).Body([]byte(tc.body))
			for _, kv := range strings.Split(tc.query, "&") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					req.Param(k, v)
				}
			}
			err := req.Do(ctx).Error()
			var st apierrors.APIStatus
			if !asStatus(err, &st) || st.Status().Code != tc.code || st.Status().Message != tc.msg {
				t.Fatalf("got %v, want %d %q", err, tc.code, tc.msg)
			}
		})
	}
	// Nothing was created by the refused applies.
	l, err := clientset(t, cp).CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range l.Items {
		if cm.Name == "a" || cm.Name == "b" {
			t.Errorf("refused apply created %s", cm.Name)
		}
	}
}

func TestServerSideApplyCustomResources(t *testing.T) {
	t.Parallel()
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("3")}},
							"parts": {
								Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"},
								Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
									Type: "object", Required: []string{"name"},
									Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string"}, "color": {Type: "string"}},
								}},
							},
							"tags": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"ready": {Type: "boolean"}}},
					},
				}},
			}},
		},
	}
	cp := fakeplane.Start(t, fakeplane.WithObjects(crd))
	ctx := ctxT(t)
	widgets := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace("default")
	widget := func(spec, status map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}
		if spec != nil {
			u.Object["spec"] = spec
		}
		if status != nil {
			u.Object["status"] = status
		}
		return u
	}
	out, err := widgets.Apply(ctx, "w", widget(map[string]any{"parts": []any{map[string]any{"name": "a", "color": "red"}}, "tags": []any{"x"}}, nil),
		metav1.ApplyOptions{FieldManager: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(out.Object, "spec", "size"); size != 3 {
		t.Errorf("default not applied: %v", out.Object["spec"])
	}
	// The list-map merges by name; the atomic list is replaced whole.
	out, err = widgets.Apply(ctx, "w", widget(map[string]any{"parts": []any{map[string]any{"name": "b"}}}, nil), metav1.ApplyOptions{FieldManager: "two"})
	if err != nil {
		t.Fatal(err)
	}
	parts, _, _ := unstructured.NestedSlice(out.Object, "spec", "parts")
	if len(parts) != 2 {
		t.Errorf("parts: %v", parts)
	}
	_, err = widgets.Apply(ctx, "w", widget(map[string]any{"tags": []any{"y"}}, nil), metav1.ApplyOptions{FieldManager: "two"})
	if !apierrors.IsConflict(err) || err.Error() != `Apply failed with 1 conflict: conflict with "one": .spec.tags` {
		t.Errorf("atomic list conflict: %v", err)
	}
	// Status applies through /status only.
	out, err = widgets.ApplyStatus(ctx, "w", widget(nil, map[string]any{"ready": true}), metav1.ApplyOptions{FieldManager: "ctl"})
	if err != nil {
		t.Fatal(err)
	}
	if ready, _, _ := unstructured.NestedBool(out.Object, "status", "ready"); !ready {
		t.Errorf("status: %v", out.Object["status"])
	}
	if got := strings.Join(managers(out), ","); got != "ctl/Apply/status,one/Apply,two/Apply" {
		t.Errorf("managers: %s", got)
	}
	// Unknown fields are not in the schema.
	_, err = widgets.Apply(ctx, "w", widget(map[string]any{"bogus": 1}, nil), metav1.ApplyOptions{FieldManager: "one"})
	var st apierrors.APIStatus
	if !asStatus(err, &st) || st.Status().Code != 500 || st.Status().Reason != "" || !strings.Contains(err.Error(), ".spec.bogus: field not declared in schema") {
		t.Errorf("unknown field: %v", err)
	}
}

func TestKubectlServerSideApply(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	dir := t.TempDir()
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`
	two := writeFile(t, dir, "web.yaml", manifest)
	three := writeFile(t, dir, "web3.yaml", strings.Replace(manifest, "replicas: 2", "replicas: 3", 1))

	wantLine(t, "apply", mustKubectl(t, cp, "apply", "-f", two), "deployment.apps/web created")
	wantLine(t, "ssa", mustKubectl(t, cp, "apply", "--server-side", "-f", two), "deployment.apps/web serverside-applied")
	wantLine(t, "ssa again", mustKubectl(t, cp, "apply", "--server-side", "-f", two), "deployment.apps/web serverside-applied")
	stderr := failKubectl(t, cp, "apply", "--server-side", "--field-manager=other", "-f", three)
	wantErrLine(t, "conflict", stderr, `error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`)
	wantLine(t, "forced", mustKubectl(t, cp, "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", three), "deployment.apps/web serverside-applied")
	// The migration from client-side apply hands the fields to kubectl-last-applied, as upstream.
	if got := withoutControllerManager(jsonpath(t, cp, `{range .metadata.managedFields[*]}{.manager}/{.operation} {end}`, "deployment", "web")); got != "kubectl-last-applied/Apply kubectl/Apply other/Apply " {
		t.Errorf("managers: %q", got)
	}
	wantLine(t, "client-side apply", mustKubectl(t, cp, "apply", "-f", two), "deployment.apps/web configured")
	if got := withoutControllerManager(jsonpath(t, cp, `{.spec.replicas} {range .metadata.managedFields[*]}{.manager}/{.operation} {end}`, "deployment", "web")); got != "2 kubectl/Apply other/Apply kubectl-client-side-apply/Update " {
		t.Errorf("after client-side apply: %q", got)
	}
	// diff --server-side shows what an apply would change.
	stdout, _, _ := kubectl(t, cp, "diff", "--server-side", "-f", three)
	wantLine(t, "diff", stdout, `-  replicas: 2`)
	wantLine(t, "diff", stdout, `\+  replicas: 3`)
}

// TestAppliedObjectRoundTrips checks that an applied Deployment decodes as
// its typed form with the applied values.
func TestAppliedObjectRoundTrips(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	body, err := json.Marshal(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d"},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"a": "b"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := clientset(t, cp).AppsV1().RESTClient().Patch(types.ApplyPatchType).Namespace("default").Resource("deployments").Name("d").
		Param("fieldManager", "m").Body(body).Do(ctx).Into(&d); err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || d.Generation != 1 || d.UID == "" {
		t.Errorf("applied deployment: replicas %d strategy %q generation %d uid %q", *d.Spec.Replicas, d.Spec.Strategy.Type, d.Generation, d.UID)
	}
}

func TestServerSideApplyAcrossCRDVersions(t *testing.T) {
	t.Parallel()
	props := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"a": {Type: "string"}, "b": {Type: "string"}}},
	}}}
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: props},
				{Name: "v2", Served: true, Schema: props},
			},
		},
	}
	cp := fakeplane.Start(t, fakeplane.WithObjects(crd))
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	thing := func(version, field string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/" + version, "kind": "Thing",
			"metadata": map[string]any{"name": "t"}, "spec": map[string]any{field: version}}}
	}
	for _, step := range []struct{ version, field, manager string }{{"v2", "a", "two"}, {"v1", "b", "one"}} {
		res := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: step.version, Resource: "things"}).Namespace("default")
		if _, err := res.Apply(ctx, "t", thing(step.version, step.field), metav1.ApplyOptions{FieldManager: step.manager}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "things"}).Namespace("default").Get(ctx, "t", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, e := range got.GetManagedFields() {
		entries = append(entries, e.Manager+"@"+e.APIVersion+string(e.FieldsV1.Raw))
	}
	sort.Strings(entries)
	if want := `one@example.com/v1{"f:spec":{"f:b":{}}} two@example.com/v2{"f:spec":{"f:a":{}}}`; strings.Join(entries, " ") != want {
		t.Errorf("managed fields: %v, want %s", entries, want)
	}
}

// TestManagedFieldsOrder: entries are ordered as upstream's field manager
// orders them (sortEncodedManagedFields): Apply before Update, then by
// time, manager name, apiVersion and subresource.
func TestManagedFieldsOrder(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cms := clientset(t, cp).CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"u": "1"}}, metav1.CreateOptions{FieldManager: "zeta-updater"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"beta-applier", "alpha-applier"} {
		patch := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"` + m + `":"1"}}`
		if _, err := cms.Patch(ctx, "a", types.ApplyPatchType, []byte(patch), metav1.PatchOptions{FieldManager: m}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"l":"1"}}}`), metav1.PatchOptions{FieldManager: "alpha-updater"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range got.ManagedFields {
		order = append(order, e.Manager+"/"+string(e.Operation))
	}
	// Within one second the time ties, so the names decide; a write that
	// crosses a second boundary orders by time, as upstream's does.
	want := "alpha-applier/Apply,beta-applier/Apply,alpha-updater/Update,zeta-updater/Update"
	sameSecond := true
	for _, e := range got.ManagedFields[1:] {
		sameSecond = sameSecond && e.Time.Equal(got.ManagedFields[0].Time)
	}
	if sameSecond && strings.Join(order, ",") != want {
		t.Errorf("managedFields order %s, want %s", strings.Join(order, ","), want)
	}
	if !strings.HasSuffix(order[0], "/Apply") || !strings.HasSuffix(order[1], "/Apply") || !strings.HasSuffix(order[2], "/Update") || !strings.HasSuffix(order[3], "/Update") {
		t.Errorf("managedFields order %s: Apply entries must come first", strings.Join(order, ","))
	}
}
