// Package prioritylevelconfiguration holds the PriorityLevelConfiguration strategy: the flags of kube-apiserver's
// pkg/registry/flowcontrol/prioritylevelconfiguration strategy and storage, the v1
// defaults of the spec, and upstream's validation of a PriorityLevelConfiguration
// (pkg/apis/flowcontrol/validation): the v1beta3 round-trip annotation refused, a type
// of Exempt for the level named exempt alone, the limited level's shares, percents
// and limit response (its queuing and shuffle-sharding), the exempt level's shares
// and percent, the fixed spec of the mandatory levels (catch-all; exempt but for
// spec.exempt) and the status conditions, on create, update and writes to /status.
// The spec's union rules (type and its members, limit response type and queuing)
// are also declarative upstream, beta in v1.37, and answered as such
// (validate.WithDeclarative).
package prioritylevelconfiguration

import (
	"context"
	"fmt"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidate "k8s.io/apimachinery/pkg/api/validate"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"k8s.io/apiserver/pkg/util/shufflesharding"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PriorityLevelConfiguration strategy.
var Strategy = priorityLevelConfigurationStrategy{strategy.Base{UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusKeepsStoredMetadata: true}}

type priorityLevelConfigurationStrategy struct{ strategy.Base }

// The v1 defaults of a priority level's spec.
const (
	defaultNominalConcurrencyShares = 30
	defaultHandSize                 = 8
	defaultQueues                   = 64
	defaultQueueLengthLimit         = 50
)

// maxQueues is the most queues a level may have.
const maxQueues = 10 * 1000 * 1000

// Default sets upstream's v1 defaults: a limited level's shares (30) and
// lendable percent (0), its queuing's hand size, queues and queue length
// limit, and an exempt level's shares and lendable percent (0).
func (priorityLevelConfigurationStrategy) Default(obj runtime.Object) {
	pl, ok := obj.(*flowcontrolv1.PriorityLevelConfiguration)
	if !ok {
		return
	}
	setIfNil := func(p **int32, v int32) {
		if *p == nil {
			*p = &v
		}
	}
	setIfZero := func(p *int32, v int32) {
		if *p == 0 {
			*p = v
		}
	}
	if l := pl.Spec.Limited; l != nil {
		setIfNil(&l.NominalConcurrencyShares, defaultNominalConcurrencyShares)
		setIfNil(&l.LendablePercent, 0)
		if q := l.LimitResponse.Queuing; q != nil {
			setIfZero(&q.HandSize, defaultHandSize)
			setIfZero(&q.Queues, defaultQueues)
			setIfZero(&q.QueueLengthLimit, defaultQueueLengthLimit)
		}
	}
	if e := pl.Spec.Exempt; e != nil {
		setIfNil(&e.NominalConcurrencyShares, 0)
		setIfNil(&e.LendablePercent, 0)
	}
}

// Validate checks a new PriorityLevelConfiguration.
func (priorityLevelConfigurationStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	pl := obj.(*flowcontrolv1.PriorityLevelConfiguration)
	return validate.WithDeclarative(ctx, validateLevel(pl), declareSpec(validate.Operation(false), &pl.Spec, nil))
}

// ValidateUpdate checks an update as a create (nothing is immutable), but
// for the declarative rules, which skip what the update keeps.
func (priorityLevelConfigurationStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	pl, was := obj.(*flowcontrolv1.PriorityLevelConfiguration), old.(*flowcontrolv1.PriorityLevelConfiguration)
	return validate.WithDeclarative(ctx, validateLevel(pl), declareSpec(validate.Operation(true), &pl.Spec, &was.Spec))
}

// ValidateStatusUpdate checks a write to /status: its conditions alone.
func (priorityLevelConfigurationStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validateStatus(&obj.(*flowcontrolv1.PriorityLevelConfiguration).Status, field.NewPath("status"))
}

// mandatory are the levels kube-apiserver keeps whatever is written
// (exempt and catch-all), by name.
var mandatory = func() map[string]*flowcontrolv1.PriorityLevelConfiguration {
	m := map[string]*flowcontrolv1.PriorityLevelConfiguration{}
	for _, pl := range bootstrap.MandatoryPriorityLevelConfigurations {
		m[pl.Name] = pl
	}
	return m
}()

// validateLevel is upstream's ValidatePriorityLevelConfiguration without the
// metadata, which the server validates: the round-trip annotation, the
// spec, the mandatory levels' spec and the status.
func validateLevel(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	var errs field.ErrorList
	if _, ok := pl.Annotations[flowcontrolv1beta3.PriorityLevelPreserveZeroConcurrencySharesKey]; ok {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations"),
			fmt.Sprintf("annotation '%s' is forbidden", flowcontrolv1beta3.PriorityLevelPreserveZeroConcurrencySharesKey)))
	}
	spec := field.NewPath("spec")
	errs = append(errs, validateSpec(pl.Name, &pl.Spec, spec)...)
	errs = append(errs, validateMandatory(pl, spec)...)
	return append(errs, validateStatus(&pl.Status, field.NewPath("status"))...)
}

// validateMandatory checks that a mandatory level's spec is the fixed one;
// the exempt level's spec.exempt may change.
func validateMandatory(pl *flowcontrolv1.PriorityLevelConfiguration, fld *field.Path) field.ErrorList {
	m, ok := mandatory[pl.Name]
	if !ok {
		return nil
	}
	have, msg := pl.Spec, fmt.Sprintf("spec of '%s' must equal the fixed value", pl.Name)
	if pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
		have.Exempt = m.Spec.Exempt
		msg = fmt.Sprintf("spec of '%s' except the 'spec.exempt' field must equal the fixed value", pl.Name)
	}
	if apiequality.Semantic.DeepEqual(have, m.Spec) {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, validate.InternalValue(pl.Spec), msg)}
}

var (
	// enablements are the spec's types, sorted.
	enablements = []string{string(flowcontrolv1.PriorityLevelEnablementExempt), string(flowcontrolv1.PriorityLevelEnablementLimited)}
	// limitResponseTypes are the limit response's types, sorted.
	limitResponseTypes = []string{string(flowcontrolv1.LimitResponseTypeQueue), string(flowcontrolv1.LimitResponseTypeReject)}
)

// validateSpec checks the type (Exempt exactly for the level named exempt)
// and the member it names; the errors the declarative rules cover are
// marked so.
func validateSpec(name string, spec *flowcontrolv1.PriorityLevelConfigurationSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if (name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (spec.Type == flowcontrolv1.PriorityLevelEnablementExempt) {
		errs = append(errs, field.Invalid(fld.Child("type"), spec.Type, "must be 'Exempt' if and only if `name` is 'exempt'"))
	}
	switch spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if spec.Limited != nil {
			errs = append(errs, field.Forbidden(fld.Child("limited"), "must be nil if the type is not Limited").MarkCoveredByDeclarative())
		}
		if e := spec.Exempt; e != nil {
			ep := fld.Child("exempt")
			if s := e.NominalConcurrencyShares; s != nil && *s < 0 {
				errs = append(errs, field.Invalid(ep.Child("nominalConcurrencyShares"), *s, "must be a non-negative integer"))
			}
			errs = append(errs, validatePercent(e.LendablePercent, ep.Child("lendablePercent"))...)
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if spec.Exempt != nil {
			errs = append(errs, field.Forbidden(fld.Child("exempt"), "must be nil if the type is Limited").MarkCoveredByDeclarative())
		}
		if spec.Limited == nil {
			errs = append(errs, field.Required(fld.Child("limited"), "must not be empty when type is Limited").MarkCoveredByDeclarative())
		} else {
			errs = append(errs, validateLimited(spec.Limited, fld.Child("limited"))...)
		}
	case "":
		errs = append(errs, field.Required(fld.Child("type"), "").MarkCoveredByDeclarative())
	default:
		errs = append(errs, field.NotSupported(fld.Child("type"), spec.Type, enablements))
	}
	return errs
}

// validatePercent checks a lendable percent: 0 to 100.
func validatePercent(p *int32, fld *field.Path) field.ErrorList {
	if p != nil && (*p < 0 || *p > 100) {
		return field.ErrorList{field.Invalid(fld, *p, "must be between 0 and 100, inclusive")}
	}
	return nil
}

// validateLimited checks a limited level's shares, limit response and
// percents.
func validateLimited(l *flowcontrolv1.LimitedPriorityLevelConfiguration, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	// The v1 default leaves the shares set.
	if s := l.NominalConcurrencyShares; s != nil && *s < 0 {
		errs = append(errs, field.Invalid(fld.Child("nominalConcurrencyShares"), *s, "must be a non-negative integer"))
	}
	errs = append(errs, validateLimitResponse(&l.LimitResponse, fld.Child("limitResponse"))...)
	errs = append(errs, validatePercent(l.LendablePercent, fld.Child("lendablePercent"))...)
	if b := l.BorrowingLimitPercent; b != nil && *b < 0 {
		errs = append(errs, field.Invalid(fld.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"))
	}
	return errs
}

// validateLimitResponse checks the type and its queuing: required with
// Queue, forbidden with Reject.
func validateLimitResponse(lr *flowcontrolv1.LimitResponse, fld *field.Path) field.ErrorList {
	switch lr.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if lr.Queuing != nil {
			return field.ErrorList{field.Forbidden(fld.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited").MarkCoveredByDeclarative()}
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		if lr.Queuing == nil {
			return field.ErrorList{field.Required(fld.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited").MarkCoveredByDeclarative()}
		}
		return validateQueuing(lr.Queuing, fld.Child("queuing"))
	case "":
		return field.ErrorList{field.Required(fld.Child("type"), "").MarkCoveredByDeclarative()}
	default:
		return field.ErrorList{field.NotSupported(fld.Child("type"), lr.Type, limitResponseTypes)}
	}
	return nil
}

// validateQueuing checks the queue length limit, the number of queues and
// the hand size, which shuffle sharding must be able to deal.
func validateQueuing(q *flowcontrolv1.QueuingConfiguration, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, field.Invalid(fld.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		errs = append(errs, field.Invalid(fld.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > maxQueues {
		errs = append(errs, field.Invalid(fld.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	hs := fld.Child("handSize")
	switch {
	case q.HandSize <= 0:
		errs = append(errs, field.Invalid(hs, q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		errs = append(errs, field.Invalid(hs, q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	default:
		if bits := shufflesharding.RequiredEntropyBits(int(q.Queues), int(q.HandSize)); bits > shufflesharding.MaxHashBits {
			errs = append(errs, field.Invalid(hs, q.HandSize,
				fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, shufflesharding.MaxHashBits)))
		}
	}
	return errs
}

// validateStatus checks the conditions: each with a type, no type twice.
func validateStatus(st *flowcontrolv1.PriorityLevelConfigurationStatus, fld *field.Path) field.ErrorList {
	types := make([]flowcontrolv1.PriorityLevelConfigurationConditionType, len(st.Conditions))
	for i, c := range st.Conditions {
		types[i] = c.Type
	}
	return validate.ConditionTypes(fld, types)
}

// declareSpec is the spec's declarative validation (the tags of
// k8s.io/api's types, all beta in v1.37): spec.type says which of exempt
// and limited may be set (limited must be with Limited), the type is
// required, and a limited level's limit response likewise for its queuing
// (required with Queue) and type. On update, what is unchanged is not
// validated again.
func declareSpec(op operation.Operation, spec, old *flowcontrolv1.PriorityLevelConfigurationSpec) field.ErrorList {
	if validate.Unchanged(op, spec, old) {
		return nil
	}
	ctx, fld := context.Background(), field.NewPath("spec")
	getType := func(s *flowcontrolv1.PriorityLevelConfigurationSpec) flowcontrolv1.PriorityLevelEnablement {
		return s.Type
	}
	errs := apivalidate.Discriminated(ctx, op, fld, spec, old, "exempt",
		func(s *flowcontrolv1.PriorityLevelConfigurationSpec) *flowcontrolv1.ExemptPriorityLevelConfiguration {
			return s.Exempt
		},
		getType, apivalidate.SemanticDeepEqual, forbiddenMember[flowcontrolv1.ExemptPriorityLevelConfiguration],
		[]apivalidate.DiscriminatedRule[*flowcontrolv1.ExemptPriorityLevelConfiguration, flowcontrolv1.PriorityLevelEnablement]{
			{Value: flowcontrolv1.PriorityLevelEnablementExempt},
		})
	errs = append(errs, apivalidate.Discriminated(ctx, op, fld, spec, old, "limited",
		func(s *flowcontrolv1.PriorityLevelConfigurationSpec) *flowcontrolv1.LimitedPriorityLevelConfiguration {
			return s.Limited
		},
		getType, apivalidate.SemanticDeepEqual, forbiddenMember[flowcontrolv1.LimitedPriorityLevelConfiguration],
		[]apivalidate.DiscriminatedRule[*flowcontrolv1.LimitedPriorityLevelConfiguration, flowcontrolv1.PriorityLevelEnablement]{
			{Value: flowcontrolv1.PriorityLevelEnablementLimited, Validation: requiredMember[flowcontrolv1.LimitedPriorityLevelConfiguration]},
		})...)
	var (
		oldType    *flowcontrolv1.PriorityLevelEnablement
		oldLimited *flowcontrolv1.LimitedPriorityLevelConfiguration
	)
	if old != nil {
		oldType, oldLimited = &old.Type, old.Limited
	}
	if !validate.Unchanged(op, &spec.Type, oldType) {
		errs = append(errs, apivalidate.RequiredValue(ctx, op, fld.Child("type"), &spec.Type, oldType).MarkBeta()...)
	}
	if spec.Limited != nil && !validate.Unchanged(op, spec.Limited, oldLimited) {
		var oldResponse *flowcontrolv1.LimitResponse
		if oldLimited != nil {
			oldResponse = &oldLimited.LimitResponse
		}
		errs = append(errs, declareLimitResponse(op, &spec.Limited.LimitResponse, oldResponse, fld.Child("limited", "limitResponse"))...)
	}
	return errs
}

// declareLimitResponse is a limit response's declarative validation:
// queuing required with Queue, forbidden with any other type, and the type
// required.
func declareLimitResponse(op operation.Operation, lr, old *flowcontrolv1.LimitResponse, fld *field.Path) field.ErrorList {
	if validate.Unchanged(op, lr, old) {
		return nil
	}
	ctx := context.Background()
	errs := apivalidate.Discriminated(ctx, op, fld, lr, old, "queuing",
		func(r *flowcontrolv1.LimitResponse) *flowcontrolv1.QueuingConfiguration { return r.Queuing },
		func(r *flowcontrolv1.LimitResponse) flowcontrolv1.LimitResponseType { return r.Type },
		apivalidate.DirectEqual, forbiddenMember[flowcontrolv1.QueuingConfiguration],
		[]apivalidate.DiscriminatedRule[*flowcontrolv1.QueuingConfiguration, flowcontrolv1.LimitResponseType]{
			{Value: flowcontrolv1.LimitResponseTypeQueue, Validation: requiredMember[flowcontrolv1.QueuingConfiguration]},
		})
	var oldType *flowcontrolv1.LimitResponseType
	if old != nil {
		oldType = &old.Type
	}
	if !validate.Unchanged(op, &lr.Type, oldType) {
		errs = append(errs, apivalidate.RequiredValue(ctx, op, fld.Child("type"), &lr.Type, oldType).MarkBeta()...)
	}
	return errs
}

// forbiddenMember refuses a union member its discriminator does not name.
func forbiddenMember[T any](ctx context.Context, op operation.Operation, fld *field.Path, obj, old *T) field.ErrorList {
	return apivalidate.ForbiddenPointer(ctx, op, fld, obj, old).MarkBeta()
}

// requiredMember requires the union member its discriminator names.
func requiredMember[T any](ctx context.Context, op operation.Operation, fld *field.Path, obj, old *T) field.ErrorList {
	return apivalidate.RequiredPointer(ctx, op, fld, obj, old).MarkBeta()
}
