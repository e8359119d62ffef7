package event

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestEventValidation(t *testing.T) {
	now := metav1.NewMicroTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	good := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, EventTime: now, ReportingController: "x.io/c",
		ReportingInstance: "i", Action: "A", Reason: "R", Type: corev1.EventTypeNormal}
	for _, tc := range []struct {
		name string
		errs field.ErrorList
		want []string
	}{
		{name: "core, namespace mismatch", errs: Strategy.Validate(context.Background(), &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "a"}, InvolvedObject: corev1.ObjectReference{Namespace: "b"}}),
			want: []string{`involvedObject.namespace: Invalid value: "b": does not match event.namespace`}},
		{name: "core, legacy", errs: Strategy.Validate(context.Background(), &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}})},
		{name: "events.k8s.io, valid", errs: ValidateEventsV1Create(good)},
		{name: "events.k8s.io, empty", errs: ValidateEventsV1Create(&eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, DeprecatedCount: 2}), want: []string{
			"eventTime: Required value",
			`type: Invalid value: "": has invalid value: `,
			`count: Invalid value: "": needs to be unset`,
		}},
		{name: "events.k8s.io, note changed", errs: ValidateEventsV1Update(func() *eventsv1.Event { e := good.DeepCopy(); e.Note = "new"; return e }(), good),
			want: []string{`message: Invalid value: "new": field is immutable`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range tc.errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
