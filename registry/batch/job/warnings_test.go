package job

import (
	"context"
	"reflect"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"
)

func TestJobWarnings(t *testing.T) {
	ctx := context.Background()
	const (
		nameWarning  = "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"
		deprecatedOS = `spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`
		bigIndexed   = "spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail"
	)
	obj := func(name string, f func(*batchv1.Job)) *batchv1.Job {
		j := valid()
		j.Name = name
		j.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
		f(j)
		return j
	}
	same := func(*batchv1.Job) {}
	indexed := func(completions, parallelism int32) func(*batchv1.Job) {
		return func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions, j.Spec.Parallelism = ptr.To(completions), ptr.To(parallelism)
		}
	}
	for _, tc := range []struct {
		name     string
		obj, old *batchv1.Job
		want     []string
	}{
		{name: "create: a plain one has none", obj: obj("pi", func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = nil })},
		{name: "create: name that is not a DNS label, then the template's", obj: obj("pi.v1", same), want: []string{nameWarning, deprecatedOS}},
		{name: "create: a big Indexed Job", obj: obj("pi", indexed(100_001, 10_001)), want: []string{bigIndexed, deprecatedOS}},
		{name: "create: an Indexed Job at the limits", obj: obj("pi", indexed(100_000, 10_000)), want: []string{deprecatedOS}},
		{name: "create: a big NonIndexed Job", obj: obj("pi", func(j *batchv1.Job) {
			indexed(100_001, 10_001)(j)
			j.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
		}), want: []string{deprecatedOS}},
		{name: "update changing the spec", old: obj("pi.v1", same), obj: obj("pi.v1", func(j *batchv1.Job) { j.Spec.Parallelism = ptr.To[int32](3) }), want: []string{deprecatedOS}},
		{name: "update leaving the spec alone has none", old: obj("pi.v1", same), obj: obj("pi.v1", func(j *batchv1.Job) { j.Labels = map[string]string{"a": "b"} })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			if tc.old == nil {
				got = Strategy.WarningsOnCreate(ctx, tc.obj)
			} else {
				got = Strategy.WarningsOnUpdate(ctx, tc.obj, tc.old)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}
