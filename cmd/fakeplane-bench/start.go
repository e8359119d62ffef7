package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
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
// (see startProcess). The process is stopped after each run.
func measureCommandStart(ctx context.Context, binary string, runs int) (result, error) {
	var lat []time.Duration
	var total time.Duration
	for range runs {
		p, err := startProcess(ctx, binary)
		if err != nil {
			return result{}, err
		}
		p.stop()
		lat = append(lat, p.ready)
		total += p.ready
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
