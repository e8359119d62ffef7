package event

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEventStrategy(t *testing.T) {
	good := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, EventTime: metav1.NewMicroTime(time.Now()),
		ReportingController: "x.io/c", ReportingInstance: "i", Action: "A", Reason: "R", Type: corev1.EventTypeNormal}
	for _, tc := range []struct {
		name    string
		ev, old *eventsv1.Event
		want    []string
	}{
		{name: "valid", ev: good},
		{name: "no reporting controller", ev: func() *eventsv1.Event { e := good.DeepCopy(); e.ReportingController = ""; return e }(),
			want: []string{"reportingController: Required value",
				`reportingController: Invalid value: "": name part must be non-empty`,
				`reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
		{name: "reason changed", old: good, ev: func() *eventsv1.Event { e := good.DeepCopy(); e.Reason = "Other"; return e }(),
			want: []string{`reason: Invalid value: "Other": field is immutable`}},
		{name: "series changed", old: good, ev: func() *eventsv1.Event {
			e := good.DeepCopy()
			e.Series = &eventsv1.EventSeries{Count: 1}
			return e
		}(), want: []string{`series.count: Invalid value: "": should be at least 2`, "series.lastObservedTime: Required value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := Strategy.Validate(context.Background(), tc.ev)
			if tc.old != nil {
				errs = Strategy.ValidateUpdate(context.Background(), tc.ev, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}
