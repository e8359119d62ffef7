package kubelet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/util/flushwriter"
	criapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	crilogs "k8s.io/cri-client/pkg/logs"
)

// This file serves /containerLogs as the kubelet does, reading each
// container's log with the kubelet's own CRI log reader: the lines a test
// appended through the Go API, else the files kwok's Logs/ClusterLogs name,
// else an empty log.

// Log streams of a LogEntry.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// LogEntry is one line of a container's log.
type LogEntry struct {
	// Time is when the line was written (default: now, on the
	// simulator's clock).
	Time time.Time
	// Stream is Stdout (the default) or Stderr.
	Stream string
	// Line is the text, without its newline.
	Line string
}

// logStore keeps the logs appended through the Go API, one file per
// container instance in the CRI log format, so that the kubelet's log
// reader serves them (and follows appends).
type logStore struct {
	dir string
	now func() time.Time

	mu      sync.Mutex
	written map[string]bool // paths appended to
}

func newLogStore(now func() time.Time) (*logStore, error) {
	dir, err := os.MkdirTemp("", "fakeplane-kubelet-logs-")
	if err != nil {
		return nil, errorf("logs directory: %w", err)
	}
	return &logStore{dir: dir, now: now, written: map[string]bool{}}, nil
}

// path is the file of a container instance's log.
func (s *logStore) path(namespace, pod, container string, previous bool) string {
	name := namespace + "_" + pod + "_" + container
	if previous {
		name += ".previous"
	}
	return filepath.Join(s.dir, name+".log")
}

// appended reports whether the Go API wrote the log at path.
func (s *logStore) appended(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written[path]
}

// ensure creates the (empty) log at path if missing.
func (s *logStore) ensure(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// append writes entries to the log at path, one CRI line each.
func (s *logStore) append(path string, entries []LogEntry) error {
	var b strings.Builder
	for _, e := range entries {
		t := e.Time
		if t.IsZero() {
			t = s.now()
		}
		stream := e.Stream
		if stream == "" {
			stream = Stdout
		}
		if stream != Stdout && stream != Stderr {
			return errorf("log stream %q is neither %s nor %s", stream, Stdout, Stderr)
		}
		for line := range strings.SplitSeq(e.Line, "\n") {
			fmt.Fprintf(&b, "%s %s F %s\n", t.UTC().Format(crilogs.RFC3339NanoFixed), stream, line)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return errorf("append log: %w", err)
	}
	_, err = io.WriteString(f, b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errorf("append log: %w", err)
	}
	s.written[path] = true
	return nil
}

func (s *logStore) close() error { return os.RemoveAll(s.dir) }

// AppendLog appends lines to the log of the container's current instance,
// on stdout, each stamped with the time it is appended: a request that
// follows the log receives them.
func (a *APIServer) AppendLog(namespace, pod, container string, lines ...string) error {
	entries := make([]LogEntry, len(lines))
	for i, l := range lines {
		entries[i] = LogEntry{Line: l}
	}
	return a.AppendLogEntries(namespace, pod, container, false, entries...)
}

// AppendLogEntries appends entries to the log of the container's current
// instance, or of its previous one (what `previous=true` reads).
func (a *APIServer) AppendLogEntries(namespace, pod, container string, previous bool, entries ...LogEntry) error {
	return a.logs.append(a.logs.path(namespace, pod, container, previous), entries)
}

// logPath is the file a container instance's log is read from.
func (a *APIServer) logPath(namespace, pod, container string, previous bool) (string, error) {
	own := a.logs.path(namespace, pod, container, previous)
	if a.logs.appended(own) {
		return own, nil
	}
	if rule := a.cfg.Debug.logFor(namespace, pod, container); rule != nil {
		file := rule.LogsFile
		if previous {
			file = rule.PreviousLogsFile
		}
		if file != nil && *file != "" {
			return *file, nil
		}
	}
	return own, a.logs.ensure(own)
}

// getContainerLogs serves GET /containerLogs/{namespace}/{pod}/{container}.
func (a *APIServer) getContainerLogs(w http.ResponseWriter, r *http.Request) {
	namespace, podName, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	switch {
	case podName == "":
		writeError(w, http.StatusBadRequest, `{"message": "Missing podID."}`)
		return
	case container == "":
		writeError(w, http.StatusBadRequest, `{"message": "Missing container name."}`)
		return
	case namespace == "":
		writeError(w, http.StatusBadRequest, `{"message": "Missing podNamespace."}`)
		return
	}
	query := r.URL.Query()
	if tail := query.Get("tail"); tail != "" { // the kubelet's older name of tailLines
		query["tailLines"] = []string{tail}
		if tail == "all" {
			delete(query, "tailLines")
		}
	}
	opts, err := decodePodLogOptions(query)
	if err != nil {
		writeError(w, http.StatusBadRequest, `{"message": "Unable to decode query."}`)
		return
	}
	if !validPodLogOptions(opts) {
		writeError(w, http.StatusUnprocessableEntity, `{"message": "Invalid request."}`)
		return
	}
	pod, ok := a.pods.pod(namespace, podName)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("pod %q does not exist", podName))
		return
	}
	if !hasContainer(pod, container) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("container %q not found in pod %q", container, podName))
		return
	}
	if err := validateContainerLogStatus(pod, container, opts.Previous); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	path, err := a.logPath(namespace, podName, container, opts.Previous)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	w.Header().Set("Transfer-Encoding", "chunked")
	fw := flushwriter.Wrap(w)
	_, _ = fw.Write(nil) // answers 200 before blocking for lines, as the kubelet does
	if err := a.readLogs(r.Context(), path, containerRef(namespace, podName, container, opts.Previous), opts, fw, fw); err != nil {
		a.cfg.Log.Debug("kubelet api: read logs", "pod", namespace+"/"+podName, "container", container, "err", err)
	}
}

// readLogs reads the log at path as the kubelet's runtime manager does:
// opts become the CRI log reader's options on the server's clock.
func (a *APIServer) readLogs(ctx context.Context, path, id string, opts *corev1.PodLogOptions, stdout, stderr io.Writer) error {
	lo := &crilogs.LogOptions{TailLines: opts.TailLines, LimitBytes: opts.LimitBytes, Follow: opts.Follow, Timestamp: opts.Timestamps}
	if opts.SinceSeconds != nil {
		lo.Since = a.cfg.Now().Add(-time.Duration(*opts.SinceSeconds) * time.Second)
	}
	if opts.SinceTime != nil && opts.SinceTime.After(lo.Since) {
		lo.Since = opts.SinceTime.Time
	}
	return crilogs.ReadLogs(ctx, path, id, lo, runtimeStatus{a: a}, stdout, stderr)
}

// containerRef names a container instance for runtimeStatus.
func containerRef(namespace, pod, container string, previous bool) string {
	ref := namespace + "/" + pod + "/" + container
	if previous {
		ref += "/previous"
	}
	return ref
}

// runtimeStatus answers the CRI log reader's question of whether a
// followed container still runs, from the pod's status: a follow ends
// when the container stops or its pod goes.
// The CRI reader calls only ContainerStatus; the embedded interface is
// never called.
type runtimeStatus struct {
	criapi.RuntimeService
	a *APIServer
}

// ContainerStatus reports the container a containerRef names as running
// while its pod reports it running.
func (rs runtimeStatus) ContainerStatus(_ context.Context, id string, _ bool) (*runtimeapi.ContainerStatusResponse, error) {
	parts := strings.Split(id, "/")
	if len(parts) < 3 {
		return nil, grpcstatus.Errorf(codes.NotFound, "container %q not found", id)
	}
	state := runtimeapi.ContainerState_CONTAINER_EXITED
	if len(parts) == 3 && rs.a.containerRunning(parts[0], parts[1], parts[2]) {
		state = runtimeapi.ContainerState_CONTAINER_RUNNING
	}
	return &runtimeapi.ContainerStatusResponse{Status: &runtimeapi.ContainerStatus{Id: id, State: state}}, nil
}

// decodePodLogOptions reads the query as the kubelet decodes it into v1
// PodLogOptions, with apimachinery's converters of query values.
func decodePodLogOptions(q url.Values) (*corev1.PodLogOptions, error) {
	o := &corev1.PodLogOptions{}
	var errs []error
	get := func(name string) (*[]string, bool) {
		v, ok := q[name]
		return &v, ok && len(v) > 0
	}
	if v, ok := get("container"); ok {
		errs = append(errs, runtime.Convert_Slice_string_To_string(v, &o.Container, nil))
	}
	for name, to := range map[string]*bool{"follow": &o.Follow, "previous": &o.Previous, "timestamps": &o.Timestamps, "insecureSkipTLSVerifyBackend": &o.InsecureSkipTLSVerifyBackend} {
		if v, ok := get(name); ok {
			errs = append(errs, runtime.Convert_Slice_string_To_bool(v, to, nil))
		}
	}
	for name, to := range map[string]**int64{"sinceSeconds": &o.SinceSeconds, "tailLines": &o.TailLines, "limitBytes": &o.LimitBytes} {
		if v, ok := get(name); ok {
			errs = append(errs, runtime.Convert_Slice_string_To_Pointer_int64(v, to, nil))
		}
	}
	if v, ok := get("sinceTime"); ok {
		errs = append(errs, metav1.Convert_Slice_string_To_Pointer_v1_Time(v, &o.SinceTime, nil))
	}
	if v, ok := get("stream"); ok {
		s := (*v)[0]
		o.Stream = &s
	}
	return o, errors.Join(errs...)
}

// validPodLogOptions checks the options as kube-apiserver's
// ValidatePodLogOptions does, with the PodLogsQuerySplitStreams feature
// off (its default): no stream may be named.
func validPodLogOptions(o *corev1.PodLogOptions) bool {
	switch {
	case o.TailLines != nil && *o.TailLines < 0,
		o.LimitBytes != nil && *o.LimitBytes < 1,
		o.SinceSeconds != nil && o.SinceTime != nil,
		o.SinceSeconds != nil && *o.SinceSeconds < 1,
		o.Stream != nil:
		return false
	}
	return true
}

// hasContainer reports whether the pod's spec has the container (a
// container, an init container or an ephemeral container).
func hasContainer(pod *corev1.Pod, name string) bool {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// containerStatus finds the container's status in the pod's status.
func containerStatus(pod *corev1.Pod, name string) (*corev1.ContainerStatus, bool) {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i], true
			}
		}
	}
	return nil, false
}

// validateContainerLogStatus answers the kubelet's errors for a container
// whose log cannot be read: not started yet, or no previous instance.
func validateContainerLogStatus(pod *corev1.Pod, container string, previous bool) error {
	cs, ok := containerStatus(pod, container)
	if !ok {
		return fmt.Errorf("container %q in pod %q is not available", container, pod.Name)
	}
	last := cs.LastTerminationState
	switch st := cs.State; {
	case previous:
		if last.Terminated == nil || last.Terminated.ContainerID == "" {
			return fmt.Errorf("previous terminated container %q in pod %q not found", container, pod.Name)
		}
	case st.Running != nil:
	case st.Terminated != nil:
		if st.Terminated.ContainerID == "" && (last.Terminated == nil || last.Terminated.ContainerID == "") {
			return fmt.Errorf("container %q in pod %q is terminated", container, pod.Name)
		}
	case last.Terminated != nil:
		if last.Terminated.ContainerID == "" {
			return fmt.Errorf("container %q in pod %q is terminated", container, pod.Name)
		}
	case st.Waiting != nil:
		switch reason := st.Waiting.Reason; reason {
		case "ErrImagePull":
			return fmt.Errorf("container %q in pod %q is waiting to start: image can't be pulled", container, pod.Name)
		case "ImagePullBackOff":
			return fmt.Errorf("container %q in pod %q is waiting to start: trying and failing to pull image", container, pod.Name)
		default:
			return fmt.Errorf("container %q in pod %q is waiting to start: %v", container, pod.Name, reason)
		}
	default:
		return fmt.Errorf("container %q in pod %q is waiting to start - no logs yet", container, pod.Name)
	}
	return nil
}
