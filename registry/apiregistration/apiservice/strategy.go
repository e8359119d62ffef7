// Package apiservice holds the APIService strategy: the rules of
// kube-aggregator's pkg/registry/apiservice strategy, with its validation
// (k8s.io/kube-aggregator/pkg/apis/apiregistration/validation) called on the
// object converted to the aggregator's internal type.
package apiservice

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/validation"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the APIService strategy. As upstream's, it refuses an update
// without metadata.resourceVersion and clears the status a new APIService
// is sent with (the registry then marks a local one Available).
var Strategy = apiServiceStrategy{strategy.Base{ResetStatusOnCreate: true, NameRuleOnCreateOnly: true}}

type apiServiceStrategy struct{ strategy.Base }

// Default sets upstream's defaults: a service's port is 443.
func (apiServiceStrategy) Default(obj runtime.Object) {
	if as, ok := obj.(*apiregistrationv1.APIService); ok {
		apiregistrationv1.SetObjectDefaults_APIService(as)
	}
}

// Validate checks a new APIService: its name is version.group, and its
// group, version, priorities, service and TLS settings are upstream's.
func (apiServiceStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	in, err := internal(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return withoutMeta(in, validation.ValidateAPIService(ctx, in))
}

// ValidateUpdate checks an APIService as upstream's ValidateAPIServiceUpdate
// does, but for the object metadata update rules, which the registry runs
// (twice: nothing dedups kube-aggregator's errors): its metadata, with its
// name rule, and the rest as Validate does.
func (apiServiceStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	in, err := internal(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return validation.ValidateAPIService(ctx, in)
}

// ValidateStatusUpdate checks the conditions' statuses of a write to
// /status.
func (apiServiceStrategy) ValidateStatusUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	in, err := internal(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return validation.ValidateAPIServiceStatus(&in.Status, field.NewPath("status"))
}

// internal converts an apiregistration.k8s.io/v1 APIService to the type
// upstream's validation takes.
func internal(obj runtime.Object) (*apiregistration.APIService, error) {
	v1, ok := obj.(*apiregistrationv1.APIService)
	if !ok {
		return nil, fmt.Errorf("not an APIService: %T", obj)
	}
	out := &apiregistration.APIService{}
	if err := apiregistrationv1.Convert_v1_APIService_To_apiregistration_APIService(v1, out, nil); err != nil {
		return nil, fmt.Errorf("convert APIService: %w", err)
	}
	return out, nil
}

// withoutMeta drops upstream's object metadata errors, which the registry's
// own metadata validation reports, except the APIService's name rule
// (version.group), which is the APIService's own.
func withoutMeta(in *apiregistration.APIService, errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	for _, e := range errs {
		if strings.HasPrefix(e.Field, "metadata") && !(e.Field == "metadata.name" && strings.HasPrefix(e.Detail, "must be `spec.version+")) {
			continue
		}
		out = append(out, e)
	}
	return out
}
