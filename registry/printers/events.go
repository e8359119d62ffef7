package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// events returns the printers of the events.k8s.io group's resources, by resource.
func events() map[string]Printer {
	return map[string]Printer{
		"events": {
			cells: typed(func(ev *eventsv1.Event, now time.Time) []any {
				ce := &corev1.Event{
					ObjectMeta: ev.ObjectMeta, InvolvedObject: ev.Regarding, Reason: ev.Reason, Message: ev.Note,
					Source: ev.DeprecatedSource, FirstTimestamp: ev.DeprecatedFirstTimestamp, LastTimestamp: ev.DeprecatedLastTimestamp,
					Count: ev.DeprecatedCount, Type: ev.Type, EventTime: ev.EventTime,
					ReportingController: ev.ReportingController, ReportingInstance: ev.ReportingInstance,
				}
				if ev.Series != nil {
					ce.Series = &corev1.EventSeries{Count: ev.Series.Count, LastObservedTime: ev.Series.LastObservedTime}
				}
				return eventCells(ce, now)
			}),
		},
	}
}
