package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

const (
	flowSchemasBucket    = "flowcontrol.apiserver.k8s.io/flowschemas"
	priorityLevelsBucket = "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations"
	// apfConsumerManager is the field manager of kube-apiserver's
	// priority-and-fairness config consumer.
	apfConsumerManager = "api-priority-and-fairness-config-consumer-v1"
)

var flowSchemasGVR = schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas"}

// mandatoryPriorityLevels are the levels kube-apiserver imagines when they
// do not exist: a FlowSchema naming one is never dangling.
var mandatoryPriorityLevels = map[string]bool{"exempt": true, "catch-all": true}

// FlowSchemaStatus writes every FlowSchema's Dangling condition, as
// kube-apiserver's API priority and fairness config consumer does: True
// (NotFound) while the PriorityLevelConfiguration it references does not
// exist, False (Found) once it does, applied to the status with force by
// the field manager api-priority-and-fairness-config-consumer-v1. It is
// kube-apiserver's own controller, not kube-controller-manager's: it always
// runs. It writes as kube-apiserver's loopback identity (system:apiserver).
type FlowSchemaStatus struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// schemas are the FlowSchemas by name, levels the priority levels.
	schemas map[string]*flowSchemaView
	levels  map[string]bool
}

// NewFlowSchemaStatus returns the FlowSchema status controller, writing
// through reg (which must implement registry.Applier) at the time now
// gives (nil: time.Now) and logging to log (nil: slog.Default()).
func NewFlowSchemaStatus(reg registry.Interface, now func() time.Time, log *slog.Logger) *FlowSchemaStatus {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &FlowSchemaStatus{
		reg: reg, log: log, now: now,
		user:    apiserverUser(),
		schemas: map[string]*flowSchemaView{},
		levels:  map[string]bool{},
	}
}

// Name implements Controller.
func (c *FlowSchemaStatus) Name() string { return "priority-and-fairness-config-consumer" }

// Resources implements Controller.
func (c *FlowSchemaStatus) Resources() []string {
	return []string{flowSchemasBucket, priorityLevelsBucket}
}

// Sync implements Controller: each FlowSchema whose Dangling condition
// does not say whether its level exists gets the one that does.
func (c *FlowSchemaStatus) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		switch ev.Resource {
		case priorityLevelsBucket:
			c.levels[ev.Key] = ev.Type != store.Deleted
		case flowSchemasBucket:
			if ev.Type == store.Deleted {
				delete(c.schemas, ev.Key)
				continue
			}
			fs, err := decodeFlowSchemaView(ev.Value)
			if err != nil {
				c.log.Warn("undecodable FlowSchema", "name", ev.Key, "err", err)
				continue
			}
			c.schemas[ev.Key] = fs
		}
	}
	applier, ok := c.reg.(registry.Applier)
	if !ok {
		return nil
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), apfConsumerManager)
	var errs []error
	for name, fs := range c.schemas {
		want := c.dangling(fs)
		if have := danglingCondition(fs); have != nil && have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
			continue
		}
		want.LastTransitionTime = metav1.NewTime(c.now())
		out, err := applyStatusCondition(ctx, applier, flowSchemasGVR, "FlowSchema", name, map[string]any{
			"type": string(want.Type), "status": string(want.Status), "reason": want.Reason, "message": want.Message,
			"lastTransitionTime": want.LastTransitionTime.UTC().Format(time.RFC3339),
		})
		switch {
		case apierrors.IsNotFound(err):
			delete(c.schemas, name) // its deletion is coming
		case err != nil:
			errs = append(errs, fmt.Errorf("failed to set a status.condition for FlowSchema %s: %w", name, err))
		default:
			if got, ok := out.(*flowcontrolv1.FlowSchema); ok {
				c.schemas[name] = &flowSchemaView{Level: got.Spec.PriorityLevelConfiguration.Name, Conditions: got.Status.Conditions}
			}
		}
	}
	return errors.Join(errs...)
}

// dangling is the Dangling condition FlowSchema fs should have, worded as
// upstream's.
func (c *FlowSchemaStatus) dangling(fs *flowSchemaView) flowcontrolv1.FlowSchemaCondition {
	pl := fs.Level
	if c.levels[pl] || mandatoryPriorityLevels[pl] {
		return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse, Reason: "Found",
			Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", pl)}
	}
	return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionTrue, Reason: "NotFound",
		Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", pl)}
}

// danglingCondition is fs's Dangling condition, or nil.
func danglingCondition(fs *flowSchemaView) *flowcontrolv1.FlowSchemaCondition {
	for i := range fs.Conditions {
		if fs.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Conditions[i]
		}
	}
	return nil
}

// flowSchemaView is what the controller reads of a FlowSchema: the
// priority level it references and its status conditions.
type flowSchemaView struct {
	Level      string
	Conditions []flowcontrolv1.FlowSchemaCondition
}

// decodeFlowSchemaView decodes a stored FlowSchema's view, scanning past
// the rest (its metadata and rules) without decoding it: the first sync
// after a start reads every bootstrap FlowSchema.
func decodeFlowSchemaView(data []byte) (*flowSchemaView, error) {
	top, err := registry.RawFields(data, "spec", "status")
	if err != nil {
		return nil, err
	}
	var spec struct {
		PriorityLevelConfiguration struct {
			Name string `json:"name"`
		} `json:"priorityLevelConfiguration"`
	}
	var status flowcontrolv1.FlowSchemaStatus
	for i, into := range []any{&spec, &status} {
		if top[i] != nil {
			if err := json.Unmarshal(top[i], into); err != nil {
				return nil, err
			}
		}
	}
	return &flowSchemaView{Level: spec.PriorityLevelConfiguration.Name, Conditions: status.Conditions}, nil
}
