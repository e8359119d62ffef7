package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
)

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// Recorder writes core/v1 Events about objects, in the shape
// kube-controller-manager's event recorders (client-go's
// tools/record) give them: named <object>.<hex nanoseconds>, with
// source.component, reportingComponent and the involved object's
// apiVersion, kind, uid and resourceVersion. An event that cannot be
// written is logged and dropped, as client-go's recorder drops it.
type Recorder struct {
	reg       registry.Interface
	component string
	user      user.Info
	now       func() time.Time
	log       *slog.Logger
}

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
	return &Recorder{reg: reg, component: component, user: u, now: now, log: log}
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
	ctx = apirequest.WithUser(context.WithoutCancel(ctx), r.user)
	if _, err := r.reg.Create(ctx, eventsGVR, ev); err != nil {
		r.log.Debug("event dropped", "reason", reason, "object", ref.Namespace+"/"+ref.Name, "err", err)
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
