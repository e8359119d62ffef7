package registry

import (
	"encoding/json"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/registry/autoscaling/horizontalpodautoscaler"
)

// converter translates the JSON of a served version to and from the JSON of
// the version its bucket stores, for resources upstream stores together.
type converter interface {
	ToStorage(served []byte) ([]byte, error)
	FromStorage(stored []byte) ([]byte, error)
}

// converters are keyed by the served group/version/resource whose version
// differs from the storage version of its bucket (converterKey).
var converters = map[string]converter{
	"events.k8s.io/v1/events":                 eventsConverter{},
	"autoscaling/v1/horizontalpodautoscalers": hpaConverter{},
}

var (
	hpaV1 = autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	hpaV2 = autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
)

// convertVersion converts the JSON of an object between two versions that
// upstream converts through one internal type, for the field manager, which
// compares each manager's fields in the version they were recorded through:
// autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscalers. ok is false
// for any other pair.
func convertVersion(data []byte, from, to schema.GroupVersionKind) (out []byte, ok bool, err error) {
	switch {
	case from == hpaV1 && to == hpaV2:
		out, err = hpaConverter{}.ToStorage(data)
	case from == hpaV2 && to == hpaV1:
		out, err = hpaConverter{}.FromStorage(data)
	default:
		return nil, false, nil
	}
	return out, true, err
}

// converterKey is the key of a served resource in converters.
func converterKey(b builtin.Resource) string { return b.Group + "/" + b.Version + "/" + b.Resource }

// FromStorage returns stored bytes in the resource's served version.
func (r *Resource) FromStorage(data []byte) ([]byte, error) {
	if r.conv == nil || data == nil {
		return data, nil
	}
	return r.conv.FromStorage(data)
}

// toStorage returns served-version bytes in the bucket's storage version.
func (r *Resource) toStorage(data []byte) ([]byte, error) {
	if r.conv == nil {
		return data, nil
	}
	return r.conv.ToStorage(data)
}

// eventsConverter maps events.k8s.io/v1 Events onto core/v1 Events, field by
// field as upstream's conversion does.
type eventsConverter struct{}

// FromStorage turns a stored core/v1 Event into the served events.k8s.io/v1 one.
func (eventsConverter) FromStorage(stored []byte) ([]byte, error) {
	var ce corev1.Event
	if err := json.Unmarshal(stored, &ce); err != nil {
		return nil, err
	}
	ev := eventsv1.Event{
		TypeMeta:                 metav1.TypeMeta{Kind: "Event", APIVersion: "events.k8s.io/v1"},
		ObjectMeta:               ce.ObjectMeta,
		EventTime:                ce.EventTime,
		ReportingController:      ce.ReportingController,
		ReportingInstance:        ce.ReportingInstance,
		Action:                   ce.Action,
		Reason:                   ce.Reason,
		Regarding:                ce.InvolvedObject,
		Related:                  ce.Related,
		Note:                     ce.Message,
		Type:                     ce.Type,
		DeprecatedSource:         ce.Source,
		DeprecatedFirstTimestamp: ce.FirstTimestamp,
		DeprecatedLastTimestamp:  ce.LastTimestamp,
		DeprecatedCount:          ce.Count,
	}
	if ce.Series != nil {
		ev.Series = &eventsv1.EventSeries{Count: ce.Series.Count, LastObservedTime: ce.Series.LastObservedTime}
	}
	return json.Marshal(&ev)
}

// ToStorage turns a served events.k8s.io/v1 Event into the stored core/v1 one.
func (eventsConverter) ToStorage(served []byte) ([]byte, error) {
	var ev eventsv1.Event
	if err := json.Unmarshal(served, &ev); err != nil {
		return nil, err
	}
	ce := corev1.Event{
		TypeMeta:            metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta:          ev.ObjectMeta,
		InvolvedObject:      ev.Regarding,
		Reason:              ev.Reason,
		Message:             ev.Note,
		Source:              ev.DeprecatedSource,
		FirstTimestamp:      ev.DeprecatedFirstTimestamp,
		LastTimestamp:       ev.DeprecatedLastTimestamp,
		Count:               ev.DeprecatedCount,
		Type:                ev.Type,
		EventTime:           ev.EventTime,
		Action:              ev.Action,
		Related:             ev.Related,
		ReportingController: ev.ReportingController,
		ReportingInstance:   ev.ReportingInstance,
	}
	if ev.Series != nil {
		ce.Series = &corev1.EventSeries{Count: ev.Series.Count, LastObservedTime: ev.Series.LastObservedTime}
	}
	return json.Marshal(&ce)
}

// hpaConverter serves autoscaling/v1 HorizontalPodAutoscalers from the
// autoscaling/v2 ones stored, converted as upstream converts them (what v1
// cannot say travels in annotations).
type hpaConverter struct{}

// FromStorage turns a stored autoscaling/v2 autoscaler into autoscaling/v1.
func (hpaConverter) FromStorage(stored []byte) ([]byte, error) {
	var in autoscalingv2.HorizontalPodAutoscaler
	if err := json.Unmarshal(stored, &in); err != nil {
		return nil, err
	}
	return json.Marshal(horizontalpodautoscaler.ToV1(&in))
}

// ToStorage turns an autoscaling/v1 autoscaler into the stored autoscaling/v2.
func (hpaConverter) ToStorage(served []byte) ([]byte, error) {
	var in autoscalingv1.HorizontalPodAutoscaler
	if err := json.Unmarshal(served, &in); err != nil {
		return nil, err
	}
	return json.Marshal(horizontalpodautoscaler.ToV2(&in))
}
