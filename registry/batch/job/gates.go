package job

import (
	batchv1 "k8s.io/api/batch/v1"
)

// DropDisabledSpecFields clears the fields of a Job spec (of a Job, or of
// a CronJob's job template) whose feature gates are off by default in
// kube-apiserver v1.37, as upstream's pkg/api/job DropDisabledFields:
// spec.scheduling (WorkloadWithJob), kept when old (nil on create) already
// sets it.
func DropDisabledSpecFields(spec, old *batchv1.JobSpec) {
	if old != nil && old.Scheduling != nil {
		return
	}
	spec.Scheduling = nil
}
