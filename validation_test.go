package fakeplane_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

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
	create, update func(context.Context, runtime.Object) (runtime.Object, error)
	get            func(context.Context, string) (runtime.Object, error)
	del            func(context.Context, string) error
}

func opsOf[T runtime.Object](c typedClient[T]) typedOps {
	return typedOps{
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
			return c.Delete(ctx, name, metav1.DeleteOptions{})
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
	case "Event":
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
	if _, err := cs.CoreV1().Namespaces().Create(ctx, nsObj("val"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runCasesOn(t, "fakeplane", cs, "val", cases)
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
			t.Cleanup(func() { _ = ops.del(context.Background(), name) })
			var stored runtime.Object
			if tc.before != "" {
				var err error
				if stored, err = ops.create(ctx, decodeYAML(t, tc.before)); err != nil {
					t.Fatalf("create before: %v", err)
				}
				mustMeta(t, obj).SetResourceVersion(mustMeta(t, stored).GetResourceVersion())
			}
			if tc.change != nil {
				obj = stored.DeepCopyObject()
				tc.change(obj)
			}
			var err error
			if tc.before != "" {
				_, err = ops.update(ctx, obj)
			} else {
				_, err = ops.create(ctx, obj)
			}
			if !apierrors.IsInvalid(err) || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s\n(Go: %q)", err, tc.want, fmt.Sprint(err))
			}
			cur, gerr := ops.get(ctx, name)
			switch {
			case tc.before == "" && !apierrors.IsNotFound(gerr):
				t.Errorf("the rejected object was stored: %v", gerr)
			case tc.before != "" && (gerr != nil || mustMeta(t, cur).GetResourceVersion() != mustMeta(t, stored).GetResourceVersion()):
				t.Errorf("the rejected update was stored: %v", gerr)
			}
		})
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
