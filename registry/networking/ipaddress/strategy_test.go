package ipaddress

import (
	"context"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// TestIPAddressNameRule checks that a name is an IP address in canonical
// form, with upstream's messages (those a v1.37 kube-apiserver answered).
func TestIPAddressNameRule(t *testing.T) {
	rule := Strategy.NameRule(&networkingv1.IPAddress{})
	for _, tc := range []struct {
		name string
		want []string
	}{
		{name: "10.0.0.1"},
		{name: "2001:db8::1"},
		{name: "abc", want: []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}},
		{name: "2001:db8:0::1", want: []string{`must be in canonical form ("2001:db8::1")`}},
		{name: "192.168.001.2", want: []string{"must not have leading 0s"}},
		{name: "::ffff:1.2.3.4", want: []string{"must not be an IPv4-mapped IPv6 address"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rule(tc.name, false); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestIPAddressGenerateNameIsTheName checks upstream's no-op name
// generator: a generateName is the name itself.
func TestIPAddressGenerateNameIsTheName(t *testing.T) {
	for _, base := range []string{"10.250.0.7", "abc"} {
		if got := Strategy.GenerateName(base); got != base {
			t.Errorf("GenerateName(%q) = %q, want it unchanged", base, got)
		}
	}
}

// address returns an IPAddress whose parent is ref.
func address(ref *networkingv1.ParentReference) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "10.250.0.7"}, Spec: networkingv1.IPAddressSpec{ParentRef: ref}}
}

// TestIPAddressValidation checks the parent reference of a new IPAddress
// and of updates, which keep it; the declarative (beta) errors come last
// and the immutability error shows no value.
func TestIPAddressValidation(t *testing.T) {
	const subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	stored := address(&networkingv1.ParentReference{Resource: "services", Name: "s", Namespace: "default"})
	for _, tc := range []struct {
		name string
		addr *networkingv1.IPAddress
		old  *networkingv1.IPAddress
		want []string
	}{
		{name: "a valid address", addr: stored},
		{name: "a parent is required", addr: address(nil), want: []string{"spec.parentRef: Required value"}},
		{name: "a parent names a resource and an object", addr: address(&networkingv1.ParentReference{}),
			want: []string{"spec.parentRef.resource: Required value", "spec.parentRef.name: Required value"}},
		{name: "a parent's fields are path segments, its group a DNS subdomain", addr: address(&networkingv1.ParentReference{Group: "Bad_G", Resource: "a/b", Name: "..", Namespace: "x%y"}),
			want: []string{
				`spec.parentRef.group: Invalid value: "Bad_G": ` + subdomain,
				`spec.parentRef.resource: Invalid value: "a/b": may not contain '/'`,
				`spec.parentRef.name: Invalid value: "..": may not be '..'`,
				`spec.parentRef.namespace: Invalid value: "x%y": may not contain '%'`,
			}},
		{name: "an update keeps the parent", addr: address(&networkingv1.ParentReference{Resource: "services", Name: "other", Namespace: "default"}), old: stored,
			want: []string{"spec.parentRef: Invalid value: null: field is immutable"}},
		{name: "an update may not remove it", addr: address(nil), old: stored,
			want: []string{"spec.parentRef: Required value", "spec.parentRef: Invalid value: null: field is immutable"}},
		{name: "an update's missing name is reported before", addr: address(&networkingv1.ParentReference{Resource: "services", Namespace: "default"}), old: stored,
			want: []string{"spec.parentRef.name: Required value", "spec.parentRef: Invalid value: null: field is immutable"}},
		{name: "an update that keeps it", addr: address(&networkingv1.ParentReference{Resource: "services", Name: "s", Namespace: "default"}), old: stored},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.old == nil {
				validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), tc.addr), tc.want)
				return
			}
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), tc.addr, tc.old), tc.want)
		})
	}
}
