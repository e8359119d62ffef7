package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// EphemeralVolume is kube-controller-manager's ephemeral-volume-controller:
// each generic ephemeral volume of a pod not being deleted gets its
// PersistentVolumeClaim, <pod>-<volume>, made from the volume's claim
// template and owned by the pod (so it goes with the pod), and made again
// if it is deleted while the pod uses it. A claim of that name the pod does
// not own is a FailedBinding event on the pod.
type EphemeralVolume struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	// pods are the pods with ephemeral volumes, not being deleted, by
	// store key.
	pods map[string]*corev1.Pod
	// claims are the claims by store key.
	claims map[string]*corev1.PersistentVolumeClaim
	// dirty are the keys of the pods to look at.
	dirty map[string]bool
}

// NewEphemeralVolume returns the controller, writing through reg.
func NewEphemeralVolume(reg registry.Interface, log *slog.Logger) *EphemeralVolume {
	if log == nil {
		log = slog.Default()
	}
	u := controllerUser("ephemeral-volume-controller")
	return &EphemeralVolume{
		reg: reg, log: log, user: u,
		rec:    NewRecorder(reg, "ephemeral_volume", u, nil, log),
		pods:   map[string]*corev1.Pod{},
		claims: map[string]*corev1.PersistentVolumeClaim{},
		dirty:  map[string]bool{},
	}
}

// Name implements Controller.
func (c *EphemeralVolume) Name() string { return EphemeralVolumeName }

// Resources implements Controller.
func (c *EphemeralVolume) Resources() []string { return []string{podsBucket, pvcsBucket} }

// Sync implements Controller.
func (c *EphemeralVolume) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		switch ev.Resource {
		case podsBucket:
			pod, err := decodePodVolumes(ev)
			if err != nil || ev.Type == store.Deleted || pod.DeletionTimestamp != nil || !hasEphemeralVolume(pod) {
				delete(c.pods, ev.Key)
				delete(c.dirty, ev.Key)
				continue
			}
			c.pods[ev.Key], c.dirty[ev.Key] = pod, true
		case pvcsBucket:
			claim, err := trackEvent(c.claims, ev)
			if err != nil || claim != nil {
				continue
			}
			// A deleted claim is made again for the pods that use it.
			for key, pod := range c.pods {
				for _, vol := range pod.Spec.Volumes {
					if vol.Ephemeral != nil && registry.ObjectKey(pod.Namespace, ephemeral.VolumeClaimName(pod, &vol)) == ev.Key {
						c.dirty[key] = true
					}
				}
			}
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, key := range sortedKeys(c.dirty) {
		if err := c.syncPod(ctx, c.pods[key]); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(c.dirty, key)
	}
	return errors.Join(errs...)
}

// decodePodVolumes decodes the metadata and the volumes of the pod an
// event carries, all the controller looks at: it is fed every pod write.
func decodePodVolumes(ev store.Event) (*corev1.Pod, error) {
	p, err := decodeEvent[struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			Volumes []corev1.Volume `json:"volumes"`
		} `json:"spec"`
	}](ev)
	if err != nil {
		return nil, err
	}
	return &corev1.Pod{ObjectMeta: p.Metadata, Spec: corev1.PodSpec{Volumes: p.Spec.Volumes}}, nil
}

// hasEphemeralVolume reports whether a pod has a generic ephemeral volume.
func hasEphemeralVolume(pod *corev1.Pod) bool {
	for _, vol := range pod.Spec.Volumes {
		if vol.Ephemeral != nil {
			return true
		}
	}
	return false
}

// syncPod is upstream's syncHandler: every ephemeral volume's claim is
// there, the pod's, or the first that cannot be is reported.
func (c *EphemeralVolume) syncPod(ctx context.Context, pod *corev1.Pod) error {
	if pod == nil {
		return nil
	}
	for _, vol := range pod.Spec.Volumes {
		if err := c.handleVolume(ctx, pod, vol); err != nil {
			c.rec.Eventf(ctx, EventRef("v1", "Pod", pod), corev1.EventTypeWarning, "FailedBinding", "ephemeral volume %s: %v", vol.Name, err)
			return fmt.Errorf("pod %s/%s, ephemeral volume %s: %w", pod.Namespace, pod.Name, vol.Name, err)
		}
	}
	return nil
}

// handleVolume is upstream's: the volume's claim is created unless it is
// there.
func (c *EphemeralVolume) handleVolume(ctx context.Context, pod *corev1.Pod, vol corev1.Volume) error {
	if vol.Ephemeral == nil || vol.Ephemeral.VolumeClaimTemplate == nil {
		return nil
	}
	name := ephemeral.VolumeClaimName(pod, &vol)
	if claim, ok := c.claims[registry.ObjectKey(pod.Namespace, name)]; ok {
		return ephemeral.VolumeIsForPod(pod, claim)
	}
	tmpl := vol.Ephemeral.VolumeClaimTemplate
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: pod.Namespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
			Annotations: tmpl.Annotations,
			Labels:      tmpl.Labels,
		},
		Spec: tmpl.Spec,
	}
	if _, err := c.reg.Create(ctx, pvcsGVR, claim); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create PVC %s: %w", name, err)
	}
	return nil
}
