package fakeplane_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/store"
)

// costlySelector is a device selector that compiles but whose estimated
// worst-case cost (four nested loops over a device's attributes) is over
// resource.k8s.io's limit for one selector.
const costlySelector = `device.attributes["a.example.com"].all(p, device.attributes["b.example.com"].all(q, device.attributes["c.example.com"].all(r, device.attributes["d.example.com"].all(s, p == s))))`

// TestResourceCELSelectorValidation creates resource.k8s.io objects whose
// device selectors' CEL expressions kube-apiserver v1.37 rejects: ones
// that do not compile (an undeclared reference or field, a syntax error,
// a result that is not a bool), one too costly, one too long, in device
// classes, claims (exact requests and subrequests) and claim templates,
// and an update of a class to such a selector.
func TestResourceCELSelectorValidation(t *testing.T) {
	tooLong := `device.driver == "` + strings.Repeat("x", resourcev1.CELSelectorExpressionMaxLength-len(`device.driver == ""`)+1) + `"`
	runValidationCases(t, []validationCase{
		{name: "class selector with an undeclared reference",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-val-1}
spec:
  selectors: [{cel: {expression: 'device.driver == "a"'}}, {cel: {expression: 'gpu.memory > 1'}}]`,
			want: "DeviceClass.resource.k8s.io \"cel-val-1\" is invalid: spec.selectors[1].cel.expression: Invalid value: \"gpu.memory > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'gpu' (in container '')\n | gpu.memory > 1\n | ^"},
		{name: "class selector with a syntax error and an undefined field",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-val-2}
spec:
  selectors: [{cel: {expression: 'device.driver =='}}, {cel: {expression: 'device.vendor == "a"'}}]`,
			want: "DeviceClass.resource.k8s.io \"cel-val-2\" is invalid: [spec.selectors[0].cel.expression: Invalid value: \"device.driver ==\": compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | device.driver ==\n | ................^, spec.selectors[1].cel.expression: Invalid value: \"device.vendor == \\\"a\\\"\": compilation failed: ERROR: <input>:1:7: undefined field 'vendor'\n | device.vendor == \"a\"\n | ......^]"},
		{name: "class selector that is not a bool",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-val-3}
spec:
  selectors: [{cel: {expression: 'device.driver'}}]`,
			want: "DeviceClass.resource.k8s.io \"cel-val-3\" is invalid: spec.selectors[0].cel.expression: Invalid value: \"device.driver\": must evaluate to bool or the unknown type, not string"},
		{name: "class selector too costly",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-val-4}
spec:
  selectors: [{cel: {expression: '` + costlySelector + `'}}]`,
			want: "DeviceClass.resource.k8s.io \"cel-val-4\" is invalid: spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit"},
		{name: "class selector too long",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-val-5}
spec:
  selectors: [{cel: {expression: '` + tooLong + `'}}]`,
			want: "DeviceClass.resource.k8s.io \"cel-val-5\" is invalid: spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"},
		{name: "class update to a selector that does not compile",
			before: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-val-6}
spec:
  selectors: [{cel: {expression: 'device.driver == "a"'}}]`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-val-6}
spec:
  selectors: [{cel: {expression: 'device.driver == 1'}}]`,
			want: "DeviceClass.resource.k8s.io \"cel-val-6\" is invalid: spec.selectors[0].cel.expression: Invalid value: \"device.driver == 1\": compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'\n | device.driver == 1\n | ..............^"},
		{name: "claim selectors of requests and subrequests",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: cel-val-7}
spec:
  devices:
    requests:
    - name: a
      exactly:
        deviceClassName: gpu
        selectors: [{cel: {expression: '` + costlySelector + `'}}, {cel: {expression: 'device.attributes[1].model'}}]
    - name: b
      firstAvailable:
      - {name: x, deviceClassName: gpu, selectors: [{cel: {expression: 'device.allowMultipleAllocations'}}]}
      - {name: "y", deviceClassName: gpu, selectors: [{cel: {expression: 'size(device.capacity) +'}}]}`,
			want: "ResourceClaim.resource.k8s.io \"cel-val-7\" is invalid: [spec.devices.requests[0].exactly.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit, spec.devices.requests[0].exactly.selectors[1].cel.expression: Invalid value: \"device.attributes[1].model\": compilation failed: ERROR: <input>:1:18: found no matching overload for '_[_]' applied to '(map(string, map(string, any)), int)'\n | device.attributes[1].model\n | .................^, spec.devices.requests[1].firstAvailable[1].selectors[0].cel.expression: Invalid value: \"size(device.capacity) +\": compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | size(device.capacity) +\n | .......................^]"},
		{name: "claim template selector that is not a bool",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: cel-val-8}
spec:
  spec:
    devices:
      requests: [{name: a, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: 'size(device.attributes)'}}]}}]`,
			want: "ResourceClaimTemplate.resource.k8s.io \"cel-val-8\" is invalid: spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: \"size(device.attributes)\": must evaluate to bool or the unknown type, not int"},
	})
}

// TestResourceCELSelectorsValid creates device classes, claims and claim
// templates whose selectors compile (attributes, capacities as
// quantities, versions, and allowMultipleAllocations, which consumable
// capacity declares): kube-apiserver v1.37 stores them.
func TestResourceCELSelectorsValid(t *testing.T) {
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	if _, err := cs.CoreV1().Namespaces().Create(ctxT(t), nsObj("val-ref"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	objs := []string{`
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-ok-1}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"'}
  - cel: {expression: 'device.attributes["gpu.example.com"].?ver.orValue(semver("0.0.1")).isGreaterThan(semver("1.0.0"))'}`, `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: cel-ok-2}
spec:
  devices:
    requests:
    - name: a
      exactly:
        deviceClassName: gpu
        selectors: [{cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0'}}]
    - name: b
      firstAvailable: [{name: x, deviceClassName: gpu, selectors: [{cel: {expression: 'device.allowMultipleAllocations'}}]}]`, `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: cel-ok-3}
spec:
  spec:
    devices:
      requests: [{name: a, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].exists(k, k == "model")'}}]}}]`}
	create := func(t *testing.T, where string, cs kubernetes.Interface, ns string) {
		for _, doc := range objs {
			obj := decodeYAML(t, doc)
			ops := typedOpsFor(t, cs, ns, obj)
			name := mustMeta(t, obj).GetName()
			t.Cleanup(func() { cleanup(ops, name) })
			if _, err := ops.create(ctxT(t), obj); err != nil {
				t.Errorf("%s: %s: %v", where, name, err)
			}
		}
	}
	create(t, "fakeplane", cs, "val-ref")
	if ref, ns := refCluster(t); ref != nil {
		create(t, "reference", ref, ns)
	}
}

// TestResourceCELStoredSelectorsKept checks the ratcheting of a device
// class's selectors: an update that keeps them as they are stored is not
// held to their compilation (a stored expression was valid when it was
// written), while one that changes any selector compiles them all. The
// stored selector that no longer compiles is written behind the control
// plane's back.
func TestResourceCELStoredSelectorsKept(t *testing.T) {
	dir := t.TempDir()
	ctx := ctxDataDir(t)
	start := func() (*fakeplane.ControlPlane, kubernetes.Interface) {
		cp, err := fakeplane.New(fakeplane.WithDataDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Start(ctx); err != nil {
			t.Fatal(err)
		}
		return cp, clientset(t, cp)
	}
	cp, cs := start()
	class := decodeYAML(t, `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: cel-stored}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]`).(*resourcev1.DeviceClass)
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}

	st, err := store.Open(filepath.Join(dir, "fakeplane.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Update("resource.k8s.io/deviceclasses", "cel-stored", func(cur *store.Object) (store.Write, error) {
		v := bytes.Replace(cur.Value, []byte(`device.driver == \"gpu.example.com\"`), []byte(`device.model == \"a100\"`), 1)
		if bytes.Equal(v, cur.Value) {
			t.Errorf("the stored class has no selector to replace: %s", cur.Value)
		}
		return store.Write{Value: v}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	cp, cs = start()
	defer cp.Stop()
	classes := cs.ResourceV1().DeviceClasses()
	for _, tc := range []struct {
		name   string
		change func(*resourcev1.DeviceClass)
		want   string
	}{
		{name: "selectors kept", change: func(c *resourcev1.DeviceClass) { c.Labels = map[string]string{"a": "b"} }},
		{name: "a selector added",
			change: func(c *resourcev1.DeviceClass) {
				c.Spec.Selectors = append(c.Spec.Selectors, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: "true"}})
			},
			want: "DeviceClass.resource.k8s.io \"cel-stored\" is invalid: spec.selectors[0].cel.expression: Invalid value: \"device.model == \\\"a100\\\"\": compilation failed: ERROR: <input>:1:7: undefined field 'model'\n | device.model == \"a100\"\n | ......^"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur, err := classes.Get(ctx, "cel-stored", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := cur.Spec.Selectors[0].CEL.Expression; got != `device.model == "a100"` {
				t.Fatalf("stored selector %q", got)
			}
			tc.change(cur)
			_, err = classes.Update(ctx, cur, metav1.UpdateOptions{})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("update rejected: %v", err)
			case tc.want != "" && (!apierrors.IsInvalid(err) || err.Error() != tc.want):
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}
