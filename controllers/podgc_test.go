package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// podGCRegistry is a registry for the pod garbage collector's writes: it
// keeps pods and the names of the nodes that exist, and records each status
// write and delete as "status ns/name phase [condition reason]" and
// "delete ns/name grace".
type podGCRegistry struct {
	mu     sync.Mutex
	pods   map[string]*corev1.Pod
	nodes  map[string]bool
	writes []string
}

var _ registry.Interface = (*podGCRegistry)(nil)

func (f *podGCRegistry) Get(_ context.Context, gvr schema.GroupVersionResource, ns, name string) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if gvr == nodesGVR && f.nodes[name] {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
	}
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

func (f *podGCRegistry) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *podGCRegistry) Create(context.Context, schema.GroupVersionResource, runtime.Object) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *podGCRegistry) Update(context.Context, schema.GroupVersionResource, string, string, registry.UpdateFunc) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *podGCRegistry) UpdateSubresource(_ context.Context, gvr schema.GroupVersionResource, sub, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pod, ok := f.pods[ns+"/"+name]
	if gvr != podsGVR || sub != "status" {
		return nil, fmt.Errorf("unexpected write to %s %s %s/%s", gvr, sub, ns, name)
	}
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	out, err := tryUpdate(pod.DeepCopy())
	if err != nil {
		return nil, err
	}
	p := out.(*corev1.Pod)
	w := fmt.Sprintf("status %s/%s %s", ns, name, p.Status.Phase)
	for _, c := range p.Status.Conditions {
		w += fmt.Sprintf(" %s=%s/%s/%s/gen%d", c.Type, c.Status, c.Reason, c.Message, c.ObservedGeneration)
	}
	f.writes = append(f.writes, w)
	f.pods[ns+"/"+name] = p
	return p, nil
}

func (f *podGCRegistry) Delete(_ context.Context, gvr schema.GroupVersionResource, ns, name string, opts metav1.DeleteOptions) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	grace := "default"
	if opts.GracePeriodSeconds != nil {
		grace = fmt.Sprint(*opts.GracePeriodSeconds)
	}
	f.writes = append(f.writes, fmt.Sprintf("delete %s/%s grace %s", ns, name, grace))
	delete(f.pods, ns+"/"+name)
	return &corev1.Pod{}, nil
}

// gcPod is a pod for the collector's tests.
func gcPod(name, node string, phase corev1.PodPhase, created time.Time) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Generation: 2, CreationTimestamp: metav1.NewTime(created)},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

// gcNode is a node for the collector's tests.
func gcNode(name string, ready bool, taints ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
	for _, k := range taints {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: k, Effect: corev1.TaintEffectNoExecute})
	}
	return n
}

func TestPodGCCollectsAsKubeControllerManager(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	deleting := metav1.NewTime(start)
	terminating := func(p *corev1.Pod) *corev1.Pod { p.DeletionTimestamp = &deleting; return p }
	evicted := func(p *corev1.Pod) *corev1.Pod { p.Status.Reason = "Evicted"; return p }
	tests := []struct {
		name      string
		threshold int
		nodes     []*corev1.Node
		pods      []*corev1.Pod
		// steps are the times (since start) of the syncs after the first.
		steps []time.Duration
		// want are the writes, by the step (0: the first sync) that made them.
		want map[int][]string
	}{
		{
			name:  "a pod of a missing node goes at the first pass 40 s after one found the node missing",
			nodes: []*corev1.Node{gcNode("here", true)},
			pods: []*corev1.Pod{gcPod("orphan", "gone", corev1.PodRunning, start),
				gcPod("finished", "gone", corev1.PodSucceeded, start), gcPod("stays", "here", corev1.PodRunning, start)},
			steps: []time.Duration{10 * time.Second, 20 * time.Second, 39 * time.Second, 40 * time.Second, 60 * time.Second},
			want: map[int][]string{4: {
				"delete ns/finished grace 0",
				"status ns/orphan Failed DisruptionTarget=True/DeletionByPodGC/PodGC: node no longer exists/gen2",
				"delete ns/orphan grace 0",
			}},
		},
		{
			name:  "a terminating pod goes from a node not ready with the out-of-service taint only",
			nodes: []*corev1.Node{gcNode("oos", false, corev1.TaintNodeOutOfService), gcNode("ready-oos", true, corev1.TaintNodeOutOfService), gcNode("down", false)},
			pods: []*corev1.Pod{terminating(gcPod("t1", "oos", corev1.PodRunning, start)), gcPod("running", "oos", corev1.PodRunning, start),
				terminating(gcPod("t2", "ready-oos", corev1.PodRunning, start)), terminating(gcPod("t3", "down", corev1.PodRunning, start))},
			want: map[int][]string{0: {"status ns/t1 Failed", "delete ns/t1 grace 0"}},
		},
		{
			name:  "a terminating pod never scheduled goes",
			nodes: []*corev1.Node{gcNode("here", true)},
			pods:  []*corev1.Pod{terminating(gcPod("unscheduled", "", corev1.PodPending, start)), gcPod("pending", "", corev1.PodPending, start)},
			want:  map[int][]string{0: {"status ns/unscheduled Failed", "delete ns/unscheduled grace 0"}},
		},
		{
			name: "terminated pods beyond the threshold go, evicted first, then the oldest", threshold: 2,
			nodes: []*corev1.Node{gcNode("here", true)},
			pods: []*corev1.Pod{gcPod("old", "here", corev1.PodSucceeded, start), gcPod("new", "here", corev1.PodFailed, start.Add(time.Hour)),
				evicted(gcPod("evicted", "here", corev1.PodFailed, start.Add(2*time.Hour))), gcPod("b-same-age", "here", corev1.PodFailed, start.Add(30*time.Minute)),
				gcPod("a-same-age", "here", corev1.PodFailed, start.Add(30*time.Minute)), gcPod("running", "here", corev1.PodRunning, start)},
			want: map[int][]string{0: {"delete ns/evicted grace 0", "delete ns/old grace 0", "delete ns/a-same-age grace 0"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &podGCRegistry{pods: map[string]*corev1.Pod{}, nodes: map[string]bool{}}
			var events []store.Event
			for _, n := range tt.nodes {
				reg.nodes[n.Name] = true
				events = append(events, addedEvent(t, nodesBucket, n.Name, n))
			}
			for _, p := range tt.pods {
				reg.pods[p.Namespace+"/"+p.Name] = p.DeepCopy()
				events = append(events, addedEvent(t, podsBucket, p.Namespace+"/"+p.Name, p))
			}
			now := start
			c := NewPodGC(reg, func() time.Time { return now }, nil)
			if tt.threshold > 0 {
				c.threshold = tt.threshold
			}
			for i, at := range append([]time.Duration{0}, tt.steps...) {
				now = start.Add(at)
				before := len(reg.writes)
				var rq *Requeue
				if err := c.Sync(context.Background(), events); !errors.As(err, &rq) || rq.Failed != nil {
					t.Fatalf("step %d: Sync: %v, want a Requeue for the next pass", i, err)
				}
				events = nil
				if got := reg.writes[before:]; !slices.Equal(got, tt.want[i]) {
					t.Errorf("step %d (%v): writes\n%s\nwant\n%s", i, at, strings.Join(got, "\n"), strings.Join(tt.want[i], "\n"))
				}
				// What the collector deleted leaves its pods, as the store's
				// watch would tell it.
				for k := range c.pods {
					if reg.pods[k] == nil {
						events = append(events, store.Event{Type: store.Deleted, Resource: podsBucket, Key: k})
					}
				}
			}
		})
	}
}
