package kubelet

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestStageKeysSelectAsJQDoes(t *testing.T) {
	pod := map[string]any{
		"metadata": map[string]any{
			"ownerReferences": []any{map[string]any{"kind": "ReplicaSet"}, map[string]any{"kind": "Job"}},
			"annotations":     map[string]any{"example.com/x": "1"},
		},
		"status": map[string]any{
			"phase":      "Running",
			"conditions": []any{map[string]any{"type": "PodScheduled", "status": "True"}, map[string]any{"type": "Ready", "status": "False"}},
		},
	}
	for key, want := range map[string][]any{
		".status.phase":                                                {"Running"},
		".metadata.ownerReferences.[].kind":                            {"ReplicaSet", "Job"},
		`.metadata.annotations["example.com/x"]`:                       {"1"},
		`.status.conditions.[] | select( .type == "Ready" ) | .status`: {"False"},
		".metadata.deletionTimestamp":                                  nil,
	} {
		q, err := parseJQ(key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if got := q.eval(pod); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	for _, bad := range []string{"status.phase", `.a | select(.b)`, ".a..b"} {
		if _, err := parseJQ(bad); err == nil {
			t.Errorf("%q parses", bad)
		}
	}
}

func TestStagesMoveAPodAsKwoksDo(t *testing.T) {
	stages, err := LoadStages(filepath.Join("testdata", "stages-fast.yaml"), filepath.Join("testdata", "stages-fail.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0).UTC()
	at := placement{hostIPs: []string{"10.89.0.2"}, podIPs: []string{"10.128.0.2"}}
	step := func(t *testing.T, pod *corev1.Pod) (*Stage, *corev1.Pod) {
		t.Helper()
		data, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
		if err != nil {
			t.Fatal(err)
		}
		st := matchStage(stages, data, pod.Labels, pod.Annotations)
		if st == nil || st.Spec.Next.Delete {
			return st, pod
		}
		status, err := renderStatus(st, pod, data, templateFuncs(&at, func() time.Time { return now }))
		if err != nil {
			t.Fatal(err)
		}
		next := pod.DeepCopy()
		next.Status = status
		return st, next
	}
	for _, tc := range []struct {
		name      string
		pod       *corev1.Pod
		wantStage []string // the stages that move the pod on, in order
		check     func(t *testing.T, p *corev1.Pod)
	}{
		{"a pending pod runs and then stays", pendingPod(nil), []string{"pod-ready"}, func(t *testing.T, p *corev1.Pod) {
			if p.Status.Phase != corev1.PodRunning || p.Status.PodIP != "10.128.0.2" || p.Status.HostIP != "10.89.0.2" || len(p.Status.ContainerStatuses) != 2 || p.Status.StartTime.Unix() != 1000 {
				t.Errorf("status %+v", p.Status)
			}
			if p.Status.QOSClass != corev1.PodQOSBestEffort {
				t.Errorf("a field the template leaves out changed: qosClass %q", p.Status.QOSClass)
			}
		}},
		{"a pod a Job owns runs then completes", pendingPod(func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "j"}}
		}), []string{"pod-ready", "pod-complete"}, func(t *testing.T, p *corev1.Pod) {
			if p.Status.Phase != corev1.PodSucceeded || p.Status.ContainerStatuses[0].State.Terminated == nil {
				t.Errorf("status %+v", p.Status)
			}
		}},
		{"a pod labelled to fail fails", pendingPod(func(p *corev1.Pod) { p.Labels = map[string]string{"fail": "yes"} }), []string{"pod-fail"}, func(t *testing.T, p *corev1.Pod) {
			term := p.Status.ContainerStatuses[0].State.Terminated
			if p.Status.Phase != corev1.PodFailed || term == nil || term.ExitCode != 1 || term.Reason != "Error" {
				t.Errorf("status %+v", p.Status)
			}
		}},
		{"a terminating pod is deleted", pendingPod(func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: now} }), []string{"pod-delete"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod
			var got []string
			for range 5 {
				st, next := step(t, pod)
				if st == nil {
					break
				}
				got = append(got, st.Metadata.Name)
				if st.Spec.Next.Delete {
					break
				}
				pod = next
			}
			if !slices.Equal(got, tc.wantStage) {
				t.Fatalf("stages %v, want %v", got, tc.wantStage)
			}
			if tc.check != nil {
				tc.check(t, pod)
			}
		})
	}
}

func TestParseStagesRejectsWhatItCannotRun(t *testing.T) {
	for name, doc := range map[string]string{
		"another kind":      "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: n}\nspec:\n  resourceRef: {apiGroup: v1, kind: Node}\n",
		"not a Stage":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n}\n",
		"unknown operator":  "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: n}\nspec:\n  resourceRef: {apiGroup: v1, kind: Pod}\n  selector:\n    matchExpressions: [{key: .a, operator: Gt}]\n",
		"a broken template": "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: n}\nspec:\n  resourceRef: {apiGroup: v1, kind: Pod}\n  next: {statusTemplate: '{{ .a '}\n",
		"an unknown field":  "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: n}\nspec:\n  resourceRef: {apiGroup: v1, kind: Pod}\n  nxt: {}\n",
	} {
		if _, err := ParseStages([]byte(doc)); err == nil {
			t.Errorf("%s: parses", name)
		}
	}
}

func TestStageDelaysAndWeightsComeFromTheStageOrThePod(t *testing.T) {
	now := time.Unix(1000, 0).UTC()
	ms := func(n int64) *int64 { return &n }
	from := func(key string) *StageExpressionFrom { return &StageExpressionFrom{ExpressionFrom: key} }
	pod := map[string]any{"metadata": map[string]any{
		"annotations":       map[string]any{"delay": "2s", "weight": "7"},
		"deletionTimestamp": now.Add(30 * time.Second).Format(time.RFC3339),
	}}
	half := func(d time.Duration) time.Duration { return d / 2 }
	for _, tc := range []struct {
		name  string
		delay *StageDelay
		want  time.Duration
	}{
		{"no delay", nil, 0},
		{"a fixed delay", &StageDelay{DurationMilliseconds: ms(1500)}, 1500 * time.Millisecond},
		{"the pod's delay wins", &StageDelay{DurationMilliseconds: ms(1000), DurationFrom: from(`.metadata.annotations["delay"]`)}, 2 * time.Second},
		{"a missing value falls back", &StageDelay{DurationMilliseconds: ms(1000), DurationFrom: from(`.metadata.annotations["none"]`)}, time.Second},
		{"a jitter up to a time", &StageDelay{DurationMilliseconds: ms(10000), JitterDurationFrom: from(".metadata.deletionTimestamp")}, 20 * time.Second},
		{"a jitter shorter than the delay", &StageDelay{DurationMilliseconds: ms(5000), JitterDurationMilliseconds: ms(1000)}, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &Stage{Spec: StageSpec{Delay: tc.delay}}
			if got := st.delay(pod, now, half); got != tc.want {
				t.Errorf("delay %v, want %v", got, tc.want)
			}
		})
	}
	stages := []Stage{
		{Metadata: StageMetadata{Name: "heavy"}, Spec: StageSpec{Weight: 5}},
		{Metadata: StageMetadata{Name: "from-pod"}, Spec: StageSpec{Weight: 1, WeightFrom: from(`.metadata.annotations["weight"]`)}},
	}
	if got := matchStage(stages, pod, nil, nil); got.Metadata.Name != "from-pod" {
		t.Errorf("stage %s, want the one weighing 7 by the pod's annotation", got.Metadata.Name)
	}
}
