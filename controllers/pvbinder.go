package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	storagehelpers "k8s.io/component-helpers/storage/volume"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// LocalPathProvisioner is the provisioner whose StorageClasses the
// persistentvolume-binder-controller provisions volumes for, as the
// local-path provisioner that kind ships does: a hostPath volume on the
// node of the claim's first consumer.
const LocalPathProvisioner = "rancher.io/local-path"

// Store buckets the volume binder is fed from, besides claims and pods.
const (
	pvsBucket            = "/persistentvolumes"
	storageClassesBucket = "storage.k8s.io/storageclasses"
)

var pvsGVR = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}

// PersistentVolumeBinder binds PersistentVolumeClaims to
// PersistentVolumes as kube-controller-manager's persistentvolume-binder
// controller does (the best matching available volume, with upstream's
// matching rules), and provisions a volume for a claim whose StorageClass
// has the LocalPathProvisioner, as that provisioner would: at once for
// Immediate binding, and once a pod that uses the claim is bound to a node
// for WaitForFirstConsumer. A volume whose claim is deleted is deleted
// (reclaim policy Delete) or Released (Retain).
//
// A claim left Pending says why in upstream's events, at each change and
// every claimResyncPeriod: no class, a missing class, an in-tree
// provisioner, an external one (which the claim is annotated with, for it
// to act), or a WaitForFirstConsumer class with no scheduled pod.
//
// Not built: other provisioners (their claims stay Pending, as with no
// provisioner running), volume expansion, recycling.
type PersistentVolumeBinder struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	rec  *Recorder
	now  func() time.Time
	// claims, volumes, classes and consumers are what the controller was
	// fed; consumers maps a claim's key to the node of a bound pod that
	// uses it.
	claims    map[string]*corev1.PersistentVolumeClaim
	volumes   map[string]*corev1.PersistentVolume
	classes   map[string]*storagev1.StorageClass
	consumers map[string]string
	// podClaims remembers the claims each pod uses, for its deletion.
	podClaims map[string][]string
	// unscheduled maps a claim's key to the names of the pods that use it
	// and wait for a node (podUnscheduled: the claims of each such pod).
	unscheduled    map[string][]string
	podUnscheduled map[string][]string
	// changed are the claims whose changes came in the current batch, and
	// resynced when every pending claim was last reported.
	changed  map[string]bool
	resynced time.Time
}

// claimResyncPeriod is how often a pending claim's state is reported again,
// as kube-controller-manager's --pvclaimbinder-sync-period defaults.
const claimResyncPeriod = 15 * time.Second

// NewPersistentVolumeBinder returns the persistentvolume-binder
// controller, writing through reg and logging to log (nil:
// slog.Default()).
func NewPersistentVolumeBinder(reg registry.Interface, now func() time.Time, log *slog.Logger) *PersistentVolumeBinder {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	u := controllerUser("persistent-volume-binder")
	return &PersistentVolumeBinder{
		reg: reg, log: log, user: u, now: now,
		rec:       NewRecorder(reg, "persistentvolume-controller", u, now, log),
		claims:    map[string]*corev1.PersistentVolumeClaim{},
		volumes:   map[string]*corev1.PersistentVolume{},
		classes:   map[string]*storagev1.StorageClass{},
		consumers: map[string]string{},
		podClaims: map[string][]string{},

		unscheduled: map[string][]string{}, podUnscheduled: map[string][]string{},
		changed: map[string]bool{},
	}
}

// Name implements Controller.
func (c *PersistentVolumeBinder) Name() string { return PersistentVolumeBinderName }

// Resources implements Controller.
func (c *PersistentVolumeBinder) Resources() []string {
	return []string{storageClassesBucket, pvsBucket, pvcsBucket, podsBucket}
}

// Sync implements Controller.
func (c *PersistentVolumeBinder) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if err := c.observe(ev); err != nil {
			c.log.Warn("skipped", "err", err)
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(c.volumes)) {
		if err := c.syncVolume(ctx, c.volumes[name]); err != nil {
			errs = append(errs, fmt.Errorf("volume %s: %w", name, err))
		}
	}
	// Upstream syncs a claim when it changes and every sync period; each
	// sync of a claim left pending reports why in an event.
	now := c.now()
	resync := now.Sub(c.resynced) >= claimResyncPeriod
	if resync {
		c.resynced = now
	}
	pending := false
	for _, key := range slices.Sorted(maps.Keys(c.claims)) {
		claim := c.claims[key]
		stillPending, err := c.syncClaim(ctx, claim, resync || c.changed[key])
		if err != nil {
			errs = append(errs, fmt.Errorf("claim %s: %w", key, err))
		}
		pending = pending || stillPending
	}
	clear(c.changed)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if pending {
		return &Requeue{After: c.resynced.Add(claimResyncPeriod).Sub(now)}
	}
	return nil
}

// observe records one event.
func (c *PersistentVolumeBinder) observe(ev store.Event) error {
	switch ev.Resource {
	case storageClassesBucket:
		_, err := trackEvent(c.classes, ev)
		return err
	case pvsBucket:
		_, err := trackEvent(c.volumes, ev)
		return err
	case pvcsBucket:
		c.changed[ev.Key] = true
		_, err := trackEvent(c.claims, ev)
		return err
	case podsBucket:
		for _, claim := range c.podClaims[ev.Key] {
			delete(c.consumers, claim)
		}
		delete(c.podClaims, ev.Key)
		_, name, _ := strings.Cut(ev.Key, "/")
		for _, claim := range c.podUnscheduled[ev.Key] {
			if c.unscheduled[claim] = slices.DeleteFunc(c.unscheduled[claim], func(n string) bool { return n == name }); len(c.unscheduled[claim]) == 0 {
				delete(c.unscheduled, claim)
			}
		}
		delete(c.podUnscheduled, ev.Key)
		if ev.Type == store.Deleted {
			return nil
		}
		pod, err := decodeEvent[corev1.Pod](ev)
		if err != nil {
			return err
		}
		if pod.Spec.NodeName == "" {
			if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
				for _, claim := range podClaimNames(pod, true) {
					key := pod.Namespace + "/" + claim
					c.unscheduled[key] = append(c.unscheduled[key], pod.Name)
					c.podUnscheduled[ev.Key] = append(c.podUnscheduled[ev.Key], key)
				}
			}
			return nil
		}
		for _, claim := range podClaimNames(pod, true) {
			key := pod.Namespace + "/" + claim
			c.consumers[key] = pod.Spec.NodeName
			c.podClaims[ev.Key] = append(c.podClaims[ev.Key], key)
		}
	}
	return nil
}

// syncClaim binds a pending claim to a matching volume, or provisions one;
// it reports whether the claim is left pending without a volume. With
// report, a claim left so gets upstream's event saying why.
func (c *PersistentVolumeBinder) syncClaim(ctx context.Context, claim *corev1.PersistentVolumeClaim, report bool) (bool, error) {
	if claim.DeletionTimestamp != nil {
		return false, nil
	}
	if claim.Spec.VolumeName != "" {
		pv := c.volumes[claim.Spec.VolumeName]
		if pv == nil || claim.Status.Phase == corev1.ClaimBound {
			return false, nil
		}
		return false, c.bind(ctx, claim, pv)
	}
	var candidates []*corev1.PersistentVolume
	for _, pv := range c.volumes {
		candidates = append(candidates, pv)
	}
	class := storagehelpers.GetPersistentVolumeClaimClass(claim)
	sc := c.classes[class]
	delay := sc != nil && sc.VolumeBindingMode != nil && *sc.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	pv, err := storagehelpers.FindMatchingVolume(claim, candidates, nil, nil, delay, true)
	if err != nil {
		return false, err
	}
	if pv != nil {
		return false, c.bind(ctx, claim, pv)
	}
	key := claim.Namespace + "/" + claim.Name
	node := claim.Annotations[storagehelpers.AnnSelectedNode]
	if node == "" && sc != nil && sc.Provisioner == LocalPathProvisioner {
		node = c.consumers[key] // the provisioner's own view of the consumer
	}
	ref := EventRef("v1", "PersistentVolumeClaim", claim)
	event := func(eventType, reason, msg string) {
		if report {
			c.rec.Eventf(ctx, ref, eventType, reason, "%s", msg)
		}
	}
	switch {
	case delay && node == "":
		// No pod using it has been scheduled.
		if pods := c.unscheduled[key]; len(pods) == 1 {
			event(corev1.EventTypeNormal, "WaitForPodScheduled", fmt.Sprintf("waiting for pod %s to be scheduled", pods[0]))
		} else if len(pods) > 1 {
			event(corev1.EventTypeNormal, "WaitForPodScheduled", fmt.Sprintf("waiting for pods %s to be scheduled", strings.Join(pods, ",")))
		} else {
			event(corev1.EventTypeNormal, "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
		}
	case class == "":
		event(corev1.EventTypeNormal, "FailedBinding", "no persistent volumes available for this claim and no storage class is set")
	case sc == nil:
		event(corev1.EventTypeWarning, "ProvisioningFailed", fmt.Sprintf("storageclass.storage.k8s.io %q not found", class))
	case sc.Provisioner == LocalPathProvisioner:
		return false, c.provision(ctx, claim, sc, node)
	case strings.HasPrefix(sc.Provisioner, "kubernetes.io/"):
		// No in-tree plugin provisions here.
		event(corev1.EventTypeWarning, "ProvisioningFailed", "no volume plugin matched name: "+sc.Provisioner)
	default:
		// An external provisioner's: the claim names it, and waits.
		if err := c.awaitExternalProvisioner(ctx, key, claim, sc.Provisioner); err != nil {
			event(corev1.EventTypeWarning, "ProvisioningFailed", fmt.Sprintf("Error saving claim: %v", err))
			return true, err
		}
		event(corev1.EventTypeNormal, "ExternalProvisioning", fmt.Sprintf("Waiting for a volume to be created either by the external provisioner '%s' "+
			"or manually by the system administrator. If volume creation is delayed, please verify that "+
			"the provisioner is running and correctly registered.", sc.Provisioner))
	}
	return true, nil
}

// awaitExternalProvisioner annotates claim (stored at key) with the
// provisioner that is to provision its volume, as upstream's controller
// does for an external one.
func (c *PersistentVolumeBinder) awaitExternalProvisioner(ctx context.Context, key string, claim *corev1.PersistentVolumeClaim, provisioner string) error {
	if claim.Annotations[storagehelpers.AnnStorageProvisioner] == provisioner {
		return nil
	}
	got, err := c.reg.Update(ctx, pvcsGVR, claim.Namespace, claim.Name, func(cur runtime.Object) (runtime.Object, error) {
		pvc := cur.(*corev1.PersistentVolumeClaim)
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnBetaStorageProvisioner, provisioner)
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnStorageProvisioner, provisioner)
		return pvc, nil
	})
	if err != nil {
		return err
	}
	c.claims[key] = got.(*corev1.PersistentVolumeClaim)
	return nil
}

// provision creates a local-path volume for claim on node and binds them.
func (c *PersistentVolumeBinder) provision(ctx context.Context, claim *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, node string) error {
	reclaim := corev1.PersistentVolumeReclaimDelete
	if sc.ReclaimPolicy != nil {
		reclaim = *sc.ReclaimPolicy
	}
	mode := corev1.PersistentVolumeFilesystem
	if claim.Spec.VolumeMode != nil {
		mode = *claim.Spec.VolumeMode
	}
	name := "pvc-" + string(claim.UID)
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{storagehelpers.AnnDynamicallyProvisioned: sc.Provisioner},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   claim.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              sc.Name,
			VolumeMode:                    &mode,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: fmt.Sprintf("/opt/local-path-provisioner/%s_%s_%s", name, claim.Namespace, claim.Name),
				Type: ptr.To(corev1.HostPathDirectoryOrCreate),
			}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: claim.Namespace, Name: claim.Name,
				UID: claim.UID, ResourceVersion: claim.ResourceVersion},
		},
	}
	if node != "" {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}}}
	}
	got, err := c.reg.Create(ctx, pvsGVR, pv)
	if apierrors.IsAlreadyExists(err) {
		return nil // its event comes
	}
	if err != nil {
		c.rec.Eventf(ctx, EventRef("v1", "PersistentVolumeClaim", claim), corev1.EventTypeWarning, "ProvisioningFailed", "%v", err)
		return fmt.Errorf("provision: %w", err)
	}
	pv = got.(*corev1.PersistentVolume)
	c.volumes[pv.Name] = pv
	c.rec.Eventf(ctx, EventRef("v1", "PersistentVolumeClaim", claim), corev1.EventTypeNormal, "ProvisioningSucceeded",
		"Successfully provisioned volume %s", pv.Name)
	return c.bind(ctx, claim, pv)
}

// bind binds volume and claim both ways, as the controller does: the
// volume's claimRef and phase, then the claim's volumeName, annotations,
// phase and capacity.
func (c *PersistentVolumeBinder) bind(ctx context.Context, claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) error {
	got, err := c.reg.Update(ctx, pvsGVR, "", pv.Name, func(cur runtime.Object) (runtime.Object, error) {
		v := cur.(*corev1.PersistentVolume)
		claim := claim.DeepCopy()
		claim.Kind, claim.APIVersion = "PersistentVolumeClaim", "v1"
		bound, _, err := storagehelpers.GetBindVolumeToClaim(v, claim)
		return bound, err
	})
	if err != nil {
		return fmt.Errorf("bind volume %s: %w", pv.Name, err)
	}
	pv = got.(*corev1.PersistentVolume)
	if pv.Status.Phase != corev1.VolumeBound {
		got, err = c.reg.UpdateSubresource(ctx, pvsGVR, "status", "", pv.Name, func(cur runtime.Object) (runtime.Object, error) {
			v := cur.(*corev1.PersistentVolume)
			v.Status.Phase = corev1.VolumeBound
			return v, nil
		})
		if err != nil {
			return fmt.Errorf("volume %s status: %w", pv.Name, err)
		}
		pv = got.(*corev1.PersistentVolume)
	}
	c.volumes[pv.Name] = pv
	got, err = c.reg.Update(ctx, pvcsGVR, claim.Namespace, claim.Name, func(cur runtime.Object) (runtime.Object, error) {
		pvc := cur.(*corev1.PersistentVolumeClaim)
		if pvc.UID != claim.UID {
			return nil, apierrors.NewNotFound(pvcsGVR.GroupResource(), claim.Name)
		}
		if pvc.Spec.VolumeName != pv.Name {
			pvc.Spec.VolumeName = pv.Name
			metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnBoundByController, "yes")
		}
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnBindCompleted, "yes")
		if p := pv.Annotations[storagehelpers.AnnDynamicallyProvisioned]; p != "" {
			metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnStorageProvisioner, p)
			metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, storagehelpers.AnnBetaStorageProvisioner, p)
		}
		return pvc, nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bind claim: %w", err)
	}
	pvc := got.(*corev1.PersistentVolumeClaim)
	got, err = c.reg.UpdateSubresource(ctx, pvcsGVR, "status", pvc.Namespace, pvc.Name, func(cur runtime.Object) (runtime.Object, error) {
		pvc := cur.(*corev1.PersistentVolumeClaim)
		pvc.Status.Phase = corev1.ClaimBound
		pvc.Status.AccessModes = pv.Spec.AccessModes
		pvc.Status.Capacity = pv.Spec.Capacity
		return pvc, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("claim status: %w", err)
	}
	if err == nil {
		pvc = got.(*corev1.PersistentVolumeClaim)
		c.claims[pvc.Namespace+"/"+pvc.Name] = pvc
	}
	return nil
}

// syncVolume makes a new volume Available, and releases or deletes a
// bound volume whose claim is gone.
func (c *PersistentVolumeBinder) syncVolume(ctx context.Context, pv *corev1.PersistentVolume) error {
	ref := pv.Spec.ClaimRef
	if ref == nil && pv.DeletionTimestamp == nil && (pv.Status.Phase == "" || pv.Status.Phase == corev1.VolumePending) {
		got, err := c.reg.UpdateSubresource(ctx, pvsGVR, "status", "", pv.Name, func(cur runtime.Object) (runtime.Object, error) {
			v := cur.(*corev1.PersistentVolume)
			v.Status.Phase = corev1.VolumeAvailable
			return v, nil
		})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("make available: %w", err)
		}
		if err == nil {
			c.volumes[pv.Name] = got.(*corev1.PersistentVolume)
		}
		return nil
	}
	// A volume being deleted is still released or reclaimed once its
	// claim is gone: that ends its pv-protection.
	if ref == nil || pv.Status.Phase != corev1.VolumeBound {
		return nil
	}
	if claim, ok := c.claims[ref.Namespace+"/"+ref.Name]; ok && (ref.UID == "" || claim.UID == ref.UID) {
		return nil
	}
	// The claim is gone: make sure, then reclaim.
	if _, err := c.reg.Get(ctx, pvcsGVR, ref.Namespace, ref.Name); err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	// Released first, as upstream's volume controller does, so that the
	// pv-protection controller lets a deleted volume go.
	_, err := c.reg.UpdateSubresource(ctx, pvsGVR, "status", "", pv.Name, func(cur runtime.Object) (runtime.Object, error) {
		v := cur.(*corev1.PersistentVolume)
		v.Status.Phase = corev1.VolumeReleased
		return v, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release: %w", err)
	}
	if err == nil && pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete {
		_, err := c.reg.Delete(ctx, pvsGVR, "", pv.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete: %w", err)
		}
		return nil
	}
	return nil
}
