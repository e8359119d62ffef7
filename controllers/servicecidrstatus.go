package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

const (
	serviceCIDRsBucket = "networking.k8s.io/servicecidrs"
	// defaultServiceCIDR is the name of the ServiceCIDR kube-apiserver
	// makes of its --service-cluster-ip-range.
	defaultServiceCIDR = "kubernetes"
	// serviceCIDRManager is the field manager of kube-apiserver's default
	// ServiceCIDR controller.
	serviceCIDRManager = "kubernetes-service-cidr-controller"
)

var serviceCIDRsGVR = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "servicecidrs"}

// DefaultServiceCIDRStatus marks the default ServiceCIDR ("kubernetes")
// Ready, as kube-apiserver's default ServiceCIDR controller does: while its
// Ready condition is missing or Unknown, it applies Ready=True ("Kubernetes
// default Service CIDR is ready") to the status with force, as the field
// manager kubernetes-service-cidr-controller; it leaves a False one alone.
// It is kube-apiserver's own controller: it always runs, as kube-apiserver's
// loopback identity (system:apiserver).
type DefaultServiceCIDRStatus struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// pending is set while the default ServiceCIDR needs the condition.
	pending bool
}

// NewDefaultServiceCIDRStatus returns the default ServiceCIDR status
// controller, writing through reg (which must implement registry.Applier)
// at the time now gives (nil: time.Now) and logging to log (nil:
// slog.Default()).
func NewDefaultServiceCIDRStatus(reg registry.Interface, now func() time.Time, log *slog.Logger) *DefaultServiceCIDRStatus {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &DefaultServiceCIDRStatus{reg: reg, log: log, now: now,
		user: apiserverUser()}
}

// Name implements Controller.
func (c *DefaultServiceCIDRStatus) Name() string { return serviceCIDRManager }

// Resources implements Controller.
func (c *DefaultServiceCIDRStatus) Resources() []string { return []string{serviceCIDRsBucket} }

// Sync implements Controller.
func (c *DefaultServiceCIDRStatus) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Key != defaultServiceCIDR {
			continue
		}
		if ev.Type == store.Deleted {
			c.pending = false
			continue
		}
		var sc networkingv1.ServiceCIDR
		if err := json.Unmarshal(ev.Value, &sc); err != nil {
			c.log.Warn("undecodable ServiceCIDR", "name", ev.Key, "err", err)
			continue
		}
		ready := apimeta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
		c.pending = ready == nil || ready.Status == metav1.ConditionUnknown
	}
	if !c.pending {
		return nil
	}
	applier, ok := c.reg.(registry.Applier)
	if !ok {
		return nil
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), serviceCIDRManager)
	_, err := applyStatusCondition(ctx, applier, serviceCIDRsGVR, "ServiceCIDR", defaultServiceCIDR, map[string]any{
		"type": networkingv1.ServiceCIDRConditionReady, "status": string(metav1.ConditionTrue),
		"message":            "Kubernetes default Service CIDR is ready",
		"lastTransitionTime": c.now().UTC().Format(time.RFC3339),
	})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("set the default ServiceCIDR Ready: %w", err)
	}
	c.pending = false
	return nil
}
