package printers

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Scale prints a built-in resource's Scale (its scale subresource) as
// kube-apiserver's scale storages do, with the Scale printer of
// pkg/printers/internalversion: Name, Desired (spec.replicas), Available
// (status.replicas) and Age, the name's and the age's columns without a
// format. Each row's Object is the Scale.
var Scale rest.TableConvertor = scalePrinter{}

// scalePrinter is Scale.
type scalePrinter struct{}

// scaleColumns are the Scale printer's columns, described by the fields'
// API documentation.
var scaleColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
	{Name: "Desired", Type: "integer", Description: autoscalingv1.ScaleSpec{}.SwaggerDoc()["replicas"]},
	{Name: "Available", Type: "integer", Description: autoscalingv1.ScaleStatus{}.SwaggerDoc()["replicas"]},
	{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
}

// ConvertToTable prints one Scale, its age counted against the context's
// clock (WithClock).
func (scalePrinter) ConvertToTable(ctx context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	sc, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, fmt.Errorf("printers: a Scale table of a %T", obj)
	}
	t := &metav1.Table{ColumnDefinitions: scaleColumns}
	t.ResourceVersion = sc.ResourceVersion
	t.Rows = []metav1.TableRow{{
		Cells:  []any{sc.Name, int64(sc.Spec.Replicas), int64(sc.Status.Replicas), age(clockFrom(ctx)(), sc.CreationTimestamp)},
		Object: runtime.RawExtension{Object: sc},
	}}
	return t, nil
}
