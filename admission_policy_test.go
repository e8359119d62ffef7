package fakeplane_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// The messages below come from upstream's source (k8s.io/apiserver
// v0.37.2, pkg/admission/plugin/policy/validating), not from a live
// kube-apiserver run.

// deploymentRules match creating and updating Deployments.
var deploymentRules = &admissionregistrationv1.MatchResources{
	ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
		},
	}},
}

// replicaLimitPolicy limits Deployments' replicas to the maxReplicas of a
// ConfigMap given as parameter.
func replicaLimitPolicy() *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-limit"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: deploymentRules,
			Variables:        []admissionregistrationv1.Variable{{Name: "limit", Expression: "int(params.data.maxReplicas)"}},
			Validations: []admissionregistrationv1.Validation{{
				Expression:        "object.spec.replicas <= variables.limit",
				MessageExpression: `"replicas must be at most " + string(variables.limit)`,
			}},
			AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "replicas", ValueExpression: "string(object.spec.replicas)"}},
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
		},
	}
}

// createPolicy stores a policy and its binding.
func createPolicy(t testing.TB, client kubernetes.Interface, p *admissionregistrationv1.ValidatingAdmissionPolicy, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	ctx := context.Background()
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create policy: %v", err)
	}
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create binding: %v", err)
	}
}

func TestAdmissionPolicyLimitsReplicasFromParams(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	for _, ns := range []string{"team-a", "team-b"} {
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"limited": "true"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.CoreV1().ConfigMaps("team-a").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "replica-limit"}, Data: map[string]string{"maxReplicas": "5"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createPolicy(t, client, replicaLimitPolicy(), &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-limit-binding"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "replica-limit",
			// The ConfigMap of the request's namespace.
			ParamRef: &admissionregistrationv1.ParamRef{
				Name:                    "replica-limit",
				ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction),
			},
			MatchResources:    &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"limited": "true"}}},
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	})
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	eventually(t, "the policy is in force", func() error {
		if _, err := client.AppsV1().Deployments("team-a").Create(ctx, newDeployment("probe", 10), dryRun); err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})

	if _, err := client.AppsV1().Deployments("team-a").Create(ctx, newDeployment("small", 3), metav1.CreateOptions{}); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	_, err := client.AppsV1().Deployments("team-a").Create(ctx, newDeployment("big", 10), metav1.CreateOptions{})
	want := `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: replicas must be at most 5`
	var se *apierrors.StatusError
	if !errors.As(err, &se) || err.Error() != want || se.ErrStatus.Code != 422 || se.ErrStatus.Reason != metav1.StatusReasonInvalid {
		t.Fatalf("over the limit: got %v, want 422 Invalid %q", err, want)
	}
	// Updates are checked too.
	small, err := client.AppsV1().Deployments("team-a").Get(ctx, "small", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	small.Spec.Replicas = ptr.To(int32(6))
	if _, err := client.AppsV1().Deployments("team-a").Update(ctx, small, metav1.UpdateOptions{}); err == nil {
		t.Fatal("update over the limit allowed")
	}
	// A namespace without the parameter is refused, as parameterNotFoundAction says.
	_, err = client.AppsV1().Deployments("team-b").Create(ctx, newDeployment("any", 1), metav1.CreateOptions{})
	want = `deployments.apps "any" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: failed to configure binding: no params found for policy binding with ` + "`Deny`" + ` parameterNotFoundAction`
	if err == nil || err.Error() != want {
		t.Fatalf("no parameter: got %v, want %s", err, want)
	}
	// Namespaces the binding does not select are not limited.
	if _, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("free", 50), metav1.CreateOptions{}); err != nil {
		t.Fatalf("unselected namespace: %v", err)
	}
	// Raising the parameter raises the limit.
	cm, err := client.CoreV1().ConfigMaps("team-a").Get(ctx, "replica-limit", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["maxReplicas"] = "20"
	if _, err := client.CoreV1().ConfigMaps("team-a").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new limit applies", func() error {
		_, err := client.AppsV1().Deployments("team-a").Create(ctx, newDeployment("big", 10), metav1.CreateOptions{})
		return err
	})
}

func TestAdmissionPolicyValidationActions(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client, warnings := clientWithWarnings(t, cp)
	ctx := context.Background()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "named-app"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: deploymentRules,
			MatchConditions:  []admissionregistrationv1.MatchCondition{{Name: "not-probe", Expression: `object.metadata.name != "skip"`}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: `has(object.metadata.labels) && "app.kubernetes.io/name" in object.metadata.labels`,
				Message:    "the label app.kubernetes.io/name is required",
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
	createPolicy(t, client, policy, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "named-app-warn"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "named-app",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn, admissionregistrationv1.Audit},
		},
	})
	msg := "Validation failed for ValidatingAdmissionPolicy 'named-app' with binding 'named-app-warn': the label app.kubernetes.io/name is required"
	eventually(t, "the policy warns", func() error {
		if _, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("probe", 1), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return err
		}
		if !contains(warnings.Messages(), msg) {
			return errors.New("no warning yet")
		}
		return nil
	})
	// Warn and Audit let the request through with a warning.
	if _, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("warned", 1), metav1.CreateOptions{}); err != nil {
		t.Fatalf("Warn binding refused: %v", err)
	}
	// A Deny binding of the same policy refuses, with the policy's reason.
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "named-app-deny"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "named-app",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var err error
	eventually(t, "the Deny binding is in force", func() error {
		_, err = client.AppsV1().Deployments("default").Create(ctx, newDeployment("denied", 1), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return errors.New("not denied yet")
		}
		return nil
	})
	want := `deployments.apps "denied" is forbidden: ValidatingAdmissionPolicy 'named-app' with binding 'named-app-deny' denied request: the label app.kubernetes.io/name is required`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("got %v, want 403 %s", err, want)
	}
	// The match condition exempts some objects.
	if _, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("skip", 1), metav1.CreateOptions{}); err != nil {
		t.Fatalf("object outside the match conditions: %v", err)
	}
}

func TestAdmissionPolicyStatusTypeChecking(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "typo"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: deploymentRules,
			Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.replicaz > 1"}},
		},
	}
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got *admissionregistrationv1.ValidatingAdmissionPolicy
	eventually(t, "the policy's type-checking status", func() error {
		var err error
		got, err = client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "typo", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got.Status.ObservedGeneration != got.Generation || got.Status.TypeChecking == nil {
			return errors.New("no status yet")
		}
		return nil
	})
	w := got.Status.TypeChecking.ExpressionWarnings
	if len(w) != 1 || w[0].FieldRef != "spec.validations[0].expression" || !strings.Contains(w[0].Warning, "undefined field 'replicaz'") {
		t.Fatalf("expression warnings = %+v", w)
	}
}

// The policies' status is kube-controller-manager's
// validatingadmissionpolicy-status-controller's: without it (envtest's
// shape, or --controllers=-validatingadmissionpolicy-status-controller) a
// policy in force keeps an empty status, as on refplane's bare
// kube-apiserver.
func TestAdmissionPolicyStatusNeedsItsController(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	createPolicy(t, client, &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "no-bad"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.metadata.name != 'bad'"}},
		},
	}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "no-bad-binding"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "no-bad", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	})
	eventually(t, "the policy is in force", func() error {
		_, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		// The denial is upstream's: 422 Invalid, "... is forbidden: ValidatingAdmissionPolicy ...".
		if err == nil || !strings.Contains(err.Error(), "denied request") {
			return fmt.Errorf("not denied yet: %v", err)
		}
		return nil
	})
	got, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "no-bad", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != 0 || got.Status.TypeChecking != nil || len(got.Status.Conditions) != 0 {
		t.Fatalf("status without the status controller: %+v", got.Status)
	}
}
