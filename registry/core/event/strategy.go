// Package event holds the core Event strategy: kube-apiserver's
// pkg/registry/core/event rules, and the event validation of
// pkg/apis/core/validation/events.go, which events.k8s.io's Events (stored
// as core's) share.
package event

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the core Event strategy.
var Strategy = eventStrategy{strategy.Base{Namespaced: true, CreateOnUpdate: true, UnconditionalUpdate: true, NoMetadataRules: true}}

type eventStrategy struct{ strategy.Base }

// Validate checks a new Event with the legacy rules of core/v1.
func (eventStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return legacyValidateEvent(coreEventFields(obj.(*corev1.Event)), "reportingComponent")
}

// ValidateUpdate checks the Event as on create.
func (s eventStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}

// Upstream's limits of an Event's fields.
const (
	eventReportingInstanceLimit = 128
	eventActionLimit            = 128
	eventReasonLimit            = 128
	eventNoteLimit              = 1024
)

// eventFields are an Event's fields under the names upstream's internal
// type (and so its messages) gives them.
type eventFields struct {
	namespace, involvedNamespace           string
	eventTime                              time.Time
	reportingController, reportingInstance string
	action, reason, message, eventType     string
	firstTimestamp, lastTimestamp          time.Time
	count                                  int32
	sourceComponent, sourceHost            string
	series                                 bool
	seriesCount                            int32
	seriesLastObserved                     time.Time
}

// legacyValidateEvent is upstream's legacyValidateEvent; controllerField
// names the reporting controller as the request's version does.
func legacyValidateEvent(e eventFields, controllerField string) field.ErrorList {
	var errs field.ErrorList
	ns := field.NewPath("involvedObject", "namespace")
	if e.eventTime.IsZero() {
		if e.involvedNamespace == "" {
			if e.namespace != metav1.NamespaceNone && e.namespace != metav1.NamespaceDefault {
				errs = append(errs, field.Invalid(ns, e.involvedNamespace, "does not match event.namespace"))
			}
		} else if e.namespace != e.involvedNamespace {
			errs = append(errs, field.Invalid(ns, e.involvedNamespace, "does not match event.namespace"))
		}
		return errs
	}
	if e.involvedNamespace == "" && e.namespace != metav1.NamespaceDefault && e.namespace != metav1.NamespaceSystem {
		errs = append(errs, field.Invalid(ns, e.involvedNamespace, "does not match event.namespace"))
	}
	if e.reportingController == "" {
		errs = append(errs, field.Required(field.NewPath(controllerField), ""))
	}
	for _, msg := range validation.IsQualifiedName(e.reportingController) {
		errs = append(errs, field.Invalid(field.NewPath(controllerField), e.reportingController, msg))
	}
	limit := func(v, name string, max int, required bool) {
		if required && v == "" {
			errs = append(errs, field.Required(field.NewPath(name), ""))
		}
		if len(v) > max {
			errs = append(errs, field.Invalid(field.NewPath(name), "", fmt.Sprintf("can have at most %v characters", max)))
		}
	}
	limit(e.reportingInstance, "reportingInstance", eventReportingInstanceLimit, true)
	limit(e.action, "action", eventActionLimit, true)
	limit(e.reason, "reason", eventReasonLimit, true)
	limit(e.message, "message", eventNoteLimit, false)
	return errs
}

func coreEventFields(e *corev1.Event) eventFields {
	return eventFields{
		namespace: e.Namespace, involvedNamespace: e.InvolvedObject.Namespace, eventTime: e.EventTime.Time,
		reportingController: e.ReportingController, reportingInstance: e.ReportingInstance,
		action: e.Action, reason: e.Reason, message: e.Message, eventType: e.Type,
	}
}

func eventsV1Fields(e *eventsv1.Event) eventFields {
	f := eventFields{
		namespace: e.Namespace, involvedNamespace: e.Regarding.Namespace, eventTime: e.EventTime.Time,
		reportingController: e.ReportingController, reportingInstance: e.ReportingInstance,
		action: e.Action, reason: e.Reason, message: e.Note, eventType: e.Type,
		firstTimestamp: e.DeprecatedFirstTimestamp.Time, lastTimestamp: e.DeprecatedLastTimestamp.Time,
		count: e.DeprecatedCount, sourceComponent: e.DeprecatedSource.Component, sourceHost: e.DeprecatedSource.Host,
	}
	if e.Series != nil {
		f.series, f.seriesCount, f.seriesLastObserved = true, e.Series.Count, e.Series.LastObservedTime.Time
	}
	return f
}

func validateEventSeries(e eventFields) field.ErrorList {
	var errs field.ErrorList
	if e.series {
		if e.seriesCount < 2 {
			errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
		}
		if e.seriesLastObserved.IsZero() {
			errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
		}
	}
	return errs
}

// ValidateEventsV1Create is upstream's ValidateEventCreate for
// events.k8s.io/v1: the legacy rules and the strict ones.
func ValidateEventsV1Create(e *eventsv1.Event) field.ErrorList {
	f := eventsV1Fields(e)
	errs := legacyValidateEvent(f, "reportingController")
	errs = append(errs, validateEventSeries(f)...)
	if f.eventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if f.eventType != corev1.EventTypeNormal && f.eventType != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", "has invalid value: "+f.eventType))
	}
	if !f.firstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !f.lastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if f.count != 0 {
		errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if f.sourceComponent != "" || f.sourceHost != "" {
		errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return errs
}

// ValidateEventsV1Update is upstream's ValidateEventUpdate for
// events.k8s.io/v1: only the series may change.
func ValidateEventsV1Update(n, p *eventsv1.Event) field.ErrorList {
	nf := eventsV1Fields(n)
	errs := legacyValidateEvent(nf, "reportingController")
	if !apiequality.Semantic.DeepEqual(n.Series, p.Series) {
		errs = append(errs, validateEventSeries(nf)...)
	}
	imm := func(nv, pv any, name string) {
		errs = append(errs, validate.ImmutableField(nv, pv, field.NewPath(name))...)
	}
	imm(validate.InternalValue(n.Regarding), validate.InternalValue(p.Regarding), "involvedObject")
	imm(n.Reason, p.Reason, "reason")
	imm(n.Note, p.Note, "message")
	imm(validate.InternalValue(n.DeprecatedSource), validate.InternalValue(p.DeprecatedSource), "source")
	imm(n.DeprecatedFirstTimestamp, p.DeprecatedFirstTimestamp, "firstTimestamp")
	imm(n.DeprecatedLastTimestamp, p.DeprecatedLastTimestamp, "lastTimestamp")
	imm(n.DeprecatedCount, p.DeprecatedCount, "count")
	imm(n.Type, p.Type, "type")
	if !n.EventTime.Truncate(time.Microsecond).UTC().Equal(p.EventTime.Truncate(time.Microsecond).UTC()) {
		imm(n.EventTime, p.EventTime, "eventTime")
	}
	imm(n.Action, p.Action, "action")
	imm(validate.InternalValue(n.Related), validate.InternalValue(p.Related), "related")
	imm(n.ReportingController, p.ReportingController, "reportingController")
	imm(n.ReportingInstance, p.ReportingInstance, "reportingInstance")
	return errs
}
