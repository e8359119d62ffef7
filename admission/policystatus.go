package admission

import (
	"context"
	"log/slog"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	admissionregistrationv1apply "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// policyStatusControllerName is the field manager of the status it
// writes, kube-controller-manager's controller's name.
const policyStatusControllerName = "validatingadmissionpolicy-status-controller"

// policyStatusController is kube-controller-manager's
// validatingadmissionpolicy-status-controller: it type-checks each
// ValidatingAdmissionPolicy's expressions against the schemas of the
// kinds it matches and applies status.typeChecking and
// status.observedGeneration.
type policyStatusController struct {
	client  kubernetes.Interface
	checker *validatingpolicy.TypeChecker
	log     *slog.Logger
	queue   chan *admissionregistrationv1.ValidatingAdmissionPolicy
}

// newPolicyStatusController registers the controller's event handler on
// the factory's policy informer.
func newPolicyStatusController(f informers.SharedInformerFactory, client kubernetes.Interface, mapper meta.RESTMapper, log *slog.Logger) *policyStatusController {
	c := &policyStatusController{
		client: client,
		checker: &validatingpolicy.TypeChecker{
			SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: client.Discovery()},
			RestMapper:     mapper,
		},
		log:   log.With("controller", policyStatusControllerName),
		queue: make(chan *admissionregistrationv1.ValidatingAdmissionPolicy, 1024),
	}
	enqueue := func(obj any) {
		if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok && p.Generation > p.Status.ObservedGeneration {
			select {
			case c.queue <- p:
			default:
				c.log.Warn("policy status queue full", "policy", p.Name)
			}
		}
	}
	_, _ = f.Admissionregistration().V1().ValidatingAdmissionPolicies().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	return c
}

// run reconciles queued policies until stop is closed.
func (c *policyStatusController) run(stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	for {
		select {
		case <-stop:
			return
		case p := <-c.queue:
			if err := c.reconcile(ctx, p); err != nil && ctx.Err() == nil {
				c.log.Warn("policy status", "policy", p.Name, "err", err)
			}
		}
	}
}

// reconcile applies one policy's type-checking status.
func (c *policyStatusController) reconcile(ctx context.Context, p *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	warnings := c.checker.Check(p)
	apply := make([]*admissionregistrationv1apply.ExpressionWarningApplyConfiguration, 0, len(warnings))
	for _, w := range warnings {
		apply = append(apply, admissionregistrationv1apply.ExpressionWarning().WithFieldRef(w.FieldRef).WithWarning(w.Warning))
	}
	cfg := admissionregistrationv1apply.ValidatingAdmissionPolicy(p.Name).
		WithStatus(admissionregistrationv1apply.ValidatingAdmissionPolicyStatus().
			WithObservedGeneration(p.Generation).
			WithTypeChecking(admissionregistrationv1apply.TypeChecking().WithExpressionWarnings(apply...)))
	_, err := c.client.AdmissionregistrationV1().ValidatingAdmissionPolicies().ApplyStatus(ctx, cfg, metav1.ApplyOptions{FieldManager: policyStatusControllerName, Force: true})
	return err
}
