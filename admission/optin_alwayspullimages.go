package admission

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

// AlwaysPullImagesPluginName is the name of upstream's AlwaysPullImages
// plugin.
const AlwaysPullImagesPluginName = "AlwaysPullImages"

// alwaysPullImagesNotAPod is upstream's answer to a pod write whose object
// is not a pod.
const alwaysPullImagesNotAPod = "Resource was marked with kind Pod but was unable to be converted"

// AlwaysPullImagesAdmit is the mutating half of upstream's
// AlwaysPullImages plugin: on a Create or Update of a pod (the pods
// resource itself; every subresource, ephemeralcontainers included, is left
// alone, as upstream does) it sets the imagePullPolicy of every init,
// regular and ephemeral container, and the pullPolicy of every image
// volume, to Always. An Update that references no image the old pod did not
// is left alone. It checks the operation, resource and subresource itself;
// an object that is not a *corev1.Pod is a 400 BadRequest, as upstream's.
func AlwaysPullImagesAdmit(a k8sadmission.Attributes) error {
	if alwaysPullImagesIgnores(a) {
		return nil
	}
	pod := optinPod(a.GetObject())
	if pod == nil {
		return apierrors.NewBadRequest(alwaysPullImagesNotAPod)
	}
	optinVisitContainers(&pod.Spec, func(c *corev1.Container, _ *field.Path) bool {
		c.ImagePullPolicy = corev1.PullAlways
		return true
	})
	for i := range pod.Spec.Volumes {
		if img := pod.Spec.Volumes[i].Image; img != nil {
			img.PullPolicy = corev1.PullAlways
		}
	}
	return nil
}

// AlwaysPullImagesValidate is the validating half of upstream's
// AlwaysPullImages plugin: on the writes AlwaysPullImagesAdmit handles, it
// refuses a pod with a container whose imagePullPolicy, or an image volume
// whose pullPolicy, is not Always. The error is upstream's: an aggregate
// (utilerrors.Aggregate, not an API status: kube-apiserver answers it as a
// 500 with no reason and the aggregate's text) of one 403 Forbidden per
// field, e.g. `pods "p" is forbidden: spec.containers[0].imagePullPolicy:
// Unsupported value: "Never": supported values: "Always"`.
func AlwaysPullImagesValidate(a k8sadmission.Attributes) error {
	if alwaysPullImagesIgnores(a) {
		return nil
	}
	pod := optinPod(a.GetObject())
	if pod == nil {
		return apierrors.NewBadRequest(alwaysPullImagesNotAPod)
	}
	always := []string{string(corev1.PullAlways)}
	var errs []error
	optinVisitContainers(&pod.Spec, func(c *corev1.Container, p *field.Path) bool {
		if c.ImagePullPolicy != corev1.PullAlways {
			errs = append(errs, k8sadmission.NewForbidden(a, field.NotSupported(p.Child("imagePullPolicy"), c.ImagePullPolicy, always)))
		}
		return true
	})
	for i, v := range pod.Spec.Volumes {
		if v.Image != nil && v.Image.PullPolicy != corev1.PullAlways {
			p := field.NewPath("spec").Child("volumes").Index(i).Child("image").Child("pullPolicy")
			errs = append(errs, k8sadmission.NewForbidden(a, field.NotSupported(p, v.Image.PullPolicy, always)))
		}
	}
	if len(errs) > 0 {
		return utilerrors.NewAggregate(errs)
	}
	return nil
}

// alwaysPullImagesIgnores reports whether upstream's plugin leaves a
// alone: not a Create or Update, not the pods resource itself, or an
// Update that brings no new image.
func alwaysPullImagesIgnores(a k8sadmission.Attributes) bool {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) || !optinPodProper(a) {
		return true
	}
	return alwaysPullImagesNoNewImages(a)
}

// alwaysPullImagesNoNewImages reports whether a is an Update whose pod
// references only images (of containers; image volumes are not counted,
// as upstream does not count them) the old pod referenced.
func alwaysPullImagesNoNewImages(a k8sadmission.Attributes) bool {
	if a.GetOperation() != k8sadmission.Update {
		return false
	}
	pod, old := optinPod(a.GetObject()), optinPod(a.GetOldObject())
	if pod == nil || old == nil {
		return false
	}
	oldImages := sets.New[string]()
	optinVisitContainers(&old.Spec, func(c *corev1.Container, _ *field.Path) bool {
		oldImages.Insert(c.Image)
		return true
	})
	newImage := false
	optinVisitContainers(&pod.Spec, func(c *corev1.Container, _ *field.Path) bool {
		newImage = !oldImages.Has(c.Image)
		return !newImage
	})
	return !newImage
}
