package admission

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

// optinAttrs builds the attributes fakeplane builds for a write of obj
// (over old) to resource/subresource in namespace ns.
func optinAttrs(op k8sadmission.Operation, kind, resource, subresource, ns, name string, obj, old runtime.Object) k8sadmission.Attributes {
	gv := corev1.SchemeGroupVersion
	var opts runtime.Object
	switch op {
	case k8sadmission.Create:
		opts = &metav1.CreateOptions{}
	case k8sadmission.Update:
		opts = &metav1.UpdateOptions{}
	case k8sadmission.Delete:
		opts = &metav1.DeleteOptions{}
	}
	return k8sadmission.NewAttributesRecord(obj, old, gv.WithKind(kind), ns, name, gv.WithResource(resource), subresource, op, opts, false, &user.DefaultInfo{Name: "alice"})
}

// optinPodAttrs is optinAttrs for a pod write.
func optinPodAttrs(op k8sadmission.Operation, subresource string, pod, old *corev1.Pod) k8sadmission.Attributes {
	var o runtime.Object
	if old != nil {
		o = old
	}
	return optinAttrs(op, "Pod", "pods", subresource, pod.Namespace, pod.Name, pod, o)
}

// optinWant checks err against the message and HTTP code wanted ("" and 0:
// no error; code 500 with reason "": not an API status, as kube-apiserver
// answers a plain error).
type optinWant struct {
	msg    string
	code   int32
	reason metav1.StatusReason
}

func (w optinWant) check(t *testing.T, err error) {
	t.Helper()
	if w.msg == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", w.msg)
	}
	if err.Error() != w.msg {
		t.Fatalf("error %q, want %q", err.Error(), w.msg)
	}
	var code int32 = 500
	var reason metav1.StatusReason
	if s, ok := err.(apierrors.APIStatus); ok {
		code, reason = s.Status().Code, s.Status().Reason
	}
	if code != w.code || reason != w.reason {
		t.Fatalf("code %d reason %q, want %d %q", code, reason, w.code, w.reason)
	}
}

var (
	optinForbidden  = metav1.StatusReasonForbidden
	optinBadRequest = metav1.StatusReasonBadRequest
	optinInternal   = metav1.StatusReasonInternalError
)

func optinTestPod(name string, mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

// checkLoaded checks what a configuration loader answered: the error
// wantErr when it is set, else a configuration equal to want.
func checkLoaded[T any](t *testing.T, got T, err error, want T, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("error %v, want %s", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
