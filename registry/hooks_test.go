package registry

import "testing"

func TestFieldValue(t *testing.T) {
	obj := map[string]any{
		"spec":   map[string]any{"nodeName": "n1", "hostNetwork": true},
		"status": map[string]any{"podIPs": []any{map[string]any{"ip": "10.0.0.5"}}},
		"source": map[string]any{"component": "kubelet"},
	}
	for label, want := range map[string]string{
		"spec.nodeName":      "n1",
		"spec.hostNetwork":   "true",
		"spec.unschedulable": "false",
		"status.replicas":    "0",
		"status.phase":       "",
		"status.podIPs":      "10.0.0.5",
		"source":             "kubelet",
	} {
		if got := fieldValue(obj, label); got != want {
			t.Errorf("fieldValue(%s) = %q, want %q", label, got, want)
		}
	}
}
