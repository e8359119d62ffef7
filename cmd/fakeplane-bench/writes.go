package main

import (
	"context"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// measureFunc measures one operation: seq(i) run -n times one after the
// other (i < 0 for the warm-up), then par(w, i) -n times on -c workers.
type measureFunc func(key string, seq func(i int) error, par func(w, i int) error) error

// benchWrites measures patch, server-side apply and delete.
func (t *target) benchWrites(ctx context.Context, cfg config, measure measureFunc) error {
	cms := t.c.CoreV1().ConfigMaps(t.ns)
	// patch: a JSON merge patch of one key, each worker on its own object.
	for w := 0; w <= cfg.c; w++ {
		if _, err := t.create(ctx, fmt.Sprintf("patch-%d", w), "patch"); err != nil {
			return err
		}
	}
	patch := func(w, i int) error {
		body := fmt.Appendf(nil, `{"data":{"i":%q}}`, strconv.Itoa(i))
		_, err := cms.Patch(ctx, fmt.Sprintf("patch-%d", w), types.MergePatchType, body, metav1.PatchOptions{})
		return err
	}
	if err := measure("patch", func(i int) error { return patch(cfg.c, i) }, patch); err != nil {
		return err
	}

	// server-side apply: a manager applies its ConfigMap with a changing
	// value (the first apply of each creates it).
	apply := func(w, i int) error {
		cm := corev1ac.ConfigMap(fmt.Sprintf("apply-%d", w), t.ns).
			WithLabels(map[string]string{setLabel: "apply"}).
			WithData(map[string]string{"i": strconv.Itoa(i), "payload": configMap("", "").Data["payload"]})
		_, err := cms.Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "fakeplane-bench", Force: true})
		return err
	}
	if err := measure("apply", func(i int) error { return apply(cfg.c, i) }, apply); err != nil {
		return err
	}

	// delete: objects created beforehand (not timed), one delete each.
	warm := min(cfg.n, 20)
	if err := t.fill(ctx, "delete-seq", "delete", cfg.n+warm); err != nil {
		return err
	}
	if err := t.fill(ctx, "delete-par", "delete", cfg.n); err != nil {
		return err
	}
	del := func(prefix string, i int) error {
		if i < 0 {
			i = cfg.n - 1 - i // the warm-up deletes the last warm objects
		}
		return cms.Delete(ctx, fmt.Sprintf("%s-%05d", prefix, i), metav1.DeleteOptions{})
	}
	return measure("delete",
		func(i int) error { return del("delete-seq", i) },
		func(_, i int) error { return del("delete-par", i) })
}
