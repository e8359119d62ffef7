package controllers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
)

// The ControllerRevisions of StatefulSets and DaemonSets: their history, as
// kube-controller-manager's controller history keeps it, so that `kubectl
// rollout history` and `kubectl rollout undo` work on them.

var controllerRevisionsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"}

// controllerRevisionsBucket is the store bucket of ControllerRevisions.
const controllerRevisionsBucket = "apps/controllerrevisions"

// templatePatch is what a StatefulSet's or DaemonSet's ControllerRevision
// holds: a strategic merge patch that puts back its pod template,
// {"spec":{"template":{...,"$patch":"replace"}}}. obj is the workload in
// its apps/v1 form.
func templatePatch(obj any) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	spec, _ := raw["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		template = map[string]any{}
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// revisionHash is the hash a ControllerRevision's name ends with: FNV-32 of
// its data and of the collision count, when there is one, as a safe-encoded
// string.
func revisionHash(data []byte, collisionCount *int32) string {
	h := fnv.New32()
	h.Write(data)
	if collisionCount != nil {
		h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// controllerRevisionHashLabel is the label upstream's controller history
// (a StatefulSet's revisions) gives the hash; a DaemonSet's revisions carry
// it as controller-revision-hash, as their pods do.
const controllerRevisionHashLabel = "controller.kubernetes.io/hash"

// newControllerRevision is the revision number revision of owner's
// template, named <owner>-<hash>, labelled with the template's labels and
// the hash (under hashLabel) and annotated with owner's annotations, as
// upstream's StatefulSet and DaemonSet controllers make them. A
// StatefulSet's hash is revisionHash of the data, a DaemonSet's the pod
// template hash.
func newControllerRevision(owner metav1.Object, kind schema.GroupVersionKind, templateLabels map[string]string, data []byte, revision int64, hash, hashLabel string) *appsv1.ControllerRevision {
	labels := make(map[string]string, len(templateLabels)+1)
	for k, v := range templateLabels {
		labels[k] = v
	}
	labels[hashLabel] = hash
	prefix := owner.GetName()
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:            prefix + "-" + hash,
			Namespace:       owner.GetNamespace(),
			Labels:          labels,
			Annotations:     copyStringMap(owner.GetAnnotations()),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, kind)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revision,
	}
}

// sameRevisionData reports whether two revisions' data are the same JSON.
func sameRevisionData(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
