package registry

import (
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PatchedTypeMeta checks the apiVersion and kind of a patched object as
// kube-apiserver's patch handler reads them, which is not as a create or an
// update reads a body: upstream decodes a JSON or merge patch's result with
// the resource's codec, which decodes whatever type the data names and then
// converts it, and a strategic merge patch's result into the resource's
// type, whatever the data names. It returns the data to decode as the
// resource's type, rewritten where upstream would convert or ignore the
// type the data names, or upstream's error:
//
//   - for built-in types, a JSON or merge patch naming another kind or
//     version is a 422 on the field "patch" (an unregistered kind, or a
//     registered one that does not convert), the same kind in another
//     registered version is decoded as the resource's version, and an
//     apiVersion left empty decodes into upstream's internal type, whose
//     name is then missing (a 400);
//   - for built-in types, a strategic merge patch's apiVersion and kind are
//     not read;
//   - for custom resources, an empty kind is a 422 on "patch", an empty
//     apiVersion a 500, and another apiVersion or kind fails validation
//     (422): only those errors are reported, not the schema's.
//
// An apiVersion or kind that is not a string, or an apiVersion that does
// not parse, is a 422 on "patch" for JSON and merge patches; a strategic
// merge patch's result is returned as it is, for the decoding to report.
func (r *Resource) PatchedTypeMeta(patched []byte, strategic bool, name string) ([]byte, error) {
	want := r.GVK.GroupVersion().String()
	if head, ok := scanTypeHead(patched); ok && head.APIVersion == want && head.Kind == r.GVK.Kind {
		return patched, nil
	}
	found, err := interpretTypeHead(patched)
	if err != nil {
		if strategic {
			return patched, nil
		}
		return nil, PatchInvalid(patched, err.Error())
	}
	if found.APIVersion == want && found.Kind == r.GVK.Kind {
		return patched, nil
	}
	if strategic {
		if r.Typed == nil {
			return patched, nil
		}
		return withTypeMeta(patched, r.GVK)
	}
	if r.Typed == nil {
		gv, err := schema.ParseGroupVersion(found.APIVersion)
		if err != nil {
			return nil, PatchInvalid(patched, err.Error())
		}
		return nil, r.customTypeMetaError(patched, found.APIVersion, gv.WithKind(found.Kind), name)
	}
	return PatchedTypeMetaOf(patched, name, r.GVK)
}

// PatchedTypeMetaOf is PatchedTypeMeta for a JSON or merge patch's result
// of a built-in type, own: the resource's, or a subresource's (a Scale).
func PatchedTypeMetaOf(patched []byte, name string, own schema.GroupVersionKind) ([]byte, error) {
	found, err := interpretTypeHead(patched)
	if err != nil {
		return nil, PatchInvalid(patched, err.Error())
	}
	gv, err := schema.ParseGroupVersion(found.APIVersion)
	if err != nil {
		return nil, PatchInvalid(patched, err.Error())
	}
	// The defaults upstream's JSON serializer takes from the internal type
	// it decodes into.
	internal := own.GroupKind().WithVersion(runtime.APIVersionInternal)
	actual := withDefaults(gv.WithKind(found.Kind), internal)
	switch {
	case actual == own:
		// An empty kind or a group written "/v1": decoding takes them.
		return patched, nil
	case actual.Version == "":
		return nil, PatchInvalid(patched, runtime.NewMissingVersionErr(string(patched)).Error())
	case actual == internal:
		// Decoded into the internal type, which has no JSON names: the
		// object's name is not found.
		return nil, URLNameError("", name)
	case actual.Version == runtime.APIVersionInternal:
		if len(TypesScheme().VersionsForGroupKind(actual.GroupKind())) > 0 {
			return nil, PatchInvalid(patched, fmt.Sprintf("converting (%s.%s) to (%s.%s): unknown conversion", InternalPackage(actual.Group), actual.Kind, InternalPackage(own.Group), own.Kind))
		}
	case TypesScheme().Recognizes(actual):
		if actual.Kind == own.Kind {
			// Another version of the kind, which upstream converts.
			return withTypeMeta(patched, own)
		}
		obj, err := TypesScheme().New(actual)
		if err == nil {
			if err := JSONUnmarshal(patched, obj); err != nil {
				return nil, PatchInvalid(patched, err.Error())
			}
		}
		return nil, PatchInvalid(patched, fmt.Sprintf("converting (%s.%s) to (%s.%s): unknown conversion", actual.Version, actual.Kind, InternalPackage(own.Group), own.Kind))
	}
	return nil, PatchInvalid(patched, runtime.NewNotRegisteredErrForKind(UpstreamSchemeName, actual).Error())
}

// customTypeMetaError is upstream's answer to a patched custom resource
// whose apiVersion (as written, and parsed to gv) or kind is not the
// resource's.
func (r *Resource) customTypeMetaError(patched []byte, apiVersion string, actual schema.GroupVersionKind, name string) error {
	switch {
	case actual.Kind == "":
		return PatchInvalid(patched, runtime.NewMissingKindErr(string(patched)).Error())
	case actual.Version == "":
		return apierrors.NewInternalError(runtime.NewMissingVersionErr("object has no apiVersion field"))
	}
	// The object's name is checked before it is validated.
	var meta struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = JSONUnmarshal(patched, &meta)
	if err := URLNameError(meta.Metadata.Name, name); err != nil {
		return err
	}
	want := r.GVK.GroupVersion().String()
	var errs field.ErrorList
	if actual.Kind != r.GVK.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), actual.Kind, "must be "+r.GVK.Kind))
	}
	if apiVersion != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), apiVersion, "must be "+want))
	}
	return apierrors.NewInvalid(actual.GroupKind(), name, errs)
}

// withTypeMeta returns patched with gvk's apiVersion and kind.
func withTypeMeta(patched []byte, gvk schema.GroupVersionKind) ([]byte, error) {
	own := fmt.Appendf(nil, `{"apiVersion":%q,"kind":%q}`, gvk.GroupVersion().String(), gvk.Kind)
	if out, ok := ApplyMergePatch(patched, own); ok {
		return out, nil
	}
	return jsonpatch.MergePatch(patched, own)
}

// PatchInvalid is upstream's 422 for a patched object that does not
// decode: the field "patch", its value the patched object.
func PatchInvalid(patched []byte, msg string) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patched), msg)})
}
