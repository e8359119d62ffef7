package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// referenceStarts is how many cold starts of the reference -reference-measure
// times.
const referenceStarts = 5

// measureCommandStart launches the fakeplane binary runs times, each with a
// fresh temporary state, and times launch to the first 200 from /readyz
// (polled every half millisecond, TLS unverified). The process is killed
// after each run.
func measureCommandStart(ctx context.Context, binary string, runs int) (result, error) {
	client := startClient()
	var lat []time.Duration
	var total time.Duration
	for range runs {
		d, err := commandStartOnce(ctx, client, binary)
		if err != nil {
			return result{}, err
		}
		lat = append(lat, d)
		total += d
	}
	return summarize(lat, float64(runs)/total.Seconds()), nil
}

// startClient is the client that polls /readyz: new connections, the
// server's certificate not verified.
func startClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true},
		Timeout:   time.Second,
	}
}

// commandStartOnce is one run of measureCommandStart.
func commandStartOnce(ctx context.Context, client *http.Client, binary string) (time.Duration, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	addr := l.Addr().String()
	l.Close()
	dir, err := os.MkdirTemp("", "fakeplane-bench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	var stderr bytes.Buffer
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, binary, "--listen", addr, "--kubeconfig", dir+"/kubeconfig")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	deadline := t0.Add(30 * time.Second)
	for {
		resp, err := client.Get("https://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(t0), nil
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return 0, fmt.Errorf("%s exited before it was ready (%v): %s", binary, err, strings.TrimSpace(stderr.String()))
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(500 * time.Microsecond):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s not ready within 30s", binary)
		}
	}
}

// measureReferenceStart runs refplane's measure.sh and reads the launch to
// /readyz of each cold start from its "total_ms=" figures.
func measureReferenceStart(ctx context.Context, script string, runs int) (result, error) {
	out, err := exec.CommandContext(ctx, script, strconv.Itoa(runs)).CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("%s: %w: %s", script, err, out)
	}
	var lat []time.Duration
	var total time.Duration
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		for _, f := range strings.Fields(sc.Text()) {
			if v, ok := strings.CutPrefix(f, "total_ms="); ok {
				ms, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return result{}, fmt.Errorf("%s: %q: %w", script, f, err)
				}
				d := time.Duration(ms * float64(time.Millisecond))
				lat = append(lat, d)
				total += d
			}
		}
	}
	if len(lat) == 0 {
		return result{}, fmt.Errorf("%s printed no total_ms: %s", script, out)
	}
	return summarize(lat, float64(len(lat))/total.Seconds()), nil
}

// processRSS sums the resident set size of the processes whose pid files
// are listed (comma-separated); "" is 0.
func processRSS(pidFiles string) (uint64, error) {
	var sum uint64
	for _, f := range strings.Split(pidFiles, ",") {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		pid := strings.TrimSpace(string(b))
		status, err := os.ReadFile("/proc/" + pid + "/status")
		if err != nil {
			return 0, fmt.Errorf("process %s of %s: %w", pid, f, err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				if err != nil {
					return 0, fmt.Errorf("process %s: VmRSS %q: %w", pid, v, err)
				}
				sum += kb << 10
			}
		}
	}
	return sum, nil
}
