package fakeplane_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// validationCase is an object kube-apiserver rejects: obj is created, or,
// with before, before is created and obj (same name) updates it. want is
// the 422's message as a real kube-apiserver v1.37 answers it.
type validationCase struct {
	name   string
	before string
	obj    string
	// change, with before, makes the update from the stored object
	// instead of obj (which then only names the kind and the object).
	change func(runtime.Object)
	// status sends the update to the status subresource.
	status bool
	want   string
}

// typedClient is what the typed clients of client-go have in common.
type typedClient[T runtime.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

// typedOps are a typed client's calls on runtime.Object.
type typedOps struct {
	create, update, updateStatus func(context.Context, runtime.Object) (runtime.Object, error)
	get                          func(context.Context, string) (runtime.Object, error)
	del                          func(context.Context, string) error
}

// statusClient is what typed clients of resources with a status have.
type statusClient[T runtime.Object] interface {
	UpdateStatus(context.Context, T, metav1.UpdateOptions) (T, error)
}

func opsOf[T runtime.Object](c typedClient[T]) typedOps {
	var updateStatus func(context.Context, runtime.Object) (runtime.Object, error)
	if sc, ok := any(c).(statusClient[T]); ok {
		updateStatus = func(ctx context.Context, o runtime.Object) (runtime.Object, error) {
			return sc.UpdateStatus(ctx, o.(T), metav1.UpdateOptions{})
		}
	}
	return typedOps{
		updateStatus: updateStatus,
		create: func(ctx context.Context, o runtime.Object) (runtime.Object, error) {
			return c.Create(ctx, o.(T), metav1.CreateOptions{})
		},
		update: func(ctx context.Context, o runtime.Object) (runtime.Object, error) {
			return c.Update(ctx, o.(T), metav1.UpdateOptions{})
		},
		get: func(ctx context.Context, name string) (runtime.Object, error) {
			return c.Get(ctx, name, metav1.GetOptions{})
		},
		del: func(ctx context.Context, name string) error {
			// Background: a cluster without a garbage collector would keep
			// an orphaning deletion waiting on its finalizer.
			bg := metav1.DeletePropagationBackground
			return c.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &bg})
		},
	}
}

// typedOpsFor picks the typed client of obj's kind in namespace ns.
func typedOpsFor(t *testing.T, cs kubernetes.Interface, ns string, obj runtime.Object) typedOps {
	t.Helper()
	switch kind := obj.GetObjectKind().GroupVersionKind().Kind; kind {
	case "ConfigMap":
		return opsOf(cs.CoreV1().ConfigMaps(ns))
	case "Secret":
		return opsOf(cs.CoreV1().Secrets(ns))
	case "Pod":
		return opsOf(cs.CoreV1().Pods(ns))
	case "Service":
		return opsOf(cs.CoreV1().Services(ns))
	case "ReplicationController":
		return opsOf(cs.CoreV1().ReplicationControllers(ns))
	case "PodTemplate":
		return opsOf(cs.CoreV1().PodTemplates(ns))
	case "PersistentVolumeClaim":
		return opsOf(cs.CoreV1().PersistentVolumeClaims(ns))
	case "Endpoints":
		return opsOf(cs.CoreV1().Endpoints(ns)) //nolint:staticcheck // still served
	case "LimitRange":
		return opsOf(cs.CoreV1().LimitRanges(ns))
	case "ResourceQuota":
		return opsOf(cs.CoreV1().ResourceQuotas(ns))
	case "NetworkPolicy":
		return opsOf(cs.NetworkingV1().NetworkPolicies(ns))
	case "Ingress":
		return opsOf(cs.NetworkingV1().Ingresses(ns))
	case "PodDisruptionBudget":
		return opsOf(cs.PolicyV1().PodDisruptionBudgets(ns))
	case "HorizontalPodAutoscaler":
		return opsOf(cs.AutoscalingV2().HorizontalPodAutoscalers(ns))
	case "StorageClass":
		return opsOf(cs.StorageV1().StorageClasses())
	case "Node":
		return opsOf(cs.CoreV1().Nodes())
	case "PersistentVolume":
		return opsOf(cs.CoreV1().PersistentVolumes())
	case "CertificateSigningRequest":
		return opsOf(cs.CertificatesV1().CertificateSigningRequests())
	case "EndpointSlice":
		return opsOf(cs.DiscoveryV1().EndpointSlices(ns))
	case "PriorityClass":
		return opsOf(cs.SchedulingV1().PriorityClasses())
	case "ValidatingAdmissionPolicy":
		return opsOf(cs.AdmissionregistrationV1().ValidatingAdmissionPolicies())
	case "ValidatingAdmissionPolicyBinding":
		return opsOf(cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings())
	case "MutatingAdmissionPolicy":
		return opsOf(cs.AdmissionregistrationV1().MutatingAdmissionPolicies())
	case "MutatingAdmissionPolicyBinding":
		return opsOf(cs.AdmissionregistrationV1().MutatingAdmissionPolicyBindings())
	case "ValidatingWebhookConfiguration":
		return opsOf(cs.AdmissionregistrationV1().ValidatingWebhookConfigurations())
	case "MutatingWebhookConfiguration":
		return opsOf(cs.AdmissionregistrationV1().MutatingWebhookConfigurations())
	case "Event":
		if obj.GetObjectKind().GroupVersionKind().Group == "events.k8s.io" {
			return opsOf(cs.EventsV1().Events(ns))
		}
		return opsOf(cs.CoreV1().Events(ns))
	case "Deployment":
		return opsOf(cs.AppsV1().Deployments(ns))
	case "ReplicaSet":
		return opsOf(cs.AppsV1().ReplicaSets(ns))
	case "StatefulSet":
		return opsOf(cs.AppsV1().StatefulSets(ns))
	case "DaemonSet":
		return opsOf(cs.AppsV1().DaemonSets(ns))
	case "Job":
		return opsOf(cs.BatchV1().Jobs(ns))
	case "CronJob":
		return opsOf(cs.BatchV1().CronJobs(ns))
	case "Lease":
		return opsOf(cs.CoordinationV1().Leases(ns))
	case "Role":
		return opsOf(cs.RbacV1().Roles(ns))
	case "ClusterRole":
		return opsOf(cs.RbacV1().ClusterRoles())
	case "RoleBinding":
		return opsOf(cs.RbacV1().RoleBindings(ns))
	case "ClusterRoleBinding":
		return opsOf(cs.RbacV1().ClusterRoleBindings())
	case "DeviceClass":
		return opsOf(cs.ResourceV1().DeviceClasses())
	case "DeviceTaintRule":
		return opsOf(cs.ResourceV1().DeviceTaintRules())
	case "ResourceClaim":
		return opsOf(cs.ResourceV1().ResourceClaims(ns))
	case "ResourceClaimTemplate":
		return opsOf(cs.ResourceV1().ResourceClaimTemplates(ns))
	case "ResourceSlice":
		return opsOf(cs.ResourceV1().ResourceSlices())
	case "StorageVersionMigration":
		return opsOf(cs.StoragemigrationV1().StorageVersionMigrations())
	default:
		t.Fatalf("no typed client for kind %q", kind)
		return typedOps{}
	}
}

func decodeYAML(t *testing.T, s string) runtime.Object {
	t.Helper()
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(strings.TrimSpace(s)), nil, nil)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return obj
}

// refCluster is the cluster FAKEPLANE_REF_KUBECONFIG points at, a real
// kube-apiserver the same cases run against to check the recorded
// messages (its namespace FAKEPLANE_REF_NAMESPACE, default val-ref, must
// exist with a ServiceAccount "default").
func refCluster(t *testing.T) (kubernetes.Interface, string) {
	path := os.Getenv("FAKEPLANE_REF_KUBECONFIG")
	if path == "" {
		return nil, ""
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := os.Getenv("FAKEPLANE_REF_NAMESPACE")
	if ns == "" {
		ns = "val-ref"
	}
	return cs, ns
}

// runValidationCases runs cases against a fresh fakeplane, and against the
// reference cluster too when there is one.
func runValidationCases(t *testing.T, cases []validationCase) {
	t.Helper()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	// The reference's namespace name, so that messages naming it agree.
	if _, err := cs.CoreV1().Namespaces().Create(ctx, nsObj("val-ref"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runCasesOn(t, "fakeplane", cs, "val-ref", cases)
	if ref, ns := refCluster(t); ref != nil {
		runCasesOn(t, "reference", ref, ns, cases)
	}
}

func runCasesOn(t *testing.T, where string, cs kubernetes.Interface, ns string, cases []validationCase) {
	ctx := ctxT(t)
	for _, tc := range cases {
		t.Run(where+"/"+tc.name, func(t *testing.T) {
			obj := decodeYAML(t, tc.obj)
			ops := typedOpsFor(t, cs, ns, obj)
			name := mustMeta(t, obj).GetName()
			t.Cleanup(func() { cleanup(ops, name) })
			var stored runtime.Object
			if tc.before != "" {
				var err error
				if stored, err = ops.create(ctx, decodeYAML(t, tc.before)); err != nil {
					t.Fatalf("create before: %v", err)
				}
			}
			// An update is made on the stored object and made again on a
			// Conflict: a controller (the deployment controller, writing
			// the status) may write the object meanwhile, as on a cluster.
			var err error
			for range 10 {
				obj := decodeYAML(t, tc.obj)
				if tc.before != "" {
					mustMeta(t, obj).SetResourceVersion(mustMeta(t, stored).GetResourceVersion())
				}
				if tc.change != nil {
					obj = stored.DeepCopyObject()
					tc.change(obj)
				}
				if tc.status {
					_, err = ops.updateStatus(ctx, obj)
				} else if tc.before != "" {
					_, err = ops.update(ctx, obj)
				} else {
					_, err = ops.create(ctx, obj)
				}
				if tc.before == "" || !apierrors.IsConflict(err) {
					break
				}
				if stored, err = ops.get(ctx, name); err != nil {
					t.Fatal(err)
				}
			}
			if !apierrors.IsInvalid(err) || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s\n(Go: %q)", err, tc.want, fmt.Sprint(err))
			}
			cur, gerr := ops.get(ctx, name)
			switch {
			case tc.before == "" && !apierrors.IsNotFound(gerr):
				t.Errorf("the rejected object was stored: %v", gerr)
			case tc.before != "" && (gerr != nil || !unchangedButByControllers(t, cur, stored)):
				t.Errorf("the rejected update was stored: %v", gerr)
			}
		})
	}
}

// unchangedButByControllers reports whether cur is stored as it was, or
// changed by kube-controller-manager alone (the deployment controller
// writes a Deployment's status and revision annotation meanwhile, as on a
// cluster): the same spec, and no other field manager's write since.
func unchangedButByControllers(t *testing.T, cur, stored runtime.Object) bool {
	t.Helper()
	cm, sm := mustMeta(t, cur), mustMeta(t, stored)
	if cm.GetResourceVersion() == sm.GetResourceVersion() {
		return true
	}
	cu, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cur)
	if err != nil {
		t.Fatal(err)
	}
	su, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stored)
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(cu["spec"], su["spec"]) || cm.GetGeneration() != sm.GetGeneration() {
		return false
	}
	before := map[string]bool{}
	for _, e := range sm.GetManagedFields() {
		before[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource+"/"+e.Time.String()] = true
	}
	for _, e := range cm.GetManagedFields() {
		// kube-controller-manager's controllers write under its name, but
		// the device taint eviction controller applies DeviceTaintRules'
		// status under its own.
		if !before[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource+"/"+e.Time.String()] &&
			e.Manager != "kube-controller-manager" && e.Manager != "device-taint-eviction-controller" {
			return false
		}
	}
	return true
}

// cleanup deletes an object a case made, and takes off the finalizers a
// cluster without controllers (the reference) would keep it for.
func cleanup(ops typedOps, name string) {
	ctx := context.Background()
	_ = ops.del(ctx, name)
	if o, err := ops.get(ctx, name); err == nil {
		if m, err := meta.Accessor(o); err == nil && len(m.GetFinalizers()) > 0 {
			m.SetFinalizers(nil)
			_, _ = ops.update(ctx, o)
		}
	}
}

func mustMeta(t *testing.T, obj runtime.Object) metav1.Object {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func nsObj(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// keyMsg is IsConfigMapKey's message.
const keyMsg = `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`

func TestConfigMapSecretValidation(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	runValidationCases(t, []validationCase{
		{name: "configmap key and name", obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: Bad_Name}
data: {"a b": x}`,
			want: `ConfigMap "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), data[a b]: Invalid value: "a b": ` + keyMsg + `]`},
		{name: "configmap binaryData key", obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {a: x}
binaryData: {a: eA==, "..": eA==}`,
			want: `ConfigMap "c" is invalid: [data[a]: Invalid value: "a": duplicate of key present in binaryData, binaryData[..]: Invalid value: "..": must not be '..']`},
		{name: "configmap too big", obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {a: ` + big + `, b: z}`,
			want: `ConfigMap "c" is invalid: []: Too long: may not be more than 1048576 bytes`},
		{name: "configmap immutable", before: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
immutable: true
data: {a: b}`, obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
immutable: false
data: {a: c}
binaryData: {x: YQ==}`,
			want: "ConfigMap \"c\" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set, binaryData: Forbidden: field is immutable when `immutable` is set]"},
		{name: "configmap update label and key", before: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {a: b}`, obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c, labels: {"bad label": x}}
data: {"a b": b}`,
			want: `ConfigMap "c" is invalid: [metadata.labels: Invalid value: "bad label": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), data[a b]: Invalid value: "a b": ` + keyMsg + `]`},
		{name: "secret tls too big", obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/tls
stringData: {a: ` + big + `, "b c": z}`,
			want: `Secret "s" is invalid: [data[b c]: Invalid value: "b c": ` + keyMsg + `, data: Too long: may not be more than 1048576 bytes, data[tls.crt]: Required value, data[tls.key]: Required value]`},
		{name: "secret basic-auth", obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/basic-auth
data: {x: YQ==}`,
			want: `Secret "s" is invalid: [data[username]: Required value, data[password]: Required value]`},
		{name: "secret ssh-auth", obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/ssh-auth
stringData: {ssh-privatekey: ""}`,
			want: `Secret "s" is invalid: data[ssh-privatekey]: Required value`},
		{name: "secret dockerconfigjson missing", obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/dockerconfigjson`,
			want: `Secret "s" is invalid: data[.dockerconfigjson]: Required value`},
		{name: "secret dockerconfigjson not json", obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/dockerconfigjson
stringData: {.dockerconfigjson: "{x"}`,
			want: `Secret "s" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'x' looking for beginning of object key string`},
		{name: "secret dockercfg not an object", obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/dockercfg
stringData: {.dockercfg: "[]"}`,
			want: `Secret "s" is invalid: data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}`},
		{name: "secret service-account-token", obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/service-account-token`,
			want: `Secret "s" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value`},
		{name: "secret type and immutable", before: `
apiVersion: v1
kind: Secret
metadata: {name: s}
immutable: true
data: {a: YQ==}`, obj: `
apiVersion: v1
kind: Secret
metadata: {name: s}
type: kubernetes.io/basic-auth
data: {b: YQ==}`,
			want: "Secret \"s\" is invalid: [type: Invalid value: \"kubernetes.io/basic-auth\": field is immutable, immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set, data[username]: Required value, data[password]: Required value]"},
	})
}

const dns1123LabelMsg = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`

func TestPodValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "no containers", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {}`,
			want: `Pod "p" is invalid: spec.containers: Required value`},
		{name: "container names and images", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers: [{name: c, image: x, livenessProbe: {exec: {command: [a]}}}]
  containers:
  - {name: Bad_Name}
  - {name: c, image: x}
  - {name: c, image: z}`,
			want: `Pod "p" is invalid: [spec.containers[0].name: Invalid value: "Bad_Name": ` + dns1123LabelMsg + `, spec.containers[0].image: Required value, spec.containers[2].name: Duplicate value: "c", spec.initContainers[0].name: Duplicate value: "c", spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always]`},
		{name: "ports", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: x
    ports:
    - {containerPort: 0, name: http}
    - {containerPort: 70000, name: http, protocol: ICMP, hostPort: -1}
    - {containerPort: 80, name: Bad-Port-Name-Too-Long}`,
			want: `Pod "p" is invalid: [spec.containers[0].ports[0].containerPort: Required value, spec.containers[0].ports[1].name: Duplicate value: "http", spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive, spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP", spec.containers[0].ports[2].name: Invalid value: "Bad-Port-Name-Too-Long": must be no more than 15 characters, spec.containers[0].ports[2].name: Invalid value: "Bad-Port-Name-Too-Long": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)]`},
		{name: "env and mounts", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  volumes: [{name: v, emptyDir: {}}]
  containers:
  - name: c
    image: x
    env:
    - {name: ""}
    - {name: "a=b"}
    - {name: A, value: x, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
    - {name: B, valueFrom: {}}
    volumeMounts:
    - {name: missing, mountPath: /a}
    - {name: v, mountPath: ""}
    - {name: v, mountPath: /a, subPath: x, subPathExpr: z}`,
			want: "Pod \"p\" is invalid: [spec.containers[0].env[0].name: Required value, spec.containers[0].env[1].name: Invalid value: \"a=b\": a valid environment variable name must consist only of printable ASCII characters other than '=', spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty, spec.containers[0].env[3].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`, spec.containers[0].volumeMounts[0].name: Not found: \"missing\", spec.containers[0].volumeMounts[1].mountPath: Required value, spec.containers[0].volumeMounts[2].mountPath: Invalid value: \"/a\": must be unique, spec.containers[0].volumeMounts[2].subPathExpr: Invalid value: \"z\": subPathExpr and subPath are mutually exclusive]"},
		{name: "volumes", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  volumes:
  - {name: v1, emptyDir: {}}
  - {name: v1, emptyDir: {}}
  - {name: Bad_Vol, emptyDir: {}}
  - {name: two, emptyDir: {}, hostPath: {path: /x}}
  - {name: s, secret: {}}
  - {name: c, configMap: {}}
  containers: [{name: c, image: x}]`,
			want: `Pod "p" is invalid: [spec.volumes[1].name: Duplicate value: "v1", spec.volumes[2].name: Invalid value: "Bad_Vol": ` + dns1123LabelMsg + `, spec.volumes[3].hostPath: Forbidden: may not specify more than 1 volume type, spec.volumes[4].secret.secretName: Required value, spec.volumes[5].configMap.name: Required value]`},
		{name: "volume items modes and sub paths", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  volumes:
  - {name: s, secret: {secretName: s, defaultMode: 1000, items: [{key: "", path: ""}, {key: k, path: /abs}, {key: k, path: "a/../b", mode: -1}, {key: k, path: "..x"}]}}
  - {name: c, configMap: {name: c, items: [{key: k, path: "../up"}]}}
  - {name: h, hostPath: {path: "/a/../b", type: Weird}}
  containers:
  - name: c
    image: x
    volumeMounts:
    - {name: s, mountPath: /s, subPath: /abs}
    - {name: c, mountPath: /c, subPathExpr: "a/../b"}`,
			want: "Pod \"p\" is invalid: [spec.volumes[0].secret.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive, spec.volumes[0].secret.items[0].key: Required value, spec.volumes[0].secret.items[0].path: Required value, spec.volumes[0].secret.items[1].path: Invalid value: \"/abs\": must be a relative path, spec.volumes[0].secret.items[2].path: Invalid value: \"a/../b\": must not contain '..', spec.volumes[0].secret.items[2].mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive, spec.volumes[0].secret.items[3].path: Invalid value: \"..x\": must not start with '..', spec.volumes[1].configMap.items[0].path: Invalid value: \"../up\": must not contain '..', spec.volumes[2].hostPath.path: Invalid value: \"/a/../b\": must not contain '..', spec.volumes[2].hostPath.type: Unsupported value: \"Weird\": supported values: \"\", \"BlockDevice\", \"CharDevice\", \"Directory\", \"DirectoryOrCreate\", \"File\", \"FileOrCreate\", \"Socket\", spec.containers[0].volumeMounts[0].name: Not found: \"s\", spec.containers[0].volumeMounts.subPath: Invalid value: \"/abs\": must be a relative path, spec.containers[0].volumeMounts[1].name: Not found: \"c\", spec.containers[0].volumeMounts.subPathExpr: Invalid value: \"a/../b\": must not contain '..']"},
		{name: "env value sources", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: x
    env:
    - {name: A, valueFrom: {fieldRef: {fieldPath: metadata.foo}}}
    - {name: B, valueFrom: {fieldRef: {fieldPath: "metadata.labels['bad key!']"}}}
    - {name: C, valueFrom: {fieldRef: {fieldPath: status.phase}}}
    - {name: D, valueFrom: {fieldRef: {fieldPath: "spec.nodeName['x']"}}}
    - {name: E, valueFrom: {resourceFieldRef: {resource: limits.gpu}}}
    - {name: F, valueFrom: {configMapKeyRef: {name: "", key: "a b"}}}
    - {name: G, valueFrom: {secretKeyRef: {name: "Bad_Name", key: ""}}}
    - {name: H, valueFrom: {fieldRef: {apiVersion: v2, fieldPath: metadata.name}}}`,
			want: "Pod \"p\" is invalid: [spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: \"metadata.foo\": error converting fieldPath: field label not supported: metadata.foo, spec.containers[0].env[1].valueFrom.fieldRef: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Unsupported value: \"status.phase\": supported values: \"metadata.name\", \"metadata.namespace\", \"metadata.uid\", \"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", \"status.hostIPs\", \"status.podIP\", \"status.podIPs\", spec.containers[0].env[3].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.nodeName['x']\": error converting fieldPath: field label does not support subscript: spec.nodeName['x'], spec.containers[0].env[4].valueFrom.resourceFieldRef.resource: Unsupported value: \"limits.gpu\": supported values: \"limits.cpu\", \"limits.ephemeral-storage\", \"limits.memory\", \"requests.cpu\", \"requests.ephemeral-storage\", \"requests.memory\", spec.containers[0].env[5].valueFrom.configMapKeyRef.name: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].env[5].valueFrom.configMapKeyRef.key: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), spec.containers[0].env[6].valueFrom.secretKeyRef.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].env[6].valueFrom.secretKeyRef.key: Required value, spec.containers[0].env[7].valueFrom.fieldRef.fieldPath: Invalid value: \"metadata.name\": error converting fieldPath: unsupported pod version: v2]"},
		{name: "envFrom and security context", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: x
    envFrom: [{prefix: "a=b", configMapRef: {name: "Bad_Name"}}, {}, {configMapRef: {name: a}, secretRef: {name: ""}}]
    securityContext:
      runAsUser: -1
      runAsGroup: -2
      privileged: true
      allowPrivilegeEscalation: false
      capabilities: {add: [CAP_SYS_ADMIN]}
      seccompProfile: {type: RuntimeDefault, localhostProfile: x}
      procMount: Weird`,
			want: "Pod \"p\" is invalid: [spec.containers[0].envFrom[0].prefix: Invalid value: \"a=b\": a valid environment variable name must consist only of printable ASCII characters other than '=', spec.containers[0].envFrom[0].configMapRef.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`, spec.containers[0].envFrom[2].secretRef.name: Required value, spec.containers[0].envFrom: Invalid value: \"\": may not have more than one field specified at a time, spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive, spec.containers[0].securityContext.runAsGroup: Invalid value: -2: must be between 0 and 2147483647, inclusive, spec.containers[0].securityContext.procMount: Unsupported value: \"Weird\": supported values: \"Default\", \"Unmasked\", spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: {\"Type\":\"RuntimeDefault\",\"LocalhostProfile\":\"x\"}: can only be set when seccomp type is Localhost, spec.containers[0].securityContext: Invalid value: {\"Capabilities\":{\"Add\":[\"CAP_SYS_ADMIN\"],\"Drop\":null},\"Privileged\":true,\"SELinuxOptions\":null,\"WindowsOptions\":null,\"RunAsUser\":-1,\"RunAsGroup\":-2,\"RunAsNonRoot\":null,\"ReadOnlyRootFilesystem\":null,\"AllowPrivilegeEscalation\":false,\"ProcMount\":\"Weird\",\"SeccompProfile\":{\"Type\":\"RuntimeDefault\",\"LocalhostProfile\":\"x\"},\"AppArmorProfile\":null}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true, spec.containers[0].securityContext: Invalid value: {\"Capabilities\":{\"Add\":[\"CAP_SYS_ADMIN\"],\"Drop\":null},\"Privileged\":true,\"SELinuxOptions\":null,\"WindowsOptions\":null,\"RunAsUser\":-1,\"RunAsGroup\":-2,\"RunAsNonRoot\":null,\"ReadOnlyRootFilesystem\":null,\"AllowPrivilegeEscalation\":false,\"ProcMount\":\"Weird\",\"SeccompProfile\":{\"Type\":\"RuntimeDefault\",\"LocalhostProfile\":\"x\"},\"AppArmorProfile\":null}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN]"},
		{name: "resources", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: a, image: x, resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}}
  - {name: b, image: x, resources: {requests: {example.com/gpu: "1.5"}}}
  - {name: c, image: x, resources: {requests: {foo: "1"}}}
  - {name: d, image: x, resources: {requests: {memory: "-1"}}}`,
			want: `Pod "p" is invalid: [spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1, spec.containers[1].resources.requests[example.com/gpu]: Invalid value: "1500m": must be an integer, spec.containers[1].resources.limits: Required value: Limit must be set for non overcommitable resources, spec.containers[2].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully qualified, spec.containers[2].resources.requests[foo]: Invalid value: "foo": must be a standard resource for containers, spec.containers[3].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0]`},
		{name: "policies and names", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  restartPolicy: Sometimes
  dnsPolicy: Weird
  hostname: Foo_
  subdomain: x.y
  nodeName: Bad_Node
  activeDeadlineSeconds: 0
  nodeSelector: {"a b": c}
  containers: [{name: c, image: x, imagePullPolicy: Sometimes, terminationMessagePolicy: Bogus}]`,
			want: `Pod "p" is invalid: [spec.containers[0].terminationMessagePolicy: Unsupported value: "Bogus": supported values: "File", "FallbackToLogsOnError", spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never", spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", spec.dnsPolicy: Unsupported value: "Weird": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None", spec.nodeSelector: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive, spec.hostname: Invalid value: "Foo_": ` + dns1123LabelMsg + `, spec.subdomain: Invalid value: "x.y": must not contain dots]`},
		{name: "probes lifecycle and host ports", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  terminationGracePeriodSeconds: 5
  initContainers:
  - {name: i1, image: x}
  - {name: i2, image: x, ports: [{containerPort: 80, hostPort: 8080}, {containerPort: 81, hostPort: 8080}], restartPolicy: Always, readinessProbe: {exec: {command: []}, terminationGracePeriodSeconds: 3}}
  - {name: i3, image: x, restartPolicy: Never}
  containers:
  - name: c
    image: x
    restartPolicy: Always
    ports: [{containerPort: 80, hostPort: 9090}]
    livenessProbe: {httpGet: {port: 0, scheme: FTP, httpHeaders: [{name: "bad header", value: x}]}, successThreshold: 2, periodSeconds: -1}
    startupProbe: {}
    readinessProbe: {tcpSocket: {port: 80}, exec: {command: [a]}}
    lifecycle: {preStop: {sleep: {seconds: 10}}, postStart: {}}
  - {name: d, image: x, ports: [{containerPort: 80, hostPort: 9090}]}`,
			want: "Pod \"p\" is invalid: [spec.containers[0].lifecycle.postStart: Required value: must specify a handler type, spec.containers[0].lifecycle.preStop.sleep: Invalid value: 10: must be non-negative and less than terminationGracePeriodSeconds (5), spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.containers[0].livenessProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\", spec.containers[0].livenessProbe.httpGet.httpHeaders: Invalid value: \"bad header\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+'), spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0, spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1, spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type, spec.containers[0].startupProbe: Required value: must specify a handler type, spec.containers[1].ports[0].hostPort: Duplicate value: \"TCP//9090\", spec.initContainers[0].ports[1].hostPort: Duplicate value: \"TCP//8080\", spec.initContainers[1].readinessProbe.exec.command: Required value, spec.initContainers[1].readinessProbe.terminationGracePeriodSeconds: Invalid value: 3: must not be set for readinessProbes]"},
		{name: "container restart rules", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - {name: i1, image: x, restartPolicy: Sometimes}
  - {name: i2, image: x, restartPolicy: Always, restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [1]}}]}
  - {name: i3, image: x, restartPolicyRules: [{action: Restart}]}
  containers:
  - name: c
    image: x
    restartPolicy: Never
    restartPolicyRules: [{action: Kill}, {action: Restart, exitCodes: {operator: Maybe, values: [1]}}]`,
			want: "Pod \"p\" is invalid: [spec.containers[0].restartPolicyRules[0].action: Unsupported value: \"Kill\": supported values: \"Restart\", \"RestartAllContainers\", spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified, spec.containers[0].restartPolicyRules[1].exitCodes.operator: Unsupported value: \"Maybe\": supported values: \"In\", \"NotIn\", spec.initContainers[0].restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"Never\", \"OnFailure\", spec.initContainers[2].restartPolicy: Required value: must specify restartPolicy when restart rules are used]"},
		{name: "tolerations", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x}]
  tolerations:
  - {key: "bad key!", operator: Equal, value: "a b"}
  - {operator: Equal, value: x}
  - {key: k, operator: Exists, value: v, tolerationSeconds: 5, effect: NoSchedule}
  - {key: k, operator: Lt, value: "5"}
  - {key: k, operator: Maybe, effect: Sometimes}`,
			want: "Pod \"p\" is invalid: [spec.tolerations[0].key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.tolerations[0].operator: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.tolerations[1].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\", spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set, spec.tolerations[2].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists', spec.tolerations[3].operator: Unsupported value: \"Lt\": supported values: \"Equal\", \"Exists\", \"Lt\", \"Gt\", spec.tolerations[4].operator: Unsupported value: \"Maybe\": supported values: \"Equal\", \"Exists\", spec.tolerations[4].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"]"},
		{name: "update of an immutable field", before: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]`, obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}`, change: func(o runtime.Object) {
			p := o.(*corev1.Pod)
			p.Spec.Containers[0].Image = "nginx:2"
			p.Spec.Hostname = "foo"
		},
			want: "Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n@@ -167,7 +167,7 @@\n   \"SELinuxChangePolicy\": null\n  },\n  \"ImagePullSecrets\": null,\n- \"Hostname\": \"\",\n+ \"Hostname\": \"foo\",\n  \"Subdomain\": \"\",\n  \"Affinity\": null,\n  \"SchedulerName\": \"default-scheduler\",\n"},
		{name: "status with a bad pod IP", status: true, before: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]`, obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]`, change: func(o runtime.Object) {
			o.(*corev1.Pod).Status.PodIP = "1.2.3"
			o.(*corev1.Pod).Status.PodIPs = []corev1.PodIP{{IP: "1.2.3"}}
		},
			want: "Pod \"p\" is invalid: status.podIPs[0]: Invalid value: \"1.2.3\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
		{name: "status conditions QoS and IPs", status: true, before: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]`, obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]`, change: func(o runtime.Object) {
			st := &o.(*corev1.Pod).Status
			st.PodIP, st.PodIPs = "10.1.1.1", []corev1.PodIP{{IP: "10.1.1.1"}, {IP: "10.1.1.2"}}
			st.HostIPs = []corev1.HostIP{{IP: "1.1.1.1"}}
			st.QOSClass = corev1.PodQOSGuaranteed
			st.Conditions = []corev1.PodCondition{{Type: "bad type!", Status: corev1.ConditionTrue}}
		},
			want: "Pod \"p\" is invalid: [status.conditions[0].Type: Invalid value: \"bad type!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), status.qosClass: Invalid value: \"Guaranteed\": field is immutable, status.podIPs: Invalid value: [{\"IP\":\"10.1.1.1\"},{\"IP\":\"10.1.1.2\"}]: may specify no more than one IP for each IP family, status.hostIPs[0].ip: Invalid value: \"1.1.1.1\": must be equal to `hostIP`]"},
		{name: "update adding a container", before: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]`, obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}`, change: func(o runtime.Object) {
			p := o.(*corev1.Pod)
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d", Image: "x", ImagePullPolicy: "Always", TerminationMessagePolicy: "File"})
		},
			want: `Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers`},
	})
}

// builtinDefaults are objects created with few fields and what a real
// kube-apiserver v1.37 stores for them, as client-go's typed clients read
// it back (all but the status, of the metadata only labels and
// annotations; nulls dropped, UIDs replaced by "UID", the pod's
// kube-api-access volume and mounts left out).
var builtinDefaults = []struct{ obj, want string }{
	{`
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ss}
spec:
  selector:
    matchLabels: {app: ss}
  serviceName: ss
  template:
    metadata:
      labels: {app: ss}
    spec:
      containers:
      - {name: c, image: nginx}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests: {storage: 1Gi}
`, `{"metadata":{},"spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"},"podManagementPolicy":"OrderedReady","replicas":1,"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"ss"}},"serviceName":"ss","template":{"metadata":{"labels":{"app":"ss"}},"spec":{"containers":[{"image":"nginx","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}},"updateStrategy":{"rollingUpdate":{"maxUnavailable":1,"partition":0},"type":"RollingUpdate"},"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},"status":{"phase":"Pending"}}]}}`},
	{`
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec:
  selector:
    matchLabels: {app: ds}
  template:
    metadata:
      labels: {app: ds}
    spec:
      containers:
      - {name: c, image: nginx}
`, `{"metadata":{"annotations":{"deprecated.daemonset.template.generation":"1"}},"spec":{"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"ds"}},"template":{"metadata":{"labels":{"app":"ds"}},"spec":{"containers":[{"image":"nginx","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}},"updateStrategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":1},"type":"RollingUpdate"}}}`},
	{`
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox}
`, `{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"job","controller-uid":"UID","job-name":"job"}},"spec":{"backoffLimit":6,"completionMode":"NonIndexed","completions":1,"manualSelector":false,"parallelism":1,"podReplacementPolicy":"TerminatingOrFailed","selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"UID"}},"suspend":false,"template":{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"job","controller-uid":"UID","job-name":"job"}},"spec":{"containers":[{"image":"busybox","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Never","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}`},
	{`
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: '*/5 * * * *'
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - {name: c, image: busybox}
`, `{"metadata":{},"spec":{"concurrencyPolicy":"Allow","failedJobsHistoryLimit":1,"jobTemplate":{"metadata":{},"spec":{"template":{"metadata":{},"spec":{"containers":[{"image":"busybox","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"OnFailure","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}},"schedule":"*/5 * * * *","successfulJobsHistoryLimit":3,"suspend":false}}`},
	{`
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  template:
    metadata:
      labels: {app: rc}
    spec:
      containers:
      - {name: c, image: nginx}
`, `{"metadata":{"labels":{"app":"rc"}},"spec":{"replicas":1,"selector":{"app":"rc"},"template":{"metadata":{"labels":{"app":"rc"}},"spec":{"containers":[{"image":"nginx","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}`},
	{`
apiVersion: v1
kind: PodTemplate
metadata: {name: pt}
template:
  metadata:
    labels: {app: pt}
  spec:
    containers:
    - {name: c, image: nginx}
`, `{"metadata":{},"template":{"metadata":{"labels":{"app":"pt"}},"spec":{"containers":[{"image":"nginx","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}`},
	{`
apiVersion: apps/v1
kind: Deployment
metadata: {name: dep}
spec:
  selector:
    matchLabels: {app: dep}
  template:
    metadata:
      labels: {app: dep}
    spec:
      containers:
      - {name: c, image: nginx}
`, `{"metadata":{},"spec":{"progressDeadlineSeconds":600,"replicas":1,"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"dep"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},"template":{"metadata":{"labels":{"app":"dep"}},"spec":{"containers":[{"image":"nginx","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}`},
	{`apiVersion: v1
kind: Pod
metadata: {name: pdef}
spec:
  volumes:
  - {name: a}
  - {name: b, configMap: {name: x}}
  - {name: c, secret: {secretName: x}}
  - {name: d, downwardAPI: {items: [{path: nm, fieldRef: {fieldPath: metadata.name}}]}}
  - {name: e, projected: {sources: [{configMap: {name: x}}, {serviceAccountToken: {path: t}}]}}
  - {name: f, hostPath: {path: /x}}
  - {name: g, persistentVolumeClaim: {claimName: x}}
  - {name: h, iscsi: {targetPortal: "1.2.3.4:3260", iqn: "iqn.2001-04.com.example:storage", lun: 0}}
  - {name: i, rbd: {monitors: [a], image: x}}
  
  - {name: k, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}}}
  initContainers:
  - {name: side, image: x, restartPolicy: Always, startupProbe: {tcpSocket: {port: 80}}}
  containers:
  - name: c
    image: nginx
    env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, {name: B, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}]
    livenessProbe: {httpGet: {port: 80}}
    readinessProbe: {grpc: {port: 90}}
    lifecycle: {preStop: {httpGet: {port: 80}}}
    ports: [{containerPort: 80}]
    resources: {limits: {cpu: "1"}}
    volumeMounts: [{name: a, mountPath: /a}]
  hostNetwork: true
`, `{"metadata":{},"spec":{"containers":[{"env":[{"name":"A","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},{"name":"B","valueFrom":{"resourceFieldRef":{"divisor":"0","resource":"limits.cpu"}}}],"image":"nginx","imagePullPolicy":"Always","lifecycle":{"preStop":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"}}},"livenessProbe":{"failureThreshold":3,"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"name":"c","ports":[{"containerPort":80,"hostPort":80,"protocol":"TCP"}],"readinessProbe":{"failureThreshold":3,"grpc":{"port":90,"service":""},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"resources":{"limits":{"cpu":"1"},"requests":{"cpu":"1"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/a","name":"a"}]}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"hostNetwork":true,"initContainers":[{"image":"x","imagePullPolicy":"Always","name":"side","resources":{},"restartPolicy":"Always","startupProbe":{"failureThreshold":3,"periodSeconds":10,"successThreshold":1,"tcpSocket":{"port":80},"timeoutSeconds":1},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":30,"tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],"volumes":[{"emptyDir":{},"name":"a"},{"configMap":{"defaultMode":420,"name":"x"},"name":"b"},{"name":"c","secret":{"defaultMode":420,"secretName":"x"}},{"downwardAPI":{"defaultMode":420,"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"},"path":"nm"}]},"name":"d"},{"name":"e","projected":{"defaultMode":420,"sources":[{"configMap":{"name":"x"}},{"serviceAccountToken":{"expirationSeconds":3600,"path":"t"}}]}},{"hostPath":{"path":"/x","type":""},"name":"f"},{"name":"g","persistentVolumeClaim":{"claimName":"x"}},{"iscsi":{"iqn":"iqn.2001-04.com.example:storage","iscsiInterface":"default","lun":0,"targetPortal":"1.2.3.4:3260"},"name":"h"},{"name":"i","rbd":{"image":"x","keyring":"/etc/ceph/keyring","monitors":["a"],"pool":"rbd","user":"admin"}},{"ephemeral":{"volumeClaimTemplate":{"metadata":{},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"}}},"name":"k"}]}}`},
	{`
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc}
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 1Gi}
`, `{"metadata":{},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"}}`},
	{`
apiVersion: v1
kind: Endpoints
metadata: {name: ep}
subsets:
- addresses:
  - {ip: 10.1.2.3}
  ports:
  - {port: 80}
`, `{"metadata":{},"subsets":[{"addresses":[{"ip":"10.1.2.3"}],"ports":[{"port":80,"protocol":"TCP"}]}]}`},
	{`
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np}
spec:
  podSelector: {}
  ingress:
  - ports:
    - {port: 80}
  egress:
  - ports:
    - {port: 53, protocol: UDP}
`, `{"metadata":{},"spec":{"egress":[{"ports":[{"port":53,"protocol":"UDP"}]}],"ingress":[{"ports":[{"port":80,"protocol":"TCP"}]}],"podSelector":{},"policyTypes":["Ingress","Egress"]}}`},
	{`
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: hpa}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}
  maxReplicas: 5
  behavior:
    scaleDown: {stabilizationWindowSeconds: 60}
`, `{"metadata":{},"spec":{"behavior":{"scaleDown":{"policies":[{"periodSeconds":15,"type":"Percent","value":100}],"selectPolicy":"Max","stabilizationWindowSeconds":60},"scaleUp":{"policies":[{"periodSeconds":15,"type":"Pods","value":4},{"periodSeconds":15,"type":"Percent","value":100}],"selectPolicy":"Max","stabilizationWindowSeconds":0}},"maxReplicas":5,"metrics":[{"resource":{"name":"cpu","target":{"averageUtilization":80,"type":"Utilization"}},"type":"Resource"}],"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}}}`},
	{`
apiVersion: v1
kind: LimitRange
metadata: {name: lr}
spec:
  limits:
  - type: Container
    default: {cpu: 500m}
    max: {memory: 1Gi}
    min: {cpu: 100m}
`, `{"metadata":{},"spec":{"limits":[{"default":{"cpu":"500m","memory":"1Gi"},"defaultRequest":{"cpu":"500m","memory":"1Gi"},"max":{"memory":"1Gi"},"min":{"cpu":"100m"},"type":"Container"}]}}`},
	{`
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: val-sc}
provisioner: x.io/p
`, `{"metadata":{},"provisioner":"x.io/p","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}`},
	{`
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: val-pc}
value: 100
`, `{"metadata":{},"preemptionPolicy":"PreemptLowerPriority","value":100}`},
	{`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: val-mwc}
webhooks:
- name: a.x.io
  clientConfig:
    service: {name: s, namespace: default}
  rules:
  - operations: [CREATE]
    apiGroups: ['']
    apiVersions: [v1]
    resources: [pods]
  admissionReviewVersions: [v1]
  sideEffects: None
`, `{"metadata":{},"webhooks":[{"admissionReviewVersions":["v1"],"clientConfig":{"service":{"name":"s","namespace":"default","port":443}},"failurePolicy":"Fail","matchPolicy":"Equivalent","name":"a.x.io","namespaceSelector":{},"objectSelector":{},"reinvocationPolicy":"Never","rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"],"scope":"*"}],"sideEffects":"None","timeoutSeconds":10}]}`},
	{`
apiVersion: v1
kind: Node
metadata: {name: val-node}
spec:
  taints: [{key: k, effect: NoSchedule}]
status:
  capacity: {cpu: "4", pods: "110"}
`, `{"metadata":{},"spec":{"taints":[{"effect":"NoSchedule","key":"k"},{"effect":"NoSchedule","key":"node.kubernetes.io/not-ready"}]}}`},
}

var uidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// storedDefaults reduces a created object to what builtinDefaults records.
func storedDefaults(t *testing.T, obj runtime.Object) any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(uidPattern.ReplaceAll(b, []byte("UID")), &m); err != nil {
		t.Fatal(err)
	}
	meta, _ := m["metadata"].(map[string]any)
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	out["metadata"] = map[string]any{"labels": meta["labels"], "annotations": meta["annotations"]}
	delete(out, "status")
	delete(out, "apiVersion")
	delete(out, "kind")
	if _, isPod := obj.(*corev1.Pod); isPod {
		spec := out["spec"].(map[string]any)
		// The ServiceAccount admission's volume has a random name.
		api := func(v any) bool {
			name, _ := v.(map[string]any)["name"].(string)
			return strings.HasPrefix(name, "kube-api-access-")
		}
		spec["volumes"] = dropWhere(spec["volumes"], api)
		for _, list := range []string{"containers", "initContainers"} {
			cs, _ := spec[list].([]any)
			for _, c := range cs {
				c := c.(map[string]any)
				c["volumeMounts"] = dropWhere(c["volumeMounts"], api)
			}
		}
	}
	return dropNulls(out)
}

func dropWhere(v any, drop func(any) bool) any {
	list, _ := v.([]any)
	var out []any
	for _, x := range list {
		if !drop(x) {
			out = append(out, x)
		}
	}
	if out == nil {
		return nil
	}
	return out
}

// dropNulls removes null members, as jq's del(..|nulls) does.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i := range x {
			x[i] = dropNulls(x[i])
		}
	}
	return v
}

func TestWorkloadDefaults(t *testing.T) {
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, nsObj("val"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	targets := []struct {
		where string
		cs    kubernetes.Interface
		ns    string
	}{{"fakeplane", cs, "val"}}
	if ref, ns := refCluster(t); ref != nil {
		targets = append(targets, struct {
			where string
			cs    kubernetes.Interface
			ns    string
		}{"reference", ref, ns})
	}
	for _, tg := range targets {
		for _, tc := range builtinDefaults {
			obj := decodeYAML(t, tc.obj)
			kind := obj.GetObjectKind().GroupVersionKind().Kind
			t.Run(tg.where+"/"+kind, func(t *testing.T) {
				ops := typedOpsFor(t, tg.cs, tg.ns, obj)
				name := mustMeta(t, obj).GetName()
				t.Cleanup(func() { cleanup(ops, name) })
				created, err := ops.create(ctx, obj)
				if err != nil {
					t.Fatal(err)
				}
				var want any
				if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
					t.Fatal(err)
				}
				got := storedDefaults(t, created)
				if !reflect.DeepEqual(got, want) {
					gb, _ := json.Marshal(got)
					t.Errorf("stored\n%s\nwant\n%s", gb, tc.want)
				}
			})
		}
	}
}

func TestWorkloadValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "deployment d1", obj: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d1}
spec:
  replicas: -1
  selector: {matchLabels: {app: x}}
  strategy: {type: Foo}
  template:
    metadata: {labels: {app: w}}
    spec: {restartPolicy: Never, activeDeadlineSeconds: 5, containers: [{name: c}]}`,
			want: "Deployment.apps \"d1\" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`, spec.template.spec.containers[0].image: Required value, spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\", spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported, spec.strategy: Unsupported value: {\"Type\":\"Foo\",\"RollingUpdate\":null}: supported values: \"Recreate\", \"RollingUpdate\"]"},
		{name: "deployment d2", obj: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d2}
spec:
  selector: {}
  minReadySeconds: 700
  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 0, maxSurge: "0%"}}
  template:
    spec: {containers: [{name: c, image: x}]}`,
			want: "Deployment.apps \"d2\" is invalid: [spec.selector: Invalid value: {}: empty selector is invalid for deployment, spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0, spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds]"},
		{name: "deployment d3", obj: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d3}
spec:
  strategy: {type: Recreate, rollingUpdate: {maxUnavailable: "150%"}}
  template:
    metadata: {labels: {app: w}}
    spec: {containers: [{name: c, image: x}]}`,
			want: "Deployment.apps \"d3\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`, spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate']"},
		{name: "replicaset rs1", obj: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs1}
spec:
  replicas: -2
  selector: {matchLabels: {app: x}, matchExpressions: [{key: a, operator: In}]}
  template:
    metadata: {labels: {app: x}}
    spec: {containers: [{name: c, image: x}]}`,
			want: "ReplicaSet.apps \"rs1\" is invalid: [spec.replicas: Invalid value: -2: must be greater than or equal to 0, spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"x\"},\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"}]}: invalid label selector]"},
		{name: "statefulset ss1", obj: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ss1}
spec:
  podManagementPolicy: Random
  updateStrategy: {type: OnDelete, rollingUpdate: {partition: 1}}
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Keep}
  serviceName: Bad.Name
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: w}}
    spec:
      hostname: Foo_
      containers: [{name: c, image: x, volumeMounts: [{name: data, mountPath: /d}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}`,
			want: "StatefulSet.apps \"ss1\" is invalid: [spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel', spec.updateStrategy.rollingUpdate: Invalid value: {\"Partition\":1,\"MaxUnavailable\":null}: only allowed for updateStrategy 'RollingUpdate', spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: \"Keep\": supported values: \"Retain\", \"Delete\", spec.serviceName: Invalid value: \"Bad.Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`]"},
		{name: "statefulset ss2", obj: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ss2}
spec:
  updateStrategy: {type: Whatever}
  selector: {}
  template:
    spec: {containers: [{name: c, image: x}]}`,
			want: "StatefulSet.apps \"ss2\" is invalid: [spec.updateStrategy: Invalid value: {\"Type\":\"Whatever\",\"RollingUpdate\":null}: must be 'RollingUpdate' or 'OnDelete', spec.selector: Invalid value: {}: empty selector is invalid for statefulset]"},
		{name: "daemonset ds1", obj: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds1}
spec:
  selector: {matchLabels: {app: x}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, maxSurge: 1}}
  template:
    metadata: {labels: {app: w}}
    spec: {restartPolicy: OnFailure, containers: [{name: c, image: x}]}`,
			want: "DaemonSet.apps \"ds1\" is invalid: [spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`, spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\", spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero]"},
		{name: "daemonset ds2", obj: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds2}
spec:
  updateStrategy: {type: Foo}
  template:
    spec: {containers: [{name: c, image: x}]}`,
			want: "DaemonSet.apps \"ds2\" is invalid: [spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.updateStrategy: Unsupported value: {\"Type\":\"Foo\",\"RollingUpdate\":null}: supported values: \"RollingUpdate\", \"OnDelete\"]"},
		{name: "job job1", obj: `
apiVersion: batch/v1
kind: Job
metadata: {name: job1}
spec:
  parallelism: -1
  backoffLimit: -1
  completionMode: Sometimes
  template:
    spec: {containers: [{name: c, image: x}]}`,
			want: "Job.batch \"job1\" is invalid: [spec.parallelism: Invalid value: -1: must be greater than or equal to 0, spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0, spec.completionMode: Unsupported value: \"Sometimes\": supported values: \"NonIndexed\", \"Indexed\", spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"]"},
		{name: "job job3", obj: `
apiVersion: batch/v1
kind: Job
metadata: {name: job3}
spec:
  manualSelector: true
  completionMode: Indexed
  backoffLimitPerIndex: 1
  maxFailedIndexes: 5
  template:
    metadata: {labels: {a: b}}
    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}`,
			want: "Job.batch \"job3\" is invalid: [spec.maxFailedIndexes: Invalid value: 5: must be less than or equal to completions, spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"a\":\"b\"}: `selector` does not match template `labels`]"},
		{name: "cronjob cj1", obj: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj1}
spec:
  schedule: "61 * * * *"
  concurrencyPolicy: Sometimes
  timeZone: Mars/Base
  jobTemplate:
    spec:
      selector: {matchLabels: {a: b}}
      template:
        spec: {containers: [{name: c, image: x}]}`,
			want: "CronJob.batch \"cj1\" is invalid: [spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61, spec.timeZone: Invalid value: \"Mars/Base\": unknown time zone Mars/Base, spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\", spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\", spec.jobTemplate.spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\"}}: `selector` will be auto-generated]"},
		{name: "cronjob cj2", obj: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj2}
spec:
  schedule: "TZ=UTC @hourly x"
  successfulJobsHistoryLimit: -1
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: x}]}`,
			want: "CronJob.batch \"cj2\" is invalid: [spec.schedule: Invalid value: \"TZ=UTC @hourly x\": unrecognized descriptor: @hourly x, spec.schedule: Invalid value: \"TZ=UTC @hourly x\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead, spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0]"},
		{name: "cronjob cj3", obj: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj3}
spec:
  schedule: "not a schedule"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: x}]}`,
			want: "CronJob.batch \"cj3\" is invalid: spec.schedule: Invalid value: \"not a schedule\": expected exactly 5 fields, found 3: [not a schedule]"},
		{name: "replicationcontroller rc1", obj: `
apiVersion: v1
kind: ReplicationController
metadata: {name: rc1}
spec:
  replicas: -1
  minReadySeconds: -3
  selector: {app: x}
  template:
    metadata: {labels: {app: w}}
    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}`,
			want: "ReplicationController \"rc1\" is invalid: [spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`, spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\", spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.minReadySeconds: Invalid value: -3: must be greater than or equal to 0]"},
		{name: "podtemplate pt1", obj: `
apiVersion: v1
kind: PodTemplate
metadata: {name: pt1}
template:
  metadata: {labels: {"a b": c}}
  spec: {containers: [{name: c}]}`,
			want: "PodTemplate \"pt1\" is invalid: [template.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), template.spec.containers[0].image: Required value]"},
		{name: "deployment status counts", status: true, before: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: dep}
spec:
  selector:
    matchLabels: {app: dep}
  template:
    metadata:
      labels: {app: dep}
    spec:
      containers:
      - {name: c, image: nginx}`, obj: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: dep}
spec:
  selector:
    matchLabels: {app: dep}
  template:
    metadata:
      labels: {app: dep}
    spec:
      containers:
      - {name: c, image: nginx}`, change: func(o runtime.Object) {
			st := &o.(*appsv1.Deployment).Status
			st.ReadyReplicas, st.AvailableReplicas, st.UpdatedReplicas = 2, 3, -1
		},
			want: "Deployment.apps \"dep\" is invalid: [status.updatedReplicas: Invalid value: -1: must be greater than or equal to 0, status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas]"},
		// Managed by another controller, so that the job controller does
		// not write the status meanwhile.
		{name: "job completed without success criteria", status: true, before: `
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  managedBy: example.com/queue
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox}`, obj: `
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  managedBy: example.com/queue
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox}`, change: func(o runtime.Object) {
			st := &o.(*batchv1.Job).Status
			now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			st.Succeeded, st.Active, st.StartTime, st.CompletionTime = 1, 1, &now, &now
			st.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		},
			want: "Job.batch \"job\" is invalid: [status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition, status.active: Invalid value: 1: active>0 is invalid for finished job]"},
		{name: "deployment selector and template", before: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep
spec:
  selector:
    matchLabels:
      app: dep
  template:
    metadata:
      labels:
        app: dep
    spec:
      containers:
      - image: nginx
        name: c`, obj: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep
spec:
  selector:
    matchLabels:
      app: dep
  template:
    metadata:
      labels:
        app: dep
    spec:
      containers:
      - image: nginx
        name: c`, change: func(o runtime.Object) {
			p := o.(*appsv1.Deployment)
			p.Spec.Selector.MatchLabels["app"] = "z"
			p.Spec.Template.Spec.Containers[0].Image = ""
		},
			want: "Deployment.apps \"dep\" is invalid: [spec.template.metadata.labels: Invalid value: {\"app\":\"dep\"}: `selector` does not match template `labels`, spec.template.spec.containers[0].image: Required value, spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"z\"}}: field is immutable]"},
		{name: "statefulset immutable fields", before: `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ss
spec:
  selector:
    matchLabels:
      app: ss
  serviceName: ss
  template:
    metadata:
      labels:
        app: ss
    spec:
      containers:
      - image: nginx
        name: c
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes:
      - ReadWriteOnce
      resources:
        requests:
          storage: 1Gi`, obj: `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ss
spec:
  selector:
    matchLabels:
      app: ss
  serviceName: ss
  template:
    metadata:
      labels:
        app: ss
    spec:
      containers:
      - image: nginx
        name: c
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes:
      - ReadWriteOnce
      resources:
        requests:
          storage: 1Gi`, change: func(o runtime.Object) {
			p := o.(*appsv1.StatefulSet)
			p.Spec.ServiceName = "other"
			p.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
			p.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
			p.Spec.Replicas = ptr.To[int32](3)
		},
			want: "StatefulSet.apps \"ss\" is invalid: [spec.volumeClaimTemplates: Invalid value: [{\"name\":\"data\",\"Spec\":{\"AccessModes\":[\"ReadWriteOnce\"],\"Selector\":null,\"Resources\":{\"Limits\":null,\"Requests\":{\"storage\":\"2Gi\"}},\"VolumeName\":\"\",\"StorageClassName\":null,\"VolumeMode\":\"Filesystem\",\"DataSource\":null,\"DataSourceRef\":null,\"VolumeAttributesClassName\":null},\"Status\":{\"Phase\":\"Pending\",\"AccessModes\":null,\"Capacity\":null,\"Conditions\":null,\"AllocatedResources\":null,\"AllocatedResourceStatuses\":null,\"CurrentVolumeAttributesClassName\":null,\"ModifyVolumeStatus\":null,\"HealthStatus\":null}}]: field is immutable, spec.serviceName: Invalid value: \"other\": field is immutable, spec.podManagementPolicy: Invalid value: \"Parallel\": field is immutable]"},
		// Managed by another controller, so that the job controller does
		// not write the status meanwhile.
		{name: "job completions", before: `
apiVersion: batch/v1
kind: Job
metadata:
  name: job
spec:
  managedBy: example.com/queue
  template:
    spec:
      containers:
      - image: busybox
        name: c
      restartPolicy: Never`, obj: `
apiVersion: batch/v1
kind: Job
metadata:
  name: job
spec:
  managedBy: example.com/queue
  template:
    spec:
      containers:
      - image: busybox
        name: c
      restartPolicy: Never`, change: func(o runtime.Object) {
			p := o.(*batchv1.Job)
			p.Spec.Completions = ptr.To[int32](3)
		},
			want: "Job.batch \"job\" is invalid: spec.completions: Invalid value: 3: field is immutable"},
		{name: "cronjob schedule", before: `
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cj
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - image: busybox
            name: c
          restartPolicy: OnFailure
  schedule: '*/5 * * * *'`, obj: `
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cj
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - image: busybox
            name: c
          restartPolicy: OnFailure
  schedule: '*/5 * * * *'`, change: func(o runtime.Object) {
			p := o.(*batchv1.CronJob)
			p.Spec.Schedule = "bad"
		},
			want: "CronJob.batch \"cj\" is invalid: spec.schedule: Invalid value: \"bad\": expected exactly 5 fields, found 1: [bad]"},
		{name: "daemonset selector", before: `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ds
spec:
  selector:
    matchLabels:
      app: ds
  template:
    metadata:
      labels:
        app: ds
    spec:
      containers:
      - image: nginx
        name: c`, obj: `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ds
spec:
  selector:
    matchLabels:
      app: ds
  template:
    metadata:
      labels:
        app: ds
    spec:
      containers:
      - image: nginx
        name: c`, change: func(o runtime.Object) {
			p := o.(*appsv1.DaemonSet)
			p.Spec.Selector.MatchLabels["app"] = "z"
		},
			want: "DaemonSet.apps \"ds\" is invalid: [spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"z\"}}: field is immutable, spec.template.metadata.labels: Invalid value: {\"app\":\"ds\"}: `selector` does not match template `labels`]"},
	})
}

func TestServiceValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "service s1", obj: `
apiVersion: v1
kind: Service
metadata: {name: s1}
spec: {}`,
			want: "Service \"s1\" is invalid: spec.ports: Required value"},
		{name: "service s2", obj: `
apiVersion: v1
kind: Service
metadata: {name: s2}
spec:
  type: Weird
  sessionAffinity: Sticky
  selector: {"a b": c}
  ports:
  - {port: 0, protocol: ICMP, targetPort: "Bad_Name"}
  - {name: http, port: 80}
  - {name: http, port: 80, targetPort: 70000}`,
			want: "Service \"s2\" is invalid: [spec.ports[0].name: Required value, spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\", spec.ports[0].targetPort: Invalid value: \"Bad_Name\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.ports[2].name: Duplicate value: \"http\", spec.ports[2].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.selector: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.sessionAffinity: Unsupported value: \"Sticky\": supported values: \"ClientIP\", \"None\", spec.type: Unsupported value: \"Weird\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\", spec.ports[2]: Duplicate value: {\"Name\":\"\",\"Protocol\":\"TCP\",\"AppProtocol\":null,\"Port\":80,\"TargetPort\":0,\"NodePort\":0}]"},
		{name: "service s3", obj: `
apiVersion: v1
kind: Service
metadata: {name: s3}
spec:
  ports: [{port: 80, nodePort: 30080}]
  externalTrafficPolicy: Local
  loadBalancerSourceRanges: [10.0.0.0/8]
  allocateLoadBalancerNodePorts: true`,
			want: "Service \"s3\" is invalid: [spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP', spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer', spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer', spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set for externally-accessible services]"},
		{name: "service s4", obj: `
apiVersion: v1
kind: Service
metadata: {name: s4}
spec:
  type: ExternalName
  externalName: "Bad_Host"
  ports: [{port: 80}]`,
			want: "Service \"s4\" is invalid: spec.externalName: Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
		{name: "service s5", obj: `
apiVersion: v1
kind: Service
metadata: {name: s5}
spec:
  type: NodePort
  ports: [{port: 80, nodePort: 80}, {name: b, port: 81, nodePort: 30081}]`,
			want: "Service \"s5\" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767"},
		{name: "service s6", obj: `
apiVersion: v1
kind: Service
metadata: {name: s6}
spec:
  type: LoadBalancer
  clusterIP: None
  ports: [{port: 80}]`,
			want: "Service \"s6\" is invalid: spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for LoadBalancer services"},
		{name: "service s7", obj: `
apiVersion: v1
kind: Service
metadata: {name: s7}
spec:
  clusterIP: "10.0.0.300"
  ports: [{port: 80}]`,
			want: "Service \"s7\" is invalid: spec.clusterIPs[0]: Invalid value: \"10.0.0.300\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
		{name: "service s8", obj: `
apiVersion: v1
kind: Service
metadata: {name: s8}
spec:
  clusterIP: None
  sessionAffinity: ClientIP
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 0}}`,
			want: "Service \"s8\" is invalid: spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400"},
		{name: "service s11", obj: `
apiVersion: v1
kind: Service
metadata: {name: s11}
spec:
  type: NodePort
  ports: [{name: a, port: 80, nodePort: 30600}, {name: b, port: 81, nodePort: 30600}, {name: c, port: 80, protocol: UDP}]`,
			want: "Service \"s11\" is invalid: spec.ports[1].nodePort: Invalid value: 30600: provided port is already allocated"},
		{name: "clusterIP change", before: `
apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  clusterIP: 10.0.0.201
  ports: [{port: 80}]`, obj: `
apiVersion: v1
kind: Service
metadata: {name: s}`, change: func(o runtime.Object) {
			s := o.(*corev1.Service)
			s.Spec.ClusterIP = "10.0.0.202"
			s.Spec.ClusterIPs = []string{"10.0.0.202"}
		},
			want: "Service \"s\" is invalid: spec.clusterIPs[0]: Invalid value: [\"10.0.0.202\"]: may not change once set"},
	})
}

func TestRBACValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "role rules", obj: `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r1}
rules:
- {}
- {verbs: [get], nonResourceURLs: [/healthz]}
- {verbs: [get], apiGroups: [""]}`,
			want: "Role.rbac.authorization.k8s.io \"r1\" is invalid: [rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource, rules[1].nonResourceURLs: Invalid value: [\"/healthz\"]: namespaced rules cannot apply to non-resource URLs, rules[2].resources: Required value: resource rules must supply at least one resource, rules[0].verbs: Required value]"},
		{name: "clusterrole rules", obj: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: val-cr1}
rules:
- {verbs: [get], nonResourceURLs: [/healthz], resources: [pods]}
aggregationRule: {clusterRoleSelectors: []}`,
			want: "ClusterRole.rbac.authorization.k8s.io \"val-cr1\" is invalid: [rules[0].nonResourceURLs: Invalid value: [\"/healthz\"]: rules cannot apply to both regular resources and non-resource URLs, aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil]"},
		{name: "rolebinding refs", obj: `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb1}
roleRef: {apiGroup: foo, kind: Thing, name: "a/b"}
subjects:
- {kind: ServiceAccount, name: Bad_SA, apiGroup: x}
- {kind: User, name: u, apiGroup: other}
- {kind: Robot, name: ""}`,
			want: "RoleBinding.rbac.authorization.k8s.io \"rb1\" is invalid: [roleRef.apiGroup: Unsupported value: \"foo\": supported values: \"rbac.authorization.k8s.io\", roleRef.kind: Unsupported value: \"Thing\": supported values: \"Role\", \"ClusterRole\", roleRef.name: Invalid value: \"a/b\": may not contain '/', subjects[0].name: Invalid value: \"Bad_SA\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), subjects[0].apiGroup: Unsupported value: \"x\": supported values: \"\", subjects[1].apiGroup: Unsupported value: \"other\": supported values: \"rbac.authorization.k8s.io\", subjects[2].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\", subjects[2].name: Required value]"},
		{name: "rolebinding names", obj: `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb2}
roleRef: {kind: Role, name: ""}
subjects:
- {kind: User, name: ""}
- {kind: Robot, name: ""}`,
			want: "RoleBinding.rbac.authorization.k8s.io \"rb2\" is invalid: [subjects[1].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\", subjects[0].name: Required value, subjects[1].name: Required value, roleRef.name: Required value]"},
		{name: "clusterrolebinding", obj: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: val-crb1}
roleRef: {kind: Role, name: ""}
subjects:
- {kind: ServiceAccount, name: sa}`,
			want: "ClusterRoleBinding.rbac.authorization.k8s.io \"val-crb1\" is invalid: [roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\", subjects[0].namespace: Required value, roleRef.name: Required value]"},
		{name: "rolebinding roleRef change", before: `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb3}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: a}
subjects:
- {kind: User, name: u}`, obj: `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb3}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: a}
subjects:
- {kind: User, name: u}`, change: func(o runtime.Object) {
			o.(*rbacv1.RoleBinding).RoleRef.Name = "b"
		},
			want: "RoleBinding.rbac.authorization.k8s.io \"rb3\" is invalid: roleRef: Invalid value: {\"APIGroup\":\"rbac.authorization.k8s.io\",\"Kind\":\"Role\",\"Name\":\"b\"}: field is immutable"},
	})
}

func TestLeaseAndEventValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "lease", obj: `
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: l1}
spec: {leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: x, strategy: "Bogus"}`,
			want: "Lease.coordination.k8s.io \"l1\" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]"},
		{name: "core event namespace", obj: `
apiVersion: v1
kind: Event
metadata: {name: e1}
involvedObject: {kind: Pod, name: p, namespace: other}
reason: X`,
			want: "Event \"e1\" is invalid: involvedObject.namespace: Invalid value: \"other\": does not match event.namespace"},
		{name: "events.k8s.io event", obj: `
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e2}
regarding: {kind: Pod, name: p}
type: Bogus
deprecatedCount: 3`,
			want: "Event \"e2\" is invalid: [involvedObject.namespace: Invalid value: \"\": does not match event.namespace, eventTime: Required value, type: Invalid value: \"\": has invalid value: Bogus, count: Invalid value: \"\": needs to be unset]"},
		{name: "core event with eventTime", obj: `
apiVersion: v1
kind: Event
metadata: {name: e3}
involvedObject: {kind: Pod, name: p, namespace: val-ref}
eventTime: "2024-01-01T00:00:00.000000Z"
reportingComponent: "bad component!"`,
			want: "Event \"e3\" is invalid: [reportingComponent: Invalid value: \"bad component!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), reportingInstance: Required value, action: Required value, reason: Required value]"},
		{name: "events.k8s.io event update", before: `
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: ev}
regarding: {kind: Pod, name: p, namespace: val-ref}
eventTime: "2024-01-01T00:00:00.000000Z"
reportingController: x.io/c
reportingInstance: i
action: A
reason: R
type: Normal
note: hello`, obj: `
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: ev}
regarding: {kind: Pod, name: p, namespace: val-ref}
eventTime: "2024-01-01T00:00:00.000000Z"
reportingController: x.io/c
reportingInstance: i
action: A
reason: R
type: Normal
note: hello`, change: func(o runtime.Object) {
			e := o.(*eventsv1.Event)
			e.Note, e.Reason, e.Regarding.Name = "changed", "R2", "q"
		},
			want: "Event \"ev\" is invalid: [involvedObject: Invalid value: {\"Kind\":\"Pod\",\"Namespace\":\"val-ref\",\"Name\":\"q\",\"UID\":\"\",\"APIVersion\":\"\",\"ResourceVersion\":\"\",\"FieldPath\":\"\"}: field is immutable, reason: Invalid value: \"R2\": field is immutable, message: Invalid value: \"changed\": field is immutable]"},
	})
}

func TestClaimAndNodeValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "node taints capacity and CIDRs", obj: `
apiVersion: v1
kind: Node
metadata: {name: val-node}
spec:
  podCIDRs: [10.0.0.0/24, 10.1.0.0/24, "bad"]
  taints:
  - {key: "bad key!", value: "a b", effect: NoSchedule}
  - {key: k, effect: ""}
  - {key: k2, effect: Sometimes}
  - {key: k3, effect: NoSchedule}
  - {key: k3, effect: NoSchedule, value: v}
status:
  capacity: {pods: "1.5"}`,
			want: "Node \"val-node\" is invalid: [metadata.taints[0].key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), metadata.taints[0].value: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), metadata.taints[1].effect: Required value, metadata.taints[2].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\", metadata.taints[4]: Duplicate value: {\"Key\":\"k3\",\"Value\":\"v\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}: taints must be unique by key and effect pair, status.capacity.pods: Invalid value: \"1500m\": must be an integer, status.allocatable.pods: Invalid value: \"1500m\": must be an integer, spec.podCIDRs[2]: Invalid value: \"bad\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64), spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[2]: <nil> (invalid CIDR address: bad), spec.podCIDRs: Invalid value: [\"10.0.0.0/24\",\"10.1.0.0/24\",\"bad\"]: may specify no more than one CIDR for each IP family]"},
		{name: "claim c1", obj: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c1}
spec: {}`,
			want: "PersistentVolumeClaim \"c1\" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]"},
		{name: "claim c2", obj: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c2}
spec:
  accessModes: [ReadWriteMany, Sometimes]
  resources: {requests: {storage: "-1Gi"}, limits: {storage: 1Gi}}
  volumeMode: Weird
  storageClassName: "Bad_Class"
  selector: {matchLabels: {"a b": c}}`,
			want: "PersistentVolumeClaim \"c2\" is invalid: [spec.selector.matchLabels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.accessModes: Unsupported value: \"Sometimes\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\", spec.resources[storage]: Invalid value: \"-1Gi\": must be greater than zero, spec.storageClassName: Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.volumeMode: Unsupported value: \"Weird\": supported values: \"Block\", \"Filesystem\"]"},
		{name: "claim c3", obj: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c3}
spec:
  accessModes: [ReadWriteOncePod, ReadWriteOnce]
  resources: {requests: {storage: 0}}`,
			want: "PersistentVolumeClaim \"c3\" is invalid: [spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes, spec.resources[storage]: Invalid value: \"0\": must be greater than zero]"},
		{name: "claim spec change", before: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pb}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}`, obj: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pb}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}`, change: func(o runtime.Object) {
			c := o.(*corev1.PersistentVolumeClaim)
			c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
			c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("500Mi")
		},
			want: "PersistentVolumeClaim \"pb\" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n@@ -1,12 +1,12 @@\n {\n  \"AccessModes\": [\n-  \"ReadWriteOnce\"\n+  \"ReadWriteMany\"\n  ],\n  \"Selector\": null,\n  \"Resources\": {\n   \"Limits\": null,\n   \"Requests\": {\n-   \"storage\": \"1Gi\"\n+   \"storage\": \"500Mi\"\n   }\n  },\n  \"VolumeName\": \"\",\n"},
	})
}

func TestNetworkingValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "ingress without rules", obj: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i1}
spec: {}`,
			want: "Ingress.networking.k8s.io \"i1\" is invalid: spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"},
		{name: "ingress rules", obj: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i2}
spec:
  ingressClassName: "Bad_Class"
  tls: [{hosts: ["*.x.com", "Bad_Host"], secretName: "Bad_Secret"}]
  rules:
  - host: 1.2.3.4
    http:
      paths:
      - {path: "a//b", pathType: Prefix, backend: {service: {name: 1svc, port: {number: 0}}}}
      - {path: "/x/..", pathType: Exact, backend: {service: {name: "Bad_Svc", port: {name: http, number: 80}}}}
      - {path: "x", pathType: ImplementationSpecific, backend: {}}
      - {path: "/", pathType: Fuzzy, backend: {resource: {kind: "", name: "a/b"}, service: {name: s}}}
      - {path: "/", backend: {service: {name: s, port: {number: 80}}}}
  - host: "*.bad*.com"
    http: {paths: []}`,
			want: "Ingress.networking.k8s.io \"i2\" is invalid: [spec.rules[0].host: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address, spec.rules[0].http.paths[0].path: Invalid value: \"a//b\": must be an absolute path, spec.rules[0].http.paths[0].path: Invalid value: \"a//b\": must not contain '//', spec.rules[0].http.paths[0].backend: Required value: port name or number is required, spec.rules[0].http.paths[1].path: Invalid value: \"/x/..\": cannot end with '/..', spec.rules[0].http.paths[1].backend.service.name: Invalid value: \"Bad_Svc\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.rules[0].http.paths[1].backend: Invalid value: \"\": cannot set both port name & port number, spec.rules[0].http.paths[2].path: Invalid value: \"x\": must be an absolute path, spec.rules[0].http.paths[2].backend: Invalid value: \"\": resource or service backend is required, spec.rules[0].http.paths[3].pathType: Unsupported value: \"Fuzzy\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\", spec.rules[0].http.paths[3].backend: Invalid value: \"\": cannot set both resource and service backends, spec.rules[0].http.paths[4].pathType: Required value: pathType must be specified, spec.rules[1].host: Invalid value: \"*.bad*.com\": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.rules[1].http.paths: Required value, spec.tls[0].hosts[1]: Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.tls[0].secretName: Invalid value: \"Bad_Secret\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.ingressClassName: Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"},
		{name: "network policy", obj: `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np1}
spec:
  podSelector: {matchLabels: {"a b": c}}
  policyTypes: [Ingress, Sideways]
  ingress:
  - ports: [{port: 70000, protocol: ICMP}, {port: http, endPort: 90}, {endPort: 5}, {port: 100, endPort: 90}]
    from: [{}, {ipBlock: {cidr: ""}}, {ipBlock: {cidr: 10.0.0.0/8, except: [11.0.0.0/16, 10.0.0.0/8]}, podSelector: {}}, {ipBlock: {cidr: "300.0.0.0/8"}}]
  egress:
  - to: [{namespaceSelector: {matchExpressions: [{key: a, operator: In}]}}]`,
			want: "NetworkPolicy.networking.k8s.io \"np1\" is invalid: [spec.podSelector.matchLabels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\", spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric, spec.ingress[0].ports[2].endPort: Invalid value: 5: may not be specified when `port` is not specified, spec.ingress[0].ports[3].endPort: Invalid value: 90: must be greater than or equal to `port`, spec.ingress[0].from[0]: Required value: must specify a peer, spec.ingress[0].from[2].ipBlock.except[0]: Invalid value: \"11.0.0.0/16\": must be a strict subset of `cidr`, spec.ingress[0].from[2].ipBlock.except[1]: Invalid value: \"10.0.0.0/8\": must be a strict subset of `cidr`, spec.ingress[0].from[2]: Forbidden: may not specify both ipBlock and another peer, spec.ingress[0].from[3].ipBlock.cidr: Invalid value: \"300.0.0.0/8\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64), spec.egress[0].to[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', spec.policyTypes[1]: Unsupported value: \"Sideways\": supported values: \"Ingress\", \"Egress\", spec.ingress[0].from[1].ipBlock.cidr: Required value]"},
	})
}

func TestDisruptionBudgetAndAutoscalerValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "disruption budget", obj: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb1}
spec:
  minAvailable: "150%"
  maxUnavailable: -1
  selector: {matchLabels: {"a b": c}}
  unhealthyPodEvictionPolicy: Sometimes`,
			want: "PodDisruptionBudget.policy \"pdb1\" is invalid: [spec: Invalid value: {\"MinAvailable\":\"150%\",\"Selector\":{\"matchLabels\":{\"a b\":\"c\"}},\"MaxUnavailable\":-1,\"UnhealthyPodEvictionPolicy\":\"Sometimes\"}: minAvailable and maxUnavailable cannot be both set, spec.minAvailable: Invalid value: \"150%\": must not be greater than 100%, spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0, spec.selector.matchLabels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.unhealthyPodEvictionPolicy: Unsupported value: \"Sometimes\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\"]"},
		{name: "autoscaler scaling to zero", obj: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h1}
spec:
  minReplicas: 0
  maxReplicas: -1
  scaleTargetRef: {apiVersion: v1, kind: "", name: ""}`,
			want: "HorizontalPodAutoscaler.autoscaling \"h1\" is invalid: [spec.maxReplicas: Invalid value: -1: must be greater than or equal to `minReplicas`, spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Required value, spec.scaleTargetRef.apiVersion: Invalid value: \"v1\": apiVersion must specify API group, spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas, spec.maxReplicas: Invalid value: -1: must be greater than or equal to 1]"},
		{name: "autoscaler bounds and target", obj: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h2}
spec:
  minReplicas: 5
  maxReplicas: 3
  scaleTargetRef: {apiVersion: "a/b/c", kind: "x/y", name: "n%"}`,
			want: "HorizontalPodAutoscaler.autoscaling \"h2\" is invalid: [spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`, spec.scaleTargetRef.kind: Invalid value: \"x/y\": may not contain '/', spec.scaleTargetRef.name: Invalid value: \"n%\": may not contain '%', spec.scaleTargetRef.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c]"},
		{name: "autoscaler negative bounds", obj: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h1}
spec:
  minReplicas: -2
  maxReplicas: -1
  scaleTargetRef: {apiVersion: v1, kind: "", name: ""}`,
			want: "HorizontalPodAutoscaler.autoscaling \"h1\" is invalid: [spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Required value, spec.scaleTargetRef.apiVersion: Invalid value: \"v1\": apiVersion must specify API group, spec.minReplicas: Invalid value: -2: must be greater than or equal to 0, spec.maxReplicas: Invalid value: -1: must be greater than or equal to 1]"},
	})
}

// TestServiceTypeChanges follows a Service through type changes: the
// fields of the old type go, those of the new one are allocated, as
// kube-apiserver's service storage does.
func TestServiceTypeChanges(t *testing.T) {
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, nsObj("val-ref"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	targets := map[string]kubernetes.Interface{"fakeplane": cs}
	if ref, _ := refCluster(t); ref != nil {
		targets["reference"] = ref
	}
	for where, cs := range targets {
		t.Run(where, func(t *testing.T) {
			svcs := cs.CoreV1().Services("val-ref")
			t.Cleanup(func() { _ = svcs.Delete(context.Background(), "types", metav1.DeleteOptions{}) })
			if _, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "types"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			patch := func(p string) *corev1.Service {
				t.Helper()
				s, err := svcs.Patch(ctx, "types", types.MergePatchType, []byte(p), metav1.PatchOptions{})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				return s
			}
			s := patch(`{"spec":{"type":"NodePort"}}`)
			if np := s.Spec.Ports[0].NodePort; np < 30000 || np > 32767 || s.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
				t.Errorf("NodePort: node port %d, externalTrafficPolicy %q", np, s.Spec.ExternalTrafficPolicy)
			}
			s = patch(`{"spec":{"type":"ExternalName","externalName":"x.example.com"}}`)
			if s.Spec.ClusterIP != "" || s.Spec.ClusterIPs != nil || s.Spec.IPFamilies != nil || s.Spec.IPFamilyPolicy != nil ||
				s.Spec.InternalTrafficPolicy != nil || s.Spec.ExternalTrafficPolicy != "" || s.Spec.Ports[0].NodePort != 0 {
				t.Errorf("ExternalName kept fields of NodePort: %+v", s.Spec)
			}
			s = patch(`{"spec":{"type":"LoadBalancer","externalName":null,"externalTrafficPolicy":"Local"}}`)
			if s.Spec.ClusterIP == "" || s.Spec.Ports[0].NodePort == 0 || s.Spec.HealthCheckNodePort == 0 ||
				s.Spec.AllocateLoadBalancerNodePorts == nil || !*s.Spec.AllocateLoadBalancerNodePorts {
				t.Errorf("LoadBalancer lacks allocations: %+v", s.Spec)
			}
		})
	}
}

func TestPriorityAndStorageClassValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "reserved priority class name", obj: `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-mine}
value: 5
preemptionPolicy: Sometimes`,
			want: "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: [metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class, preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\"]"},
		{name: "priority above user range", obj: `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: val-pc2}
value: 2000000000`,
			want: "PriorityClass.scheduling.k8s.io \"val-pc2\" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"},
		{name: "storage class fields", obj: `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: val-sc1}
provisioner: "Bad Provisioner!"
reclaimPolicy: Recycle
volumeBindingMode: Later
parameters: {"": x}`,
			want: "StorageClass.storage.k8s.io \"val-sc1\" is invalid: [provisioner: Invalid value: \"bad provisioner!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), parameters: Invalid value: \"\": field can not be empty., reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\", volumeBindingMode: Unsupported value: \"Later\": supported values: \"Immediate\", \"WaitForFirstConsumer\"]"},
		{name: "storage class without provisioner", obj: `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: val-sc2}`,
			want: "StorageClass.storage.k8s.io \"val-sc2\" is invalid: provisioner: Required value"},
		{name: "storage class allowed topologies", obj: `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: val-sc3}
provisioner: example.com/p
allowedTopologies:
- matchLabelExpressions: [{key: zone, values: [a, a]}, {key: "bad key!", values: []}, {key: zone, values: [b]}]
- {}
- matchLabelExpressions: [{key: rack, values: [r1, r2]}]
- matchLabelExpressions: [{key: rack, values: [r2, r1]}]
- {}`,
			want: "StorageClass.storage.k8s.io \"val-sc3\" is invalid: [allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: \"a\", allowedTopologies[0].matchLabelExpressions[1].values: Required value, allowedTopologies[0].matchLabelExpressions[1].key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), allowedTopologies[0].matchLabelExpressions[2].key: Duplicate value: \"zone\", allowedTopologies[1].matchLabelExpressions: Duplicate value: \"\", allowedTopologies[3].matchLabelExpressions: Duplicate value: \"\", allowedTopologies[4].matchLabelExpressions: Duplicate value: \"\"]"},
	})
}

func TestEndpointSliceValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "ports and addresses", obj: `
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: es1}
addressType: IPv4
ports: [{name: "Bad_Name", port: 80, protocol: ICMP}, {name: "Bad_Name"}, {port: 81}]
endpoints:
- addresses: []
- addresses: ["127.0.0.1", "1.2.3", "::1"]
  nodeName: "Bad_Node"
  hostname: "Bad.Host"`,
			want: "EndpointSlice.discovery.k8s.io \"es1\" is invalid: [ports[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\", ports[1].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), ports[1].name: Duplicate value: \"Bad_Name\", endpoints[1].addresses[0]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128), endpoints[1].addresses[1]: Invalid value: \"1.2.3\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), endpoints[1].addresses: Invalid value: \"::1\": must be an IPv4 address, endpoints[1].addresses[2]: Invalid value: \"::1\": may not be in the loopback range (127.0.0.0/8, ::1/128), endpoints[1].nodeName: Invalid value: \"Bad_Node\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), endpoints[1].hostname: Invalid value: \"Bad.Host\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), endpoints[0].addresses: Required value]"},
		{name: "topology hints", obj: `
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: es-hints}
addressType: IPv4
endpoints:
- addresses: ["10.1.2.3"]
  hints: {forZones: [{name: z1}, {name: z1}, {name: "bad zone!"}], forNodes: [{name: n1}, {name: Bad_Node}, {name: n1}]}
- addresses: ["10.1.2.4"]
  hints: {forZones: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}, {name: i}], forNodes: [{name: Bad}]}
- addresses: ["10.1.2.5"]
  hints: {forNodes: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}, {name: i}]}`,
			want: "EndpointSlice.discovery.k8s.io \"es-hints\" is invalid: [endpoints[0].hints.forZones[1].name: Duplicate value: \"z1\", endpoints[0].hints.forZones[2].name: Invalid value: \"bad zone!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), endpoints[0].hints.forNodes[1].name: Invalid value: \"Bad_Node\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), endpoints[0].hints.forNodes[2].name: Duplicate value: \"n1\", endpoints[1].hints.forZones: Too many: 9: must have at most 8 items, endpoints[2].hints.forNodes: Too many: 9: must have at most 8 items]"},
		{name: "unknown address type", obj: `
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: es2}
addressType: Weird
endpoints: [{addresses: [x]}]`,
			want: "EndpointSlice.discovery.k8s.io \"es2\" is invalid: addressType: Unsupported value: \"Weird\": supported values: \"FQDN\", \"IPv4\", \"IPv6\""},
		{name: "FQDN addresses", obj: `
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: es3}
addressType: FQDN
ports: [{port: 80}]
endpoints: [{addresses: ["Bad_fqdn", "a.b.com"]}]`,
			want: "EndpointSlice.discovery.k8s.io \"es3\" is invalid: endpoints[0].addresses[0]: Invalid value: \"Bad_fqdn\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
		{name: "missing address type", obj: `
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: es5}
ports: [{name: "Bad_Name", port: 80}]
endpoints: [{addresses: []}]`,
			want: "EndpointSlice.discovery.k8s.io \"es5\" is invalid: [ports[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), addressType: Required value, endpoints[0].addresses: Required value]"},
	})
}

// TestSuspendedJobTemplateUpdates: a suspended Job that has not run may
// change its template's scheduling directives and resources (what queue
// controllers do), not the rest of it.
func TestSuspendedJobTemplateUpdates(t *testing.T) {
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, nsObj("val-ref"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	targets := map[string]kubernetes.Interface{"fakeplane": cs}
	if ref, _ := refCluster(t); ref != nil {
		targets["reference"] = ref
	}
	messages := map[string]string{}
	for where, cs := range targets {
		jobs := cs.BatchV1().Jobs("val-ref")
		bg := metav1.DeletePropagationBackground
		t.Cleanup(func() {
			_ = jobs.Delete(context.Background(), "suspended", metav1.DeleteOptions{PropagationPolicy: &bg})
		})
		job := decodeYAML(t, `
apiVersion: batch/v1
kind: Job
metadata: {name: suspended}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]`).(*batchv1.Job)
		_, err := jobs.Create(ctx, job, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The job controller marks it Suspended: update what follows.
		waitFor(t, func() bool {
			job, err = jobs.Get(ctx, "suspended", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range job.Status.Conditions {
				if c.Type == batchv1.JobSuspended && c.Status == corev1.ConditionTrue {
					return true
				}
			}
			return false
		})
		job.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
		job.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		if job, err = jobs.Update(ctx, job, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("%s: scheduling directives and resources of a suspended job: %v", where, err)
		}
		job.Spec.Template.Spec.Containers[0].Image = "other"
		_, err = jobs.Update(ctx, job, metav1.UpdateOptions{})
		if !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), `Job.batch "suspended" is invalid: spec.template.spec: Invalid value: {"Volumes":null,`) {
			t.Fatalf("%s: image change of a suspended job: %v", where, err)
		}
		messages[where] = err.Error()
	}
	if ref, ok := messages["reference"]; ok && ref != messages["fakeplane"] {
		t.Errorf("messages differ:\nfakeplane %s\nreference %s", messages["fakeplane"], ref)
	}
}

func TestResourceQuotaValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "quota names and scopes", obj: `
apiVersion: v1
kind: ResourceQuota
metadata: {name: rq1}
spec:
  hard: {foo: "1"}
  scopes: [Sometimes, BestEffort, NotBestEffort]`,
			want: "ResourceQuota \"rq1\" is invalid: [spec.hard[foo]: Invalid value: \"foo\": must be a standard resource type or fully qualified, spec.hard[foo]: Invalid value: \"foo\": must be a standard resource for quota, spec.scopes: Invalid value: [\"Sometimes\",\"BestEffort\",\"NotBestEffort\"]: unsupported scope, spec.scopes: Invalid value: [\"Sometimes\",\"BestEffort\",\"NotBestEffort\"]: conflicting scopes]"},
		{name: "quota integer resource", obj: `
apiVersion: v1
kind: ResourceQuota
metadata: {name: rq2}
spec:
  hard: {pods: "1.5"}`,
			want: "ResourceQuota \"rq2\" is invalid: spec.hard[pods]: Invalid value: \"1500m\": must be an integer"},
		{name: "quota storage", obj: `
apiVersion: v1
kind: ResourceQuota
metadata: {name: rq3}
spec:
  hard: {storage: "-1", "count/deployments.apps": "2", "requests.example.com/gpu": "1"}`,
			want: "ResourceQuota \"rq3\" is invalid: [spec.hard[storage]: Invalid value: \"storage\": must be a standard resource for quota, spec.hard[storage]: Invalid value: \"-1\": must be greater than or equal to 0]"},
	})
}

// TestPodLevelResourcesQOS creates pods through a client and reads the
// status.qosClass kube-apiserver v1.37 sets: pod-level resources
// (spec.resources, PodLevelResources on by default) decide it when set.
func TestPodLevelResourcesQOS(t *testing.T) {
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	rl := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
	for i, tc := range []struct {
		name      string
		podLevel  *corev1.ResourceRequirements
		container corev1.ResourceRequirements
		want      corev1.PodQOSClass
	}{
		{"pod-level requests equal limits, containers without resources", &corev1.ResourceRequirements{Requests: rl("1", "1Gi"), Limits: rl("1", "1Gi")}, corev1.ResourceRequirements{}, corev1.PodQOSGuaranteed},
		{"pod-level limits only", &corev1.ResourceRequirements{Limits: rl("1", "1Gi")}, corev1.ResourceRequirements{}, corev1.PodQOSGuaranteed},
		{"pod-level requests below limits", &corev1.ResourceRequirements{Requests: rl("500m", "1Gi"), Limits: rl("1", "1Gi")}, corev1.ResourceRequirements{}, corev1.PodQOSBurstable},
		{"pod-level guaranteed over a burstable container", &corev1.ResourceRequirements{Requests: rl("1", "1Gi"), Limits: rl("1", "1Gi")},
			corev1.ResourceRequirements{Requests: rl("100m", "100Mi"), Limits: rl("200m", "200Mi")}, corev1.PodQOSGuaranteed},
		{"pod-level requests, limits from the container's", &corev1.ResourceRequirements{Requests: rl("1", "1Gi")}, corev1.ResourceRequirements{Limits: rl("1", "1Gi")}, corev1.PodQOSGuaranteed},
		{"no pod-level resources, guaranteed container", nil, corev1.ResourceRequirements{Limits: rl("1", "1Gi")}, corev1.PodQOSGuaranteed},
		{"no resources at all", nil, corev1.ResourceRequirements{}, corev1.PodQOSBestEffort},
	} {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("qos-%d", i)},
			Spec: corev1.PodSpec{Resources: tc.podLevel, Containers: []corev1.Container{
				{Name: "c", Image: "busybox", Resources: tc.container},
			}},
		}
		got, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.Status.QOSClass != tc.want {
			t.Errorf("%s: qosClass %s, want %s", tc.name, got.Status.QOSClass, tc.want)
		}
	}
}

// TestResourceAPIValidation checks the 422s of resource.k8s.io/v1 objects
// (dynamic resource allocation): kube-apiserver v1.37 answers the
// strategy's handwritten errors, then the declarative ones (standard and
// beta), which replace the handwritten errors they cover. (Declarative
// errors of map entries come in Go's map order upstream too: a case has
// at most one per map.)
func TestResourceAPIValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "device class names and config",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: Bad_Class}
spec:
  selectors: [{}]
  config: [{}, {opaque: {driver: "Bad_Driver!", parameters: [1]}}]
  extendedResourceName: foo`,
			want: "DeviceClass.resource.k8s.io \"Bad_Class\" is invalid: [spec.selectors[0].cel: Required value, spec.config[0].opaque: Required value, spec.config[1].opaque.parameters: Invalid value: \"<value omitted>\": must be a valid JSON object, metadata.name: Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.config[1].opaque.driver: Invalid value: \"Bad_Driver!\": an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'Example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.extendedResourceName: Invalid value: \"foo\": a name must be a domain-prefixed path, such as 'example.com/my-prop']"},
		{name: "device class selectors over the limit",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: val-dc2}
spec:
  selectors: [{cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}, {cel: {expression: "true"}}]`,
			want: "DeviceClass.resource.k8s.io \"val-dc2\" is invalid: spec.selectors: Too many: 33: must have at most 32 items"},
		{name: "device class opaque driver missing",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: val-dc3}
spec:
  config: [{opaque: {parameters: {a: 1}}}]`,
			want: "DeviceClass.resource.k8s.io \"val-dc3\" is invalid: spec.config[0].opaque.driver: Required value"},
		{name: "claim request without a kind",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc1}
spec:
  devices:
    requests: [{name: Bad_Req}]`,
			want: "ResourceClaim.resource.k8s.io \"val-rc1\" is invalid: [spec.devices.requests[0].name: Invalid value: \"Bad_Req\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required]"},
		{name: "claim exact request fields",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc2}
spec:
  devices:
    requests:
    - name: a
      exactly: {allocationMode: Some}
    - name: b
      exactly: {deviceClassName: Bad_Class, count: -1}
    - name: c
      exactly: {deviceClassName: gpu, allocationMode: All, count: 2}`,
			want: "ResourceClaim.resource.k8s.io \"val-rc2\" is invalid: [spec.devices.requests[0].exactly.deviceClassName: Required value, spec.devices.requests[1].exactly.deviceClassName: Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.devices.requests[1].exactly.count: Invalid value: -1: must be greater than zero, spec.devices.requests[2].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All', spec.devices.requests[0].exactly.allocationMode: Unsupported value: \"Some\": supported values: \"All\", \"ExactCount\"]"},
		{name: "claim duplicate requests and both kinds",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc3}
spec:
  devices:
    requests:
    - name: a
      exactly: {deviceClassName: gpu}
    - name: a
      exactly: {deviceClassName: gpu}
      firstAvailable: [{name: x, deviceClassName: gpu}]`,
			want: "ResourceClaim.resource.k8s.io \"val-rc3\" is invalid: [spec.devices.requests[1]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set, spec.devices.requests[1]: Duplicate value: {\"name\":\"a\",\"exactly\":{\"deviceClassName\":\"gpu\",\"allocationMode\":\"ExactCount\",\"count\":1},\"firstAvailable\":[{\"name\":\"x\",\"deviceClassName\":\"gpu\",\"allocationMode\":\"ExactCount\",\"count\":1}]}]"},
		{name: "claim constraints and config",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc4}
spec:
  devices:
    requests:
    - name: a
      exactly: {deviceClassName: gpu}
    constraints:
    - requests: [a, b, a/x/y]
    config:
    - requests: [b]
    - opaque: {driver: gpu.example.com, parameters: "null"}`,
			want: "ResourceClaim.resource.k8s.io \"val-rc4\" is invalid: [spec.devices.constraints[0].requests[1]: Invalid value: \"b\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/', spec.devices.constraints[0].requests[2]: Invalid value: \"a/x/y\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/', spec.devices.constraints[0]: Required value: exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but multiple fields are set, spec.devices.config[0].requests[0]: Invalid value: \"b\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/', spec.devices.config[0].opaque: Required value, spec.devices.config[1].opaque.parameters: Invalid value: \"<value omitted>\": must be a valid JSON object]"},
		{name: "claim tolerations",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc5}
spec:
  devices:
    requests:
    - name: a
      exactly:
        deviceClassName: gpu
        tolerations:
        - {key: "bad key", operator: Exists, value: x}
        - {key: k, value: "bad value!", effect: Sometimes}
        - {key: k, operator: Maybe}`,
			want: "ResourceClaim.resource.k8s.io \"val-rc5\" is invalid: [spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: \"x\": must be empty for operator `Exists`, spec.devices.requests[0].exactly.tolerations[1].value: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.devices.requests[0].exactly.tolerations[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.devices.requests[0].exactly.tolerations[1].effect: Unsupported value: \"Sometimes\": supported values: \"NoExecute\", \"NoSchedule\", \"None\", spec.devices.requests[0].exactly.tolerations[2].operator: Unsupported value: \"Maybe\": supported values: \"Equal\", \"Exists\"]"},
		{name: "claim subrequests",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc6}
spec:
  devices:
    requests:
    - name: a
      firstAvailable:
      - {name: x}
      - {name: x, deviceClassName: gpu, selectors: [{}]}`,
			want: "ResourceClaim.resource.k8s.io \"val-rc6\" is invalid: [spec.devices.requests[0].firstAvailable[1].selectors[0].cel: Required value, spec.devices.requests[0].firstAvailable[1]: Duplicate value: {\"name\":\"x\",\"deviceClassName\":\"gpu\",\"selectors\":[{}],\"allocationMode\":\"ExactCount\",\"count\":1}, spec.devices.requests[0].firstAvailable[0].deviceClassName: Required value]"},
		{name: "claim spec is immutable",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc7}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc7}
spec:
  devices:
    requests: [{name: b, exactly: {deviceClassName: gpu}}]`,
			want: "ResourceClaim.resource.k8s.io \"val-rc7\" is invalid: spec: Invalid value: null: field is immutable"},
		{name: "claim status reservedFor without allocation",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc8}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]`,
			status: true,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc8}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]
status:
  reservedFor: [{resource: pods, name: p, uid: u1}, {name: q}]`,
			want: "ResourceClaim.resource.k8s.io \"val-rc8\" is invalid: [status.reservedFor[1].resource: Required value, status.reservedFor[1].uid: Required value, status.reservedFor: Forbidden: may not be specified when `allocated` is not set]"},
		{name: "claim status allocation",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc9}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]`,
			status: true,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-rc9}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]
status:
  allocation:
    devices:
      results:
      - {request: b, driver: gpu.example.com, pool: pool-1, device: Bad_Device}
      - {request: a, driver: "", pool: "", device: d}
      config:
      - {source: Nowhere, requests: [a], opaque: {driver: gpu.example.com, parameters: {}}}`,
			want: "ResourceClaim.resource.k8s.io \"val-rc9\" is invalid: [status.allocation.devices.results[0].request: Invalid value: \"b\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/', status.allocation.devices.results[0].device: Invalid value: \"Bad_Device\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), status.allocation.devices.results[1].driver: Required value, status.allocation.devices.results[1].pool: Required value, status.allocation.devices.config[0].source: Unsupported value: \"Nowhere\": supported values: \"FromClaim\", \"FromClass\"]"},
		{name: "claim template metadata",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: val-rct1}
spec:
  metadata:
    name: x
    namespace: "y"
    labels: {"bad key!": v}
    finalizers: [f]
  spec:
    devices:
      requests: [{name: a, exactly: {}}]`,
			want: "ResourceClaimTemplate.resource.k8s.io \"val-rct1\" is invalid: [spec.metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.metadata.name: Forbidden: cannot be set, spec.metadata.namespace: Forbidden: cannot be set, spec.metadata.finalizers: Forbidden: cannot be set, spec.spec.devices.requests[0].exactly.deviceClassName: Required value]"},
		{name: "claim template spec is immutable",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: val-rct2}
spec:
  spec:
    devices:
      requests: [{name: a, exactly: {deviceClassName: gpu}}]`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: val-rct2}
spec:
  spec:
    devices:
      requests: [{name: b, exactly: {deviceClassName: gpu}}]`,
			want: "ResourceClaimTemplate.resource.k8s.io \"val-rct2\" is invalid: spec: Invalid value: {\"Spec\":{\"Devices\":{\"Requests\":[{\"Name\":\"b\",\"Exactly\":{\"DeviceClassName\":\"gpu\",\"Selectors\":null,\"AllocationMode\":\"ExactCount\",\"Count\":1,\"AdminAccess\":null,\"Tolerations\":null,\"Capacity\":null,\"DerivedAttributes\":null},\"FirstAvailable\":null}],\"Constraints\":null,\"Config\":null}}}: field is immutable"},
		{name: "slice without driver, pool and node",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-rs1}
spec:
  pool: {generation: -1}`,
			want: "ResourceSlice.resource.k8s.io \"val-rs1\" is invalid: [spec.driver: Required value, spec.pool.name: Required value, spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero, spec.pool.generation: Invalid value: -1: must be greater than or equal to zero, spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required]"},
		{name: "slice node selection",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-rs2}
spec:
  driver: gpu.example.com
  pool: {name: pool/Bad_Part, resourceSliceCount: 1}
  nodeName: ""
  allNodes: false
  perDeviceNodeSelection: true
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{key: "bad key", operator: Sometimes, values: [a]}]
    - matchFields: [{key: spec.x, operator: In, values: [a, b]}]`,
			want: "ResourceSlice.resource.k8s.io \"val-rs2\" is invalid: [spec.pool.name: Invalid value: \"Bad_Part\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.nodeName: Invalid value: \"\": must be either unset or set to a non-empty string, spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Sometimes\": not a valid selector operator, spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.nodeSelector.nodeSelectorTerms[1].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector, spec.nodeSelector.nodeSelectorTerms[1].matchFields[0].key: Invalid value: \"spec.x\": not a valid field selector key, spec.nodeSelector.nodeSelectorTerms: Invalid value: [{\"MatchExpressions\":[{\"Key\":\"bad key\",\"Operator\":\"Sometimes\",\"Values\":[\"a\"]}],\"MatchFields\":null},{\"MatchExpressions\":null,\"MatchFields\":[{\"Key\":\"spec.x\",\"Operator\":\"In\",\"Values\":[\"a\",\"b\"]}]}]: must have exactly one node selector term, spec.allNodes: Invalid value: false: must be either unset or set to true, spec: Invalid value: \"{`nodeSelector`, `perDeviceNodeSelection`}\": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set]"},
		{name: "slice devices",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-rs3}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: Bad_Device
    attributes:
      none: {}
      "bad-name": {string: x}
  - name: Bad_Device
    attributes: {ver: {version: "1.0"}}
    nodeName: "n"
    taints: [{key: k, effect: Sometimes}, {effect: NoSchedule}]`,
			want: "ResourceSlice.resource.k8s.io \"val-rs3\" is invalid: [spec.devices[0].name: Invalid value: \"Bad_Device\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.devices[0].attributes: Invalid value: \"bad-name\": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*'), spec.devices[1].name: Invalid value: \"Bad_Device\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.devices[1].attributes[ver].version: Invalid value: \"1.0\": must be a string compatible with semver.org spec 2.0.0, spec.devices[1].taints[1].key: Invalid value: \"\": name part must be non-empty, spec.devices[1].taints[1].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.devices[1]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec, spec.devices[1]: Duplicate value: \"Bad_Device\", spec.devices[0].attributes[none]: Invalid value: \"\": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`, spec.devices[1].taints[0].effect: Unsupported value: \"Sometimes\": supported values: \"NoExecute\", \"NoSchedule\", \"None\"]"},
		{name: "slice driver and pool are immutable",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-rs4}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  nodeName: node-1`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-rs4}
spec:
  driver: other.example.com
  pool: {name: p2, resourceSliceCount: 1}
  nodeName: node-2`,
			want: "ResourceSlice.resource.k8s.io \"val-rs4\" is invalid: [spec.pool.name: Invalid value: \"p2\": field is immutable, spec.driver: Invalid value: \"other.example.com\": field is immutable, spec.nodeName: Invalid value: \"node-2\": field is immutable]"},
		{name: "taint rule selector and taint",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-dtr1}
spec:
  deviceSelector: {driver: "Bad Driver", pool: "", device: Bad_Device}
  taint: {value: "bad value!", effect: Sometimes}`,
			want: "DeviceTaintRule.resource.k8s.io \"val-dtr1\" is invalid: [spec.deviceSelector.driver: Invalid value: \"Bad Driver\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.deviceSelector.pool: Required value, spec.deviceSelector.device: Invalid value: \"Bad_Device\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.taint.key: Invalid value: \"\": name part must be non-empty, spec.taint.key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.taint.value: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.taint.effect: Unsupported value: \"Sometimes\": supported values: \"NoExecute\", \"NoSchedule\", \"None\"]"},
		{name: "taint rule status conditions",
			before: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-dtr2}
spec:
  taint: {key: k, effect: NoSchedule}`,
			status: true,
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-dtr2}
spec:
  taint: {key: k, effect: NoSchedule}
status:
  conditions: [{type: "bad type!", status: Maybe, reason: r, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]`,
			want: "DeviceTaintRule.resource.k8s.io \"val-dtr2\" is invalid: [status.conditions[0].type: Invalid value: \"bad type!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"]"},
		{name: "status devices",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-m1}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]`,
			status: true,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-m1}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]

status:
  allocation:
    devices:
      results: [{request: a, driver: gpu.example.com, pool: pool-1, device: dev-0}]
  devices:
  - {driver: gpu.example.com, pool: pool-1, device: dev-1, shareID: not-a-uid, data: [1], conditions: [{type: Ready, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}], networkData: {ips: ["10.0.0.1", "bad"], interfaceName: eth0}}
  - {driver: "", pool: "", device: ""}`,
			want: "ResourceClaim.resource.k8s.io \"val-m1\" is invalid: [status.devices[0]: Invalid value: {\"Driver\":\"gpu.example.com\",\"Pool\":\"pool-1\",\"Device\":\"dev-1\",\"ShareID\":\"not-a-uid\"}: must be an allocated device in the claim, status.devices[0].data: Invalid value: \"<value omitted>\": must be a valid JSON object, status.devices[0].networkData.ips[0]: Invalid value: \"10.0.0.1\": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64), status.devices[0].networkData.ips[1]: Invalid value: \"bad\": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64), status.devices[1].driver: Required value, status.devices[1].pool: Required value, status.devices[1].device: Invalid value: \"\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), status.devices[1]: Invalid value: {\"Driver\":\"\",\"Pool\":\"\",\"Device\":\"\",\"ShareID\":\"\"}: must be an allocated device in the claim, status.devices[0].shareID: Invalid value: \"not-a-uid\": must be a lowercase UUID in 8-4-4-4-12 format]"},
		{name: "slice counters and per-device nodes",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-m2}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  perDeviceNodeSelection: true
  sharedCounters: [{name: Bad_Set, counters: {}}]
  devices:
  - name: d0
    consumesCounters: [{counterSet: s, counters: {}}]
  - name: d1
    nodeName: ""
    allNodes: false
    bindingConditions: [a, a]
    bindingFailureConditions: [a]
  - name: d2
    nodeName: node-1
    allNodes: true`,
			want: "ResourceSlice.resource.k8s.io \"val-m2\" is invalid: [spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed, spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec, spec.devices[1].nodeName: Invalid value: \"\": must not be empty, spec.devices[1].allNodes: Invalid value: false: must be either unset or set to true, spec.devices[1]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec, spec.devices[1].bindingConditions[1]: Duplicate value: \"a\", spec.devices[1].bindingFailureConditions[0]: Invalid value: \"a\": bindingFailureConditions must not overlap with bindingConditions, spec.devices[2]: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec, spec.devices[0].consumesCounters[0].counters: Required value, spec.sharedCounters[0].name: Invalid value: \"Bad_Set\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.sharedCounters[0].counters: Required value]"},
		{name: "slice capacity policy",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-m3}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: d0
    capacity:
      mem: {value: 10Gi, requestPolicy: {default: 1Gi}}
  - name: d1
    allowMultipleAllocations: true
    capacity:
      mem: {value: 10Gi, requestPolicy: {validValues: [1Gi], validRange: {min: 1Gi}}}
      cpu: {value: "4", requestPolicy: {validValues: [1]}}`,
			want: "ResourceSlice.resource.k8s.io \"val-m3\" is invalid: [spec.devices[0].capacity[mem].requestPolicy: Forbidden: allowMultipleAllocations must be true, spec.devices[1].capacity[cpu].requestPolicy.default: Required value: required when validValues is defined, spec.devices[1].capacity[mem].requestPolicy: Forbidden: exactly one policy can be specified, cannot specify \"validValues\" and \"validRange\" at the same time]"},
		{name: "class update keeps stored selectors",
			before: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: val-m4}
spec:
  selectors: [{cel: {expression: "true"}}]`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: val-m4, labels: {a: b}}
spec:
  selectors: [{}]`,
			want: "DeviceClass.resource.k8s.io \"val-m4\" is invalid: spec.selectors[0].cel: Required value"},
		{name: "claim many requests",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-m5}
spec:
  devices:
    requests: [{name: r0, exactly: {deviceClassName: gpu}}, {name: r1, exactly: {deviceClassName: gpu}}, {name: r2, exactly: {deviceClassName: gpu}}, {name: r3, exactly: {deviceClassName: gpu}}, {name: r4, exactly: {deviceClassName: gpu}}, {name: r5, exactly: {deviceClassName: gpu}}, {name: r6, exactly: {deviceClassName: gpu}}, {name: r7, exactly: {deviceClassName: gpu}}, {name: r8, exactly: {deviceClassName: gpu}}, {name: r9, exactly: {deviceClassName: gpu}}, {name: r10, exactly: {deviceClassName: gpu}}, {name: r11, exactly: {deviceClassName: gpu}}, {name: r12, exactly: {deviceClassName: gpu}}, {name: r13, exactly: {deviceClassName: gpu}}, {name: r14, exactly: {deviceClassName: gpu}}, {name: r15, exactly: {deviceClassName: gpu}}, {name: r16, exactly: {deviceClassName: gpu}}, {name: r17, exactly: {deviceClassName: gpu}}, {name: r18, exactly: {deviceClassName: gpu}}, {name: r19, exactly: {deviceClassName: gpu}}, {name: r20, exactly: {deviceClassName: gpu}}, {name: r21, exactly: {deviceClassName: gpu}}, {name: r22, exactly: {deviceClassName: gpu}}, {name: r23, exactly: {deviceClassName: gpu}}, {name: r24, exactly: {deviceClassName: gpu}}, {name: r25, exactly: {deviceClassName: gpu}}, {name: r26, exactly: {deviceClassName: gpu}}, {name: r27, exactly: {deviceClassName: gpu}}, {name: r28, exactly: {deviceClassName: gpu}}, {name: r29, exactly: {deviceClassName: gpu}}, {name: r30, exactly: {deviceClassName: gpu}}, {name: r31, exactly: {deviceClassName: gpu}}, {name: r32, exactly: {deviceClassName: gpu}}]
    constraints: [{distinctAttribute: "bad"}, {matchAttribute: "a/b/c"}]`,
			want: "ResourceClaim.resource.k8s.io \"val-m5\" is invalid: [spec.devices.requests: Too many: 33: must have at most 32 items, spec.devices.constraints[0].distinctAttribute: Invalid value: \"bad\": a fully qualified name must be a domain and a name separated by a slash]"},
		{name: "taint rule taint update",
			before: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-m9}
spec:
  taint: {key: k, effect: NoSchedule}`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-m9}
spec:
  taint: {key: k, effect: Bogus}`,
			want: "DeviceTaintRule.resource.k8s.io \"val-m9\" is invalid: spec.taint.effect: Unsupported value: \"Bogus\": supported values: \"NoExecute\", \"NoSchedule\", \"None\""},
		{name: "generated class name",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {generateName: Bad_, name: Bad_abcde}`,
			want: "DeviceClass.resource.k8s.io \"Bad_abcde\" is invalid: metadata.name: Invalid value: \"Bad_abcde\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
		{name: "template update with bad labels and spec",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: val-t1}
spec:
  spec:
    devices:
      requests: [{name: a, exactly: {deviceClassName: gpu, tolerations: [{key: k, operator: Exists}]}, firstAvailable: []}]`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: val-t1}
spec:
  metadata: {labels: {"bad key!": v}}
  spec:
    devices:
      requests: [{name: a, exactly: {deviceClassName: other}}]`,
			want: "ResourceClaimTemplate.resource.k8s.io \"val-t1\" is invalid: [spec.metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec: Invalid value: {\"labels\":{\"bad key!\":\"v\"},\"Spec\":{\"Devices\":{\"Requests\":[{\"Name\":\"a\",\"Exactly\":{\"DeviceClassName\":\"other\",\"Selectors\":null,\"AllocationMode\":\"ExactCount\",\"Count\":1,\"AdminAccess\":null,\"Tolerations\":null,\"Capacity\":null,\"DerivedAttributes\":null},\"FirstAvailable\":null}],\"Constraints\":null,\"Config\":null}}}: field is immutable]"},
		{name: "slice update devices",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-t2}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  nodeName: node-1
  devices: [{name: d0}]`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-t2}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 0}
  nodeName: node-1
  devices: [{name: d0, taints: [{key: "", effect: NoSchedule}]}, {name: d1}]`,
			want: "ResourceSlice.resource.k8s.io \"val-t2\" is invalid: [spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero, spec.devices[0].taints[0].key: Invalid value: \"\": name part must be non-empty, spec.devices[0].taints[0].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"},
		{name: "class update with config",
			before: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: val-t3}
spec: {}`,
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: val-t3}
spec:
  config: [{opaque: {driver: "", parameters: {}}}]
  extendedResourceName: "example.com/x y"`,
			want: "DeviceClass.resource.k8s.io \"val-t3\" is invalid: [spec.config[0].opaque.driver: Required value, spec.extendedResourceName: Invalid value: \"example.com/x y\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"},
		{name: "claim status spec change ignored, reservedFor dup",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-t4}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]`,
			status: true,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-t4}
spec:
  devices:
    requests: [{name: zzz, exactly: {deviceClassName: other}}]
status:
  allocation:
    devices:
      results: [{request: a, driver: gpu.example.com, pool: pool-1, device: dev-0, tolerations: [{key: k, operator: Exists, value: v}], bindingConditions: [c1], shareID: 11111111-2222-3333-4444-555555555555}]
    nodeSelector: {nodeSelectorTerms: []}
  reservedFor: [{resource: pods, name: p, uid: u1}, {resource: pods, name: q, uid: u1}]`,
			want: "ResourceClaim.resource.k8s.io \"val-t4\" is invalid: [status.allocation.devices.results[0].bindingFailureConditions: Invalid value: null: bindingFailureConditions are required to use bindingConditions, status.allocation.devices.results[0].tolerations[0].value: Invalid value: \"v\": must be empty for operator `Exists`, status.allocation.nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term, status.reservedFor[1]: Duplicate value: {\"resource\":\"pods\",\"name\":\"q\",\"uid\":\"u1\"}]"},
		{name: "taint rule status too many conditions",
			before: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-t5}
spec:
  taint: {key: k, effect: NoSchedule}`,
			status: true,
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-t5}
spec:
  taint: {key: k, effect: NoSchedule}
status:
  conditions: [{type: T0, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T1, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T2, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T3, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T4, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T5, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T6, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T7, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}, {type: T8, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]`,
			want: "DeviceTaintRule.resource.k8s.io \"val-t5\" is invalid: status.conditions: Too many: 9: must have at most 8 items"},
	})
}

// TestStorageVersionMigrationValidation checks the StorageVersionMigration
// strategy's rules (recorded from refplane): the resource to migrate, an
// immutable spec (reported as upstream's internal spec, in JSON), and the
// status's resource version and conditions.
func TestStorageVersionMigrationValidation(t *testing.T) {
	const valid = `
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata: {name: val-svm3}
spec:
  resource: {group: apps, resource: deployments}`
	runValidationCases(t, []validationCase{
		{name: "resource required and group a subdomain",
			obj: `
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata: {name: val-svm1}
spec:
  resource: {group: Bad Group}`,
			want: "StorageVersionMigration.storagemigration.k8s.io \"val-svm1\" is invalid: [spec.resource.resource: Required value: resource is required to be set, spec.resource.group: Invalid value: \"Bad Group\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"},
		{name: "resource a DNS-1035 label",
			obj: `
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata: {name: val-svm2}
spec:
  resource: {resource: 1deployments}`,
			want: "StorageVersionMigration.storagemigration.k8s.io \"val-svm2\" is invalid: spec.resource.resource: Invalid value: \"1deployments\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"},
		{name: "spec immutable", before: valid,
			obj: `
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata: {name: val-svm3}
spec:
  resource: {group: apps, resource: statefulsets}`,
			want: "StorageVersionMigration.storagemigration.k8s.io \"val-svm3\" is invalid: spec: Invalid value: {\"Resource\":{\"group\":\"apps\",\"resource\":\"statefulsets\"}}: field is immutable"},
		{name: "status resource version and conditions", before: valid, status: true,
			obj: valid + `
status:
  resourceVersion: abc
  conditions:
  - {type: Succeeded, status: "True", reason: "x", message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Failed, status: "True", reason: "y", message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: "bad type!", status: Maybe, reason: "", message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}`,
			want: "StorageVersionMigration.storagemigration.k8s.io \"val-svm3\" is invalid: [status.resourceVersion: Invalid value: \"abc\": resource version is not well formed: abc, status.conditions[2].type: Invalid value: \"bad type!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), status.conditions[2].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\", status.conditions[2].reason: Required value, status.conditions: Invalid value: [{\"type\":\"Succeeded\",\"status\":\"True\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"x\",\"message\":\"\"},{\"type\":\"Failed\",\"status\":\"True\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"y\",\"message\":\"\"},{\"type\":\"bad type!\",\"status\":\"Maybe\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"\",\"message\":\"\"}]: Both success and failed conditions cannot be true at the same time]"},
	})
}

// TestResourceAPIValidObjects creates (and updates the status of) valid
// resource.k8s.io/v1 objects of each kind: none may be rejected.
func TestResourceAPIValidObjects(t *testing.T) {
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, nsObj("val-ref"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, before, obj string
		status            bool
	}{
		{name: "class",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  config: [{opaque: {driver: gpu.example.com, parameters: {a: 1}}}]
  extendedResourceName: example.com/gpu`},
		{name: "claim",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-ok1}
spec:
  devices:
    requests:
    - {name: a, exactly: {deviceClassName: gpu, tolerations: [{key: k, value: v}]}}
    - name: b
      firstAvailable: [{name: x, deviceClassName: gpu, allocationMode: All}, {name: "y", deviceClassName: gpu, count: 2}]
    constraints: [{requests: [a, b/x], matchAttribute: gpu.example.com/model}]
    config: [{requests: [b], opaque: {driver: gpu.example.com, parameters: {a: 1}}}]`},
		{name: "claim status",
			before: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-ok2}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]`,
			status: true,
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: val-ok2}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]
status:
  allocation:
    devices:
      results: [{request: a, driver: gpu.example.com, pool: pool-1, device: dev-0}]
  reservedFor: [{resource: pods, name: p, uid: 7a8a1b9e-0000-4000-8000-000000000001}]`},
		{name: "template",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: val-ok3}
spec:
  metadata: {labels: {a: b}}
  spec:
    devices:
      requests: [{name: a, exactly: {deviceClassName: gpu}}]`},
		{name: "slice",
			obj: `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: val-ok4}
spec:
  driver: gpu.example.com
  pool: {name: pool-1, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: dev-0
    attributes: {model: {string: a100}, gpu.example.com/ver: {version: 1.2.3}}
    capacity: {memory: {value: 40Gi}}
    taints: [{key: k, value: v, effect: NoSchedule}]`},
		{name: "taint rule",
			obj: `
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: val-ok5}
spec:
  deviceSelector: {driver: gpu.example.com, pool: pool-1, device: dev-0}
  taint: {key: k, value: v, effect: NoExecute}`},
	} {
		obj := decodeYAML(t, tc.obj)
		ops := typedOpsFor(t, cs, "val-ref", obj)
		var err error
		if tc.before == "" {
			_, err = ops.create(ctx, obj)
		} else {
			var stored runtime.Object
			if stored, err = ops.create(ctx, decodeYAML(t, tc.before)); err != nil {
				t.Fatalf("%s: create before: %v", tc.name, err)
			}
			mustMeta(t, obj).SetResourceVersion(mustMeta(t, stored).GetResourceVersion())
			if tc.status {
				_, err = ops.updateStatus(ctx, obj)
			} else {
				_, err = ops.update(ctx, obj)
			}
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestResourceClaimAllocationOnce sets a claim's allocation through its
// status and then changes it: kube-apiserver v1.37's declarative rule
// keeps an allocation as it was set (it may only be cleared).
// TestDeviceTaintTimeAddedAsKubeAPIServer: a taint without timeAdded, in a
// DeviceTaintRule or a ResourceSlice's device, gets the time of the write
// (to the second) as upstream's defaulting gives it, owned by the writer in
// managedFields; a DeviceTaintRule whose effect changes while its timeAdded
// does not gets a new one; one given is kept. Recorded from refplane.
func TestDeviceTaintTimeAddedAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	recent := func(tm *metav1.Time) bool {
		return tm != nil && tm.Time.Equal(tm.Time.Truncate(time.Second)) && time.Since(tm.Time) < time.Minute && time.Until(tm.Time) < time.Second
	}
	past := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))

	rules := cs.ResourceV1().DeviceTaintRules()
	rule, err := rules.Create(ctx, &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "dtr"},
		Spec: resourcev1.DeviceTaintRuleSpec{Taint: resourcev1.DeviceTaint{Key: "example.com/t", Effect: resourcev1.DeviceTaintEffectNoSchedule}}},
		metav1.CreateOptions{FieldManager: "writer"})
	if err != nil {
		t.Fatal(err)
	}
	if !recent(rule.Spec.Taint.TimeAdded) {
		t.Errorf("created without timeAdded: %v", rule.Spec.Taint.TimeAdded)
	}
	if mf := rule.ManagedFields; len(mf) != 1 || !strings.Contains(string(mf[0].FieldsV1.Raw), `"f:timeAdded":{}`) {
		t.Errorf("the writer does not own timeAdded: %+v", mf)
	}
	for _, tc := range []struct {
		name, patch string
		want        func(*metav1.Time) bool
	}{
		{"value changed, time kept", `{"spec":{"taint":{"value":"v","timeAdded":"2025-01-01T00:00:00Z"}}}`, func(tm *metav1.Time) bool { return tm.Equal(&past) }},
		{"effect changed, time left", `{"spec":{"taint":{"effect":"NoExecute"}}}`, recent},
		{"effect and time changed", `{"spec":{"taint":{"effect":"None","timeAdded":"2025-01-01T00:00:00Z"}}}`, func(tm *metav1.Time) bool { return tm.Equal(&past) }},
	} {
		rule, err := rules.Patch(ctx, "dtr", types.MergePatchType, []byte(tc.patch), metav1.PatchOptions{})
		if err != nil || !tc.want(rule.Spec.Taint.TimeAdded) {
			t.Errorf("%s: %v, timeAdded %v", tc.name, err, rule.Spec.Taint.TimeAdded)
		}
	}

	slice, err := cs.ResourceV1().ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", Pool: resourcev1.ResourcePool{Name: "p", ResourceSliceCount: 1}, AllNodes: ptr.To(true),
			Devices: []resourcev1.Device{{Name: "d0", Taints: []resourcev1.DeviceTaint{
				{Key: "example.com/t", Effect: resourcev1.DeviceTaintEffectNoSchedule},
				{Key: "example.com/u", Effect: resourcev1.DeviceTaintEffectNoExecute, TimeAdded: &past},
			}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if taints := slice.Spec.Devices[0].Taints; !recent(taints[0].TimeAdded) || !taints[1].TimeAdded.Equal(&past) {
		t.Errorf("slice taints: %+v", taints)
	}
}

func TestResourceClaimAllocationOnce(t *testing.T) {
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	claims := cs.ResourceV1().ResourceClaims("default")
	claim := decodeYAML(t, `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: allocated}
spec:
  devices:
    requests: [{name: a, exactly: {deviceClassName: gpu}}]`).(*resourcev1.ResourceClaim)
	claim, err := claims.Create(ctx, claim, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claim.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{
		Results: []resourcev1.DeviceRequestAllocationResult{{Request: "a", Driver: "gpu.example.com", Pool: "pool-1", Device: "dev-0"}},
	}}
	if claim, err = claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("allocating: %v", err)
	}
	claim.Status.Allocation.Devices.Results[0].Device = "dev-1"
	_, err = claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{})
	const want = `ResourceClaim.resource.k8s.io "allocated" is invalid: status.allocation: Invalid value: null: field cannot be modified once set`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("changing the allocation: %v\nwant %s", err, want)
	}
	claim.Status.Allocation = nil
	if _, err = claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Errorf("clearing the allocation: %v", err)
	}
}

func TestLimitRangeValidation(t *testing.T) {
	nameMsg := "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	invalid := func(name string, causes ...string) string {
		return `LimitRange "` + name + `" is invalid: [` + strings.Join(causes, ", ") + `]`
	}
	runValidationCases(t, []validationCase{
		{name: "order of min, defaults and max, types and names", obj: `
apiVersion: v1
kind: LimitRange
metadata: {name: lr-order}
spec:
  limits:
  - type: Container
    min: {cpu: "2"}
    max: {cpu: "1"}
    maxLimitRequestRatio: {cpu: "500m", memory: "3"}
  - type: Container
  - type: Pod
    default: {cpu: "1"}
  - type: Foo
  - type: PersistentVolumeClaim
    max: {foo: "1"}
  - type: example.com/x
    max: {"hugepages-2Mi": "1Gi"}
    default: {"hugepages-2Mi": "512Mi", "cpu": "1"}
    defaultRequest: {"hugepages-2Mi": "256Mi"}`,
			want: invalid("lr-order",
				`spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1`,
				`spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1`,
				`spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1`,
				`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1`,
				`spec.limits[1].type: Duplicate value: "Container"`,
				"spec.limits[2].default: Forbidden: may not be specified when `type` is 'Pod'",
				`spec.limits[3].type: Invalid value: "Foo": must be a standard limit type or fully qualified`,
				`spec.limits[4].max[foo]: Invalid value: "foo": must be a standard resource type or fully qualified`,
				`spec.limits[4].limits: Required value: either minimum or maximum storage value is required, but neither was provided`,
				`spec.limits[5].defaultRequest[hugepages-2Mi]: Invalid value: "256Mi": default value 512Mi must equal to defaultRequest value 256Mi in hugepages-2Mi`)},
		{name: "ratio above max over min and container resource names", obj: `
apiVersion: v1
kind: LimitRange
metadata: {name: lr-ratio}
spec:
  limits:
  - type: Container
    min: {cpu: "1", memory: 1Gi}
    max: {cpu: "2", memory: 2Gi, "Bad Name": "1"}
    maxLimitRequestRatio: {cpu: "3", memory: "1500m"}
  - type: Pod
    max: {pods: "3", "example.com/gpu": "1"}`,
			want: invalid("lr-ratio",
				`spec.limits[0].max[Bad Name]: Invalid value: "Bad Name": `+nameMsg,
				`spec.limits[0].max[Bad Name]: Invalid value: "Bad Name": must be a standard resource for containers`,
				`spec.limits[0].default[Bad Name]: Invalid value: "Bad Name": `+nameMsg,
				`spec.limits[0].default[Bad Name]: Invalid value: "Bad Name": must be a standard resource for containers`,
				`spec.limits[0].defaultRequest[Bad Name]: Invalid value: "Bad Name": `+nameMsg,
				`spec.limits[0].defaultRequest[Bad Name]: Invalid value: "Bad Name": must be a standard resource for containers`,
				`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000`,
				`spec.limits[1].max[pods]: Invalid value: "pods": must be a standard resource for containers`)},
	})
}

func TestNamespaceStatusAndFinalizeValidation(t *testing.T) {
	nameMsg := "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	check := func(t *testing.T, cs kubernetes.Interface) {
		ctx := ctxT(t)
		// A name of its own: on a cluster without a namespace controller
		// the last run's namespace is still there, terminating.
		name := "val-ns-" + strconv.FormatInt(time.Now().UnixNano()%(1<<30), 36)
		ns, err := cs.CoreV1().Namespaces().Create(ctx, nsObj(name), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{}) })

		phase := ns.DeepCopy()
		phase.Status.Phase = corev1.NamespaceTerminating
		want := `Namespace "` + name + "\" is invalid: status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"
		if _, err := cs.CoreV1().Namespaces().UpdateStatus(ctx, phase, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || err.Error() != want {
			t.Errorf("status Terminating without a deletion: got %v\nwant %s", err, want)
		}

		bad := ns.DeepCopy()
		bad.Spec.Finalizers = []corev1.FinalizerName{"bad name", corev1.FinalizerKubernetes, "foo", "example.com/ok"}
		want = `Namespace "` + name + `" is invalid: [spec.finalizers[0]: Invalid value: "bad name": ` + nameMsg +
			`, spec.finalizers[0]: Invalid value: "bad name": name is neither a standard finalizer name nor is it fully qualified` +
			`, spec.finalizers[2]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified]`
		if _, err := cs.CoreV1().Namespaces().Finalize(ctx, bad, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || err.Error() != want {
			t.Errorf("finalize with bad names: got %v\nwant %s", err, want)
		}
		got, err := cs.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
		if err != nil || got.Status.Phase != corev1.NamespaceActive || !slices.Equal(got.Spec.Finalizers, []corev1.FinalizerName{corev1.FinalizerKubernetes}) {
			t.Fatalf("namespace after the refused writes: %v phase %q finalizers %v", err, got.Status.Phase, got.Spec.Finalizers)
		}
		ok := got.DeepCopy()
		ok.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes, "example.com/ok"}
		if _, err := cs.CoreV1().Namespaces().Finalize(ctx, ok, metav1.UpdateOptions{}); err != nil {
			t.Errorf("finalize with good names: %v", err)
		}
	}
	t.Run("fakeplane", func(t *testing.T) { check(t, clientset(t, fakeplane.Start(t))) })
	if ref, _ := refCluster(t); ref != nil {
		t.Run("reference", func(t *testing.T) { check(t, ref) })
	}
}

func TestPersistentVolumeValidation(t *testing.T) {
	dnsSubdomain := "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	dnsLabel := "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	invalid := func(name string, causes ...string) string {
		return `PersistentVolume "` + name + `" is invalid: [` + strings.Join(causes, ", ") + `]`
	}
	runValidationCases(t, []validationCase{
		{name: "modes capacity sources classes and mount options", obj: `
apiVersion: v1
kind: PersistentVolume
metadata: {name: val-pv-a, annotations: {volume.beta.kubernetes.io/mount-options: "ro"}}
spec:
  accessModes: [ReadWriteOncePod, ReadWriteOnce, Sometimes]
  capacity: {storage: "0", cpu: "1"}
  persistentVolumeReclaimPolicy: Recycle
  hostPath: {path: "/", type: Weird}
  local: {path: "/a/../b"}
  csi: {driver: "Bad_Driver", volumeHandle: ""}
  storageClassName: "Bad_Class"
  volumeMode: Weird
  nodeAffinity: {}`,
			want: invalid("val-pv-a",
				`spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
				`spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes`,
				`spec.capacity: Unsupported value: {"cpu":"1","storage":"0"}: supported values: "storage"`,
				`spec.capacity[storage]: Invalid value: "0": must be greater than zero`,
				`spec.nodeAffinity.required: Required value: must specify required node constraints`,
				`spec.hostPath.type: Unsupported value: "Weird": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
				`spec.local: Forbidden: may not specify more than 1 volume type`,
				`spec.csi: Forbidden: may not specify more than 1 volume type`,
				`spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'`,
				`spec.storageClassName: Invalid value: "Bad_Class": `+dnsSubdomain,
				`spec.volumeMode: Unsupported value: "Weird": supported values: "Block", "Filesystem"`,
				`metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type`)},
		{name: "required fields and the attributes class", obj: `
apiVersion: v1
kind: PersistentVolume
metadata: {name: val-pv-b}
spec:
  capacity: {}
  volumeAttributesClassName: ""
  nfs: {server: "", path: "rel"}`,
			want: invalid("val-pv-b",
				`spec.accessModes: Required value`,
				`spec.capacity: Required value`,
				`spec.capacity: Unsupported value: null: supported values: "storage"`, // the typed client sends no empty map
				`spec.nfs.server: Required value`,
				`spec.nfs.path: Invalid value: "rel": must be an absolute path`,
				`spec.volumeAttributesClassName: Required value: an empty string is disallowed`,
				`spec.csi: Required value: has to be specified when using volumeAttributesClassName`)},
		{name: "local volume and node selector terms", obj: `
apiVersion: v1
kind: PersistentVolume
metadata: {name: val-pv-c}
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  local: {path: ""}
  nodeAffinity: {required: {nodeSelectorTerms: []}}`,
			want: invalid("val-pv-c",
				`spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term`,
				`spec.local.path: Required value`)},
		{name: "csi secret references", obj: `
apiVersion: v1
kind: PersistentVolume
metadata: {name: val-pv-d}
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  csi: {driver: csi.example.com, volumeHandle: h, nodePublishSecretRef: {name: "", namespace: "Bad_NS"}}`,
			want: invalid("val-pv-d",
				`spec.csi.nodePublishSecretRef.name: Required value`,
				`spec.csi.nodePublishSecretRef.namespace: Invalid value: "Bad_NS": `+dnsLabel)},
		{name: "source mode and affinity are immutable", before: `
apiVersion: v1
kind: PersistentVolume
metadata: {name: val-pv-u}
spec:
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  hostPath: {path: /data}
  volumeMode: Filesystem
  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In, values: [b]}]}]}}`, obj: `
apiVersion: v1
kind: PersistentVolume
metadata: {name: val-pv-u}`, change: func(o runtime.Object) {
			pv := o.(*corev1.PersistentVolume)
			pv.Spec.HostPath.Path = "/other"
			pv.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
			pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"c"}
		},
			want: invalid("val-pv-u",
				"spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n@@ -2,7 +2,7 @@\n  \"GCEPersistentDisk\": null,\n  \"AWSElasticBlockStore\": null,\n  \"HostPath\": {\n-  \"Path\": \"/data\",\n+  \"Path\": \"/other\",\n   \"Type\": \"\"\n  },\n  \"Glusterfs\": null,\n",
				`volumeMode: Invalid value: "Block": field is immutable`,
				`nodeAffinity: Invalid value: {"Required":{"NodeSelectorTerms":[{"MatchExpressions":[{"Key":"a","Operator":"In","Values":["c"]}],"MatchFields":null}]}}: field is immutable, except for updating from beta label to GA`)},
	})
}

func TestCertificateSigningRequestValidation(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "x"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	request := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
	csr := func(name, spec string) string {
		return "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: " + name + "}\nspec:\n" + spec
	}
	invalid := func(name string, causes ...string) string {
		return `CertificateSigningRequest.certificates.k8s.io "` + name + `" is invalid: [` + strings.Join(causes, ", ") + `]`
	}
	runValidationCases(t, []validationCase{
		{name: "request usages signer and expiration", obj: csr("val-csr-a", `
  request: aGVsbG8=
  signerName: bad
  usages: [digital signature, sleeping, digital signature]
  expirationSeconds: 10`),
			want: invalid("val-csr-a",
				`spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST`,
				`spec.usages[1]: Unsupported value: "sleeping": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"`,
				`spec.usages[2]: Duplicate value: "digital signature"`,
				`spec.signerName: Invalid value: "bad": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
				`spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 600 seconds (10 minutes)`)},
		{name: "no request no usages and the legacy signer", obj: csr("val-csr-b", `
  request: ""
  signerName: kubernetes.io/legacy-unknown`),
			want: invalid("val-csr-b",
				`spec.request: Invalid value: "": PEM block type must be CERTIFICATE REQUEST`,
				`spec.usages: Required value`,
				`spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version`)},
		{name: "signer name labels", obj: csr("val-csr-d", `
  request: `+request+`
  signerName: Bad_Domain.com/Bad_Path
  usages: [client auth]`),
			want: invalid("val-csr-d",
				`spec.signerName: Invalid value: "Bad_Domain.com": validating label "Bad_Domain": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				`spec.signerName: Invalid value: "Bad_Path": validating label "Bad_Path": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`)},
		{name: "signer domain of one label", obj: csr("val-csr-e", `
  request: `+request+`
  signerName: example/x
  usages: [client auth]`),
			want: `CertificateSigningRequest.certificates.k8s.io "val-csr-e" is invalid: spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots`},
	})
}

func TestHorizontalPodAutoscalerMetricsAndBehaviorValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "metrics and behavior", obj: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: val-hpa-metrics}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Weird
  - type: Resource
    resource: {name: "", target: {type: Bad, averageUtilization: 0, averageValue: "-1"}}
    pods: {metric: {name: "a/b"}, target: {type: Value}}
  - type: Object
    object: {describedObject: {kind: "", name: "x/y", apiVersion: "a/b/c"}, metric: {name: ""}, target: {type: Value, value: "0"}}
  - type: External
    external: {metric: {name: m}, target: {type: Value, value: "1", averageValue: "1"}}
  - type: ContainerResource
    containerResource: {name: "pods", container: "Bad_C", target: {type: Utilization}}
  - type: Pods
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 4000
      selectPolicy: Sometimes
      policies: []
      tolerance: "-1"
    scaleDown:
      stabilizationWindowSeconds: -1
      policies: [{type: Bad, value: 0, periodSeconds: 2000}, {type: Pods, value: 1, periodSeconds: 0}]
`,
			want: "HorizontalPodAutoscaler.autoscaling \"val-hpa-metrics\" is invalid: [spec.metrics[0].type: Unsupported value: \"Weird\": supported values: \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\", spec.metrics[1].pods.metric.name: Invalid value: \"a/b\": may not contain '/', spec.metrics[1].pods.target.averageValue: Required value: must specify a positive target averageValue, spec.metrics[1].pods: Forbidden: must populate the given metric source only, spec.metrics[2].object.describedObject.kind: Required value, spec.metrics[2].object.describedObject.name: Invalid value: \"x/y\": may not contain '/', spec.metrics[2].object.describedObject.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c, spec.metrics[2].object.metric.name: Required value: must specify a metric name, spec.metrics[2].object.target.value: Invalid value: \"0\": must be positive, spec.metrics[3].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target, spec.metrics[4].containerResource.name: Invalid value: \"pods\": must be a standard resource for containers, spec.metrics[4].containerResource.container: Invalid value: \"Bad_C\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.metrics[4].containerResource.target.averageUtilization: Required value: must set either a target raw value or a target utilization, spec.metrics[5].pods: Required value: must populate information for the given metric source, spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600, spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Sometimes\": supported values: \"Disabled\", \"Max\", \"Min\", spec.behavior.scaleUp.tolerance: Invalid value: \"-1\": must be greater than or equal to 0, spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero, spec.behavior.scaleDown.policies[0].type: Unsupported value: \"Bad\": supported values: \"Percent\", \"Pods\", spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero, spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800, spec.behavior.scaleDown.policies[1].periodSeconds: Invalid value: 0: must be greater than zero]"},
	})
}

func TestWebhookConfigurationValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "validating webhooks", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: val-vwc}
webhooks:
- name: nodots
  clientConfig: {url: "http://example.com/x?q=1#f"}
  rules:
  - operations: ["*", CREATE, PATCH]
    apiGroups: ["*", apps]
    apiVersions: ["*", ""]
    resources: ["*/*", "pods", "pods/*", "pods/status", "*"]
    scope: World
  failurePolicy: Sometimes
  matchPolicy: Maybe
  sideEffects: Some
  timeoutSeconds: 31
  admissionReviewVersions: [v1, v1, "V2"]
  namespaceSelector: {matchLabels: {"a b": c}}
  matchConditions:
  - {name: "bad name!", expression: "object.foo +"}
  - {name: ok, expression: ""}
  - {name: ok, expression: "true"}
- name: a.example.com
  clientConfig: {service: {name: "", namespace: "Bad_NS", path: "rel", port: 70000}, url: "https://x"}
  admissionReviewVersions: [v3]
- name: a.example.com
  clientConfig: {}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{}]
`, want: "ValidatingWebhookConfiguration.admissionregistration.k8s.io \"val-vwc\" is invalid: [webhooks[0].name: Invalid value: \"nodots\": should be a domain with at least three segments separated by dots, webhooks[0].rules[0].operations: Invalid value: [\"*\",\"CREATE\",\"PATCH\"]: if '*' is present, must not specify other operations, webhooks[0].rules[0].operations[2]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\", webhooks[0].rules[0].apiGroups: Invalid value: [\"*\",\"apps\"]: if '*' is present, must not specify other API groups, webhooks[0].rules[0].apiVersions: Invalid value: [\"*\",\"\"]: if '*' is present, must not specify other API versions, webhooks[0].rules[0].apiVersions[1]: Required value, webhooks[0].rules[0].resources[2]: Invalid value: \"pods/*\": if '*/*' is present, must not specify pods/*, webhooks[0].rules[0].resources[3]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status, webhooks[0].rules[0].resources: Invalid value: [\"*/*\",\"pods\",\"pods/*\",\"pods/status\",\"*\"]: if '*/*' is present, must not specify other resources, webhooks[0].rules[0].scope: Unsupported value: \"World\": supported values: \"*\", \"Cluster\", \"Namespaced\", webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\", webhooks[0].matchPolicy: Unsupported value: \"Maybe\": supported values: \"Equivalent\", \"Exact\", webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\", webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds, webhooks[0].namespaceSelector.matchLabels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path], webhooks[0].clientConfig.url: Invalid value: \"f\": fragments are not permitted in the URL, webhooks[0].clientConfig.url: Invalid value: \"q=1\": query parameters are not permitted in the URL, webhooks[0].matchConditions[0].expression: Invalid value: \"object.foo +\": compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.foo +\n | ............^, webhooks[0].matchConditions[0].name: Invalid value: \"bad name!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), webhooks[0].matchConditions[1].expression: Required value, webhooks[0].matchConditions[2].name: Duplicate value: \"ok\", webhooks[0].admissionReviewVersions[1]: Invalid value: \"v1\": duplicate version, webhooks[0].admissionReviewVersions[2]: Invalid value: \"V2\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[1].clientConfig: Required value: exactly one of url or service is required, webhooks[1].admissionReviewVersions: Invalid value: [\"v3\"]: must include at least one of v1, v1beta1, webhooks[2].rules[0].operations: Required value, webhooks[2].rules[0].apiGroups: Required value, webhooks[2].rules[0].apiVersions: Required value, webhooks[2].rules[0].resources: Required value, webhooks[2].clientConfig: Required value: exactly one of url or service is required, webhooks[2].name: Duplicate value: \"a.example.com\"]"},
		{name: "mutating webhooks", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: val-mwc}
webhooks:
- name: m.example.com
  clientConfig: {service: {name: "", namespace: "Bad_NS", path: "rel", port: 70000}}
  sideEffects: None
  admissionReviewVersions: [v1]
  reinvocationPolicy: Always
  objectSelector: {matchExpressions: [{key: a, operator: Near}]}
`, want: "MutatingWebhookConfiguration.admissionregistration.k8s.io \"val-mwc\" is invalid: [webhooks[0].objectSelector.matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator, webhooks[0].reinvocationPolicy: Unsupported value: \"Always\": supported values: \"IfNeeded\", \"Never\", webhooks[0].clientConfig.service.namespace: Required value, webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive, webhooks[0].clientConfig.service.path: Invalid value: \"rel\": must start with a '/']"},
	})
}

func TestAdmissionPolicyValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "policy", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: val-vap}
spec:
  failurePolicy: Sometimes
  paramKind: {apiVersion: "a/b/c", kind: ""}
  matchConstraints:
    resourceRules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: []}]
    matchPolicy: Maybe
  validations:
  - expression: "object.foo +"
  - expression: ""
    reason: Teapot
    messageExpression: "1 +"
  variables:
  - {name: "1bad", expression: "true"}
  auditAnnotations:
  - {key: "bad key!", valueExpression: ""}
  matchConditions:
  - {name: c, expression: "params.x"}
`, want: "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"val-vap\" is invalid: [spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\", spec.paramKind.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c, spec.paramKind.kind: Required value, spec.matchConstraints.matchPolicy: Unsupported value: \"Maybe\": supported values: \"Equivalent\", \"Exact\", spec.matchConstraints.resourceRules[0].resources: Required value, spec.matchConditions[0].expression: Invalid value: \"params.x\": must evaluate to bool but got dyn, spec.variables[0].name: Invalid value: \"1bad\": must be a valid CEL identifier, spec.validations[0].expression: Invalid value: \"object.foo +\": compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.foo +\n | ............^, spec.validations[1].expression: Required value: expression is not specified, spec.validations[1].messageExpression: Invalid value: \"1 +\": compilation failed: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^, spec.validations[1].reason: Unsupported value: \"Teapot\": supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\", spec.auditAnnotations[0].key: Invalid value: \"val-vap/bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified]"},
		{name: "binding", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: val-vapb}
spec:
  policyName: ""
  validationActions: [Deny, Deny, Shout]
  paramRef: {name: x, selector: {}, parameterNotFoundAction: Explode}
`, want: "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io \"val-vapb\" is invalid: [spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive, spec.paramRef.parameterNotFoundAction: Unsupported value: \"Explode\": supported values: \"Deny\", \"Allow\", spec.validationActions[1]: Duplicate value: \"Deny\", spec.validationActions[2]: Unsupported value: \"Shout\": supported values: \"Audit\", \"Deny\", \"Warn\", spec.policyName: Required value]"},
	})
}

// The messages below are refplane's (kube-apiserver v1.37.2), for the same
// objects.
func TestMutatingAdmissionPolicyValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "operations and an expression that does not compile", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: val-map-1}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, DELETE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}"}
`, want: "MutatingAdmissionPolicy.admissionregistration.k8s.io \"val-map-1\" is invalid: [spec.matchConstraints.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\", spec.mutations[0].applyConfiguration.expression: Invalid value: \"Object{metadata: Object.metadata{labels: {'a': 'b'}}\": compilation failed: ERROR: <input>:1:53: Syntax error: mismatched input '<EOF>' expecting {'}', ','}\n | Object{metadata: Object.metadata{labels: {'a': 'b'}}\n | ....................................................^, spec.reinvocationPolicy: Required value]"},
		{name: "variables, patch types and reinvocation", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: val-map-2}
spec:
  reinvocationPolicy: Sometimes
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  variables:
  - {name: "1x", expression: "object.foo +"}
  mutations:
  - patchType: JSONPatch
    applyConfiguration: {expression: "Object{}"}
  - patchType: Strategic
  - patchType: JSONPatch
    jsonPatch: {expression: "[JSONPatch{op: 'add', path: '/x', value: notdefined}]"}
`, want: "MutatingAdmissionPolicy.admissionregistration.k8s.io \"val-map-2\" is invalid: [spec.variables[0].name: Invalid value: \"1x\": must be a valid CEL identifier, spec.variables[0].expression: Invalid value: \"object.foo +\": compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.foo +\n | ............^, spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch, spec.mutations[0].applyConfiguration: Invalid value: \"{applyConfiguration}\": must not be specified when patchType is JSONPatch, spec.mutations[1].patchType: Unsupported value: \"Strategic\": supported values: \"ApplyConfiguration\", \"JSONPatch\", spec.mutations[2].jsonPatch.expression: Invalid value: \"[JSONPatch{op: 'add', path: '/x', value: notdefined}]\": compilation failed: ERROR: <input>:1:42: undeclared reference to 'notdefined' (in container '')\n | [JSONPatch{op: 'add', path: '/x', value: notdefined}]\n | .........................................^, spec.reinvocationPolicy: Unsupported value: \"Sometimes\": supported values: \"IfNeeded\", \"Never\"]"},
		{name: "no rules and no mutations", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: val-map-3}
spec:
  reinvocationPolicy: Never
  matchConstraints: {}
  mutations: []
`, want: "MutatingAdmissionPolicy.admissionregistration.k8s.io \"val-map-3\" is invalid: [spec.matchConstraints.resourceRules: Required value, spec.mutations: Required value: mutations must contain at least one item]"},
		{name: "binding", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: val-mapb-1}
spec:
  policyName: "Bad_Name"
  paramRef: {name: x}
  matchResources:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [pods]}
`, want: "MutatingAdmissionPolicyBinding.admissionregistration.k8s.io \"val-mapb-1\" is invalid: [spec.policyName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.paramRef.parameterNotFoundAction: Required value, spec.matchResources.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\"]"},
		{name: "binding without a policy", obj: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: val-mapb-2}
spec: {}
`, want: "MutatingAdmissionPolicyBinding.admissionregistration.k8s.io \"val-mapb-2\" is invalid: spec.policyName: Required value"},
	})
}

// TestPodVolumeSourceAndResourceValidation: a pod's volume sources (each
// kind's own checks, upstream's odd paths such as persistentDisk, cephfs
// and downwarAPI), spec.resourceClaims, the containers' resource claims and
// the pod-level resources, in upstream's order. Every message was checked
// against kube-apiserver v1.37.2 (refplane). Each case leaves at most one
// error per resource map that upstream walks in map order, so that the
// reference's order is fixed.
func TestPodVolumeSourceAndResourceValidation(t *testing.T) {
	runValidationCases(t, []validationCase{
		{name: "volume sources, resource claims and container claims", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
  - {name: "Bad_Name"}
  - {name: gpu, resourceClaimName: "x", resourceClaimTemplateName: "y"}
  - {name: gpu}
  containers:
  - name: app
    image: nginx
    resources:
      claims: [{name: missing}, {name: gpu}, {name: gpu}]
  volumes:
  - {name: v-n, nfs: {server: "", path: "rel"}}
  - {name: v-i, iscsi: {targetPortal: "", iqn: "bad", lun: 300}}
  - {name: v-r, rbd: {monitors: [], image: ""}}
  - {name: v-c, cephfs: {monitors: []}}
  - {name: v-f, fc: {}}
  - {name: v-g, glusterfs: {endpoints: "", path: ""}}
  - {name: v-az, azureFile: {secretName: "", shareName: ""}}
  - {name: v-im, image: {reference: "", pullPolicy: Sometimes}}`,
			want: "Pod \"p\" is invalid: [spec.volumes[0].nfs.server: Required value, spec.volumes[0].nfs.path: Invalid value: \"rel\": must be an absolute path, spec.volumes[1].iscsi.targetPortal: Required value, spec.volumes[1].iscsi.iqn: Invalid value: \"bad\": must be valid format starting with iqn, eui, or naa, spec.volumes[1].iscsi.lun: Invalid value: 300: must be between 0 and 255, inclusive, spec.volumes[2].rbd.monitors: Required value, spec.volumes[2].rbd.image: Required value, spec.volumes[3].cephfs.monitors: Required value, spec.volumes[4].fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both, spec.volumes[5].glusterfs.endpoints: Required value, spec.volumes[5].glusterfs.path: Required value, spec.volumes[6].azureFile.secretName: Required value, spec.volumes[6].azureFile.shareName: Required value, spec.volumes[7].image.reference: Required value, spec.volumes[7].image.pullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\", spec.resourceClaims[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.resourceClaims[0]: Invalid value: {\"Name\":\"Bad_Name\",\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`, spec.resourceClaims[1]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":\"x\",\"ResourceClaimTemplateName\":\"y\"}: at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified, spec.resourceClaims[2].name: Duplicate value: \"gpu\", spec.resourceClaims[2]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`, spec.containers[0].resources.claims[0]: Not found: \"missing\": must be one of the names in pod.spec.resourceClaims: Bad_Name, gpu, spec.containers[0].resources.claims[2]: Duplicate value: \"gpu\"]"},
		{name: "more volume sources", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: app, image: nginx}]
  volumes:
  - {name: v0, emptyDir: {sizeLimit: "-1", mode: 4000}}
  - {name: v1, gitRepo: {repository: "", directory: "../x"}}
  - {name: v2, gcePersistentDisk: {pdName: "", partition: 300}}
  - {name: v3, awsElasticBlockStore: {volumeID: "", partition: -1}}
  - {name: v4, flocker: {datasetName: "a/b", datasetUUID: "u"}}
  - {name: v5, flocker: {}}
  - {name: v6, cinder: {volumeID: "", secretRef: {name: ""}}}
  - {name: v7, quobyte: {registry: "nohost", volume: ""}}
  - {name: v8, quobyte: {registry: "", volume: "x"}}
  - {name: v9, downwardAPI: {defaultMode: 1000, items: [{path: "", fieldRef: {fieldPath: "spec.nodeName"}}, {path: "..a", resourceFieldRef: {resource: "limits.cpu"}}, {path: "b", resourceFieldRef: {containerName: c, resource: "limits.cpu", divisor: "2"}}, {path: "c"}, {path: "/d", fieldRef: {fieldPath: "metadata.labels['a']", apiVersion: v1}, resourceFieldRef: {containerName: c, resource: bogus}, mode: -1}]}}
  - {name: v10, flexVolume: {driver: "", options: {"kubernetes.io/x": "1", "ok": "3"}}}
  - {name: v11, vsphereVolume: {volumePath: ""}}
  - {name: v12, photonPersistentDisk: {pdID: ""}}
  - {name: v13, portworxVolume: {volumeID: ""}}
  - {name: v14, azureDisk: {diskName: "", diskURI: "", cachingMode: Bad, kind: Weird}}
  - {name: v15, azureDisk: {diskName: "d", diskURI: "http://x", kind: Managed}}
  - {name: v16, storageos: {volumeName: "Bad_N", volumeNamespace: "Bad_NS", secretRef: {name: ""}}}
  - {name: v17, scaleIO: {gateway: "", system: "", volumeName: "", secretRef: {name: s}}}
  - {name: v18, csi: {driver: "Bad_Driver!", nodePublishSecretRef: {name: "Bad_S"}}}
  - {name: v19, csi: {driver: "", nodePublishSecretRef: {name: ""}}}
  - {name: v20, ephemeral: {}}
  - {name: v21, ephemeral: {volumeClaimTemplate: {metadata: {name: x, labels: {"bad key!": v}}, spec: {}}}}
  - {name: v22, emptyDir: {}, nfs: {server: "", path: ""}, image: {reference: x}}
  - {name: v23, iscsi: {targetPortal: "a-very-long-target-portal-name-that-is-longer-than-sixty-four-characters.example.com:3260", iqn: "iqn.bad", lun: 0, initiatorName: "foo", chapAuthSession: true}}
  - {name: v24, fc: {targetWWNs: [a], wwids: [b]}}
  - {name: v25, fc: {targetWWNs: [a], lun: 256}}
  - {name: v26, hostPath: {path: ""}, cephfs: {monitors: []}, downwardAPI: {}}
  - {name: v27, image: {reference: x}}`,
			want: "Pod \"p\" is invalid: [spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity, spec.volumes[1].gitRepo.repository: Required value, spec.volumes[1].gitRepo.directory: Invalid value: \"../x\": must not contain '..', spec.volumes[2].persistentDisk.pdName: Required value, spec.volumes[2].persistentDisk.partition: Invalid value: 300: must be between 1 and 255, inclusive, spec.volumes[3].awsElasticBlockStore.volumeID: Required value, spec.volumes[3].awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive, spec.volumes[4].flocker: Invalid value: \"resource\": datasetName and datasetUUID can not be specified simultaneously, spec.volumes[4].flocker.datasetName: Invalid value: \"a/b\": must not contain '/', spec.volumes[5].flocker: Required value: one of datasetName and datasetUUID is required, spec.volumes[6].cinder.volumeID: Required value, spec.volumes[6].cinder.secretRef.name: Required value, spec.volumes[7].quobyte.registry: Invalid value: \"nohost\": must be a host:port pair or multiple pairs separated by commas, spec.volumes[7].quobyte.volume: Required value, spec.volumes[8].quobyte.registry: Required value: must be a host:port pair or multiple pairs separated by commas, spec.volumes[9].downwardAPI.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive, spec.volumes[9].downwardAPI.path: Required value, spec.volumes[9].downwardAPI.fieldRef.fieldPath: Unsupported value: \"spec.nodeName\": supported values: \"metadata.annotations\", \"metadata.labels\", \"metadata.name\", \"metadata.namespace\", \"metadata.uid\", spec.volumes[9].downwardAPI.path: Invalid value: \"..a\": must not start with '..', spec.volumes[9].downwardAPI.resourceFieldRef.containerName: Required value, spec.volumes[9].downwardAPI.resourceFieldRef.divisor: Invalid value: \"limits.cpu\": only divisor's values 1m and 1 are supported with the cpu resource, spec.volumes[9].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required, spec.volumes[9].downwardAPI.path: Invalid value: \"/d\": must be a relative path, spec.volumes[9].downwardAPI: Invalid value: \"resource\": fieldRef and resourceFieldRef can not be specified simultaneously, spec.volumes[9].downwardAPI.mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive, spec.volumes[10].flexVolume.driver: Required value, spec.volumes[10].flexVolume.options[kubernetes.io/x]: Invalid value: \"kubernetes.io/x\": kubernetes.io and k8s.io namespaces are reserved, spec.volumes[11].vsphereVolume.volumePath: Required value, spec.volumes[12].photonPersistentDisk.pdID: Required value, spec.volumes[13].portworxVolume.volumeID: Required value, spec.volumes[14].azureDisk.diskName: Required value, spec.volumes[14].azureDisk.diskURI: Required value, spec.volumes[14].azureDisk.cachingMode: Unsupported value: \"Bad\": supported values: \"None\", \"ReadOnly\", \"ReadWrite\", spec.volumes[14].azureDisk.kind: Unsupported value: \"Weird\": supported values: \"Dedicated\", \"Managed\", \"Shared\", spec.volumes[14].azureDisk.diskURI: Unsupported value: \"\": supported values: \"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd\", spec.volumes[15].azureDisk.diskURI: Unsupported value: \"http://x\": supported values: \"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}\", spec.volumes[16].storageos.volumeName: Invalid value: \"Bad_N\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.volumes[16].storageos.volumeNamespace: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.volumes[16].storageos.secretRef.name: Required value, spec.volumes[17].scaleIO.gateway: Required value, spec.volumes[17].scaleIO.system: Required value, spec.volumes[17].scaleIO.volumeName: Required value, spec.volumes[18].csi.driver: Invalid value: \"Bad_Driver!\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.volumes[18].csi.name: Invalid value: \"Bad_S\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.volumes[19].csi.driver: Required value, spec.volumes[19].csi.nodePublishSecretRef.name: Required value, spec.volumes[20].ephemeral.volumeClaimTemplate: Required value, spec.volumes[21].ephemeral.volumeClaimTemplate.metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.volumes[21].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set, spec.volumes[21].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required, spec.volumes[21].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value, spec.volumes[22].nfs: Forbidden: may not specify more than 1 volume type, spec.volumes[22].image: Forbidden: may not specify more than 1 volume type, spec.volumes[23].iscsi.iqn: Invalid value: \"iqn.bad\": must be valid format, spec.volumes[23].iscsi.secretRef: Required value, spec.volumes[23].iscsi.initiatorname: Invalid value: \"foo\": must be valid format starting with iqn, eui, or naa, spec.volumes[23].name: Invalid value: \"v23\": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified., spec.volumes[24].fc.targetWWNs: Invalid value: [\"a\"]: targetWWNs and wwids can not be specified simultaneously, spec.volumes[24].fc.lun: Required value: lun is required if targetWWNs is specified, spec.volumes[25].fc.lun: Invalid value: 256: must be between 0 and 255, inclusive, spec.volumes[26].hostPath.path: Required value, spec.volumes[26].cephFS: Forbidden: may not specify more than 1 volume type, spec.volumes[26].downwarAPI: Forbidden: may not specify more than 1 volume type]"},
		{name: "projected volume sources", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: app, image: nginx}]
  volumes:
  - name: p0
    projected:
      defaultMode: -1
      sources:
      - {secret: {name: "", items: [{key: k, path: a}]}, configMap: {name: c, items: [{key: k, path: a}]}}
      - {downwardAPI: {items: [{path: a, fieldRef: {fieldPath: metadata.name}}]}}
      - {serviceAccountToken: {expirationSeconds: 60, path: ""}}
      - {serviceAccountToken: {expirationSeconds: 5000000000, path: "/abs"}}
      - {clusterTrustBundle: {name: "a", signerName: "x/y", path: p}}
      - {clusterTrustBundle: {name: "bad:name", path: "", labelSelector: {}}}
      - {clusterTrustBundle: {signerName: "", path: q}}
      - {clusterTrustBundle: {path: q}}
      - {podCertificate: {signerName: "example.com/s", keyType: Bad, maxExpirationSeconds: 100}}
      - {podCertificate: {signerName: "kubernetes.io/s", keyType: RSA3072, maxExpirationSeconds: 100000, keyPath: "a", credentialBundlePath: "../x", userAnnotations: {"bad": "x"}}}
      - {}`,
			want: "Pod \"p\" is invalid: [spec.volumes[0].projected.defaultMode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive, spec.volumes[0].projected.sources[0].secret.name: Required value, spec.volumes[0].projected: Invalid value: \"c\": conflicting duplicate paths, spec.volumes[0].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source, spec.volumes[0].projected: Invalid value: \"a\": conflicting duplicate paths, spec.volumes[0].projected.sources[2].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes, spec.volumes[0].projected.path: Required value, spec.volumes[0].projected.sources[3].serviceAccountToken.expirationSeconds: Invalid value: 5000000000: may not specify a duration larger than 2^32 seconds, spec.volumes[0].projected.path: Invalid value: \"/abs\": must be a relative path, spec.volumes[0].projected.sources[4].clusterTrustBundle: Invalid value: {\"Name\":\"a\",\"SignerName\":\"x/y\",\"LabelSelector\":null,\"Optional\":null,\"Path\":\"p\",\"User\":null}: only one of name and signerName may be used, spec.volumes[0].projected.sources[5].clusterTrustBundle.labelSelector: Invalid value: {}: labelSelector must be unset if name is specified, spec.volumes[0].projected.sources[5].clusterTrustBundle.path: Required value, spec.volumes[0].projected.sources[6].clusterTrustBundle.signerName: Required value: must be a valid signer name, spec.volumes[0].projected.sources[6].clusterTrustBundle.signerName: Required value, spec.volumes[0].projected.sources[7].clusterTrustBundle: Required value: either name or signerName must be specified, spec.volumes[0].projected: Invalid value: \"q\": conflicting duplicate paths, spec.volumes[0].projected.sources[8].podCertificate.keyType: Unsupported value: \"Bad\": supported values: \"RSA3072\", \"RSA4096\", \"ECDSAP256\", \"ECDSAP384\", \"ECDSAP521\", \"ED25519\", spec.volumes[0].projected.sources[8].podCertificate.maxExpirationSeconds: Invalid value: 100: if provided, maxExpirationSeconds must be >= 3600, spec.volumes[0].projected.sources[8].podCertificate: Required value: specify at least one of credentialBundlePath, keyPath, and certificateChainPath, spec.volumes[0].projected.sources[9].podCertificate.userAnnotations: Invalid value: \"bad\": must be a domain-prefixed key (such as \"acme.io/foo\"), spec.volumes[0].projected.sources[9].podCertificate.maxExpirationSeconds: Invalid value: 100000: if provided, maxExpirationSeconds must be <= 86400, spec.volumes[0].projected.sources[9].podCertificate.credentialBundlePath: Invalid value: \"../x\": must not contain '..']"},
		{name: "pod-level requests within limits", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}
  containers: [{name: app, image: nginx}]`,
			want: "Pod \"p\" is invalid: spec.resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1"},
		{name: "pod-level resource names", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources: {requests: {nvidia.com/gpu: "1"}}
  containers: [{name: app, image: nginx}]`,
			want: "Pod \"p\" is invalid: [spec.resources.requests[nvidia.com/gpu]: Unsupported value: \"nvidia.com/gpu\": supported values: \"cpu\", \"hugepages-\", \"memory\", spec.resources.limits: Required value: Limit must be set for non overcommitable resources]"},
		{name: "pod-level huge pages", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources: {requests: {hugepages-2Mi: 3Mi}, limits: {hugepages-2Mi: 3Mi}}
  containers: [{name: app, image: nginx}]`,
			want: "Pod \"p\" is invalid: [spec.resources.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi, spec.resources.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi, spec.resources: Forbidden: HugePages require cpu or memory]"},
		{name: "pod-level resources cover the containers", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources: {limits: {cpu: "1"}, claims: [{name: a}]}
  containers:
  - {name: app, image: nginx, resources: {requests: {cpu: "2"}, limits: {cpu: "3"}}}`,
			want: "Pod \"p\" is invalid: [spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level, spec.resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1, spec.resources.claims[0]: Not found: \"a\": must be one of the names in pod.spec.resourceClaims which is empty, spec.resources.containers[0][cpu].limits: Invalid value: \"3\": must be less than or equal to pod limits of 1]"},
		{name: "container claims without pod claims", obj: `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers: [{name: init, image: busybox, resources: {claims: [{name: x}]}}]
  containers:
  - {name: app, image: nginx, resources: {claims: [{name: a, request: r}, {name: a}, {name: ""}, {name: b, request: Bad_R}]}}`,
			want: "Pod \"p\" is invalid: [spec.containers[0].resources.claims[0]: Not found: \"a\": must be one of the names in pod.spec.resourceClaims which is empty, spec.containers[0].resources.claims[1]: Duplicate value: \"a\", spec.containers[0].resources.claims[1]: Not found: \"a\": must be one of the names in pod.spec.resourceClaims which is empty, spec.containers[0].resources.claims[2]: Required value, spec.containers[0].resources.claims[3].request: Invalid value: \"Bad_R\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.containers[0].resources.claims[3]: Not found: \"b\": must be one of the names in pod.spec.resourceClaims which is empty, spec.initContainers[0].resources.claims[0]: Not found: \"x\": must be one of the names in pod.spec.resourceClaims which is empty]"},
	})
}

// writeCase is a write and kube-apiserver's answer to it.
type writeCase struct {
	name, method, path, body string
	code                     int
	message                  string // the Status message; "" to check the code alone
}

// runWriteCases sends each write in order, with "RV" in its body replaced
// by the resourceVersion of the object last created, and checks the answers.
// A method is sent as application/json, or as "METHOD:content-type".
func runWriteCases(t *testing.T, cp *fakeplane.ControlPlane, cases []writeCase) {
	t.Helper()
	rv := ""
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method, ctype, ok := strings.Cut(tc.method, ":")
			if !ok {
				ctype = "application/json"
			}
			code, _, out := rawRequest(t, cp, method, tc.path, ctype, []byte(strings.ReplaceAll(tc.body, `"RV"`, `"`+rv+`"`)), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			if code == 201 {
				var m metav1.PartialObjectMetadata
				_ = json.Unmarshal(out, &m)
				rv = m.ResourceVersion
			}
			var st metav1.Status
			_ = json.Unmarshal(out, &st)
			if tc.message != "" && st.Message != tc.message {
				t.Errorf("message\n got %s\nwant %s", st.Message, tc.message)
			}
		})
	}
}

// TestRuntimeClassAndControllerRevisionValidation checks the rules of
// RuntimeClasses and ControllerRevisions against the answers of a real
// v1.37 kube-apiserver (recorded with refplane).
func TestRuntimeClassAndControllerRevisionValidation(t *testing.T) {
	t.Parallel()
	rcs := "/apis/node.k8s.io/v1/runtimeclasses"
	crs := "/apis/apps/v1/namespaces/default/controllerrevisions"
	const label = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"a runtime class needs a handler", "POST", rcs, `{"metadata":{"name":"rc1"}}`, 422, `RuntimeClass.node.k8s.io "rc1" is invalid: handler: Required value`},
		{"a handler is a DNS label", "POST", rcs, `{"metadata":{"name":"rc1"},"handler":"Bad_H"}`, 422, `RuntimeClass.node.k8s.io "rc1" is invalid: handler: Invalid value: "Bad_H": ` + label},
		{"a node selector's keys are label keys", "POST", rcs, `{"metadata":{"name":"rc1"},"handler":"h","scheduling":{"nodeSelector":{"bad key":"v"}}}`, 422,
			`RuntimeClass.node.k8s.io "rc1" is invalid: scheduling.nodeSelector: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"an overhead is a container's limits", "POST", rcs, `{"metadata":{"name":"rc1"},"handler":"h","overhead":{"podFixed":{"pods":"1"}}}`, 422,
			`RuntimeClass.node.k8s.io "rc1" is invalid: overhead.limits[pods]: Invalid value: "pods": must be a standard resource for containers`},
		{"tolerations are a pod's, none repeated", "POST", rcs, `{"metadata":{"name":"rc1"},"handler":"h","scheduling":{"tolerations":[` +
			`{"key":"a","operator":"Exists","value":"x"},{"key":"b","operator":"Equal","value":"y","effect":"NoExecute","tolerationSeconds":5},` +
			`{"key":"b","operator":"Equal","value":"y","effect":"NoExecute","tolerationSeconds":10},{"key":"bad key!","operator":"Bogus","effect":"Never"},` +
			`{"operator":"Equal","value":"z"},{"key":"c","effect":"NoSchedule","tolerationSeconds":3}]}}`, 422,
			`RuntimeClass.node.k8s.io "rc1" is invalid: [scheduling.tolerations[0].operator: Invalid value: "x": value must be empty when ` + "`operator`" + ` is 'Exists', ` +
				`scheduling.tolerations[3].key: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), ` +
				`scheduling.tolerations[3].operator: Unsupported value: "Bogus": supported values: "Equal", "Exists", ` +
				`scheduling.tolerations[3].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute", ` +
				`scheduling.tolerations[4].operator: Invalid value: "Equal": operator must be Exists when ` + "`key`" + ` is empty, which means "match all values and all keys", ` +
				`scheduling.tolerations[5].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set, ` +
				`scheduling.tolerations[2]: Duplicate value: {"Key":"b","Operator":"Equal","Value":"y","Effect":"NoExecute","TolerationSeconds":10}]`},
		{"a valid runtime class", "POST", rcs, `{"metadata":{"name":"rc1"},"handler":"h","overhead":{"podFixed":{"cpu":"100m"}},"scheduling":{"tolerations":[{"key":"a","operator":"Exists"}]}}`, 201, ""},
		{"a handler does not change", "PUT", rcs + "/rc1", `{"metadata":{"name":"rc1","resourceVersion":"RV"},"handler":"h2"}`, 422, `RuntimeClass.node.k8s.io "rc1" is invalid: handler: Invalid value: null: field is immutable`},
		{"an update is checked as a create", "PUT", rcs + "/rc1", `{"metadata":{"name":"rc1","resourceVersion":"RV"},"handler":"h","overhead":{"podFixed":{"cpu":"-100m"}}}`, 422,
			`RuntimeClass.node.k8s.io "rc1" is invalid: overhead.limits[cpu]: Invalid value: "-100m": must be greater than or equal to 0`},
		{"a revision needs data", "POST", crs, `{"metadata":{"name":"cr1"}}`, 422, `ControllerRevision.apps "cr1" is invalid: data: Required value: data is mandatory`},
		{"null data is none", "POST", crs, `{"metadata":{"name":"cr1"},"data":null}`, 422, `ControllerRevision.apps "cr1" is invalid: data: Required value: data is mandatory`},
		{"data is an object", "POST", crs, `{"metadata":{"name":"cr1"},"data":[1]}`, 422, `ControllerRevision.apps "cr1" is invalid: data: Required value: data must be a valid JSON object`},
		{"a revision is not negative", "POST", crs, `{"metadata":{"name":"cr1"},"revision":-1,"data":{}}`, 422, `ControllerRevision.apps "cr1" is invalid: revision: Invalid value: -1: must be greater than or equal to 0`},
		{"a valid revision", "POST", crs, `{"metadata":{"name":"cr1"},"revision":1,"data":{"a":1}}`, 201, ""},
		{"the revision may change", "PUT", crs + "/cr1", `{"metadata":{"name":"cr1"},"revision":2,"data":{"a":1}}`, 200, ""},
		{"the data may not", "PUT", crs + "/cr1", `{"metadata":{"name":"cr1"},"revision":2,"data":{"a":2}}`, 422, `ControllerRevision.apps "cr1" is invalid: data: Invalid value: {"a":2}: field is immutable`},
	})
}

// TestIngressClassValidation checks the rules of IngressClasses against the
// answers of a real v1.37 kube-apiserver (recorded with refplane).
func TestIngressClassValidation(t *testing.T) {
	t.Parallel()
	ics := "/apis/networking.k8s.io/v1/ingressclasses"
	const invalid = `IngressClass.networking.k8s.io "i1" is invalid: `
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"a controller is required", "POST", ics, `{"metadata":{"name":"i1"}}`, 422, invalid + `spec.controller: Required value`},
		{"a controller is a domain-prefixed path", "POST", ics, `{"metadata":{"name":"i1"},"spec":{"controller":"BAD"}}`, 422, invalid + `spec.controller: Invalid value: "BAD": must be a domain-prefixed path (such as "acme.io/foo")`},
		{"a controller has at most 250 bytes", "POST", ics, `{"metadata":{"name":"i1"},"spec":{"controller":"example.com/` + strings.Repeat("a", 251) + `"}}`, 422, invalid + `spec.controller: Too long: may not be more than 250 bytes`},
		{"a controller's path is a path", "POST", ics, `{"metadata":{"name":"i1"},"spec":{"controller":"example.com/x y"}}`, 422, invalid + `spec.controller: Invalid value: "x y": Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+')`},
		{"parameters name a kind and a name", "POST", ics, `{"metadata":{"name":"i1"},"spec":{"controller":"example.com/x","parameters":{}}}`, 422, invalid + `[spec.parameters.kind: Required value, spec.parameters.name: Required value]`},
		{"a scope is Cluster or Namespace", "POST", ics, `{"metadata":{"name":"i1"},"spec":{"controller":"example.com/x","parameters":{"kind":"K","name":"n","scope":"Other"}}}`, 422, invalid + `spec.parameters.scope: Unsupported value: "Other": supported values: "Cluster", "Namespace"`},
		{"the default scope takes no namespace", "POST", ics, `{"metadata":{"name":"i1"},"spec":{"controller":"example.com/x","parameters":{"kind":"K","name":"n","namespace":"x"}}}`, 422, invalid + "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"},
		{"a valid class", "POST", ics, `{"metadata":{"name":"i1"},"spec":{"controller":"example.com/x","parameters":{"kind":"K","name":"n","scope":"Namespace","namespace":"x"}}}`, 201, ""},
		{"the controller does not change", "PUT", ics + "/i1", `{"metadata":{"name":"i1"},"spec":{"controller":"example.com/y"}}`, 422, invalid + `spec.controller: Invalid value: "example.com/y": field is immutable`},
	})
}

// TestVolumeAttributesClassValidation checks the rules of
// VolumeAttributesClasses against the answers of a real v1.37
// kube-apiserver (recorded with refplane).
func TestVolumeAttributesClassValidation(t *testing.T) {
	t.Parallel()
	vacs := "/apis/storage.k8s.io/v1/volumeattributesclasses"
	const invalid = `VolumeAttributesClass.storage.k8s.io "v1" is invalid: `
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"a driver and parameters are required", "POST", vacs, `{"metadata":{"name":"v1"}}`, 422, invalid + `[driverName: Required value, parameters: Required value: must contain at least one key/value pair]`},
		{"a parameter has a key", "POST", vacs, `{"metadata":{"name":"v1"},"driverName":"d.io","parameters":{"":"x"}}`, 422, invalid + `parameters: Invalid value: "": field can not be empty.`},
		{"a valid class", "POST", vacs, `{"metadata":{"name":"v1"},"driverName":"D.io","parameters":{"a":"b"}}`, 201, ""},
		{"the driver and parameters do not change", "PUT", vacs + "/v1", `{"metadata":{"name":"v1"},"driverName":"e.io","parameters":{"a":"c"}}`, 422, invalid + `[driverName: Forbidden: updates to driverName are forbidden., parameters: Forbidden: updates to parameters are forbidden.]`},
		{"an update that keeps them", "PUT", vacs + "/v1", `{"metadata":{"name":"v1"},"driverName":"D.io","parameters":{"a":"b"}}`, 200, ""},
	})
}

// TestCSIDriverAndStorageCapacityValidation checks the defaults and rules of
// CSIDrivers and CSIStorageCapacities against the answers of a real v1.37
// kube-apiserver (recorded with refplane).
func TestCSIDriverAndStorageCapacityValidation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	drivers := "/apis/storage.k8s.io/v1/csidrivers"
	caps := "/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities"
	const driver = `CSIDriver.storage.k8s.io "d.io" is invalid: `
	const capacity = `CSIStorageCapacity.storage.k8s.io "c1" is invalid: `
	runWriteCases(t, cp, []writeCase{
		{"a driver's policies and modes are known ones", "POST", drivers, `{"metadata":{"name":"d.io"},"spec":{"fsGroupPolicy":"X","volumeLifecycleModes":["Persistent","Bogus"],"nodeAllocatableUpdatePeriodSeconds":5,"serviceAccountTokenInSecrets":true}}`, 422,
			driver + `[spec.fsGroupPolicy: Unsupported value: "X": supported values: "File", "None", "ReadWriteOnceWithFSType", spec.volumeLifecycleModes: Unsupported value: "Bogus": supported values: "Persistent", "Ephemeral", spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds, spec.serviceAccountTokenInSecrets: Invalid value: true: serviceAccountTokenInSecrets is set but no tokenRequests are specified]`},
		{"token requests", "POST", drivers, `{"metadata":{"name":"d.io"},"spec":{"tokenRequests":[{"audience":"a","expirationSeconds":60},{"audience":"a"},{"audience":"b","expirationSeconds":9999999999}]}}`, 422,
			driver + `[spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes, spec.tokenRequests[1].audience: Duplicate value: "a", spec.tokenRequests[2].expirationSeconds: Invalid value: 9999999999: may not specify a duration larger than 2^32 seconds]`},
		{"a valid driver", "POST", drivers, `{"metadata":{"name":"d.io"}}`, 201, ""},
		{"attachRequired and the modes do not change", "PUT", drivers + "/d.io", `{"metadata":{"name":"d.io","resourceVersion":"RV"},"spec":{"attachRequired":false,"volumeLifecycleModes":["Ephemeral"]}}`, 422,
			driver + `[spec.attachedRequired: Invalid value: false: field is immutable, spec.volumeLifecycleModes: Invalid value: ["Ephemeral"]: field is immutable]`},
		{"a capacity's fields", "POST", caps, `{"metadata":{"name":"c1"},"storageClassName":"","capacity":"-1Gi","nodeTopology":{"matchLabels":{"bad key":"v"}}}`, 422,
			capacity + `[nodeTopology.matchLabels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), storageClassName: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), capacity: Invalid value: "-1Gi": must be greater than or equal to 0]`},
		{"a valid capacity", "POST", caps, `{"metadata":{"name":"c1"},"storageClassName":"sc","nodeTopology":{"matchLabels":{"a":"b"}}}`, 201, ""},
		{"its inputs do not change", "PUT", caps + "/c1", `{"metadata":{"name":"c1","resourceVersion":"RV"},"storageClassName":"sc2","nodeTopology":{"matchLabels":{"a":"c"}}}`, 422,
			capacity + `[nodeTopology: Invalid value: {"matchLabels":{"a":"c"}}: field is immutable, storageClassName: Invalid value: "sc2": field is immutable]`},
	})
	// A driver gets upstream's defaults.
	_, _, out := rawRequest(t, cp, "GET", drivers+"/d.io", "", nil, nil)
	var d struct{ Spec map[string]any }
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	want := `{"attachRequired":true,"fsGroupPolicy":"ReadWriteOnceWithFSType","podInfoOnMount":false,"preventPodSchedulingIfMissing":false,"requiresRepublish":false,"seLinuxMount":false,"storageCapacity":false,"volumeLifecycleModes":["Persistent"]}`
	if got, _ := json.Marshal(d.Spec); string(got) != want {
		t.Errorf("defaults %s, want %s", got, want)
	}
}

// TestServiceCIDRValidation checks the rules of ServiceCIDRs against the
// answers of a real v1.37 kube-apiserver (recorded with refplane).
func TestServiceCIDRValidation(t *testing.T) {
	t.Parallel()
	scs := "/apis/networking.k8s.io/v1/servicecidrs"
	const invalid = `ServiceCIDR.networking.k8s.io "sc1" is invalid: `
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"a CIDR is required", "POST", scs, `{"metadata":{"name":"sc1"}}`, 422, invalid + `spec.cidrs: Required value: at least one CIDR required`},
		{"two at most", "POST", scs, `{"metadata":{"name":"sc1"},"spec":{"cidrs":["10.0.0.0/24","10.1.0.0/24","fd00::/64"]}}`, 422, invalid + `spec.cidrs: Invalid value: {"CIDRs":["10.0.0.0/24","10.1.0.0/24","fd00::/64"]}: may only hold up to 2 values`},
		{"one of each family", "POST", scs, `{"metadata":{"name":"sc1"},"spec":{"cidrs":["10.0.0.0/24","10.1.0.0/24"]}}`, 422, invalid + `spec.cidrs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64`},
		{"valid CIDRs", "POST", scs, `{"metadata":{"name":"sc1"},"spec":{"cidrs":["bad","10.0.0.1/24"]}}`, 422, invalid + `[spec.cidrs[0]: Invalid value: "bad": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64), spec.cidrs[1]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length]`},
		{"a valid range", "POST", scs, `{"metadata":{"name":"sc1"},"spec":{"cidrs":["10.210.0.0/24"]}}`, 201, ""},
		{"a CIDR does not change", "PUT", scs + "/sc1", `{"metadata":{"name":"sc1"},"spec":{"cidrs":["10.211.0.0/24"]}}`, 422, invalid + `spec.cidrs[0]: Invalid value: "10.211.0.0/24": field is immutable`},
		{"a second family may be added", "PUT", scs + "/sc1", `{"metadata":{"name":"sc1"},"spec":{"cidrs":["10.210.0.0/24","fd00::/64"]}}`, 200, ""},
		{"the list is kept", "PUT", scs + "/sc1", `{"metadata":{"name":"sc1"},"spec":{"cidrs":[]}}`, 422, invalid + `spec.cidrs: Invalid value: []: field is immutable`},
	})
}
