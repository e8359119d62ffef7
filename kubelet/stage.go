package kubelet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Stage is a kwok Stage (kwok.x-k8s.io/v1alpha1, kind Stage) for pods: the
// part of it this simulator runs. A stage whose selector matches a pod
// moves it on: its status template is rendered with the pod and merged
// into the pod's status, or the pod is deleted.
type Stage struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Metadata   StageMetadata `json:"metadata"`
	Spec       StageSpec     `json:"spec"`
}

// StageMetadata names a Stage.
type StageMetadata struct {
	Name string `json:"name"`
}

// StageSpec is what a Stage selects and what it does.
type StageSpec struct {
	ResourceRef StageResourceRef `json:"resourceRef"`
	Selector    StageSelector    `json:"selector"`
	// Weight orders stages that match the same pod: the highest wins,
	// the first given among equals (kwok picks among them at random, by
	// weight).
	Weight int `json:"weight,omitempty"`
	// WeightFrom takes the weight from the pod (an integer, e.g. in an
	// annotation) when the expression selects one.
	WeightFrom *StageExpressionFrom `json:"weightFrom,omitempty"`
	// Delay is how long a pod waits once the stage selects it before the
	// stage moves it on.
	Delay *StageDelay `json:"delay,omitempty"`
	Next  StageNext   `json:"next"`
}

// StageExpressionFrom is a value taken from the pod by a jq key.
type StageExpressionFrom struct {
	ExpressionFrom string `json:"expressionFrom"`
}

// StageDelay is a stage's wait: DurationMilliseconds (or the duration
// DurationFrom selects), up to JitterDurationMilliseconds (or until the
// duration or time JitterDurationFrom selects) when that is longer, at a
// random point in between.
type StageDelay struct {
	DurationMilliseconds       *int64               `json:"durationMilliseconds,omitempty"`
	DurationFrom               *StageExpressionFrom `json:"durationFrom,omitempty"`
	JitterDurationMilliseconds *int64               `json:"jitterDurationMilliseconds,omitempty"`
	JitterDurationFrom         *StageExpressionFrom `json:"jitterDurationFrom,omitempty"`
}

// StageResourceRef is the kind a Stage applies to: only v1 Pod here.
type StageResourceRef struct {
	APIGroup string `json:"apiGroup"`
	Kind     string `json:"kind"`
}

// StageSelector selects pods by labels, annotations and expressions on
// the pod's fields.
type StageSelector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchAnnotations map[string]string `json:"matchAnnotations,omitempty"`
	MatchExpressions []StageExpression `json:"matchExpressions,omitempty"`
}

// StageExpression tests the values a key (a jq path such as
// .status.phase, .metadata.ownerReferences.[].kind or
// .status.conditions.[] | select( .type == "Ready" ) | .status) has on a
// pod: In, NotIn, Exists or DoesNotExist.
type StageExpression struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// StageNext is what a Stage does to the pods it selects.
type StageNext struct {
	// StatusTemplate is a text/template that renders the YAML of the
	// status fields to set, with the pod as data and kwok's functions
	// Now, Quote, NodeIPWith, NodeIPsWith, PodIPWith and PodIPsWith.
	StatusTemplate string `json:"statusTemplate,omitempty"`
	// Delete deletes the pod (grace period 0).
	Delete bool `json:"delete,omitempty"`
	// Event is an Event recorded about the pod as the stage moves it.
	Event *StageEvent `json:"event,omitempty"`
}

// StageEvent is the Event a stage records about a pod.
type StageEvent struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// LoadStages reads the Stages in YAML files (several documents a file).
func LoadStages(paths ...string) ([]Stage, error) {
	var out []Stage
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, errorf("read stages: %w", err)
		}
		stages, err := ParseStages(data)
		if err != nil {
			return nil, errorf("stages in %s: %w", path, err)
		}
		out = append(out, stages...)
	}
	return out, nil
}

// ParseStages reads the Stages in YAML or JSON documents and checks that
// each is a pod Stage this simulator can run.
func ParseStages(data []byte) ([]Stage, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []Stage
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			continue
		}
		var st Stage
		if err := yaml.UnmarshalStrict(raw, &st); err != nil {
			return nil, err
		}
		if st.APIVersion != "kwok.x-k8s.io/v1alpha1" || st.Kind != "Stage" {
			return nil, fmt.Errorf("%s/%s %q is not a kwok.x-k8s.io/v1alpha1 Stage", st.APIVersion, st.Kind, st.Metadata.Name)
		}
		if st.Spec.ResourceRef.APIGroup != "v1" || st.Spec.ResourceRef.Kind != "Pod" {
			return nil, fmt.Errorf("stage %q is for %s %s: only v1 Pod stages are run", st.Metadata.Name, st.Spec.ResourceRef.APIGroup, st.Spec.ResourceRef.Kind)
		}
		for _, e := range st.Spec.Selector.MatchExpressions {
			if _, err := parseJQ(e.Key); err != nil {
				return nil, fmt.Errorf("stage %q: key %q: %w", st.Metadata.Name, e.Key, err)
			}
			if !slices.Contains([]string{"In", "NotIn", "Exists", "DoesNotExist"}, e.Operator) {
				return nil, fmt.Errorf("stage %q: unknown operator %q", st.Metadata.Name, e.Operator)
			}
		}
		for _, from := range st.expressionsFrom() {
			if _, err := parseJQ(from.ExpressionFrom); err != nil {
				return nil, fmt.Errorf("stage %q: expression %q: %w", st.Metadata.Name, from.ExpressionFrom, err)
			}
		}
		if st.Spec.Next.StatusTemplate != "" {
			if _, err := template.New(st.Metadata.Name).Funcs(templateFuncs(nil, nil)).Parse(st.Spec.Next.StatusTemplate); err != nil {
				return nil, fmt.Errorf("stage %q: %w", st.Metadata.Name, err)
			}
		}
		out = append(out, st)
	}
}

// expressionsFrom are the stage's values taken from pods.
func (st *Stage) expressionsFrom() []*StageExpressionFrom {
	var out []*StageExpressionFrom
	add := func(e *StageExpressionFrom) {
		if e != nil {
			out = append(out, e)
		}
	}
	add(st.Spec.WeightFrom)
	if d := st.Spec.Delay; d != nil {
		add(d.DurationFrom)
		add(d.JitterDurationFrom)
	}
	return out
}

// matchStage returns the stage that moves pod on, if any: of those whose
// selector matches, the one of highest weight, the first among equals.
func matchStage(stages []Stage, pod map[string]any, labels, annotations map[string]string) *Stage {
	var best *Stage
	bestWeight := 0
	for i := range stages {
		st := &stages[i]
		if !selects(&st.Spec.Selector, pod, labels, annotations) {
			continue
		}
		w := st.Spec.Weight
		if from := st.Spec.WeightFrom; from != nil {
			if v, ok := valueFrom(from, pod); ok {
				if n, err := strconv.Atoi(scalarString(v)); err == nil {
					w = n
				}
			}
		}
		if best == nil || w > bestWeight {
			best, bestWeight = st, w
		}
	}
	return best
}

// valueFrom is the first value an expression selects in pod.
func valueFrom(from *StageExpressionFrom, pod map[string]any) (any, bool) {
	q, err := parseJQ(from.ExpressionFrom)
	if err != nil {
		return nil, false
	}
	vals := q.eval(pod)
	if len(vals) == 0 {
		return nil, false
	}
	return vals[0], true
}

// delay is how long a pod waits, from now, before st moves it on: the
// duration, or a random point between it and the jitter when that is
// longer. A value taken from the pod is a duration ("1.5s") or a time
// (RFC 3339) to wait until.
func (st *Stage) delay(pod map[string]any, now time.Time, random func(time.Duration) time.Duration) time.Duration {
	d := st.Spec.Delay
	if d == nil {
		return 0
	}
	from := func(ms *int64, e *StageExpressionFrom) (time.Duration, bool) {
		if e != nil {
			if v, ok := valueFrom(e, pod); ok {
				s := scalarString(v)
				if dur, err := time.ParseDuration(s); err == nil {
					return dur, true
				}
				if t, err := time.Parse(time.RFC3339, s); err == nil {
					return t.Sub(now), true
				}
			}
		}
		if ms != nil {
			return time.Duration(*ms) * time.Millisecond, true
		}
		return 0, false
	}
	wait, _ := from(d.DurationMilliseconds, d.DurationFrom)
	wait = max(wait, 0)
	if jitter, ok := from(d.JitterDurationMilliseconds, d.JitterDurationFrom); ok && jitter > wait {
		wait += random(jitter - wait)
	}
	return wait
}

// selects reports whether sel matches a pod.
func selects(sel *StageSelector, pod map[string]any, labels, annotations map[string]string) bool {
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for k, v := range sel.MatchAnnotations {
		if got, ok := annotations[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range sel.MatchExpressions {
		q, err := parseJQ(e.Key)
		if err != nil {
			return false
		}
		vals := q.eval(pod)
		switch e.Operator {
		case "Exists":
			if len(vals) == 0 {
				return false
			}
		case "DoesNotExist":
			if len(vals) != 0 {
				return false
			}
		case "In", "NotIn":
			in := slices.ContainsFunc(vals, func(v any) bool { return slices.Contains(e.Values, scalarString(v)) })
			if in != (e.Operator == "In") {
				return false
			}
		}
	}
	return true
}

// renderStatus renders a stage's status template for a pod and merges it
// into the pod's status.
func renderStatus(st *Stage, pod *corev1.Pod, data map[string]any, funcs template.FuncMap) (corev1.PodStatus, error) {
	tmpl, err := template.New(st.Metadata.Name).Funcs(funcs).Parse(st.Spec.Next.StatusTemplate)
	if err != nil {
		return corev1.PodStatus{}, err
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return corev1.PodStatus{}, fmt.Errorf("stage %q: %w", st.Metadata.Name, err)
	}
	var patch map[string]any
	if err := yaml.Unmarshal(buf.Bytes(), &patch); err != nil {
		return corev1.PodStatus{}, fmt.Errorf("stage %q rendered no YAML: %w", st.Metadata.Name, err)
	}
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&pod.Status)
	if err != nil {
		return corev1.PodStatus{}, err
	}
	for k, v := range patch {
		status[k] = v // kwok replaces each field the template gives
	}
	var out corev1.PodStatus
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(status, &out); err != nil {
		return corev1.PodStatus{}, fmt.Errorf("stage %q rendered an invalid status: %w", st.Metadata.Name, err)
	}
	return out, nil
}

// templateFuncs are kwok's template functions: Now (RFC 3339, on the
// clock now), Quote (a JSON string), and the node's and pod's IPs (from at,
// the pod's placement; nil when only parsing).
func templateFuncs(at *placement, now func() time.Time) template.FuncMap {
	if now == nil {
		now = time.Now
	}
	ips := func(list []string) []string { return list }
	first := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		return list[0]
	}
	var host, pod []string
	if at != nil {
		host, pod = at.hostIPs, at.podIPs
	}
	return template.FuncMap{
		"Now": func() string { return now().UTC().Format(time.RFC3339) },
		"Quote": func(v any) string {
			b, _ := json.Marshal(scalarString(v))
			return string(b)
		},
		"NodeIPsWith": func(...any) []string { return ips(host) },
		"NodeIPWith":  func(...any) string { return first(host) },
		"PodIPsWith":  func(...any) []string { return ips(pod) },
		"PodIPWith":   func(...any) string { return first(pod) },
	}
}

// scalarString is how a selected value compares: strings as they are,
// other values as their JSON.
func scalarString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// jq is the subset of jq that kwok's stage keys use: paths of fields
// (.a.b), every element of a list (.[]), map keys (["k"]), and
// select( <path> == "<value>" ), joined by pipes.
type jq []jqStep

// jqStep is a path to follow, or a filter to keep values by.
type jqStep struct {
	path   []string // field names; "[]" for every element
	filter *jqFilter
}

// jqFilter keeps the values whose path equals value.
type jqFilter struct {
	path  []string
	value string
}

// parseJQ parses a stage key.
func parseJQ(key string) (jq, error) {
	var q jq
	for _, part := range strings.Split(key, "|") {
		part = strings.TrimSpace(part)
		if inner, ok := strings.CutPrefix(part, "select("); ok {
			inner, ok = strings.CutSuffix(inner, ")")
			lhs, rhs, eq := strings.Cut(inner, "==")
			if !ok || !eq {
				return nil, fmt.Errorf("unsupported select %q", part)
			}
			path, err := parsePath(strings.TrimSpace(lhs))
			if err != nil {
				return nil, err
			}
			var value string
			if err := json.Unmarshal([]byte(strings.TrimSpace(rhs)), &value); err != nil {
				return nil, fmt.Errorf("select compares with %q, not a string", strings.TrimSpace(rhs))
			}
			q = append(q, jqStep{filter: &jqFilter{path: path, value: value}})
			continue
		}
		path, err := parsePath(part)
		if err != nil {
			return nil, err
		}
		q = append(q, jqStep{path: path})
	}
	return q, nil
}

// parsePath parses .a.b.[].c["d"] into its steps.
func parsePath(s string) ([]string, error) {
	if !strings.HasPrefix(s, ".") {
		return nil, fmt.Errorf("path %q does not start with '.'", s)
	}
	var out []string
	for s != "" {
		switch {
		case strings.HasPrefix(s, ".[]"), strings.HasPrefix(s, "[]"):
			out = append(out, "[]")
			s = strings.TrimPrefix(strings.TrimPrefix(s, "."), "[]")
		case strings.HasPrefix(s, `["`), strings.HasPrefix(s, `.["`):
			s = strings.TrimPrefix(s, ".")
			end := strings.Index(s, `"]`)
			if end < 0 {
				return nil, fmt.Errorf("unterminated key in %q", s)
			}
			var k string
			if err := json.Unmarshal([]byte(s[1:end+1]), &k); err != nil {
				return nil, err
			}
			out = append(out, k)
			s = s[end+2:]
		case s == ".":
			s = ""
		case strings.HasPrefix(s, "."):
			s = s[1:]
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			if end == 0 {
				return nil, fmt.Errorf("empty field in path")
			}
			out = append(out, s[:end])
			s = s[end:]
		default:
			return nil, fmt.Errorf("unsupported path %q", s)
		}
	}
	return out, nil
}

// eval returns the values the key selects in obj (none when absent).
func (q jq) eval(obj any) []any {
	vals := []any{obj}
	for _, step := range q {
		if step.filter != nil {
			var kept []any
			for _, v := range vals {
				if slices.ContainsFunc(walk(v, step.filter.path), func(x any) bool { return scalarString(x) == step.filter.value }) {
					kept = append(kept, v)
				}
			}
			vals = kept
			continue
		}
		var next []any
		for _, v := range vals {
			next = append(next, walk(v, step.path)...)
		}
		vals = next
	}
	return vals
}

// walk follows path from v.
func walk(v any, path []string) []any {
	vals := []any{v}
	for _, p := range path {
		var next []any
		for _, v := range vals {
			switch x := v.(type) {
			case map[string]any:
				if p != "[]" {
					if c, ok := x[p]; ok && c != nil {
						next = append(next, c)
					}
				} else {
					for _, c := range x {
						next = append(next, c)
					}
				}
			case []any:
				if p == "[]" {
					next = append(next, x...)
				}
			}
		}
		vals = next
	}
	return vals
}
