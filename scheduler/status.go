package scheduler

import "strings"

// code is the outcome of a plugin, as kube-scheduler's framework codes.
type code int

const (
	success code = iota
	// unschedulable: the node may fit once other pods are removed
	// (preemption may help).
	unschedulable
	// unresolvable: preemption cannot make the node fit.
	unresolvable
)

// status is a plugin's answer: a code and the reasons shown to users.
type status struct {
	code    code
	reasons []string
	plugin  string
}

// newStatus returns a status with reasons.
func newStatus(c code, reasons ...string) *status { return &status{code: c, reasons: reasons} }

// ok reports success (a nil status is success).
func (s *status) ok() bool { return s == nil || s.code == success }

// message joins the reasons as kube-scheduler's Status.Message does.
func (s *status) message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}
