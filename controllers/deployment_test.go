package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// deploymentRegistry keeps Deployments and ReplicaSets by resource and
// key, and logs the writes to them.
type deploymentRegistry struct {
	mu      sync.Mutex
	objects map[string]runtime.Object
	log     []string
}

var _ registry.Interface = (*deploymentRegistry)(nil)

func objKey(gvr schema.GroupVersionResource, ns, name string) string {
	return gvr.Resource + "/" + ns + "/" + name
}

func (f *deploymentRegistry) Get(_ context.Context, gvr schema.GroupVersionResource, ns, name string) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if o, ok := f.objects[objKey(gvr, ns, name)]; ok {
		return o.DeepCopyObject(), nil
	}
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

func (f *deploymentRegistry) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *deploymentRegistry) Create(_ context.Context, gvr schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return obj, nil // events
	}
	rs.UID = k8stypes.UID("uid-" + rs.Name)
	f.objects[objKey(gvr, rs.Namespace, rs.Name)] = rs
	f.log = append(f.log, fmt.Sprintf("create %s replicas=%d revision=%s desired=%s max=%s", rs.Name, *rs.Spec.Replicas,
		rs.Annotations[revisionAnnotation], rs.Annotations[desiredReplicasAnnotation], rs.Annotations[maxReplicasAnnotation]))
	return rs, nil
}

func (f *deploymentRegistry) update(gvr schema.GroupVersionResource, sub, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, ok := f.objects[objKey(gvr, ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	out, err := tryUpdate(cur.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	f.objects[objKey(gvr, ns, name)] = out
	switch o := out.(type) {
	case *appsv1.ReplicaSet:
		f.log = append(f.log, fmt.Sprintf("update %s replicas=%d", o.Name, *o.Spec.Replicas))
	case *appsv1.Deployment:
		f.log = append(f.log, "update "+sub+" "+o.Name)
	}
	return out, nil
}

func (f *deploymentRegistry) Update(_ context.Context, gvr schema.GroupVersionResource, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	return f.update(gvr, "", ns, name, tryUpdate)
}

func (f *deploymentRegistry) UpdateSubresource(_ context.Context, gvr schema.GroupVersionResource, sub, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	return f.update(gvr, sub, ns, name, tryUpdate)
}

func (f *deploymentRegistry) Delete(context.Context, schema.GroupVersionResource, string, string, metav1.DeleteOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

// rollingDeployment is a Deployment of 3 replicas, maxSurge 1 and
// maxUnavailable 0, running image.
func rollingDeployment(image string) *appsv1.Deployment {
	surge, unavailable := intstr.FromInt32(1), intstr.FromInt32(0)
	ls := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 2},
		Spec: appsv1.DeploymentSpec{
			Replicas:                ptr.To[int32](3),
			Selector:                &metav1.LabelSelector{MatchLabels: ls},
			Template:                corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: ls}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}},
			Strategy:                appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3},
	}
}

// ownedRS is a ReplicaSet of d's for image, with replicas of which
// available are available, at revision.
func ownedRS(d *appsv1.Deployment, image string, replicas, available int32, revision string) *appsv1.ReplicaSet {
	tmpl := rollingDeployment(image).Spec.Template
	hash := podTemplateHash(&tmpl, nil)
	tmpl.Labels = withLabel(tmpl.Labels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-" + hash, Namespace: "ns", UID: k8stypes.UID("uid-" + hash), Labels: tmpl.Labels, Generation: 1,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, deploymentKind)},
			Annotations:     map[string]string{revisionAnnotation: revision, desiredReplicasAnnotation: "3", maxReplicasAnnotation: "4"},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels},
			Template: tmpl,
		},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: available, AvailableReplicas: available, ObservedGeneration: 1},
	}
}

func TestRollingUpdateSteps(t *testing.T) {
	d := rollingDeployment("nginx:2")
	old := ownedRS(d, "nginx:1", 3, 3, "1")
	newHash := podTemplateHash(&d.Spec.Template, nil)
	tests := []struct {
		name string
		sets []*appsv1.ReplicaSet
		want []string
	}{{
		name: "a new template creates its ReplicaSet within maxSurge",
		sets: []*appsv1.ReplicaSet{old},
		want: []string{"create web-" + newHash + " replicas=1 revision=2 desired=3 max=4", "update status web", "update status web"},
	}, {
		name: "an available new replica lets one old go",
		sets: []*appsv1.ReplicaSet{old, ownedRS(d, "nginx:2", 1, 1, "2")},
		want: []string{"update status web", "update " + old.Name + " replicas=2", "update status web"},
	}, {
		name: "an unavailable new replica holds the old ones",
		sets: []*appsv1.ReplicaSet{old, ownedRS(d, "nginx:2", 1, 0, "2")},
		want: []string{"update status web", "update status web"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &deploymentRegistry{objects: map[string]runtime.Object{objKey(deploymentsGVR, "ns", "web"): d.DeepCopy()}}
			events := []store.Event{addedEvent(t, deploymentsBucket, "ns/web", d)}
			for _, rs := range tt.sets {
				reg.objects[objKey(replicaSetsGVR, "ns", rs.Name)] = rs.DeepCopy()
				events = append(events, addedEvent(t, replicaSetsBucket, "ns/"+rs.Name, rs))
			}
			c := NewDeployment(reg, nil, nil)
			var rq *Requeue
			if err := c.Sync(context.Background(), events); err != nil && !errors.As(err, &rq) {
				t.Fatal(err)
			}
			if fmt.Sprint(reg.log) != fmt.Sprint(tt.want) {
				t.Errorf("writes\n got %q\nwant %q", reg.log, tt.want)
			}
		})
	}
}
