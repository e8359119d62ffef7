package admission

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"
)

func TestOptinPodTolerationRestrictionConfigLoadsAndValidates(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    *PodTolerationRestrictionConfig
		wantErr string
	}{
		{name: "yaml", in: `apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
kind: Configuration
default:
- key: a
  operator: Exists
  effect: NoSchedule
whitelist:
- key: a
  operator: Exists
- operator: Exists
  effect: NoExecute
  tolerationSeconds: 30
unknown: ignored
`, want: &PodTolerationRestrictionConfig{
			Default:   []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			Whitelist: []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}, {Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}},
		}},
		{name: "json, empty", in: `{"apiVersion":"podtolerationrestriction.admission.k8s.io/v1alpha1","kind":"Configuration"}`, want: &PodTolerationRestrictionConfig{}},
		{name: "fields match by case", in: "apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\nDefault:\n- key: a\n", want: &PodTolerationRestrictionConfig{}},
		{name: "invalid tolerations", in: `apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
kind: Configuration
default:
- operator: Equal
  value: x
- key: b
  operator: Gt
  effect: NoRun
whitelist:
- key: "bad key!"
  operator: Exists
  value: v
  effect: NoSchedule
  tolerationSeconds: 5
`, wantErr: `invalid config: [podtolerationrestriction.default[0].operator: Invalid value: "Equal": operator must be Exists when ` + "`key`" + ` is empty, which means "match all values and all keys" ` +
			`podtolerationrestriction.default[1].operator: Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt" ` +
			`podtolerationrestriction.default[1].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute" ` +
			`podtolerationrestriction.whitelist[0].key: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') ` +
			`podtolerationrestriction.whitelist[0].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when ` + "`tolerationSeconds`" + ` is set ` +
			`podtolerationrestriction.whitelist[0].operator: Invalid value: "v": value must be empty when ` + "`operator`" + ` is 'Exists']`},
		{name: "no kind", in: "apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\n", wantErr: "Object 'Kind' is missing in 'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\n'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LoadPodTolerationRestrictionConfig(strings.NewReader(tc.in))
			checkLoaded(t, got, err, tc.want, tc.wantErr)
		})
	}
	if got, err := LoadPodTolerationRestrictionConfig(nil); err != nil || got == nil || got.Default != nil || got.Whitelist != nil {
		t.Fatalf("nil reader: %+v %v", got, err)
	}
}

func TestOptinPodTolerationRestrictionMergesDefaultsAndChecksTheWhitelist(t *testing.T) {
	tolJSON := func(ts ...corev1.Toleration) *string {
		b, err := json.Marshal(ts)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		return &s
	}
	str := func(s string) *string { return &s }
	ns := func(defaults, whitelist *string) *corev1.Namespace {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Annotations: map[string]string{}}}
		if defaults != nil {
			n.Annotations[PodTolerationRestrictionDefaultAnnotation] = *defaults
		}
		if whitelist != nil {
			n.Annotations[PodTolerationRestrictionWhitelistAnnotation] = *whitelist
		}
		return n
	}
	a := corev1.Toleration{Key: "a", Operator: corev1.TolerationOpEqual, Value: "1", Effect: corev1.TaintEffectNoSchedule}
	aAny := corev1.Toleration{Key: "a", Operator: corev1.TolerationOpExists}
	b := corev1.Toleration{Key: "b", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	memory := corev1.Toleration{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	burstable := func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	}
	nsWhitelist := optinWant{msg: "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist", code: 500}
	clusterWhitelist := optinWant{msg: "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist", code: 500}
	cases := []struct {
		name   string
		op     k8sadmission.Operation
		cfg    *PodTolerationRestrictionConfig
		ns     *corev1.Namespace
		pod    func(*corev1.Pod)
		want   optinWant
		result []corev1.Toleration
	}{
		{name: "nothing configured", op: k8sadmission.Create, ns: ns(nil, nil)},
		{name: "namespace defaults", op: k8sadmission.Create, cfg: &PodTolerationRestrictionConfig{Default: []corev1.Toleration{b}}, ns: ns(tolJSON(a), nil),
			pod: func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{b} }, result: []corev1.Toleration{b, a}},
		{name: "cluster defaults", op: k8sadmission.Create, cfg: &PodTolerationRestrictionConfig{Default: []corev1.Toleration{b}}, ns: ns(nil, nil),
			result: []corev1.Toleration{b}},
		{name: "empty namespace defaults drop the cluster's", op: k8sadmission.Create, cfg: &PodTolerationRestrictionConfig{Default: []corev1.Toleration{b}}, ns: ns(str(""), nil)},
		{name: "broader pod toleration kept", op: k8sadmission.Create, ns: ns(tolJSON(a), nil),
			pod: func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{aAny} }, result: []corev1.Toleration{aAny}},
		{name: "broader default replaces", op: k8sadmission.Create, ns: ns(tolJSON(aAny), nil),
			pod: func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{a} }, result: []corev1.Toleration{aAny}},
		{name: "not best effort tolerates memory pressure", op: k8sadmission.Create, ns: ns(tolJSON(a), nil), pod: burstable,
			result: []corev1.Toleration{a, memory}},
		{name: "status qosClass counts", op: k8sadmission.Create, ns: ns(nil, nil), pod: func(p *corev1.Pod) { p.Status.QOSClass = corev1.PodQOSGuaranteed },
			result: []corev1.Toleration{memory}},
		{name: "update adds no defaults", op: k8sadmission.Update, ns: ns(tolJSON(a), nil)},
		{name: "update of a burstable pod", op: k8sadmission.Update, pod: burstable, ns: ns(tolJSON(a), nil), result: []corev1.Toleration{memory}},
		{name: "within namespace whitelist", op: k8sadmission.Create, cfg: &PodTolerationRestrictionConfig{Whitelist: []corev1.Toleration{b}}, ns: ns(tolJSON(a), tolJSON(aAny)),
			result: []corev1.Toleration{a}},
		{name: "outside namespace whitelist", op: k8sadmission.Create, ns: ns(nil, tolJSON(a)),
			pod: func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{b} }, want: nsWhitelist},
		{name: "defaults outside namespace whitelist", op: k8sadmission.Create, ns: ns(tolJSON(aAny), tolJSON(a)), want: nsWhitelist},
		{name: "memory pressure outside cluster whitelist", op: k8sadmission.Create, cfg: &PodTolerationRestrictionConfig{Whitelist: []corev1.Toleration{aAny}},
			ns: ns(tolJSON(a), nil), pod: burstable, want: clusterWhitelist},
		{name: "empty namespace whitelist overrides the cluster's", op: k8sadmission.Create, cfg: &PodTolerationRestrictionConfig{Whitelist: []corev1.Toleration{aAny}},
			ns: ns(nil, tolJSON()), pod: func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{b} }, result: []corev1.Toleration{b}},
		{name: "bad annotation", op: k8sadmission.Create, ns: ns(str("{"), nil), want: optinWant{msg: "unexpected end of JSON input", code: 500}},
		{name: "missing namespace", op: k8sadmission.Create, want: optinWant{msg: `namespaces "ns" not found`, code: 404, reason: metav1.StatusReasonNotFound}},
		{name: "missing namespace on update without tolerations", op: k8sadmission.Update},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := optinTestPod("p", tc.pod)
			var old *corev1.Pod
			if tc.op == k8sadmission.Update {
				old = pod.DeepCopy()
			}
			attrs := optinPodAttrs(tc.op, "", pod, old)
			err := PodTolerationRestrictionAdmit(attrs, tc.cfg, tc.ns)
			tc.want.check(t, err)
			if err != nil {
				return
			}
			if !reflect.DeepEqual(pod.Spec.Tolerations, tc.result) {
				t.Fatalf("tolerations %+v, want %+v", pod.Spec.Tolerations, tc.result)
			}
			if err := PodTolerationRestrictionValidate(attrs, tc.cfg, tc.ns); err != nil {
				t.Fatalf("validate after admit: %v", err)
			}
		})
	}
}

func TestOptinPodTolerationRestrictionValidateReadsTheNamespaceOnlyForTolerations(t *testing.T) {
	pod := optinTestPod("p", nil)
	if err := PodTolerationRestrictionValidate(optinPodAttrs(k8sadmission.Create, "", pod, nil), nil, nil); err != nil {
		t.Fatal(err)
	}
	pod.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}}
	optinWant{msg: `namespaces "ns" not found`, code: 404, reason: metav1.StatusReasonNotFound}.check(t, PodTolerationRestrictionValidate(optinPodAttrs(k8sadmission.Create, "", pod, nil), nil, nil))
	for _, a := range []k8sadmission.Attributes{
		optinPodAttrs(k8sadmission.Update, "status", pod, pod.DeepCopy()),
		optinPodAttrs(k8sadmission.Delete, "", pod, nil),
		optinAttrs(k8sadmission.Create, "Pod", "pods", "", "ns", "p", &corev1.Service{}, nil),
	} {
		if err := PodTolerationRestrictionAdmit(a, nil, nil); err != nil {
			t.Errorf("%s %s: %v", a.GetOperation(), a.GetSubresource(), err)
		}
		if err := PodTolerationRestrictionValidate(a, nil, nil); err != nil {
			t.Errorf("%s %s: %v", a.GetOperation(), a.GetSubresource(), err)
		}
	}
}
