package registry

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The warnings upstream's handlers give when they drop repeated owner
// references: before the field manager (a create's or a PUT's body) and
// after mutating admission (every write).
const (
	duplicateOwnersWarning               = ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: %v"
	duplicateOwnersAfterAdmissionWarning = ".metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: %v"
)

// DedupOwnerReferences drops the owner references of m that repeat an
// earlier one entirely, and warns the client of their UIDs, as upstream's
// handlers do before the field manager sees a create's or a PUT's body
// (afterAdmission false) and after mutating admission (true).
func DedupOwnerReferences(c *Request, m metav1.Object, afterAdmission bool) {
	refs := m.GetOwnerReferences()
	if len(refs) < 2 {
		return
	}
	var kept []metav1.OwnerReference
	var dups []string
	seen := map[types.UID]bool{}
	for _, ref := range refs {
		if seen[ref.UID] && slices.ContainsFunc(kept, func(k metav1.OwnerReference) bool { return equality.Semantic.DeepEqual(k, ref) }) {
			dups = append(dups, string(ref.UID))
			continue
		}
		seen[ref.UID] = true
		kept = append(kept, ref)
	}
	if len(dups) == 0 {
		return
	}
	format := duplicateOwnersWarning
	if afterAdmission {
		format = duplicateOwnersAfterAdmissionWarning
	}
	addWarnings(c, []string{fmt.Sprintf(format, strings.Join(dups, ", "))})
	m.SetOwnerReferences(kept)
}
