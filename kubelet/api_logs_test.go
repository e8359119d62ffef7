package kubelet

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestContainerLogsAnswerAsTheKubelet(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { return t0.Add(10 * time.Second) }

	logFile := filepath.Join(t.TempDir(), "app.log")
	if err := os.WriteFile(logFile, []byte("2026-01-02T03:04:05.5Z stdout F from a file\n2026-01-02T03:04:06Z stderr F second\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var debug DebugConfig
	cl := ClusterLogs{}
	cl.Spec.Selector = &ObjectSelector{MatchNames: []string{"fromfile"}}
	cl.Spec.Logs = []Log{{LogsFile: ptr.To(logFile)}}
	debug.ClusterLogs = append(debug.ClusterLogs, cl)

	pending := runningPod("default", "pending", "app")
	pending.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	restarted := runningPod("default", "restarted", "app")
	restarted.Status.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ContainerID: "containerd://old", ExitCode: 1}}
	ta := startTestAPI(t, debug, now, runningPod("default", "web", "app", "side"), pending, restarted, runningPod("default", "fromfile", "app"))

	if err := ta.api.AppendLogEntries("default", "web", "app", false,
		LogEntry{Time: t0, Line: "one"},
		LogEntry{Time: t0.Add(time.Second), Stream: Stderr, Line: "two"},
		LogEntry{Time: t0.Add(2 * time.Second), Line: "three"},
	); err != nil {
		t.Fatal(err)
	}
	if err := ta.api.AppendLogEntries("default", "restarted", "app", true, LogEntry{Time: t0, Line: "old"}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, path string
		code       int
		body       string
	}{
		{"every line by default", "/containerLogs/default/web/app", 200, "one\ntwo\nthree\n"},
		{"tailLines keeps the last lines", "/containerLogs/default/web/app?tailLines=1", 200, "three\n"},
		{"tailLines=0 shows none", "/containerLogs/default/web/app?tailLines=0", 200, ""},
		{"the older tail=all shows all", "/containerLogs/default/web/app?tail=all", 200, "one\ntwo\nthree\n"},
		{"the older tail is tailLines", "/containerLogs/default/web/app?tail=2", 200, "two\nthree\n"},
		{"sinceSeconds counts back from now", "/containerLogs/default/web/app?sinceSeconds=9", 200, "two\nthree\n"},
		{"sinceTime drops earlier lines", "/containerLogs/default/web/app?sinceTime=2026-01-02T03:04:07Z", 200, "three\n"},
		{"timestamps prefix each line", "/containerLogs/default/web/app?timestamps=true&tailLines=2", 200,
			"2026-01-02T03:04:06.000000000Z two\n2026-01-02T03:04:07.000000000Z three\n"},
		{"limitBytes cuts the answer", "/containerLogs/default/web/app?limitBytes=5", 200, "one\nt"},
		{"previous reads the previous instance", "/containerLogs/default/restarted/app?previous=true", 200, "old\n"},
		{"a container with no logs has an empty log", "/containerLogs/default/web/side", 200, ""},
		{"a ClusterLogs file is read", "/containerLogs/default/fromfile/app?timestamps=1", 200,
			"2026-01-02T03:04:05.500000000Z from a file\n2026-01-02T03:04:06.000000000Z second\n"},
		{"previous without a previous instance", "/containerLogs/default/web/app?previous=true", 400,
			`previous terminated container "app" in pod "web" not found`},
		{"a container waiting to start", "/containerLogs/default/pending/app", 400,
			`container "app" in pod "pending" is waiting to start: ContainerCreating`},
		{"an unknown pod", "/containerLogs/default/nope/app", 404, `pod "nope" does not exist`},
		{"an unknown container", "/containerLogs/default/web/nope", 404, `container "nope" not found in pod "web"`},
		{"a query that does not decode", "/containerLogs/default/web/app?tailLines=x", 400, `{"message": "Unable to decode query."}`},
		{"negative tailLines", "/containerLogs/default/web/app?tailLines=-1", 422, `{"message": "Invalid request."}`},
		{"zero limitBytes", "/containerLogs/default/web/app?limitBytes=0", 422, `{"message": "Invalid request."}`},
		{"sinceSeconds with sinceTime", "/containerLogs/default/web/app?sinceSeconds=1&sinceTime=2026-01-02T03:04:07Z", 422, `{"message": "Invalid request."}`},
		{"a stream without the split-streams feature", "/containerLogs/default/web/app?stream=Stdout", 422, `{"message": "Invalid request."}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := ta.get(t, tc.path)
			if code != tc.code || body != tc.body {
				t.Errorf("GET %s = %d %q, want %d %q", tc.path, code, body, tc.code, tc.body)
			}
		})
	}
}

func TestFollowedLogsStreamAppendsUntilTheContainerStops(t *testing.T) {
	t.Parallel()
	ta := startTestAPI(t, DebugConfig{}, nil, runningPod("default", "web", "app"))
	if err := ta.api.AppendLog("default", "web", "app", "before"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ta.api.URL()+"/containerLogs/default/web/app?follow=true", nil)
	resp, err := ta.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := bufio.NewReader(resp.Body)
	readLine := func() string {
		t.Helper()
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return line
	}
	if got := readLine(); got != "before\n" {
		t.Fatalf("first line %q", got)
	}
	if err := ta.api.AppendLog("default", "web", "app", "after", "and more"); err != nil {
		t.Fatal(err)
	}
	if got := readLine() + readLine(); got != "after\nand more\n" {
		t.Fatalf("appended lines %q", got)
	}
	stopped := runningPod("default", "web", "app")
	stopped.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ContainerID: "containerd://web-app"}}
	ta.pods.set(stopped)
	rest, err := io.ReadAll(r)
	if err != nil || len(rest) != 0 {
		t.Fatalf("after the container stopped: %q, %v; want the stream to end", rest, err)
	}
}

func TestStopEndsFollowingRequests(t *testing.T) {
	t.Parallel()
	ta := startTestAPI(t, DebugConfig{}, nil, runningPod("default", "web", "app"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ta.api.URL()+"/containerLogs/default/web/app?follow=true", nil)
	resp, err := ta.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	ta.api.stop()
	if _, err := io.ReadAll(resp.Body); ctx.Err() != nil {
		t.Fatalf("the follow did not end at stop: %v", err)
	}
}
