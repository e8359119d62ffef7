package controllers

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// webTemplate is the pod template of a Deployment web (app=web, one nginx
// container) as kube-apiserver v1.37 stores it, defaults included.
const webTemplate = `{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}}`

// The expected hashes are what kube-controller-manager v1.37.2's
// ComputeHash returns for webTemplate.
func TestPodTemplateHashIsKubeControllerManagers(t *testing.T) {
	var tmpl corev1.PodTemplateSpec
	if err := json.Unmarshal([]byte(webTemplate), &tmpl); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		collision *int32
		want      string
	}{
		{"no collision count", nil, "69c6f74b8b"},
		{"collision count 3", ptr.To[int32](3), "7d966596d9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := podTemplateHash(&tmpl, tt.collision); got != tt.want {
				t.Errorf("podTemplateHash = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestReplicaSetNameIsCutToAValidName(t *testing.T) {
	long := strings.Repeat("a", 260)
	tests := []struct{ name, deployment, want string }{
		{"short name", "web", "web-69c6f74b8b"},
		{"long name cut", long, strings.Repeat("a", 253-11) + "-69c6f74b8b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := replicaSetNameFor(tt.deployment, "69c6f74b8b"); got != tt.want {
				t.Errorf("replicaSetNameFor = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSurgeRoundsUpAndUnavailableDown(t *testing.T) {
	pct := intstr.FromString
	num := intstr.FromInt32
	tests := []struct {
		name                  string
		surge, unavailable    intstr.IntOrString
		replicas              int32
		wantSurge, wantUnavai int32
	}{
		{"defaults of 3", pct("25%"), pct("25%"), 3, 1, 0},
		{"defaults of 4", pct("25%"), pct("25%"), 4, 1, 1},
		{"defaults of 10", pct("25%"), pct("25%"), 10, 3, 2},
		{"both zero makes one unavailable", num(0), num(0), 5, 0, 1},
		{"percent zero of 1", pct("0%"), pct("0%"), 1, 0, 1},
		{"absolute", num(2), num(1), 10, 2, 1},
		{"unavailable above replicas is capped", num(0), num(5), 3, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To(tt.replicas),
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &tt.surge, MaxUnavailable: &tt.unavailable}},
			}}
			if s, u := maxSurge(d), maxUnavailable(d); s != tt.wantSurge || u != tt.wantUnavai {
				t.Errorf("maxSurge, maxUnavailable = %d, %d; want %d, %d", s, u, tt.wantSurge, tt.wantUnavai)
			}
		})
	}
	recreate := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	if s, u := maxSurge(recreate), maxUnavailable(recreate); s != 0 || u != 0 {
		t.Errorf("Recreate: maxSurge, maxUnavailable = %d, %d; want 0, 0", s, u)
	}
}

func rsOf(name string, replicas int32, annotations map[string]string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)}}
}

func TestNewReplicaSetGrowsWithinSurge(t *testing.T) {
	surge, unavailable := intstr.FromInt32(1), intstr.FromInt32(0)
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](3),
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
	}}
	tests := []struct {
		name     string
		old, new int32
		want     int32
	}{
		{"start of rollout", 3, 0, 1},
		{"at surge", 3, 1, 1},
		{"old scaled down", 2, 1, 2},
		{"no old", 0, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newRS := rsOf("new", tt.new, nil)
			got, err := newRSReplicas(d, []*appsv1.ReplicaSet{rsOf("old", tt.old, nil), newRS}, newRS)
			if err != nil || got != tt.want {
				t.Errorf("newRSReplicas = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestProportionalScalingSplitsByMaxReplicas(t *testing.T) {
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("25%")
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](20),
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
	}}
	// Scaled from 10 (max 13) to 20 (max 25): a ReplicaSet of 8 gets
	// round(8*25/13) - 8 = 7.
	rs := rsOf("a", 8, map[string]string{maxReplicasAnnotation: "13"})
	if got := replicaSetProportion(rs, d, 12, 0); got != 7 {
		t.Errorf("replicaSetProportion = %d, want 7", got)
	}
	if got := replicaSetProportion(rs, d, 12, 10); got != 2 {
		t.Errorf("replicaSetProportion with 10 handed out = %d, want 2", got)
	}
}

func TestRevisionHistoryKeepsFormerRevisions(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		"team":                             "a",
		corev1.LastAppliedConfigAnnotation: "{}",
		revisionAnnotation:                 "9",
	}}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	rs := rsOf("web-x", 2, map[string]string{revisionAnnotation: "1"})
	if !setNewReplicaSetAnnotations(d, rs, "3", true) {
		t.Fatal("no change reported")
	}
	want := map[string]string{"team": "a", revisionAnnotation: "3", revisionHistoryAnnotation: "1"}
	if len(rs.Annotations) != len(want) {
		t.Errorf("annotations %v, want %v", rs.Annotations, want)
	}
	for k, v := range want {
		if rs.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, rs.Annotations[k], v)
		}
	}
	setNewReplicaSetAnnotations(d, rs, "5", true)
	if got := rs.Annotations[revisionHistoryAnnotation]; got != "1,3" {
		t.Errorf("revision history = %q, want 1,3", got)
	}
	if setNewReplicaSetAnnotations(d, rs, "4", true) {
		t.Error("an older revision changed the ReplicaSet")
	}
}

func TestLastRevisionIsTheOneBeforeTheCurrent(t *testing.T) {
	rss := []*appsv1.ReplicaSet{
		rsOf("a", 0, map[string]string{revisionAnnotation: "2"}),
		rsOf("b", 0, map[string]string{revisionAnnotation: "5"}),
		rsOf("c", 0, map[string]string{revisionAnnotation: "4"}),
	}
	if got := lastRevision(rss); got != 4 {
		t.Errorf("lastRevision = %d, want 4", got)
	}
	if got := maxRevision(rss); got != 5 {
		t.Errorf("maxRevision = %d, want 5", got)
	}
}

func readyPod(name, node string, phase corev1.PodPhase, readySince time.Time, created time.Time) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(created)},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: phase},
	}
	if !readySince.IsZero() {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(readySince)}}
	}
	return p
}

func TestPodsToDeleteComeInUpstreamOrder(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-10 * time.Hour)
	pods := []*corev1.Pod{
		readyPod("running-ready-old", "n1", corev1.PodRunning, old, old),
		readyPod("running-ready-recent", "n2", corev1.PodRunning, now.Add(-time.Second), old),
		readyPod("running-not-ready", "n1", corev1.PodRunning, time.Time{}, old),
		readyPod("pending", "n1", corev1.PodPending, time.Time{}, old),
		readyPod("unassigned", "", corev1.PodPending, time.Time{}, old),
	}
	costly := readyPod("running-ready-costly", "n3", corev1.PodRunning, now.Add(-time.Second), old)
	costly.Annotations = map[string]string{podDeletionCostAnnotation: "100"}
	cheap := readyPod("running-ready-cheap", "n4", corev1.PodRunning, old, old)
	cheap.Annotations = map[string]string{podDeletionCostAnnotation: "-100"}
	pods = append(pods, costly, cheap)
	ranked := rankPodsForDeletion(pods, nil, now)
	sort.Sort(ranked)
	var got []string
	for _, p := range ranked.pods {
		got = append(got, p.Name)
	}
	want := []string{"unassigned", "pending", "running-not-ready", "running-ready-cheap", "running-ready-recent", "running-ready-old", "running-ready-costly"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("deletion order\n got %v\nwant %v", got, want)
	}
}

func TestDoubledUpPodsGoFirst(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	t0 := now.Add(-time.Hour)
	alone := readyPod("alone", "n1", corev1.PodRunning, t0, t0)
	crowded := readyPod("crowded", "n2", corev1.PodRunning, t0, t0)
	related := []*corev1.Pod{alone, crowded, readyPod("other", "n2", corev1.PodRunning, t0, t0)}
	ranked := rankPodsForDeletion([]*corev1.Pod{alone, crowded}, related, now)
	sort.Sort(ranked)
	if ranked.pods[0].Name != "crowded" {
		t.Errorf("first to delete = %s, want crowded", ranked.pods[0].Name)
	}
}

func TestPodAvailabilityWaitsMinReadySeconds(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	p := readyPod("p", "n", corev1.PodRunning, now.Add(-5*time.Second), now)
	tests := []struct {
		name     string
		minReady int32
		want     bool
	}{
		{"no minReadySeconds", 0, true},
		{"ready long enough", 5, true},
		{"not yet", 6, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isPodAvailable(p, tt.minReady, now); got != tt.want {
				t.Errorf("isPodAvailable = %v, want %v", got, tt.want)
			}
		})
	}
	if d, ok := nextPodAvailabilityCheck([]*corev1.Pod{p}, 6, now); !ok || d != time.Second {
		t.Errorf("nextPodAvailabilityCheck = %v, %v; want 1s", d, ok)
	}
	if isPodAvailable(readyPod("q", "n", corev1.PodRunning, time.Time{}, now), 0, now) {
		t.Error("a pod that is not ready is available")
	}
}

func TestReplicaSetStatusCountsPods(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	rs := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{
		Replicas:        ptr.To[int32](4),
		MinReadySeconds: 10,
		Template:        corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}}},
	}}
	full := map[string]string{"app": "web", "tier": "front"}
	a := readyPod("a", "n", corev1.PodRunning, now.Add(-time.Minute), now)
	a.Labels = full
	b := readyPod("b", "n", corev1.PodRunning, now.Add(-time.Second), now)
	b.Labels = full
	c := readyPod("c", "n", corev1.PodPending, time.Time{}, now)
	c.Labels = map[string]string{"app": "web"}
	st := replicaSetStatus(rs, []*corev1.Pod{a, b, c}, []*corev1.Pod{c}, nil, true, now)
	if st.Replicas != 3 || st.FullyLabeledReplicas != 2 || st.ReadyReplicas != 2 || st.AvailableReplicas != 1 || st.TerminatingReplicas == nil || *st.TerminatingReplicas != 1 {
		t.Errorf("status %+v", st)
	}
	failed := replicaSetStatus(rs, []*corev1.Pod{a}, nil, errTest, false, now)
	if cond := replicaSetCondition(failed, appsv1.ReplicaSetReplicaFailure); cond == nil || cond.Reason != "FailedCreate" || cond.Message != errTest.Error() {
		t.Errorf("ReplicaFailure condition %+v", cond)
	}
	if failed.TerminatingReplicas != nil {
		t.Error("terminatingReplicas set for a ReplicationController")
	}
	rs.Status = failed
	if cleared := replicaSetStatus(rs, []*corev1.Pod{a}, nil, nil, false, now); len(cleared.Conditions) != 0 {
		t.Errorf("conditions after success: %+v", cleared.Conditions)
	}
}

var errTest = &testError{}

type testError struct{}

func (*testError) Error() string { return "pods \"web-\" is forbidden: exceeded quota" }

func TestFencepostsRejectBadPercent(t *testing.T) {
	bad := intstr.FromString("abc")
	if _, _, err := resolveFenceposts(&bad, nil, 3); err == nil {
		t.Error("no error for maxSurge abc")
	}
	if !hasProgressDeadline(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: ptr.To[int32](600)}}) ||
		hasProgressDeadline(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: ptr.To[int32](math.MaxInt32)}}) {
		t.Error("hasProgressDeadline")
	}
}
