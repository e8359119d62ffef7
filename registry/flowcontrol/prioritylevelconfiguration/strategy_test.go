package prioritylevelconfiguration

import (
	"context"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// level returns a defaulted PriorityLevelConfiguration named name with spec,
// as the server validates it.
func level(name string, spec flowcontrolv1.PriorityLevelConfigurationSpec) *flowcontrolv1.PriorityLevelConfiguration {
	pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	Strategy.Default(pl)
	return pl
}

// limited is a limited level's spec with limit response lr.
func limited(lr flowcontrolv1.LimitResponse) flowcontrolv1.PriorityLevelConfigurationSpec {
	return flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: lr}}
}

// queue is a Queue limit response with queuing q.
func queue(q *flowcontrolv1.QueuingConfiguration) flowcontrolv1.LimitResponse {
	return flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: q}
}

// reject is a Reject limit response.
var reject = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}

// TestPriorityLevelConfigurationValidation checks upstream's rules for a
// new level with upstream's messages and order (those a v1.37
// kube-apiserver answered): the handwritten ones, then the declarative
// (beta) ones, which replace the handwritten errors they cover.
func TestPriorityLevelConfigurationValidation(t *testing.T) {
	const exemptOnly = "must be 'Exempt' if and only if `name` is 'exempt'"
	for _, tc := range []struct {
		name string
		pl   *flowcontrolv1.PriorityLevelConfiguration
		want []string
	}{
		{name: "a valid limited level", pl: level("l", limited(queue(&flowcontrolv1.QueuingConfiguration{})))},
		{name: "shares and percents are in range", pl: level("l", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited",
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](-1), LendablePercent: ptr.To[int32](101), BorrowingLimitPercent: ptr.To[int32](-1), LimitResponse: reject}}),
			want: []string{
				"spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
				"spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
				"spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer",
			}},
		{name: "a limit response type is required", pl: level("l", limited(flowcontrolv1.LimitResponse{})),
			want: []string{"spec.limited.limitResponse.type: Required value"}},
		{name: "an unknown limit response type takes no queuing", pl: level("l", limited(flowcontrolv1.LimitResponse{Type: "Foo", Queuing: &flowcontrolv1.QueuingConfiguration{}})),
			want: []string{`spec.limited.limitResponse.type: Unsupported value: "Foo": supported values: "Queue", "Reject"`, "spec.limited.limitResponse.queuing: Forbidden"}},
		{name: "Reject takes no queuing", pl: level("l", limited(flowcontrolv1.LimitResponse{Type: "Reject", Queuing: &flowcontrolv1.QueuingConfiguration{}})),
			want: []string{"spec.limited.limitResponse.queuing: Forbidden"}},
		{name: "Queue needs queuing", pl: level("l", limited(queue(nil))),
			want: []string{"spec.limited.limitResponse.queuing: Required value"}},
		{name: "queuing numbers are positive", pl: level("l", limited(queue(&flowcontrolv1.QueuingConfiguration{Queues: -1, HandSize: -1, QueueLengthLimit: -1}))),
			want: []string{
				"spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive",
				"spec.limited.limitResponse.queuing.queues: Invalid value: -1: must be positive",
				"spec.limited.limitResponse.queuing.handSize: Invalid value: -1: must be positive",
			}},
		{name: "queues are at most ten million", pl: level("l", limited(queue(&flowcontrolv1.QueuingConfiguration{Queues: 10000001, HandSize: 3}))),
			want: []string{
				"spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000",
				"spec.limited.limitResponse.queuing.handSize: Invalid value: 3: required entropy bits of deckSize 10000001 and handSize 3 should not be greater than 60",
			}},
		{name: "a hand is no bigger than the deck", pl: level("l", limited(queue(&flowcontrolv1.QueuingConfiguration{Queues: 5, HandSize: 6}))),
			want: []string{"spec.limited.limitResponse.queuing.handSize: Invalid value: 6: should not be greater than queues (5)"}},
		{name: "a type is required and its members are forbidden without one", pl: level("l", flowcontrolv1.PriorityLevelConfigurationSpec{
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: reject}, Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{}}),
			want: []string{"spec.exempt: Forbidden", "spec.limited: Forbidden", "spec.type: Required value"}},
		{name: "an unknown type takes no member", pl: level("l", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Foo",
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](-3), LimitResponse: queue(nil)}, Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{LendablePercent: ptr.To[int32](-1)}}),
			want: []string{`spec.type: Unsupported value: "Foo": supported values: "Exempt", "Limited"`, "spec.exempt: Forbidden", "spec.limited: Forbidden", "spec.limited.limitResponse.queuing: Required value"}},
		{name: "Limited needs limited", pl: level("l", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited"}),
			want: []string{"spec.limited: Required value"}},
		{name: "Limited takes no exempt", pl: level("l", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited", Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{},
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: reject}}),
			want: []string{"spec.exempt: Forbidden"}},
		{name: "only the exempt level is Exempt, and limited is validated anyway", pl: level("l", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt",
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{}}),
			want: []string{"spec.type: Invalid value: \"Exempt\": " + exemptOnly, "spec.limited: Forbidden", "spec.limited.limitResponse.type: Required value"}},
		{name: "an exempt level's shares and percent are in range", pl: level("l", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt",
			Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](-1), LendablePercent: ptr.To[int32](200)}}),
			want: []string{
				"spec.type: Invalid value: \"Exempt\": " + exemptOnly,
				"spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
				"spec.exempt.lendablePercent: Invalid value: 200: must be between 0 and 100, inclusive",
			}},
		{name: "the exempt level is Exempt, its spec fixed but for exempt", pl: level("exempt", limited(reject)),
			want: []string{
				"spec.type: Invalid value: \"Limited\": " + exemptOnly,
				`spec: Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":30,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":null}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value`,
			}},
		{name: "the v1beta3 round-trip annotation is refused", pl: func() *flowcontrolv1.PriorityLevelConfiguration {
			pl := level("l", limited(reject))
			pl.Annotations = map[string]string{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares": ""}
			return pl
		}(), want: []string{"metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), tc.pl), tc.want)
		})
	}
}

// TestPriorityLevelConfigurationUpdateValidation checks updates: as
// creates, but the declarative rules skip what the update keeps, and the
// mandatory levels' specs are fixed (the exempt level's spec.exempt may
// change).
func TestPriorityLevelConfigurationUpdateValidation(t *testing.T) {
	stored := level("l", limited(queue(&flowcontrolv1.QueuingConfiguration{Queues: 16})))
	exempt := level("exempt", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt", Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{}})
	catchAll := level("catch-all", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Limited",
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To[int32](5), LimitResponse: reject}})
	edit := func(pl *flowcontrolv1.PriorityLevelConfiguration, f func(*flowcontrolv1.PriorityLevelConfigurationSpec)) *flowcontrolv1.PriorityLevelConfiguration {
		pl = pl.DeepCopy()
		f(&pl.Spec)
		Strategy.Default(pl)
		return pl
	}
	for _, tc := range []struct {
		name    string
		pl, old *flowcontrolv1.PriorityLevelConfiguration
		want    []string
	}{
		{name: "an unchanged level", pl: stored, old: stored},
		{name: "Reject with the queuing kept", pl: edit(stored, func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Limited.LimitResponse.Type = "Reject" }), old: stored,
			want: []string{"spec.limited.limitResponse.queuing: Forbidden"}},
		{name: "a hand bigger than the deck", pl: edit(stored, func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
			s.Limited.LimitResponse.Queuing.HandSize = 17
			s.Limited.LendablePercent = ptr.To[int32](-1)
		}), old: stored, want: []string{
			"spec.limited.limitResponse.queuing.handSize: Invalid value: 17: should not be greater than queues (16)",
			"spec.limited.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive",
		}},
		{name: "the exempt level's exempt may change", pl: edit(exempt, func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
			s.Exempt.NominalConcurrencyShares = ptr.To[int32](7)
		}), old: exempt},
		{name: "the exempt level stays Exempt", pl: edit(exempt, func(s *flowcontrolv1.PriorityLevelConfigurationSpec) { s.Type = "Limited" }), old: exempt,
			want: []string{
				"spec.type: Invalid value: \"Limited\": must be 'Exempt' if and only if `name` is 'exempt'",
				`spec: Invalid value: {"Type":"Limited","Limited":null,"Exempt":{"NominalConcurrencyShares":0,"LendablePercent":0}}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value`,
				"spec.exempt: Forbidden",
				"spec.limited: Required value",
			}},
		{name: "the catch-all level's spec is fixed", pl: edit(catchAll, func(s *flowcontrolv1.PriorityLevelConfigurationSpec) {
			s.Limited.NominalConcurrencyShares = ptr.To[int32](6)
		}), old: catchAll,
			want: []string{`spec: Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":6,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":null}: spec of 'catch-all' must equal the fixed value`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), tc.pl, tc.old), tc.want)
		})
	}
}

// TestPriorityLevelConfigurationDefaults checks the v1 defaults: shares 30
// and lendable percent 0 for a limited level, hand size 8, 64 queues of 50,
// and shares and lendable percent 0 for an exempt level.
func TestPriorityLevelConfigurationDefaults(t *testing.T) {
	pl := level("l", limited(queue(&flowcontrolv1.QueuingConfiguration{})))
	l := pl.Spec.Limited
	if *l.NominalConcurrencyShares != 30 || *l.LendablePercent != 0 || l.BorrowingLimitPercent != nil {
		t.Errorf("limited %+v", l)
	}
	if q := l.LimitResponse.Queuing; *q != (flowcontrolv1.QueuingConfiguration{Queues: 64, HandSize: 8, QueueLengthLimit: 50}) {
		t.Errorf("queuing %+v", q)
	}
	e := level("exempt", flowcontrolv1.PriorityLevelConfigurationSpec{Type: "Exempt", Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{}}).Spec.Exempt
	if *e.NominalConcurrencyShares != 0 || *e.LendablePercent != 0 {
		t.Errorf("exempt %+v", e)
	}
}

// TestPriorityLevelConfigurationStatusValidation checks that a write to
// /status checks the conditions alone.
func TestPriorityLevelConfigurationStatusValidation(t *testing.T) {
	pl := level("l", flowcontrolv1.PriorityLevelConfigurationSpec{})
	pl.Status.Conditions = []flowcontrolv1.PriorityLevelConfigurationCondition{{}, {Type: "A"}, {Type: "A"}}
	validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), pl, pl), []string{
		"status.conditions[0].type: Required value",
		`status.conditions[2].type: Duplicate value: "A"`,
	})
}

// TestBootstrapPriorityLevelConfigurationsAreValid checks that the levels
// fakeplane creates at start (captured from kube-apiserver) pass the
// validation, the mandatory ones included.
func TestBootstrapPriorityLevelConfigurationsAreValid(t *testing.T) {
	objs := validatetest.BootstrapObjects[flowcontrolv1.PriorityLevelConfiguration](t, "PriorityLevelConfiguration")
	for i := range objs {
		pl := &objs[i]
		Strategy.Default(pl)
		validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), pl), nil)
		validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), pl, pl), nil)
	}
	if len(objs) != 8 {
		t.Errorf("%d bootstrap levels, want 8", len(objs))
	}
}
