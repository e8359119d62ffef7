package kubelet

import (
	"strings"
	"testing"
)

const kwokConfig = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: all
spec:
  selector:
    matchNamespaces: [default]
  logs:
  - logsFile: /logs/default.log
  - containers: [sidecar]
    logsFile: /logs/sidecar.log
    previousLogsFile: /logs/sidecar.previous.log
    follow: true
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Logs
metadata:
  name: special
  namespace: default
spec:
  logs:
  - containers: [app]
    logsFile: /logs/special.log
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: local
spec:
  selector:
    matchNames: [shell]
  execs:
  - local:
      workDir: /tmp
      envs:
      - name: A
        value: b
      securityContext:
        runAsUser: 1000
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Attach
metadata:
  name: web
  namespace: default
spec:
  attaches:
  - containers: [app]
    logsFile: /logs/attach.log
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterPortForward
metadata:
  name: forwards
spec:
  forwards:
  - ports: [80]
    target:
      port: 8080
      address: 127.0.0.1
  - command: [nc, 127.0.0.1, "9090"]
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: skipped
spec: {}
`

func TestDebugConfigPicksRulesAsKwok(t *testing.T) {
	t.Parallel()
	c, err := ParseDebugConfig([]byte(kwokConfig))
	if err != nil {
		t.Fatal(err)
	}
	logsFile := func(l *Log, previous bool) string {
		switch {
		case l == nil:
			return "<none>"
		case previous && l.PreviousLogsFile != nil:
			return *l.PreviousLogsFile
		case !previous && l.LogsFile != nil:
			return *l.LogsFile
		}
		return "<unset>"
	}
	for _, tc := range []struct {
		name, namespace, pod, container string
		previous                        bool
		want                            string
	}{
		{"a cluster rule's container entry", "default", "web", "sidecar", false, "/logs/sidecar.log"},
		{"a cluster rule's previous file", "default", "web", "sidecar", true, "/logs/sidecar.previous.log"},
		{"a cluster rule's entry for every container", "default", "web", "app", false, "/logs/default.log"},
		{"a namespace the selector leaves out", "other", "web", "app", false, "<none>"},
		{"a pod's own rule wins", "default", "special", "app", false, "/logs/special.log"},
		{"a pod's own rule without the container", "default", "special", "sidecar", false, "<none>"},
	} {
		if got := logsFile(c.logFor(tc.namespace, tc.pod, tc.container), tc.previous); got != tc.want {
			t.Errorf("%s: logs file %s, want %s", tc.name, got, tc.want)
		}
	}
	if e := c.execFor("any", "shell", "c"); e == nil || e.Local == nil || e.Local.WorkDir != "/tmp" || len(e.Local.Envs) != 1 || e.Local.Envs[0] != (EnvVar{Name: "A", Value: "b"}) {
		t.Errorf("exec of the selected pod: %+v", e)
	}
	if e := c.execFor("any", "web", "c"); e != nil {
		t.Errorf("exec of a pod the selector leaves out: %+v", e)
	}
	if a := c.attachFor("default", "web", "app"); a == nil || *a.LogsFile != "/logs/attach.log" {
		t.Errorf("attach: %+v", a)
	}
	if f := c.forwardFor("any", "pod", 80); f == nil || f.Target == nil || f.Target.Port != 8080 {
		t.Errorf("forward of a listed port: %+v", f)
	}
	if f := c.forwardFor("any", "pod", 81); f == nil || len(f.Command) != 3 {
		t.Errorf("forward of another port: %+v", f)
	}
}

func TestDebugConfigRejectsWhatKwokWouldNot(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"another apiVersion": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"an unknown field":   "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Logs\nmetadata:\n  name: x\nspec:\n  logz: []\n",
		"a wrong type":       "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterPortForward\nmetadata:\n  name: x\nspec:\n  forwards:\n  - ports: [eighty]\n",
	} {
		if _, err := ParseDebugConfig([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := LoadDebugConfig("testdata/no-such-file.yaml"); err == nil || !strings.Contains(err.Error(), "no-such-file") {
		t.Errorf("a missing file: %v", err)
	}
}
