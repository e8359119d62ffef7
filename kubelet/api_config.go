package kubelet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// This file holds the configuration of the kubelet API's debugging
// endpoints in the shape of kwok's kinds (apiVersion kwok.x-k8s.io/v1alpha1):
// ClusterLogs/Logs, ClusterExec/Exec, ClusterAttach/Attach and
// ClusterPortForward/PortForward. A namespaced kind (Logs, Exec, ...) names
// one pod by its metadata; a cluster kind selects pods by namespace and
// name. As in kwok, a pod's namespaced rule wins over the cluster rules, and
// within a rule the entry naming the container (or port) wins over the first
// entry that names none.

// KwokAPIVersion is the apiVersion of kwok's configuration kinds.
const KwokAPIVersion = "kwok.x-k8s.io/v1alpha1"

// ObjectMeta names a namespaced rule's pod.
type ObjectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// ObjectSelector selects pods by namespace and name; an empty list matches
// every namespace (or name).
type ObjectSelector struct {
	MatchNamespaces []string `json:"matchNamespaces,omitempty"`
	MatchNames      []string `json:"matchNames,omitempty"`
}

// matches reports whether the selector selects the pod; a nil selector
// selects every pod.
func (s *ObjectSelector) matches(namespace, name string) bool {
	if s == nil {
		return true
	}
	return (len(s.MatchNamespaces) == 0 || slices.Contains(s.MatchNamespaces, namespace)) &&
		(len(s.MatchNames) == 0 || slices.Contains(s.MatchNames, name))
}

// Log says where a container's logs are: LogsFile (and PreviousLogsFile for
// the previous instance), files in the CRI log format a kubelet reads.
type Log struct {
	Containers       []string `json:"containers,omitempty"`
	LogsFile         *string  `json:"logsFile,omitempty"`
	PreviousLogsFile *string  `json:"previousLogsFile,omitempty"`
	// Follow is kwok's field; kwok does not read it, and neither does
	// this server: a follow request follows while the container runs.
	Follow *bool `json:"follow,omitempty"`
}

// ClusterLogs is kwok's ClusterLogs: logs of the selected pods.
type ClusterLogs struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Selector *ObjectSelector `json:"selector,omitempty"`
		Logs     []Log           `json:"logs"`
	} `json:"spec"`
}

// Logs is kwok's Logs: logs of the pod its metadata names.
type Logs struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Logs []Log `json:"logs"`
	} `json:"spec"`
}

// EnvVar is an environment variable of an exec.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// ExecTargetLocal runs the requested command on this machine, in WorkDir
// with Envs added to fakeplane's environment, on a terminal when the
// client asks for one. (kwok's securityContext, which switches user, is
// accepted and not applied.)
type ExecTargetLocal struct {
	WorkDir         string          `json:"workDir,omitempty"`
	Envs            []EnvVar        `json:"envs,omitempty"`
	SecurityContext json.RawMessage `json:"securityContext,omitempty"`
}

// ExecTarget says how to exec in the listed containers (every container
// when none is listed).
type ExecTarget struct {
	Containers []string         `json:"containers,omitempty"`
	Local      *ExecTargetLocal `json:"local,omitempty"`
}

// ClusterExec is kwok's ClusterExec: exec in the selected pods.
type ClusterExec struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Selector *ObjectSelector `json:"selector,omitempty"`
		Execs    []ExecTarget    `json:"execs"`
	} `json:"spec"`
}

// Exec is kwok's Exec: exec in the pod its metadata names.
type Exec struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Execs []ExecTarget `json:"execs"`
	} `json:"spec"`
}

// AttachConfig says what attaching to the listed containers streams: the
// lines appended to LogsFile from then on.
type AttachConfig struct {
	Containers []string `json:"containers,omitempty"`
	LogsFile   *string  `json:"logsFile,omitempty"`
}

// ClusterAttach is kwok's ClusterAttach: attach to the selected pods.
type ClusterAttach struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Selector *ObjectSelector `json:"selector,omitempty"`
		Attaches []AttachConfig  `json:"attaches"`
	} `json:"spec"`
}

// Attach is kwok's Attach: attach to the pod its metadata names.
type Attach struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Attaches []AttachConfig `json:"attaches"`
	} `json:"spec"`
}

// ForwardTarget is a local address a pod port forwards to.
type ForwardTarget struct {
	Port    int32  `json:"port"`
	Address string `json:"address"`
}

// Forward says where the listed pod ports (every port when none is listed)
// forward to: Target, or the stdin and stdout of Command run on this
// machine.
type Forward struct {
	Ports   []int32        `json:"ports,omitempty"`
	Target  *ForwardTarget `json:"target,omitempty"`
	Command []string       `json:"command,omitempty"`
}

// ClusterPortForward is kwok's ClusterPortForward: port forwards of the
// selected pods.
type ClusterPortForward struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Selector *ObjectSelector `json:"selector,omitempty"`
		Forwards []Forward       `json:"forwards"`
	} `json:"spec"`
}

// PortForward is kwok's PortForward: port forwards of the pod its metadata
// names.
type PortForward struct {
	Metadata ObjectMeta `json:"metadata"`
	Spec     struct {
		Forwards []Forward `json:"forwards"`
	} `json:"spec"`
}

// DebugConfig is the configuration of the kubelet API's logs, exec, attach
// and port-forward: kwok's kinds, as LoadDebugConfig reads them or built in
// Go.
type DebugConfig struct {
	ClusterLogs         []ClusterLogs
	Logs                []Logs
	ClusterExecs        []ClusterExec
	Execs               []Exec
	ClusterAttaches     []ClusterAttach
	Attaches            []Attach
	ClusterPortForwards []ClusterPortForward
	PortForwards        []PortForward
}

// Merge appends o's rules to c's.
func (c *DebugConfig) Merge(o DebugConfig) {
	c.ClusterLogs = append(c.ClusterLogs, o.ClusterLogs...)
	c.Logs = append(c.Logs, o.Logs...)
	c.ClusterExecs = append(c.ClusterExecs, o.ClusterExecs...)
	c.Execs = append(c.Execs, o.Execs...)
	c.ClusterAttaches = append(c.ClusterAttaches, o.ClusterAttaches...)
	c.Attaches = append(c.Attaches, o.Attaches...)
	c.ClusterPortForwards = append(c.ClusterPortForwards, o.ClusterPortForwards...)
	c.PortForwards = append(c.PortForwards, o.PortForwards...)
}

// LoadDebugConfig reads kwok's ClusterLogs, Logs, ClusterExec, Exec,
// ClusterAttach, Attach, ClusterPortForward and PortForward documents from
// YAML or JSON files. Documents of other kwok kinds (Stage, ...) are
// skipped, so one kwok configuration file can serve both.
func LoadDebugConfig(paths ...string) (DebugConfig, error) {
	var out DebugConfig
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return DebugConfig{}, errorf("read kubelet config: %w", err)
		}
		c, err := ParseDebugConfig(data)
		if err != nil {
			return DebugConfig{}, errorf("kubelet config %s: %w", path, err)
		}
		out.Merge(c)
	}
	return out, nil
}

// ParseDebugConfig reads the documents of a YAML or JSON stream as
// LoadDebugConfig does.
func ParseDebugConfig(data []byte) (DebugConfig, error) {
	var out DebugConfig
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return DebugConfig{}, err
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return DebugConfig{}, err
		}
		if head.APIVersion != KwokAPIVersion {
			return DebugConfig{}, fmt.Errorf("%s/%s is not a %s kind", head.APIVersion, head.Kind, KwokAPIVersion)
		}
		var err error
		switch head.Kind {
		case "ClusterLogs":
			out.ClusterLogs, err = decodeAppend(raw, out.ClusterLogs)
		case "Logs":
			out.Logs, err = decodeAppend(raw, out.Logs)
		case "ClusterExec":
			out.ClusterExecs, err = decodeAppend(raw, out.ClusterExecs)
		case "Exec":
			out.Execs, err = decodeAppend(raw, out.Execs)
		case "ClusterAttach":
			out.ClusterAttaches, err = decodeAppend(raw, out.ClusterAttaches)
		case "Attach":
			out.Attaches, err = decodeAppend(raw, out.Attaches)
		case "ClusterPortForward":
			out.ClusterPortForwards, err = decodeAppend(raw, out.ClusterPortForwards)
		case "PortForward":
			out.PortForwards, err = decodeAppend(raw, out.PortForwards)
		}
		if err != nil {
			return DebugConfig{}, fmt.Errorf("%s: %w", head.Kind, err)
		}
	}
}

// decodeAppend decodes one document strictly (but for the type fields and
// status) and appends it.
func decodeAppend[T any](raw json.RawMessage, to []T) ([]T, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "status")
	clean, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v T
	if err := yaml.UnmarshalStrict(clean, &v); err != nil {
		return nil, err
	}
	return append(to, v), nil
}

// pickEntry returns, of a rule's entries, the one whose keys (container
// names, ports) hold key, else the first that lists no key; nil if neither.
func pickEntry[T any, K comparable](entries []T, keys func(*T) []K, key K) *T {
	var def *T
	for i := range entries {
		ks := keys(&entries[i])
		if len(ks) == 0 {
			if def == nil {
				def = &entries[i]
			}
			continue
		}
		if slices.Contains(ks, key) {
			return &entries[i]
		}
	}
	return def
}

// findRule returns the entry for key of the pod's rule: the namespaced rule
// naming the pod if there is one (nil when it has no entry for key, as kwok
// answers), else the first cluster rule selecting the pod that has one.
func findRule[N, C, T any, K comparable](named []N, nameOf func(*N) ObjectMeta, namedEntries func(*N) []T,
	cluster []C, selOf func(*C) *ObjectSelector, clusterEntries func(*C) []T,
	keys func(*T) []K, namespace, pod string, key K) *T {
	for i := range named {
		if m := nameOf(&named[i]); m.Name == pod && m.Namespace == namespace {
			return pickEntry(namedEntries(&named[i]), keys, key)
		}
	}
	for i := range cluster {
		if !selOf(&cluster[i]).matches(namespace, pod) {
			continue
		}
		if e := pickEntry(clusterEntries(&cluster[i]), keys, key); e != nil {
			return e
		}
	}
	return nil
}

// logFor is the Log rule of a container, if any.
func (c *DebugConfig) logFor(namespace, pod, container string) *Log {
	return findRule(c.Logs, func(l *Logs) ObjectMeta { return l.Metadata }, func(l *Logs) []Log { return l.Spec.Logs },
		c.ClusterLogs, func(l *ClusterLogs) *ObjectSelector { return l.Spec.Selector }, func(l *ClusterLogs) []Log { return l.Spec.Logs },
		func(l *Log) []string { return l.Containers }, namespace, pod, container)
}

// execFor is the ExecTarget of a container, if any.
func (c *DebugConfig) execFor(namespace, pod, container string) *ExecTarget {
	return findRule(c.Execs, func(e *Exec) ObjectMeta { return e.Metadata }, func(e *Exec) []ExecTarget { return e.Spec.Execs },
		c.ClusterExecs, func(e *ClusterExec) *ObjectSelector { return e.Spec.Selector }, func(e *ClusterExec) []ExecTarget { return e.Spec.Execs },
		func(e *ExecTarget) []string { return e.Containers }, namespace, pod, container)
}

// attachFor is the AttachConfig of a container, if any.
func (c *DebugConfig) attachFor(namespace, pod, container string) *AttachConfig {
	return findRule(c.Attaches, func(a *Attach) ObjectMeta { return a.Metadata }, func(a *Attach) []AttachConfig { return a.Spec.Attaches },
		c.ClusterAttaches, func(a *ClusterAttach) *ObjectSelector { return a.Spec.Selector }, func(a *ClusterAttach) []AttachConfig { return a.Spec.Attaches },
		func(a *AttachConfig) []string { return a.Containers }, namespace, pod, container)
}

// forwardFor is the Forward of a pod port, if any.
func (c *DebugConfig) forwardFor(namespace, pod string, port int32) *Forward {
	return findRule(c.PortForwards, func(p *PortForward) ObjectMeta { return p.Metadata }, func(p *PortForward) []Forward { return p.Spec.Forwards },
		c.ClusterPortForwards, func(p *ClusterPortForward) *ObjectSelector { return p.Spec.Selector }, func(p *ClusterPortForward) []Forward { return p.Spec.Forwards },
		func(f *Forward) []int32 { return f.Ports }, namespace, pod, port)
}
