package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// groupLabel groups the scale run's objects by hundreds, for a list that
// selects 100 of them.
const groupLabel = "fakeplane-bench/group"

// scaleReport is one cluster's figures at scale.
type scaleReport struct {
	name     string
	fillRate float64 // objects created per second, -c... fillers clients
	create   result
	get      result
	list     result // 100 objects selected by label
	watch    result // deliveries to -scale-watchers watchers
	rssMB    float64
	heapOnly bool // rssMB is the heap in use (an in-process fakeplane)
}

// benchScale runs the scale figures alone: -scale ConfigMaps, then
// -scale-watchers watches open while latencies are measured, on fakeplane
// (the -cli binary in a process of its own, else in-process) and on the
// reference if one is given; it prints them side by side.
func benchScale(ctx context.Context, cfg config) error {
	var reps []*scaleReport
	fp := &scaleReport{name: "fakeplane"}
	rc, rss, stop, err := fakeplaneUnderTest(ctx, cfg)
	if err != nil {
		return err
	}
	defer stop()
	if rss == nil {
		fp.heapOnly = true
		rss = func() (uint64, error) { h, _, err := memory(); return h, err }
	}
	if err := scaleTarget(ctx, cfg, fp, rc, rss); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}
	reps = append(reps, fp)
	if cfg.kubeconfig != "" {
		rc, err := clientcmd.BuildConfigFromFlags("", cfg.kubeconfig)
		if err != nil {
			return err
		}
		ref := &scaleReport{name: "reference"}
		rss := func() (uint64, error) { return processRSS(cfg.refPIDs) }
		if err := scaleTarget(ctx, cfg, ref, rc, rss); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
		reps = append(reps, ref)
	}
	printScale(cfg, reps)
	return nil
}

// scaleTarget fills one cluster and measures it; rss reads its memory.
func scaleTarget(ctx context.Context, cfg config, rep *scaleReport, rc *rest.Config, rss func() (uint64, error)) error {
	c, err := newClient(cfg, rc)
	if err != nil {
		return err
	}
	t, err := newTarget(ctx, c, rep.name)
	if err != nil {
		return err
	}
	defer func() {
		// The figures stand even if the cleanup fails: say so and go on.
		fmt.Fprintf(os.Stderr, "%s: deleting the namespace %s\n", rep.name, t.ns)
		if cerr := t.cleanup(); cerr != nil {
			fmt.Fprintf(os.Stderr, "%s: cleanup of namespace %s: %v\n", rep.name, t.ns, cerr)
		}
	}()
	mem0, err := rss()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: creating %d ConfigMaps\n", rep.name, cfg.scale)
	start := time.Now()
	_, err = parallel(ctx, cfg.scale, fillers, func(_, i int) error {
		cm := configMap(fmt.Sprintf("scale-%06d", i), "scale")
		cm.Labels[groupLabel] = strconv.Itoa(i / 100)
		_, err := t.c.CoreV1().ConfigMaps(t.ns).Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	rep.fillRate = float64(cfg.scale) / time.Since(start).Seconds()

	fmt.Fprintf(os.Stderr, "%s: %d watchers, %d events\n", rep.name, cfg.scaleWatchers, cfg.n)
	f, err := t.fanOut(ctx, "scale-watch", cfg.scaleWatchers, cfg.n)
	if err != nil {
		return err
	}
	rep.watch = summarize(f.deliveries, float64(cfg.n)/f.elapsed.Seconds())
	rep.create = summarize(f.creates, 0)

	fmt.Fprintf(os.Stderr, "%s: get, list of 100 by label\n", rep.name)
	rng := rand.New(rand.NewPCG(1, 2))
	lat, err := sequential(ctx, cfg.n, func(int) error {
		_, err := t.c.CoreV1().ConfigMaps(t.ns).Get(ctx, fmt.Sprintf("scale-%06d", rng.IntN(cfg.scale)), metav1.GetOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	rep.get = summarize(lat, 0)
	groups := max(1, cfg.scale/100)
	lat, err = sequential(ctx, max(10, cfg.n/4), func(int) error {
		g := rng.IntN(groups)
		l, err := t.c.CoreV1().ConfigMaps(t.ns).List(ctx, metav1.ListOptions{LabelSelector: groupLabel + "=" + strconv.Itoa(g)})
		if err == nil && len(l.Items) != min(100, cfg.scale-g*100) {
			err = fmt.Errorf("group %d: %d ConfigMaps", g, len(l.Items))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	rep.list = summarize(lat, 0)
	mem1, err := rss()
	if err != nil {
		return err
	}
	rep.rssMB = (float64(mem1) - float64(mem0)) / (1 << 20)
	return nil
}

// printScale prints the scale figures, one column per cluster.
func printScale(cfg config, reps []*scaleReport) {
	fmt.Printf("\nscale: %d ConfigMaps of ~%d bytes in one namespace, %d watches open (one client); %d ops per figure\n\n",
		cfg.scale, objectSize, cfg.scaleWatchers, cfg.n)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := "\t"
	for _, r := range reps {
		line += r.name + "\t"
	}
	fmt.Fprintln(tw, line)
	row := func(label string, f func(r *scaleReport) string) {
		line := label + "\t"
		for _, r := range reps {
			line += f(r) + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	row("fill (objects/s, 16 clients)", func(r *scaleReport) string { return fmt.Sprintf("%.0f", r.fillRate) })
	for _, m := range []struct {
		label string
		pick  func(r *scaleReport) result
	}{
		{"create", func(r *scaleReport) result { return r.create }},
		{"get", func(r *scaleReport) result { return r.get }},
		{"list of 100 by label", func(r *scaleReport) result { return r.list }},
		{"watch event to each watcher", func(r *scaleReport) result { return r.watch }},
	} {
		row(m.label+" p50", func(r *scaleReport) string { return dur(m.pick(r).p50) })
		row(m.label+" p99", func(r *scaleReport) string { return dur(m.pick(r).p99) })
	}
	row("memory growth (MB)", func(r *scaleReport) string {
		if r.heapOnly {
			return fmt.Sprintf("%.0f (heap)", r.rssMB)
		}
		return fmt.Sprintf("%.0f (RSS)", r.rssMB)
	})
	tw.Flush()
}
