package fakeplane_test

// Throughput of a followed container log (issue 15): lines a test appends
// to the simulated kubelet reach a `logs -f` reader through kube-apiserver's
// pods/log, read with client-go's log stream and with kubectl. Each
// iteration appends a batch of lines and waits for the last; b.SetBytes
// makes `go test -bench` report MB/s.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/fakeplane/fakeplane"
)

// logBatch is how many lines of logLine's length one iteration appends.
const logBatch = 1000

func BenchmarkPodLogsFollow(b *testing.B) {
	cp := fakeplane.Start(b, fakeplane.WithNodes(1))
	client := clientset(b, cp)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := client.CoreV1().Pods("default").Create(ctx, boundPod("chatty", "node-0"), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods("default").Get(ctx, "chatty", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	payload := strings.Repeat("x", 90)
	batch := 0
	// appendBatch appends a batch and returns its last line.
	appendBatch := func() string {
		batch++
		lines := make([]string, logBatch)
		for i := range lines {
			lines[i] = fmt.Sprintf("%06d-%04d %s", batch, i, payload)
		}
		if err := cp.Kubelet().AppendLog("default", "chatty", "web", lines...); err != nil {
			b.Fatal(err)
		}
		return lines[len(lines)-1]
	}
	// follow reads r, appending a batch per iteration and reading up to
	// its last line. It first appends markers until one arrives: a reader
	// that started following after a batch would wait for it forever.
	follow := func(b *testing.B, r io.Reader) {
		sc := bufio.NewScanner(r)
		lines := make(chan string, 4*logBatch)
		go func() {
			defer close(lines)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		for ready := false; !ready; {
			if err := cp.Kubelet().AppendLog("default", "chatty", "web", "ready?"); err != nil {
				b.Fatal(err)
			}
			select {
			case l, ok := <-lines:
				if !ok {
					b.Fatal("the log stream ended")
				}
				ready = l == "ready?"
			case <-time.After(100 * time.Millisecond):
			}
		}
		b.SetBytes(int64(logBatch * (len(payload) + 13)))
		b.ResetTimer()
		for range b.N {
			last := appendBatch()
			for l := range lines {
				if l == last {
					break
				}
			}
		}
		b.StopTimer()
	}
	b.Run("client-go", func(b *testing.B) {
		since := int64(0)
		stream, err := client.CoreV1().Pods("default").GetLogs("chatty", &corev1.PodLogOptions{Follow: true, TailLines: &since}).Stream(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = stream.Close() }()
		follow(b, stream)
	})
	b.Run("kubectl", func(b *testing.B) {
		kctx, kcancel := context.WithCancel(ctx)
		defer kcancel()
		cmd := exec.CommandContext(kctx, kubectlBinary(b), kubectlArgs(cp, []string{"logs", "-f", "--tail=0", "chatty"})...)
		cmd.Env = kubectlEnv()
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { kcancel(); _ = cmd.Wait() }()
		follow(b, out)
	})
}
