package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fakeplane/fakeplane"
)

// fakeplaneUnderTest starts the fakeplane whose memory a figure is taken
// of: the -cli binary in a process of its own, whose RSS rss reads, else an
// in-process control plane (rss nil: this process's memory is all there is
// to read, clients included). stop ends it.
func fakeplaneUnderTest(ctx context.Context, cfg config) (rc *rest.Config, rss func() (uint64, error), stop func(), err error) {
	if cfg.cli != "" {
		p, err := startProcess(ctx, cfg.cli)
		if err != nil {
			return nil, nil, nil, err
		}
		return p.config, p.rss, p.stop, nil
	}
	cp, err := fakeplane.New()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cp.Start(ctx); err != nil {
		return nil, nil, nil, err
	}
	return cp.RESTConfig(), nil, func() { _ = cp.Stop() }, nil
}

// fakeplaneProcess is a fakeplane command running in a process of its own,
// so that its start can be timed and its memory read apart from the
// benchmark's clients.
type fakeplaneProcess struct {
	cmd    *exec.Cmd
	dir    string
	config *rest.Config
	exited chan error
	// ready is the time from launch to the first 200 from /readyz.
	ready time.Duration
}

// startProcess starts the fakeplane binary on a free loopback port with a
// temporary state, times it until /readyz answers 200 (polled every half
// millisecond, TLS unverified), and waits for its kubeconfig.
func startProcess(ctx context.Context, binary string) (*fakeplaneProcess, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	dir, err := os.MkdirTemp("", "fakeplane-bench-")
	if err != nil {
		return nil, err
	}
	kubeconfig := dir + "/kubeconfig"
	var stderr bytes.Buffer
	p := &fakeplaneProcess{dir: dir, exited: make(chan error, 1)}
	p.cmd = exec.Command(binary, "--listen", addr, "--kubeconfig", kubeconfig)
	p.cmd.Stderr = &stderr
	t0 := time.Now()
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go func() { p.exited <- p.cmd.Wait() }()
	client := startClient()
	// await polls done until it is true, the process exits, ctx ends or 30s
	// pass.
	await := func(what string, interval time.Duration, done func() bool) error {
		for deadline := t0.Add(30 * time.Second); !done(); {
			select {
			case err := <-p.exited:
				p.exited <- err
				return fmt.Errorf("%s exited before %s (%v): %s", binary, what, err, strings.TrimSpace(stderr.String()))
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(interval):
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: no %s within 30s", binary, what)
			}
		}
		return nil
	}
	ready := func() bool {
		resp, err := client.Get("https://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	if err := await("it was ready", 500*time.Microsecond, ready); err != nil {
		p.stop()
		return nil, err
	}
	p.ready = time.Since(t0)
	written := func() bool { _, err := os.Stat(kubeconfig); return err == nil }
	if err := await("its kubeconfig", 5*time.Millisecond, written); err != nil {
		p.stop()
		return nil, err
	}
	if p.config, err = clientcmd.BuildConfigFromFlags("", kubeconfig); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// rss is the process's resident set size in bytes.
func (p *fakeplaneProcess) rss() (uint64, error) {
	pidFile := p.dir + "/pid"
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(p.cmd.Process.Pid)), 0o600); err != nil {
		return 0, err
	}
	return processRSS(pidFile)
}

// stop ends the process and removes its state.
func (p *fakeplaneProcess) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	os.RemoveAll(p.dir)
}
