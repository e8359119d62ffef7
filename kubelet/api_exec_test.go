package kubelet

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// executors are the client-go executors kubectl uses, by transport.
var executors = map[string]func(ta *testAPI, method, u string) (remotecommand.Executor, error){
	"SPDY": func(ta *testAPI, method, u string) (remotecommand.Executor, error) {
		return remotecommand.NewSPDYExecutor(ta.rest, "POST", mustURL(u))
	},
	"WebSocket": func(ta *testAPI, method, u string) (remotecommand.Executor, error) {
		return remotecommand.NewWebSocketExecutor(ta.rest, "GET", u)
	},
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestExecOverSPDYAndWebSocket(t *testing.T) {
	t.Parallel()
	workDir := t.TempDir()
	var debug DebugConfig
	ce := ClusterExec{}
	ce.Spec.Selector = &ObjectSelector{MatchNames: []string{"shell"}}
	ce.Spec.Execs = []ExecTarget{{Local: &ExecTargetLocal{WorkDir: workDir, Envs: []EnvVar{{Name: "GREETING", Value: "hello"}}}}}
	debug.ClusterExecs = append(debug.ClusterExecs, ce)
	ta := startTestAPI(t, debug, nil, runningPod("default", "web", "app"), runningPod("default", "shell", "app"))

	script := `read x; echo "out:$x:$GREETING:$(pwd)"; echo err >&2; exit 3`
	query := "?command=sh&command=-c&command=" + url.QueryEscape(script) + "&input=1&output=1&error=1"
	for transport, newExecutor := range executors {
		for _, tc := range []struct {
			name, path         string
			stdout, stderr     string
			exitCode           int
			errContains        string
			stdinAndOutputOnly bool
		}{
			{name: "a configured pod runs the command locally", path: "/exec/default/shell/app" + query,
				stdout: "out:hi:hello:" + workDir + "\n", stderr: "err\n", exitCode: 3},
			{name: "the uid form of the path", path: "/exec/default/shell/uid-shell/app" + query,
				stdout: "out:hi:hello:" + workDir + "\n", stderr: "err\n", exitCode: 3},
			{name: "a container that cannot exec answers the runtime's error", path: "/exec/default/web/app" + query,
				errContains: `error executing command in container: failed to exec in container: failed to start exec `},
			{name: "the runtime's error names the missing executable", path: "/exec/default/web/app" + query,
				errContains: `OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in $PATH: unknown`},
			{name: "an unknown container", path: "/exec/default/web/nope" + query, errContains: `container not found ("nope")`},
			{name: "an unknown pod", path: "/exec/default/nope/app" + query, errContains: `pod does not exist`},
		} {
			t.Run(transport+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				ex, err := newExecutor(ta, "POST", ta.api.URL()+tc.path)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var stdout, stderr bytes.Buffer
				err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: strings.NewReader("hi\n"), Stdout: &stdout, Stderr: &stderr})
				if tc.errContains != "" {
					if err == nil || !strings.Contains(err.Error(), tc.errContains) {
						t.Fatalf("error %v, want one containing %q", err, tc.errContains)
					}
					return
				}
				var exit utilexec.CodeExitError
				if !errors.As(err, &exit) || exit.Code != tc.exitCode {
					t.Fatalf("error %v, want exit code %d", err, tc.exitCode)
				}
				if stdout.String() != tc.stdout || stderr.String() != tc.stderr {
					t.Errorf("stdout %q stderr %q, want %q %q", stdout.String(), stderr.String(), tc.stdout, tc.stderr)
				}
			})
		}
	}
}

func TestAttachStreamsTheLinesWrittenFromThen(t *testing.T) {
	t.Parallel()
	ta := startTestAPI(t, DebugConfig{}, nil, runningPod("default", "web", "app"))
	if err := ta.api.AppendLog("default", "web", "app", "written before attaching"); err != nil {
		t.Fatal(err)
	}
	for transport, newExecutor := range executors {
		t.Run(transport, func(t *testing.T) {
			ex, err := newExecutor(ta, "POST", ta.api.URL()+"/attach/default/web/app?output=1&error=1")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stdout, stderr syncbuf.Buffer
			done := make(chan error, 1)
			go func() {
				done <- ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr})
			}()
			line := "attached via " + transport
			err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				if err := ta.api.AppendLog("default", "web", "app", line); err != nil {
					return false, err
				}
				return strings.Contains(stdout.String(), line+"\n"), nil
			})
			if err != nil {
				t.Fatalf("attach did not stream %q: %v (stdout %q)", line, err, stdout.String())
			}
			if strings.Contains(stdout.String(), "written before attaching") {
				t.Errorf("attach streamed a line written before it: %q", stdout.String())
			}
			cancel()
			<-done
		})
	}
}

func TestExecWithATerminalRunsOnOne(t *testing.T) {
	t.Parallel()
	var debug DebugConfig
	ce := ClusterExec{}
	ce.Spec.Execs = []ExecTarget{{Local: &ExecTargetLocal{}}}
	debug.ClusterExecs = append(debug.ClusterExecs, ce)
	ta := startTestAPI(t, debug, nil, runningPod("default", "shell", "app"))
	script := `test -t 0 && test -t 1 && echo "on a terminal"`
	for transport, newExecutor := range executors {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			ex, err := newExecutor(ta, "POST", ta.api.URL()+"/exec/default/shell/app?command=sh&command=-c&command="+url.QueryEscape(script)+"&input=1&output=1&tty=1")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stdout syncbuf.Buffer
			sizes := &fixedSize{size: remotecommand.TerminalSize{Width: 100, Height: 30}}
			err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: strings.NewReader(""), Stdout: &stdout, Tty: true, TerminalSizeQueue: sizes})
			if err != nil {
				t.Fatal(err)
			}
			if got := stdout.String(); got != "on a terminal\r\n" {
				t.Errorf("stdout %q", got)
			}
		})
	}
}

// fixedSize reports one terminal size, then none.
type fixedSize struct {
	mu   sync.Mutex
	size remotecommand.TerminalSize
	sent bool
}

func (f *fixedSize) Next() *remotecommand.TerminalSize {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sent {
		return nil
	}
	f.sent = true
	return &f.size
}
