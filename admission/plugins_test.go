package admission_test

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/admission"
)

func TestMergeTolerationsKeepsOnlyTheBroadest(t *testing.T) {
	exists := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists}
	existsNoSchedule := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	equal := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoSchedule}
	other := corev1.Toleration{Key: "other", Operator: corev1.TolerationOpExists}
	all := corev1.Toleration{Operator: corev1.TolerationOpExists}
	short := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](10)}
	long := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}
	cases := []struct {
		name          string
		first, second []corev1.Toleration
		want          []corev1.Toleration
	}{
		{name: "disjoint ones are all kept, in order", first: []corev1.Toleration{equal}, second: []corev1.Toleration{other}, want: []corev1.Toleration{equal, other}},
		{name: "a narrower later one is dropped", first: []corev1.Toleration{exists}, second: []corev1.Toleration{existsNoSchedule, equal}, want: []corev1.Toleration{exists}},
		{name: "a narrower earlier one is dropped", first: []corev1.Toleration{equal}, second: []corev1.Toleration{existsNoSchedule}, want: []corev1.Toleration{existsNoSchedule}},
		{name: "an equal one is kept once", first: []corev1.Toleration{other}, second: []corev1.Toleration{other}, want: []corev1.Toleration{other}},
		{name: "an empty key with Exists covers every key", first: []corev1.Toleration{equal, other}, second: []corev1.Toleration{all}, want: []corev1.Toleration{all}},
		{name: "the longer NoExecute toleration is kept", first: []corev1.Toleration{short}, second: []corev1.Toleration{long}, want: []corev1.Toleration{long}},
	}
	for _, tc := range cases {
		if got := admission.MergeTolerations(tc.first, tc.second); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestDefaultIngressClassPicksTheNewestThenTheFirstName(t *testing.T) {
	at := func(sec int64) metav1.Time { return metav1.NewTime(time.Unix(sec, 0)) }
	class := func(name string, created metav1.Time, isDefault bool) networkingv1.IngressClass {
		c := networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: created}}
		if isDefault {
			c.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
		}
		return c
	}
	cases := []struct {
		name    string
		classes []networkingv1.IngressClass
		want    *string
	}{
		{name: "none is default", classes: []networkingv1.IngressClass{class("a", at(1), false)}},
		{name: "the newest default", classes: []networkingv1.IngressClass{class("a", at(1), true), class("b", at(3), true), class("c", at(5), false)}, want: ptr.To("b")},
		{name: "same time: first by name", classes: []networkingv1.IngressClass{class("z", at(2), true), class("m", at(2), true), class("a", at(1), true)}, want: ptr.To("m")},
	}
	for _, tc := range cases {
		ing := &networkingv1.Ingress{}
		admission.DefaultIngressClass(ing, tc.classes)
		if !reflect.DeepEqual(ing.Spec.IngressClassName, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, ing.Spec.IngressClassName, tc.want)
		}
	}
}
