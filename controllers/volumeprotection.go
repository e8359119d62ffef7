package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	storageephemeral "k8s.io/component-helpers/storage/ephemeral"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// volumeAttributesClassesBucket is where VolumeAttributesClasses are stored.
const volumeAttributesClassesBucket = "storage.k8s.io/volumeattributesclasses"

var vacsGVR = schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattributesclasses"}

// protected is what the protection controllers do to one object: add
// their finalizer to one that lacks it, and remove it from one being
// deleted that nothing uses, as kube-controller-manager's
// protectionutil.NeedToAddFinalizer and IsDeletionCandidate decide.
func protected(ctx context.Context, reg registry.Interface, gvr schema.GroupVersionResource, meta metav1.Object, finalizer string, inUse func() bool) error {
	has := slices.Contains(meta.GetFinalizers(), finalizer)
	deleting := meta.GetDeletionTimestamp() != nil
	switch {
	case !deleting && !has:
		return setFinalizer(ctx, reg, gvr, meta, finalizer, true)
	case deleting && has && !inUse():
		return setFinalizer(ctx, reg, gvr, meta, finalizer, false)
	}
	return nil
}

// setFinalizer adds (add) or removes finalizer on the stored object meta
// names, unless it changed uid meanwhile.
func setFinalizer(ctx context.Context, reg registry.Interface, gvr schema.GroupVersionResource, meta metav1.Object, finalizer string, add bool) error {
	uid := meta.GetUID()
	_, err := reg.Update(ctx, gvr, meta.GetNamespace(), meta.GetName(), func(cur runtime.Object) (runtime.Object, error) {
		m, err := metaOf(cur)
		if err != nil {
			return nil, err
		}
		if m.GetUID() != uid {
			return nil, apierrors.NewConflict(gvr.GroupResource(), meta.GetName(), errors.New("the object was replaced"))
		}
		fs := m.GetFinalizers()
		switch {
		case add && (slices.Contains(fs, finalizer) || m.GetDeletionTimestamp() != nil):
			return nil, errNoChange
		case add:
			m.SetFinalizers(append(fs, finalizer))
		case !slices.Contains(fs, finalizer):
			return nil, errNoChange
		default:
			m.SetFinalizers(slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == finalizer }))
		}
		return cur, nil
	})
	if err == nil || errors.Is(err, errNoChange) || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("%s %s: finalizer %s: %w", gvr.Resource, meta.GetName(), finalizer, err)
}

// errNoChange ends an update that has nothing to do.
var errNoChange = errors.New("no change")

// PVCProtection is kube-controller-manager's
// persistentvolumeclaim-protection-controller: a claim keeps the
// kubernetes.io/pvc-protection finalizer while a pod that is bound to a
// node uses it (an ephemeral volume's claim only while its pod is not shut
// down), so that deleting a claim in use waits for its pods.
type PVCProtection struct {
	reg    registry.Interface
	log    *slog.Logger
	user   user.Info
	claims map[string]*corev1.PersistentVolumeClaim
	// users maps a claim's key to the keys of the pods that use it; uses
	// is the reverse, to drop a pod's entries when it changes.
	users map[string]map[string]bool
	uses  map[string][]string
	dirty map[string]bool
}

// NewPVCProtection returns the persistentvolumeclaim-protection-controller.
func NewPVCProtection(reg registry.Interface, log *slog.Logger) *PVCProtection {
	if log == nil {
		log = slog.Default()
	}
	return &PVCProtection{reg: reg, log: log, user: controllerUser("pvc-protection-controller"),
		claims: map[string]*corev1.PersistentVolumeClaim{}, users: map[string]map[string]bool{},
		uses: map[string][]string{}, dirty: map[string]bool{}}
}

// Name implements Controller.
func (c *PVCProtection) Name() string { return PVCProtectionName }

// Resources implements Controller.
func (c *PVCProtection) Resources() []string { return []string{pvcsBucket, podsBucket} }

// Sync implements Controller.
func (c *PVCProtection) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if err := c.observe(ev); err != nil {
			c.log.Warn("skipped", "err", err)
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, key := range sortedKeys(c.dirty) {
		delete(c.dirty, key)
		pvc := c.claims[key]
		if pvc == nil {
			continue
		}
		if err := protected(ctx, c.reg, pvcsGVR, pvc, admissionplugins.PVCProtectionFinalizer, func() bool { return len(c.users[key]) > 0 }); err != nil {
			c.dirty[key] = true
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// observe records one event, marking the claims it concerns.
func (c *PVCProtection) observe(ev store.Event) error {
	switch ev.Resource {
	case pvcsBucket:
		pvc, err := trackEvent(c.claims, ev)
		if err != nil || pvc == nil {
			return err
		}
		c.dirty[ev.Key] = true
	case podsBucket:
		for _, claim := range c.uses[ev.Key] {
			delete(c.users[claim], ev.Key)
			if len(c.users[claim]) == 0 {
				delete(c.users, claim)
			}
			c.dirty[claim] = true
		}
		delete(c.uses, ev.Key)
		if ev.Type == store.Deleted {
			return nil
		}
		pod, err := decodeEvent[corev1.Pod](ev)
		if err != nil {
			return err
		}
		for _, claim := range claimsInUse(pod) {
			key := pod.Namespace + "/" + claim
			if c.users[key] == nil {
				c.users[key] = map[string]bool{}
			}
			c.users[key][ev.Key] = true
			c.uses[ev.Key] = append(c.uses[ev.Key], key)
			c.dirty[key] = true
		}
	}
	return nil
}

// claimsInUse are the claims a pod keeps from deletion, as upstream's
// podUsesPVCForDeletion decides: none until it is bound to a node; the
// claims its volumes name; its ephemeral volumes' claims until it is shut
// down (deleted with a zero grace period).
func claimsInUse(pod *corev1.Pod) []string {
	if pod.Spec.NodeName == "" {
		return nil
	}
	shutDown := pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds == 0
	return podClaimNames(pod, !shutDown)
}

// podClaimNames are the claims a pod's volumes name, and, with ephemeral,
// its ephemeral volumes' claims (upstream's ephemeral.VolumeClaimName).
func podClaimNames(pod *corev1.Pod, ephemeral bool) []string {
	var out []string
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil && ephemeral:
			out = append(out, storageephemeral.VolumeClaimName(pod, v))
		}
	}
	return out
}

// PVProtection is kube-controller-manager's
// persistentvolume-protection-controller: a volume keeps the
// kubernetes.io/pv-protection finalizer while it is Bound.
type PVProtection struct {
	reg     registry.Interface
	log     *slog.Logger
	user    user.Info
	volumes map[string]*corev1.PersistentVolume
	dirty   map[string]bool
}

// NewPVProtection returns the persistentvolume-protection-controller.
func NewPVProtection(reg registry.Interface, log *slog.Logger) *PVProtection {
	if log == nil {
		log = slog.Default()
	}
	return &PVProtection{reg: reg, log: log, user: controllerUser("pv-protection-controller"),
		volumes: map[string]*corev1.PersistentVolume{}, dirty: map[string]bool{}}
}

// Name implements Controller.
func (c *PVProtection) Name() string { return PVProtectionName }

// Resources implements Controller.
func (c *PVProtection) Resources() []string { return []string{pvsBucket} }

// Sync implements Controller.
func (c *PVProtection) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if pv, err := trackEvent(c.volumes, ev); err != nil {
			c.log.Warn("skipped", "err", err)
		} else if pv != nil {
			c.dirty[ev.Key] = true
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, key := range sortedKeys(c.dirty) {
		delete(c.dirty, key)
		pv := c.volumes[key]
		if pv == nil {
			continue
		}
		if err := protected(ctx, c.reg, pvsGVR, pv, admissionplugins.PVProtectionFinalizer, func() bool { return pv.Status.Phase == corev1.VolumeBound }); err != nil {
			c.dirty[key] = true
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// VACProtection is kube-controller-manager's
// volumeattributesclass-protection-controller: a VolumeAttributesClass
// keeps the kubernetes.io/vac-protection finalizer while a volume's spec or
// a claim's spec or status names it.
type VACProtection struct {
	reg     registry.Interface
	log     *slog.Logger
	user    user.Info
	classes map[string]*storagev1.VolumeAttributesClass
	// refs maps an object's key (bucket and key) to the classes it names.
	refs  map[string][]string
	dirty map[string]bool
}

// NewVACProtection returns the volumeattributesclass-protection-controller.
func NewVACProtection(reg registry.Interface, log *slog.Logger) *VACProtection {
	if log == nil {
		log = slog.Default()
	}
	return &VACProtection{reg: reg, log: log, user: controllerUser("volumeattributesclass-protection-controller"),
		classes: map[string]*storagev1.VolumeAttributesClass{}, refs: map[string][]string{}, dirty: map[string]bool{}}
}

// Name implements Controller.
func (c *VACProtection) Name() string { return VACProtectionName }

// Resources implements Controller.
func (c *VACProtection) Resources() []string {
	return []string{volumeAttributesClassesBucket, pvsBucket, pvcsBucket}
}

// Sync implements Controller.
func (c *VACProtection) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if err := c.observe(ev); err != nil {
			c.log.Warn("skipped", "err", err)
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	for _, name := range sortedKeys(c.dirty) {
		delete(c.dirty, name)
		vac := c.classes[name]
		if vac == nil {
			continue
		}
		if err := protected(ctx, c.reg, vacsGVR, vac, admissionplugins.VACProtectionFinalizer, func() bool { return c.inUse(name) }); err != nil {
			c.dirty[name] = true
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// inUse reports whether a volume or claim names the class.
func (c *VACProtection) inUse(name string) bool {
	for _, names := range c.refs {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// observe records one event, marking the classes it concerns.
func (c *VACProtection) observe(ev store.Event) error {
	if ev.Resource == volumeAttributesClassesBucket {
		vac, err := trackEvent(c.classes, ev)
		if err == nil && vac != nil {
			c.dirty[ev.Key] = true
		}
		return err
	}
	ref := ev.Resource + "|" + ev.Key
	for _, name := range c.refs[ref] {
		c.dirty[name] = true
	}
	delete(c.refs, ref)
	if ev.Type == store.Deleted {
		return nil
	}
	var names []string
	switch ev.Resource {
	case pvsBucket:
		pv, err := decodeEvent[corev1.PersistentVolume](ev)
		if err != nil {
			return err
		}
		if n := pv.Spec.VolumeAttributesClassName; n != nil && *n != "" {
			names = append(names, *n)
		}
	case pvcsBucket:
		pvc, err := decodeEvent[corev1.PersistentVolumeClaim](ev)
		if err != nil {
			return err
		}
		names = admissionplugins.ClaimAttributesClasses(pvc)
	}
	if len(names) > 0 {
		c.refs[ref] = names
	}
	for _, name := range names {
		c.dirty[name] = true
	}
	return nil
}
