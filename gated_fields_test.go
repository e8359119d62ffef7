package fakeplane_test

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestCoreGatedFieldsDropped writes Jobs, CronJobs,
// PersistentVolumeClaims, pod statuses and nodes with fields of feature
// gates that are off by default in v1.37: a Job spec's scheduling
// (WorkloadWithJob), a claim's dataSourceRef to another namespace
// (CrossNamespaceVolumeDataSource) and its status.healthStatus
// (CSIVolumeHealth), a pod status's volumeHealth (CSIVolumeHealth),
// nodeAllocatableResourceClaimStatuses (DRANodeAllocatableResources) and
// volume mounts' volumeStatus (ImageVolumeWithDigest), a node's
// podPreemptionPolicy (InPlacePodVerticalScalingSchedulerPreemption), a
// CSINode's status.storageHealth (CSIVolumeHealth). kube-apiserver drops
// them.
func TestCoreGatedFieldsDropped(t *testing.T) {
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
		{gate: "CSIVolumeHealth", obj: `
apiVersion: v1
kind: Pod
metadata: {name: gated-pod-volume-health}
spec:
  containers: [{name: c, image: busybox}]`,
			status: `
apiVersion: v1
kind: Pod
metadata: {name: gated-pod-volume-health}
status:
  volumeHealth: [{name: v, healthConditions: [{status: Abnormal}]}]`,
			field: func(o runtime.Object) any {
				return o.(*corev1.Pod).Status.VolumeHealth
			}},
		{gate: "DRANodeAllocatableResources", obj: `
apiVersion: v1
kind: Pod
metadata: {name: gated-pod-node-allocatable}
spec:
  containers: [{name: c, image: busybox}]`,
			status: `
apiVersion: v1
kind: Pod
metadata: {name: gated-pod-node-allocatable}
status:
  nodeAllocatableResourceClaimStatuses: [{resourceClaimName: c}]`,
			field: func(o runtime.Object) any {
				return o.(*corev1.Pod).Status.NodeAllocatableResourceClaimStatuses
			}},
		{gate: "ImageVolumeWithDigest", obj: `
apiVersion: v1
kind: Pod
metadata: {name: gated-pod-volume-status}
spec:
  containers: [{name: c, image: busybox}]`,
			status: `
apiVersion: v1
kind: Pod
metadata: {name: gated-pod-volume-status}
status:
  containerStatuses:
  - {name: c, image: busybox, imageID: "", ready: false, restartCount: 0, volumeMounts: [{name: v, mountPath: /v, volumeStatus: {image: {imageRef: x}}}]}`,
			field: func(o runtime.Object) any {
				if s := o.(*corev1.Pod).Status.ContainerStatuses; len(s) > 0 {
					return s[0].VolumeMounts[0].VolumeStatus
				}
				return nil
			}},
		{gate: "InPlacePodVerticalScalingSchedulerPreemption", obj: `
apiVersion: v1
kind: Node
metadata: {name: gated-node-preemption}
spec:
  podPreemptionPolicy: {disableResizePreemption: [a]}`,
			field: func(o runtime.Object) any { return o.(*corev1.Node).Spec.PodPreemptionPolicy }},
		{gate: "CSIVolumeHealth", obj: `
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: gated-csinode-health}
spec: {drivers: []}`,
			status: `
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: gated-csinode-health}
status: {storageHealth: [{name: x}]}`,
			field: func(o runtime.Object) any { return o.(*storagev1.CSINode).Status.StorageHealth }},
	})
}
