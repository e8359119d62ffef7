package admission

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

func TestOptinPodNodeSelectorConfigLoadsTheLegacyFormat(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want map[string]string
	}{
		{name: "yaml", in: "podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=dev\n  ns1: env=prod,tier=web\n",
			want: map[string]string{"clusterDefaultNodeSelector": "env=dev", "ns1": "env=prod,tier=web"}},
		{name: "json, key case ignored", in: `{"PodNodeSelectorPluginConfig": {"clusterDefaultNodeSelector": "a=b"}}`,
			want: map[string]string{"clusterDefaultNodeSelector": "a=b"}},
		{name: "documents merged, bad one skipped", in: "podNodeSelectorPluginConfig:\n  ns1: a=b\n---\npodNodeSelectorPluginConfig: [1]\n---\npodNodeSelectorPluginConfig:\n  ns2: c=d\n",
			want: map[string]string{"ns1": "a=b", "ns2": "c=d"}},
		{name: "other keys ignored", in: "kind: Something\n", want: nil},
		{name: "garbage", in: "{not json", want: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := LoadPodNodeSelectorConfig(strings.NewReader(tc.in))
			if !reflect.DeepEqual(got.PodNodeSelectorPluginConfig, tc.want) {
				t.Fatalf("got %v, want %v", got.PodNodeSelectorPluginConfig, tc.want)
			}
		})
	}
	var nilReader *strings.Reader
	if got := LoadPodNodeSelectorConfig(nilReader); got == nil || got.PodNodeSelectorPluginConfig != nil {
		t.Fatalf("nil reader: %+v", got)
	}
	if got := LoadPodNodeSelectorConfig(nil); got == nil || got.PodNodeSelectorPluginConfig != nil {
		t.Fatalf("nil: %+v", got)
	}
}

func TestOptinPodNodeSelectorMergesAndRefusesWithUpstreamErrors(t *testing.T) {
	ns := func(annotation *string) *corev1.Namespace {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
		if annotation != nil {
			n.Annotations = map[string]string{PodNodeSelectorAnnotation: *annotation}
		}
		return n
	}
	str := func(s string) *string { return &s }
	cfg := func(kv ...string) *PodNodeSelectorConfig {
		c := &PodNodeSelectorConfig{PodNodeSelectorPluginConfig: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			c.PodNodeSelectorPluginConfig[kv[i]] = kv[i+1]
		}
		return c
	}
	conflict := optinWant{msg: `pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector`, code: 403, reason: optinForbidden}
	whitelist := optinWant{msg: `pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist`, code: 403, reason: optinForbidden}
	cases := []struct {
		name     string
		cfg      *PodNodeSelectorConfig
		ns       *corev1.Namespace
		selector map[string]string
		want     optinWant
		merged   map[string]string
	}{
		{name: "nothing configured", ns: ns(nil), merged: map[string]string{}},
		{name: "cluster default", cfg: cfg("clusterDefaultNodeSelector", "env=dev"), ns: ns(nil), selector: map[string]string{"disk": "ssd"},
			merged: map[string]string{"env": "dev", "disk": "ssd"}},
		{name: "annotation wins over cluster default", cfg: cfg("clusterDefaultNodeSelector", "env=dev"), ns: ns(str("env=prod")),
			merged: map[string]string{"env": "prod"}},
		{name: "empty annotation drops cluster default", cfg: cfg("clusterDefaultNodeSelector", "env=dev"), ns: ns(str("")),
			merged: map[string]string{}},
		{name: "same label agrees", ns: ns(str("env=prod")), selector: map[string]string{"env": "prod"}, merged: map[string]string{"env": "prod"}},
		{name: "conflict with annotation", ns: ns(str("env=prod")), selector: map[string]string{"env": "dev"}, want: conflict},
		{name: "conflict with cluster default", cfg: cfg("clusterDefaultNodeSelector", "env=dev"), ns: ns(nil), selector: map[string]string{"env": "prod"}, want: conflict},
		{name: "within whitelist", cfg: cfg("ns", "env=prod,disk=ssd"), ns: ns(str("env=prod")), selector: map[string]string{"disk": "ssd"},
			merged: map[string]string{"env": "prod", "disk": "ssd"}},
		{name: "outside whitelist", cfg: cfg("ns", "env=prod"), ns: ns(str("env=prod")), selector: map[string]string{"disk": "ssd"}, want: whitelist},
		{name: "namespace selector outside whitelist", cfg: cfg("ns", "env=dev"), ns: ns(str("env=prod")), want: whitelist},
		{name: "bad annotation", ns: ns(str("env")), want: optinWant{msg: "invalid selector: [env]", code: 500}},
		{name: "bad whitelist", cfg: cfg("ns", "a=b=c"), ns: ns(nil), want: optinWant{msg: "invalid selector: [a b c]", code: 500}},
		{name: "missing namespace", want: optinWant{msg: "Internal error occurred: namespace ns does not exist", code: 500, reason: optinInternal}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := optinTestPod("p", func(p *corev1.Pod) { p.Spec.NodeSelector = tc.selector })
			a := optinPodAttrs(k8sadmission.Create, "", pod, nil)
			err := PodNodeSelectorAdmit(a, tc.cfg, tc.ns)
			tc.want.check(t, err)
			if err != nil {
				return
			}
			if !reflect.DeepEqual(pod.Spec.NodeSelector, tc.merged) {
				t.Fatalf("nodeSelector %v, want %v", pod.Spec.NodeSelector, tc.merged)
			}
			if err := PodNodeSelectorValidate(a, tc.cfg, tc.ns); err != nil {
				t.Fatalf("validate after admit: %v", err)
			}
		})
	}
}

func TestOptinPodNodeSelectorHandlesOnlyPodCreates(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Annotations: map[string]string{PodNodeSelectorAnnotation: "env=prod"}}}
	pod := optinTestPod("p", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"env": "dev"} })
	for _, a := range []k8sadmission.Attributes{
		optinPodAttrs(k8sadmission.Update, "", pod, pod.DeepCopy()),
		optinPodAttrs(k8sadmission.Create, "binding", pod, nil),
		optinAttrs(k8sadmission.Create, "Service", "services", "", "ns", "s", &corev1.Service{}, nil),
		optinAttrs(k8sadmission.Create, "Pod", "pods", "", "ns", "p", &corev1.Service{}, nil),
	} {
		if err := PodNodeSelectorAdmit(a, nil, nil); err != nil {
			t.Errorf("%s %s/%s: %v", a.GetOperation(), a.GetResource().Resource, a.GetSubresource(), err)
		}
		if err := PodNodeSelectorValidate(a, nil, ns); err != nil {
			t.Errorf("%s %s/%s: %v", a.GetOperation(), a.GetResource().Resource, a.GetSubresource(), err)
		}
	}
	if pod.Spec.NodeSelector["env"] != "dev" {
		t.Fatalf("changed: %v", pod.Spec.NodeSelector)
	}
}
