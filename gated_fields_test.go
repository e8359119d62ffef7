package fakeplane_test

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestWorkloadAndClaimGatedFieldsDropped writes Jobs, CronJobs and
// PersistentVolumeClaims with fields of feature gates that are off by
// default in v1.37: a Job spec's scheduling (WorkloadWithJob), a claim's
// dataSourceRef to another namespace (CrossNamespaceVolumeDataSource) and
// its status.healthStatus (CSIVolumeHealth). kube-apiserver drops them.
func TestWorkloadAndClaimGatedFieldsDropped(t *testing.T) {
	runGatedFieldCases(t, []gatedFieldCase{
		{gate: "WorkloadWithJob", obj: `
apiVersion: batch/v1
kind: Job
metadata: {name: gated-job-scheduling}
spec:
  suspend: true
  scheduling: {schedulingPolicy: {basic: {}}}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]`,
			field: func(o runtime.Object) any { return o.(*batchv1.Job).Spec.Scheduling }},
		{gate: "WorkloadWithJob", obj: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: gated-cronjob-scheduling}
spec:
  schedule: "0 0 1 1 *"
  suspend: true
  jobTemplate:
    spec:
      scheduling: {schedulingPolicy: {basic: {}}}
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]`,
			field: func(o runtime.Object) any { return o.(*batchv1.CronJob).Spec.JobTemplate.Spec.Scheduling }},
		{gate: "CrossNamespaceVolumeDataSource", obj: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: gated-pvc-datasource}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  dataSourceRef: {kind: PersistentVolumeClaim, name: src, namespace: other}`,
			field: func(o runtime.Object) any { return o.(*corev1.PersistentVolumeClaim).Spec.DataSourceRef }},
		{gate: "CSIVolumeHealth", obj: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: gated-pvc-health}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}`,
			status: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: gated-pvc-health}
status:
  phase: Pending
  healthStatus: {healthConditions: [{status: Abnormal, message: x}]}`,
			field: func(o runtime.Object) any { return o.(*corev1.PersistentVolumeClaim).Status.HealthStatus }},
	})
}
