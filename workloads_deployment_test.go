package fakeplane_test

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// workloadTimeout bounds each wait of the workload tests; it times nothing.
const workloadTimeout = 60 * time.Second

// waitWorkload polls cond until it holds, failing the test with what and the
// last state cond described when it does not within workloadTimeout.
func waitWorkload(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, workloadTimeout, true, func(context.Context) (bool, error) {
		ok, state := cond()
		last = state
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not reached: %v\nlast state: %s", what, err, last)
	}
}

// podNameSuffix matches the 5 characters generateName appends.
const podNameSuffix = `[bcdfghjklmnpqrstvwxz2456789]{5}`

// webDeployment is a Deployment of replicas nginx pods labelled app=name.
func webDeployment(name string, replicas int32, image string) *appsv1.Deployment {
	ls := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: ls},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: ls},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
}

// ownedReplicaSets lists the ReplicaSets d controls, oldest revision first.
func ownedReplicaSets(t testing.TB, cs kubernetes.Interface, d *appsv1.Deployment) []appsv1.ReplicaSet {
	t.Helper()
	list, err := cs.AppsV1().ReplicaSets(d.Namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []appsv1.ReplicaSet
	for _, rs := range list.Items {
		if metav1.IsControlledBy(&rs, d) {
			out = append(out, rs)
		}
	}
	slices.SortFunc(out, func(a, b appsv1.ReplicaSet) int {
		return strings.Compare(fmt.Sprintf("%09s", a.Annotations["deployment.kubernetes.io/revision"]), fmt.Sprintf("%09s", b.Annotations["deployment.kubernetes.io/revision"]))
	})
	return out
}

// podsOf lists the pods matching the selector.
func podsOf(t testing.TB, cs kubernetes.Interface, ns string, sel map[string]string) []corev1.Pod {
	t.Helper()
	list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: labels.SelectorFromSet(sel).String()})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitRolledOut waits until d is fully rolled out at its current
// generation: every replica updated and available, no old ones left.
func waitRolledOut(t testing.TB, cs kubernetes.Interface, ns, name string) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	waitWorkload(t, "deployment "+name+" rolled out", func() (bool, string) {
		var err error
		d, err = cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		want := *d.Spec.Replicas
		st := d.Status
		return st.ObservedGeneration == d.Generation && st.Replicas == want && st.UpdatedReplicas == want &&
			st.AvailableReplicas == want && st.ReadyReplicas == want && st.UnavailableReplicas == 0, fmt.Sprintf("generation %d status %+v", d.Generation, st)
	})
	return d
}

// wantRolloutStatusSuccess runs kubectl rollout status on deployment name
// and checks that it ends with the success line.
func wantRolloutStatusSuccess(t *testing.T, cp *fakeplane.ControlPlane, name string) {
	t.Helper()
	lines := outputLines(mustKubectl(t, cp, "rollout", "status", "deployment/"+name, "--timeout=60s"))
	if want := fmt.Sprintf("deployment %q successfully rolled out", name); len(lines) == 0 || lines[len(lines)-1] != want {
		t.Errorf("kubectl rollout status deployment/%s printed %q, want it to end with %q", name, lines, want)
	}
}

// condition returns d's condition of type ct.
func condition(d *appsv1.Deployment, ct appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == ct {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

// eventsFor lists the events about the named object of kind.
func eventsFor(t testing.TB, cs kubernetes.Interface, ns, kind, name string) []corev1.Event {
	t.Helper()
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}.AsSelector().String()
	list, err := cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// hasEvent reports whether events has one of reason, source and message.
func hasEvent(events []corev1.Event, reason, source, message string) bool {
	for _, e := range events {
		if e.Reason == reason && e.Source.Component == source && e.Message == message {
			return true
		}
	}
	return false
}

// A Deployment goes through its whole life with client-go and kubectl as on
// a cluster: created, ready, scaled, updated, rolled back, paused, resumed,
// restarted, its history trimmed.
func TestDeploymentRollsOutThroughReplicaSets(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, nil)
	cs := clientset(t, cp)
	ctx := context.Background()

	created, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment("web", 3, "nginx:1.27"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var firstRS appsv1.ReplicaSet
	t.Run("creates a ReplicaSet and its pods with names, labels and owners as upstream", func(t *testing.T) {
		d := waitRolledOut(t, cs, "default", "web")
		rss := ownedReplicaSets(t, cs, created)
		if len(rss) != 1 {
			t.Fatalf("%d ReplicaSets, want 1", len(rss))
		}
		firstRS = rss[0]
		hash := firstRS.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		if hash == "" || firstRS.Name != "web-"+hash {
			t.Errorf("ReplicaSet %s, pod-template-hash %q: want web-<hash>", firstRS.Name, hash)
		}
		if firstRS.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] != hash || firstRS.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash {
			t.Errorf("ReplicaSet selector %v, template labels %v: want the hash in both", firstRS.Spec.Selector, firstRS.Spec.Template.Labels)
		}
		ref := metav1.GetControllerOf(&firstRS)
		if ref == nil || ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != "web" || ref.UID != created.UID || !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("ReplicaSet controller reference %+v", ref)
		}
		for k, v := range map[string]string{"deployment.kubernetes.io/revision": "1", "deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/max-replicas": "4"} {
			if firstRS.Annotations[k] != v {
				t.Errorf("ReplicaSet annotation %s = %q, want %q", k, firstRS.Annotations[k], v)
			}
		}
		pods := podsOf(t, cs, "default", map[string]string{"app": "web"})
		if len(pods) != 3 {
			t.Fatalf("%d pods, want 3", len(pods))
		}
		name := regexp.MustCompile("^" + regexp.QuoteMeta(firstRS.Name) + "-" + podNameSuffix + "$")
		for _, p := range pods {
			ref := metav1.GetControllerOf(&p)
			if !name.MatchString(p.Name) || p.GenerateName != firstRS.Name+"-" || p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash ||
				ref == nil || ref.Kind != "ReplicaSet" || ref.Name != firstRS.Name || ref.UID != firstRS.UID || !ptr.Deref(ref.BlockOwnerDeletion, false) {
				t.Errorf("pod %s (generateName %s, labels %v, controller %+v)", p.Name, p.GenerateName, p.Labels, ref)
			}
		}
		if d.Annotations["deployment.kubernetes.io/revision"] != "1" {
			t.Errorf("Deployment revision annotation %q, want 1", d.Annotations["deployment.kubernetes.io/revision"])
		}
		if c := condition(d, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionTrue || c.Reason != "MinimumReplicasAvailable" || c.Message != "Deployment has minimum availability." {
			t.Errorf("Available condition %+v", c)
		}
		want := fmt.Sprintf("ReplicaSet %q has successfully progressed.", firstRS.Name)
		if c := condition(d, appsv1.DeploymentProgressing); c == nil || c.Status != corev1.ConditionTrue || c.Reason != "NewReplicaSetAvailable" || c.Message != want {
			t.Errorf("Progressing condition %+v, want NewReplicaSetAvailable %q", c, want)
		}
		rs, err := cs.AppsV1().ReplicaSets("default").Get(ctx, firstRS.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if st := rs.Status; st.Replicas != 3 || st.FullyLabeledReplicas != 3 || st.ReadyReplicas != 3 || st.AvailableReplicas != 3 || st.ObservedGeneration != rs.Generation || ptr.Deref(st.TerminatingReplicas, -1) != 0 {
			t.Errorf("ReplicaSet status %+v", st)
		}
		waitWorkload(t, "events", func() (bool, string) {
			dev := eventsFor(t, cs, "default", "Deployment", "web")
			rev := eventsFor(t, cs, "default", "ReplicaSet", firstRS.Name)
			ok := hasEvent(dev, "ScalingReplicaSet", "deployment-controller", "Scaled up replica set "+firstRS.Name+" from 0 to 3") &&
				hasEvent(rev, "SuccessfulCreate", "replicaset-controller", "Created pod: "+pods[0].Name)
			return ok, fmt.Sprintf("deployment events %v, replica set events %v", dev, rev)
		})
	})

	t.Run("kubectl rollout status reports success", func(t *testing.T) {
		wantLines(t, "kubectl rollout status", mustKubectl(t, cp, "rollout", "status", "deployment/web", "--timeout=60s"), `deployment "web" successfully rolled out`)
	})

	t.Run("kubectl scale scales the ReplicaSet", func(t *testing.T) {
		mustKubectl(t, cp, "scale", "deployment/web", "--replicas=5")
		waitRolledOut(t, cs, "default", "web")
		rs, err := cs.AppsV1().ReplicaSets("default").Get(ctx, firstRS.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if *rs.Spec.Replicas != 5 || rs.Annotations["deployment.kubernetes.io/desired-replicas"] != "5" || rs.Annotations["deployment.kubernetes.io/max-replicas"] != "7" {
			t.Errorf("ReplicaSet replicas %d, annotations %v", *rs.Spec.Replicas, rs.Annotations)
		}
		if n := len(podsOf(t, cs, "default", map[string]string{"app": "web"})); n != 5 {
			t.Errorf("%d pods, want 5", n)
		}
	})

	t.Run("a new image rolls out a second ReplicaSet", func(t *testing.T) {
		mustKubectl(t, cp, "set", "image", "deployment/web", "nginx=nginx:1.28")
		wantRolloutStatusSuccess(t, cp, "web")
		d := waitRolledOut(t, cs, "default", "web")
		rss := ownedReplicaSets(t, cs, created)
		if len(rss) != 2 {
			t.Fatalf("%d ReplicaSets, want 2", len(rss))
		}
		old, cur := rss[0], rss[1]
		if old.Name != firstRS.Name || *old.Spec.Replicas != 0 || old.Annotations["deployment.kubernetes.io/revision"] != "1" {
			t.Errorf("old ReplicaSet %s: replicas %d, annotations %v", old.Name, *old.Spec.Replicas, old.Annotations)
		}
		if *cur.Spec.Replicas != 5 || cur.Annotations["deployment.kubernetes.io/revision"] != "2" || cur.Spec.Template.Spec.Containers[0].Image != "nginx:1.28" {
			t.Errorf("new ReplicaSet %s: replicas %d, annotations %v", cur.Name, *cur.Spec.Replicas, cur.Annotations)
		}
		if d.Annotations["deployment.kubernetes.io/revision"] != "2" {
			t.Errorf("Deployment revision %q, want 2", d.Annotations["deployment.kubernetes.io/revision"])
		}
		waitWorkload(t, "old pods gone", func() (bool, string) {
			pods := podsOf(t, cs, "default", map[string]string{"app": "web"})
			for _, p := range pods {
				if p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != cur.Labels[appsv1.DefaultDeploymentUniqueLabelKey] {
					return false, "old pod " + p.Name
				}
			}
			return len(pods) == 5, fmt.Sprintf("%d pods", len(pods))
		})
		dev := eventsFor(t, cs, "default", "Deployment", "web")
		if !hasEvent(dev, "ScalingReplicaSet", "deployment-controller", fmt.Sprintf("Scaled down replica set %s from 5 to 4", old.Name)) {
			t.Errorf("no scale-down event of %s in %v", old.Name, dev)
		}
	})

	t.Run("kubectl rollout history lists the revisions", func(t *testing.T) {
		out := mustKubectl(t, cp, "rollout", "history", "deployment/web")
		wantLines(t, "kubectl rollout history", out, `deployment\.apps/web`, `REVISION\s+CHANGE-CAUSE`, `1\s+<none>`, `2\s+<none>`)
		out = mustKubectl(t, cp, "rollout", "history", "deployment/web", "--revision=1")
		if !strings.Contains(out, "nginx:1.27") || !strings.Contains(out, "pod-template-hash="+firstRS.Labels[appsv1.DefaultDeploymentUniqueLabelKey]) {
			t.Errorf("kubectl rollout history --revision=1:\n%s", out)
		}
	})

	t.Run("kubectl rollout undo goes back to the first template", func(t *testing.T) {
		wantLines(t, "kubectl rollout undo", mustKubectl(t, cp, "rollout", "undo", "deployment/web"), `deployment\.apps/web rolled back`)
		wantRolloutStatusSuccess(t, cp, "web")
		d := waitRolledOut(t, cs, "default", "web")
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.27" {
			t.Errorf("image after undo %s, want nginx:1.27", img)
		}
		rs, err := cs.AppsV1().ReplicaSets("default").Get(ctx, firstRS.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if *rs.Spec.Replicas != 5 || rs.Annotations["deployment.kubernetes.io/revision"] != "3" || rs.Annotations["deployment.kubernetes.io/revision-history"] != "1" {
			t.Errorf("first ReplicaSet back: replicas %d, annotations %v", *rs.Spec.Replicas, rs.Annotations)
		}
		if d.Annotations["deployment.kubernetes.io/revision"] != "3" {
			t.Errorf("Deployment revision %q, want 3", d.Annotations["deployment.kubernetes.io/revision"])
		}
		if n := len(ownedReplicaSets(t, cs, created)); n != 2 {
			t.Errorf("%d ReplicaSets after undo, want 2 (the template's ReplicaSet is reused)", n)
		}
	})

	t.Run("kubectl rollout pause holds changes until resume", func(t *testing.T) {
		wantLines(t, "kubectl rollout pause", mustKubectl(t, cp, "rollout", "pause", "deployment/web"), `deployment\.apps/web paused`)
		waitWorkload(t, "paused condition", func() (bool, string) {
			d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			c := condition(d, appsv1.DeploymentProgressing)
			return c != nil && c.Status == corev1.ConditionUnknown && c.Reason == "DeploymentPaused" && c.Message == "Deployment is paused", fmt.Sprintf("%+v", c)
		})
		mustKubectl(t, cp, "set", "image", "deployment/web", "nginx=nginx:1.29")
		waitWorkload(t, "paused change observed", func() (bool, string) {
			d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			return d.Status.ObservedGeneration == d.Generation, fmt.Sprintf("generation %d, observed %d", d.Generation, d.Status.ObservedGeneration)
		})
		if n := len(ownedReplicaSets(t, cs, created)); n != 2 {
			t.Errorf("%d ReplicaSets while paused, want 2", n)
		}
		wantLines(t, "kubectl get deployment web while paused", mustKubectl(t, cp, "get", "deployment", "web"),
			`NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE`, `web\s+5/5\s+0\s+5\s+`+age)
		wantLines(t, "kubectl rollout resume", mustKubectl(t, cp, "rollout", "resume", "deployment/web"), `deployment\.apps/web resumed`)
		wantRolloutStatusSuccess(t, cp, "web")
		d := waitRolledOut(t, cs, "default", "web")
		if d.Annotations["deployment.kubernetes.io/revision"] != "4" {
			t.Errorf("Deployment revision %q after resume, want 4", d.Annotations["deployment.kubernetes.io/revision"])
		}
	})

	t.Run("kubectl rollout restart rolls out a restartedAt template", func(t *testing.T) {
		wantLines(t, "kubectl rollout restart", mustKubectl(t, cp, "rollout", "restart", "deployment/web"), `deployment\.apps/web restarted`)
		wantRolloutStatusSuccess(t, cp, "web")
		d := waitRolledOut(t, cs, "default", "web")
		if d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" || d.Annotations["deployment.kubernetes.io/revision"] != "5" {
			t.Errorf("template annotations %v, revision %q", d.Spec.Template.Annotations, d.Annotations["deployment.kubernetes.io/revision"])
		}
		waitWorkload(t, "pods of the restarted template", func() (bool, string) {
			pods := podsOf(t, cs, "default", map[string]string{"app": "web"})
			for _, p := range pods {
				if p.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
					return false, "pod " + p.Name + " not restarted"
				}
			}
			return len(pods) == 5, fmt.Sprintf("%d pods", len(pods))
		})
	})

	t.Run("revisionHistoryLimit deletes the oldest ReplicaSets", func(t *testing.T) {
		mustKubectl(t, cp, "patch", "deployment/web", "-p", `{"spec":{"revisionHistoryLimit":1}}`)
		waitWorkload(t, "old ReplicaSets cleaned up", func() (bool, string) {
			rss := ownedReplicaSets(t, cs, created)
			var names []string
			for _, rs := range rss {
				names = append(names, rs.Name+"@"+rs.Annotations["deployment.kubernetes.io/revision"])
			}
			return len(rss) == 2 && rss[0].Annotations["deployment.kubernetes.io/revision"] == "4" && rss[1].Annotations["deployment.kubernetes.io/revision"] == "5", strings.Join(names, " ")
		})
	})
}

// A Recreate Deployment takes its old pods down before it starts new ones:
// no pods of two templates exist at once.
func TestDeploymentRecreateNeverRunsTwoTemplates(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, nil)
	cs := clientset(t, cp)
	ctx := context.Background()
	d := webDeployment("db", 3, "postgres:16")
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	first := waitRolledOut(t, cs, "default", "db")
	oldHash := ownedReplicaSets(t, cs, first)[0].Labels[appsv1.DefaultDeploymentUniqueLabelKey]

	w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{LabelSelector: "app=db", ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cs.AppsV1().Deployments("default").Patch(ctx, "db", "application/strategic-merge-patch+json",
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"postgres:17"}]}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	live := map[string]string{} // pod -> hash
	deadline := time.After(workloadTimeout)
	for done := false; !done; {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch ended")
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			if ev.Type == "DELETED" {
				delete(live, p.Name)
			} else {
				live[p.Name] = p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
			}
			hashes := map[string]bool{}
			for _, h := range live {
				hashes[h] = true
			}
			if len(hashes) > 1 {
				t.Fatalf("pods of two templates at once: %v", live)
			}
			done = len(live) == 3 && !hashes[oldHash]
		case <-deadline:
			t.Fatalf("the new template's pods did not all come: %v", live)
		}
	}
	d2 := waitRolledOut(t, cs, "default", "db")
	rss := ownedReplicaSets(t, cs, d2)
	if len(rss) != 2 || *rss[0].Spec.Replicas != 0 || *rss[1].Spec.Replicas != 3 || rss[1].Annotations["deployment.kubernetes.io/max-replicas"] != "3" {
		t.Errorf("ReplicaSets after the recreate: %+v", rss)
	}
}

// Deleting a Deployment takes its ReplicaSets and pods with it, or leaves
// them, as the propagation policy says: the garbage collector follows the
// owner references the controllers set.
func TestDeploymentDeletePropagation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, nil)
	cs := clientset(t, cp)
	ctx := context.Background()
	tests := []struct {
		name   string
		policy metav1.DeletionPropagation
		keep   bool
	}{
		{"background", metav1.DeletePropagationBackground, false},
		{"foreground", metav1.DeletePropagationForeground, false},
		{"orphan", metav1.DeletePropagationOrphan, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment("del-"+tt.name, 2, "nginx:1.27"), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			waitRolledOut(t, cs, "default", d.Name)
			rs := ownedReplicaSets(t, cs, d)[0]
			if err := cs.AppsV1().Deployments("default").Delete(ctx, d.Name, metav1.DeleteOptions{PropagationPolicy: &tt.policy}); err != nil {
				t.Fatal(err)
			}
			if tt.policy == metav1.DeletePropagationForeground {
				// Until its dependents are gone, the Deployment waits with
				// the foregroundDeletion finalizer, or is already gone.
				got, err := cs.AppsV1().Deployments("default").Get(ctx, d.Name, metav1.GetOptions{})
				if err == nil && (got.DeletionTimestamp == nil || !slices.Contains(got.Finalizers, metav1.FinalizerDeleteDependents)) {
					t.Errorf("foreground deletion: deletionTimestamp %v finalizers %v", got.DeletionTimestamp, got.Finalizers)
				}
			}
			waitWorkload(t, "deployment gone", func() (bool, string) {
				_, err := cs.AppsV1().Deployments("default").Get(ctx, d.Name, metav1.GetOptions{})
				return apierrors.IsNotFound(err), fmt.Sprint(err)
			})
			if tt.keep {
				waitWorkload(t, "ReplicaSet orphaned", func() (bool, string) {
					got, err := cs.AppsV1().ReplicaSets("default").Get(ctx, rs.Name, metav1.GetOptions{})
					if err != nil {
						return false, err.Error()
					}
					return len(got.OwnerReferences) == 0, fmt.Sprintf("owners %v", got.OwnerReferences)
				})
				pods := podsOf(t, cs, "default", map[string]string{"app": d.Name})
				if len(pods) != 2 {
					t.Errorf("%d pods left, want 2", len(pods))
				}
				for _, p := range pods {
					if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != rs.UID {
						t.Errorf("pod %s controller %+v, want the ReplicaSet", p.Name, ref)
					}
				}
				return
			}
			waitWorkload(t, "ReplicaSet and pods gone", func() (bool, string) {
				_, err := cs.AppsV1().ReplicaSets("default").Get(ctx, rs.Name, metav1.GetOptions{})
				pods := podsOf(t, cs, "default", map[string]string{"app": d.Name})
				return apierrors.IsNotFound(err) && len(pods) == 0, fmt.Sprintf("replica set: %v, %d pods", err, len(pods))
			})
		})
	}
}

// A Deployment whose pods never become ready runs past its progress
// deadline, and kubectl rollout status says so.
func TestDeploymentProgressDeadlineExceeded(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, func(p *corev1.Pod) bool { return p.Labels["app"] == "stuck" })
	cs := clientset(t, cp)
	d := webDeployment("stuck", 2, "nginx:1.27")
	d.Spec.ProgressDeadlineSeconds = ptr.To[int32](1)
	if _, err := cs.AppsV1().Deployments("default").Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWorkload(t, "progress deadline exceeded", func() (bool, string) {
		got, err := cs.AppsV1().Deployments("default").Get(context.Background(), "stuck", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		// The deadline (a second) may pass before the ReplicaSet reports
		// its pods: the status counts them once it has.
		c := condition(got, appsv1.DeploymentProgressing)
		return c != nil && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" &&
			regexp.MustCompile(`^ReplicaSet "stuck-[a-z0-9]+" has timed out progressing\.$`).MatchString(c.Message) &&
			got.Status.Replicas == 2, fmt.Sprintf("%+v", got.Status)
	})
	got, err := cs.AppsV1().Deployments("default").Get(context.Background(), "stuck", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := condition(got, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionFalse || c.Reason != "MinimumReplicasUnavailable" || c.Message != "Deployment does not have minimum availability." {
		t.Errorf("Available condition %+v", c)
	}
	if got.Status.UnavailableReplicas != 2 || got.Status.AvailableReplicas != 0 || got.Status.Replicas != 2 {
		t.Errorf("status %+v", got.Status)
	}
	wantErrLine(t, "kubectl rollout status", failKubectl(t, cp, "rollout", "status", "deployment/stuck", "--timeout=30s"), `error: deployment "stuck" exceeded its progress deadline`)
}

// Pods count as available minReadySeconds after they became ready: the
// controllers check again when that time comes, with no other change to
// wake them.
func TestDeploymentAvailableAfterMinReadySeconds(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, nil)
	cs := clientset(t, cp)
	d := webDeployment("slow", 3, "nginx:1.27")
	d.Spec.MinReadySeconds = 1
	created, err := cs.AppsV1().Deployments("default").Create(context.Background(), d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := waitRolledOut(t, cs, "default", "slow")
	if c := condition(got, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("Available condition %+v", c)
	}
	rs := ownedReplicaSets(t, cs, created)[0]
	if rs.Spec.MinReadySeconds != 1 {
		t.Errorf("ReplicaSet minReadySeconds %d, want 1", rs.Spec.MinReadySeconds)
	}
	for _, p := range podsOf(t, cs, "default", map[string]string{"app": "slow"}) {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && time.Since(c.LastTransitionTime.Time) < time.Second {
				t.Errorf("pod %s counted available %v after it became ready", p.Name, time.Since(c.LastTransitionTime.Time))
			}
		}
	}
}

// A Deployment created again after an orphaning delete adopts its
// ReplicaSet (the same template, so no new one), as kube-controller-manager's
// ControllerRefManager does; a ReplicaSet relabelled out of its selector is
// released, and the Deployment makes a new one for its pods.
func TestDeploymentAdoptsAndReleasesReplicaSets(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	startTestKubelet(t, cp, nil)
	cs := clientset(t, cp)
	ctx := context.Background()
	first, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment("adopter", 1, "nginx:1.27"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitRolledOut(t, cs, "default", first.Name)
	rs := ownedReplicaSets(t, cs, first)[0]
	orphan := metav1.DeletePropagationOrphan
	if err := cs.AppsV1().Deployments("default").Delete(ctx, first.Name, metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	// The garbage collector orphans the ReplicaSet, then lets the
	// Deployment go (its orphan finalizer): both before the create.
	waitWorkload(t, "ReplicaSet orphaned and the Deployment gone", func() (bool, string) {
		got, err := cs.AppsV1().ReplicaSets("default").Get(ctx, rs.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		_, err = cs.AppsV1().Deployments("default").Get(ctx, first.Name, metav1.GetOptions{})
		return len(got.OwnerReferences) == 0 && apierrors.IsNotFound(err), fmt.Sprintf("owners %v, deployment: %v", got.OwnerReferences, err)
	})

	second, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment("adopter", 1, "nginx:1.27"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitRolledOut(t, cs, "default", second.Name)
	owned := ownedReplicaSets(t, cs, second)
	if len(owned) != 1 || owned[0].UID != rs.UID {
		t.Fatalf("the new Deployment controls %d ReplicaSets (%v), want the orphan %s alone", len(owned), owned, rs.Name)
	}
	want := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "adopter", UID: second.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	if refs := owned[0].OwnerReferences; len(refs) != 1 || !reflect.DeepEqual(refs[0], want) {
		t.Errorf("adopted ReplicaSet's owner references %+v, want %+v", refs, want)
	}

	// Relabelled out of the selector: released, and replaced.
	patch := []byte(`{"metadata":{"labels":{"app":"elsewhere"}}}`)
	if _, err := cs.AppsV1().ReplicaSets("default").Patch(ctx, rs.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWorkload(t, "ReplicaSet released", func() (bool, string) {
		got, err := cs.AppsV1().ReplicaSets("default").Get(ctx, rs.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return len(got.OwnerReferences) == 0, fmt.Sprintf("owners %v", got.OwnerReferences)
	})
	waitWorkload(t, "a new ReplicaSet", func() (bool, string) {
		owned := ownedReplicaSets(t, cs, second)
		return len(owned) == 1 && owned[0].UID != rs.UID, fmt.Sprintf("%d owned", len(owned))
	})
}
