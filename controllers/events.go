package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/tools/record"

	"github.com/fakeplane/fakeplane/registry"
)

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// Recorder writes core/v1 Events about objects, in the shape
// kube-controller-manager's event recorders (client-go's
// tools/record) give them: named <object>.<hex nanoseconds>, with
// source.component, reportingComponent and the involved object's
// apiVersion, kind, uid and resourceVersion. An event that cannot be
// written is logged and dropped, as client-go's recorder drops it. Events
// go through client-go's correlator, as a recorder's do: one that repeats
// an earlier one (same object, type, reason and message) counts on it
// (count and lastTimestamp), similar ones beyond ten in ten minutes are
// combined, and an object's events beyond a burst of 25 are dropped but
// for one every five minutes.
type Recorder struct {
	reg       registry.Interface
	component string
	user      user.Info
	now       func() time.Time
	log       *slog.Logger

	mu         sync.Mutex // serialises the correlator and the writes it follows
	correlator *record.EventCorrelator
}

// recorderClock is a Recorder's clock as the correlator's.
type recorderClock func() time.Time

func (c recorderClock) Now() time.Time                  { return c() }
func (c recorderClock) Since(t time.Time) time.Duration { return c().Sub(t) }

// NewRecorder returns a Recorder writing as u for component (the
// controller's name in events, "deployment-controller", ...). now is the
// clock (nil: time.Now).
func NewRecorder(reg registry.Interface, component string, u user.Info, now func() time.Time, log *slog.Logger) *Recorder {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Recorder{reg: reg, component: component, user: u, now: now, log: log,
		correlator: record.NewEventCorrelatorWithOptions(record.CorrelatorOptions{Clock: recorderClock(now)})}
}

// Eventf records an event of type eventType (corev1.EventTypeNormal or
// EventTypeWarning) about the object whose reference is ref.
func (r *Recorder) Eventf(ctx context.Context, ref corev1.ObjectReference, eventType, reason, format string, args ...any) {
	now := r.now()
	t := metav1.NewTime(now)
	ns := ref.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			// Named from the real clock, as client-go's recorder names
			// them: a test clock that stands still would give every event
			// of an object one name.
			Name:      ref.Name + "." + strconv.FormatInt(time.Now().UnixNano(), 16),
			Namespace: ns,
		},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             fmt.Sprintf(format, args...),
		Source:              corev1.EventSource{Component: r.component},
		FirstTimestamp:      t,
		LastTimestamp:       t,
		Count:               1,
		Type:                eventType,
		EventTime:           metav1.MicroTime{},
		ReportingController: r.component,
	}
	// kube-controller-manager's client writes them, and is their
	// managedFields' manager.
	ctx = registry.WithFieldManager(apirequest.WithUser(context.WithoutCancel(ctx), r.user), "kube-controller-manager")
	r.mu.Lock()
	defer r.mu.Unlock()
	result, err := r.correlator.EventCorrelate(ev)
	if err != nil {
		r.log.Debug("event correlation failed", "reason", reason, "err", err)
	}
	if result.Skip {
		return
	}
	ev = result.Event
	var written runtime.Object
	if ev.Count > 1 {
		// The earlier event counts this one, as the recorder's patch of
		// its count, lastTimestamp and message makes it.
		written, err = r.reg.Update(ctx, eventsGVR, ns, ev.Name, func(cur runtime.Object) (runtime.Object, error) {
			e := cur.(*corev1.Event)
			e.Count, e.LastTimestamp, e.Message = ev.Count, ev.LastTimestamp, ev.Message
			return e, nil
		})
	}
	if ev.Count <= 1 || apierrors.IsNotFound(err) {
		ev.ResourceVersion = ""
		written, err = r.reg.Create(ctx, eventsGVR, ev)
	}
	if err != nil {
		r.log.Debug("event dropped", "reason", reason, "object", ref.Namespace+"/"+ref.Name, "err", err)
		return
	}
	if e, ok := written.(*corev1.Event); ok {
		r.correlator.UpdateState(e)
	}
}

// EventRef is the reference an event gives to obj, of apiVersion and kind.
func EventRef(apiVersion, kind string, obj metav1.Object) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion:      apiVersion,
		Kind:            kind,
		Namespace:       obj.GetNamespace(),
		Name:            obj.GetName(),
		UID:             obj.GetUID(),
		ResourceVersion: obj.GetResourceVersion(),
	}
}
