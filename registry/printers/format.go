package printers

import (
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Cell formats several groups' printers share.

// age renders how long before now a timestamp was, the way kubectl shows
// ages.
func age(now time.Time, t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// selectorString prints a map selector (or labels) sorted by key, "<none>"
// when empty.
func selectorString(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

// containerNamesImages lists containers' names and images, comma-separated.
func containerNamesImages(cs []corev1.Container) (string, string) {
	var names, images []string
	for _, c := range cs {
		names = append(names, c.Name)
		images = append(images, c.Image)
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

// labelSelectorString prints a workload's selector as kubectl shows it:
// "<none>" for a missing or empty one.
func labelSelectorString(ls *metav1.LabelSelector) string {
	return metav1.FormatLabelSelector(ls)
}

// orDefault is v, or def when v is zero (unset).
func orDefault(v, def int32) int32 {
	if v == 0 {
		return def
	}
	return v
}

// orUnset is *s, or "<unset>" when s is nil.
func orUnset(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

// orUnknown is s, or "<unknown>" when s is empty.
func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}
