package fakeplane_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"maps"
	"math/big"
	"reflect"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// The messages below come from upstream's source (k8s.io/kubernetes
// v1.37.2, plugin/pkg/admission/runtimeclass, network/defaultingressclass
// and certificates/{approval,signing,ctbattest,subjectrestriction}), not
// from a live kube-apiserver run: none answered when these tests were
// written.

// wantAdmission checks err against want: "" for success, else the 403
// message kube-apiserver gives.
func wantAdmission(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v, want success", what, err)
	case want != "" && (!apierrors.IsForbidden(err) || err.Error() != want):
		t.Errorf("%s: got %v, want 403 %s", what, err, want)
	}
}

// TestRuntimeClassAdmission: a new pod's RuntimeClass must exist, and
// gives the pod its overhead, node selector and tolerations.
func TestRuntimeClassAdmission(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	overhead := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
	sandboxToleration := corev1.Toleration{Key: "sandbox", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	for _, rc := range []*nodev1.RuntimeClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Handler: "runc"},
		{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata", Overhead: &nodev1.Overhead{PodFixed: overhead}},
		{ObjectMeta: metav1.ObjectMeta{Name: "sandboxed"}, Handler: "gvisor", Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{"sandbox": "true"},
			Tolerations:  []corev1.Toleration{sandboxToleration},
		}},
	} {
		if _, err := client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	hasToleration := func(p *corev1.Pod, want corev1.Toleration) bool {
		for _, tol := range p.Spec.Tolerations {
			if reflect.DeepEqual(tol, want) {
				return true
			}
		}
		return false
	}
	cases := []struct {
		name  string
		class string
		edit  func(*corev1.Pod)
		want  string
		check func(*corev1.Pod) bool
	}{{
		name:  "a class that does not exist is refused",
		class: "missing",
		want:  `pods "a-class-that-does-not-exist-is-refused" is forbidden: pod rejected: RuntimeClass "missing" not found`,
	}, {
		name:  "a class without overhead or scheduling changes nothing",
		class: "plain",
		check: func(p *corev1.Pod) bool {
			return p.Spec.Overhead == nil && p.Spec.NodeSelector == nil && !hasToleration(p, sandboxToleration)
		},
	}, {
		name:  "the class's overhead becomes the pod's",
		class: "kata",
		check: func(p *corev1.Pod) bool {
			return p.Spec.Overhead.Cpu().String() == "250m" && p.Spec.Overhead.Memory().String() == "64Mi" && len(p.Spec.Overhead) == 2
		},
	}, {
		name:  "the same overhead as the class's is accepted",
		class: "kata",
		edit:  func(p *corev1.Pod) { p.Spec.Overhead = overhead.DeepCopy() },
		check: func(p *corev1.Pod) bool { return p.Spec.Overhead.Cpu().String() == "250m" },
	}, {
		name:  "another overhead than the class's is refused",
		class: "kata",
		edit: func(p *corev1.Pod) {
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		},
		want: `pods "another-overhead-than-the-class-s-is-refused" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
	}, {
		name: "an overhead without a class is refused",
		edit: func(p *corev1.Pod) {
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		},
		want: `pods "an-overhead-without-a-class-is-refused" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`,
	}, {
		name:  "an overhead with a class that defines none is refused",
		class: "plain",
		edit: func(p *corev1.Pod) {
			p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		},
		want: `pods "an-overhead-with-a-class-that-defines-none-is-refused" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`,
	}, {
		name:  "the class's node selector and tolerations are added",
		class: "sandboxed",
		check: func(p *corev1.Pod) bool {
			return reflect.DeepEqual(p.Spec.NodeSelector, map[string]string{"sandbox": "true"}) && hasToleration(p, sandboxToleration)
		},
	}, {
		name:  "the class's node selector is merged into the pod's",
		class: "sandboxed",
		edit:  func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} },
		check: func(p *corev1.Pod) bool {
			return reflect.DeepEqual(p.Spec.NodeSelector, map[string]string{"sandbox": "true", "zone": "a"})
		},
	}, {
		name:  "a node selector that conflicts with the class's is refused",
		class: "sandboxed",
		edit:  func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"sandbox": "false"} },
		want:  `pods "a-node-selector-that-conflicts-with-the-class-s-is-refused" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = true; pod.spec.nodeSelector[sandbox] = false`,
	}, {
		name:  "a class toleration the pod's own covers is not added",
		class: "sandboxed",
		edit: func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpExists}}
		},
		check: func(p *corev1.Pod) bool {
			return hasToleration(p, corev1.Toleration{Key: "sandbox", Operator: corev1.TolerationOpExists}) && !hasToleration(p, sandboxToleration)
		},
	}}
	for i, tc := range cases {
		name := podNameOf(tc.name)
		p := testPod(name, nil)
		if tc.class != "" {
			p.Spec.RuntimeClassName = ptr.To(tc.class)
		}
		if tc.edit != nil {
			tc.edit(p)
		}
		got, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
		wantAdmission(t, tc.name, err, tc.want)
		if err == nil && tc.check != nil && !tc.check(got) {
			t.Errorf("case %d, %s: got overhead %v, nodeSelector %v, tolerations %+v", i, tc.name, got.Spec.Overhead, got.Spec.NodeSelector, got.Spec.Tolerations)
		}
	}
}

// podNameOf turns a case's name into an object name.
func podNameOf(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// TestIngressDefaultClassAdmission: a new Ingress that names no class gets
// the default IngressClass, the newest one of several.
func TestIngressDefaultClassAdmission(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	createClass := func(name string, isDefault bool) {
		t.Helper()
		ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress"}}
		if isDefault {
			ic.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
		}
		if _, err := client.NetworkingV1().IngressClasses().Create(ctx, ic, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ingress := func(name string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressSpec{
			DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}},
		}}
	}
	// The cases run in order: the classes each one's before adds stay.
	cases := []struct {
		name   string
		before func()
		edit   func(*networkingv1.Ingress)
		want   *string
	}{{
		name: "no default class leaves the class unset",
		before: func() {
			createClass("plain", false)
		},
	}, {
		name:   "the default class is set",
		before: func() { createClass("z-first", true) },
		want:   ptr.To("z-first"),
	}, {
		// Created later (or in the same second, and first by name), so
		// upstream's order picks it either way.
		name:   "the newest of several default classes wins",
		before: func() { createClass("a-second", true) },
		want:   ptr.To("a-second"),
	}, {
		name: "a named class is kept",
		edit: func(i *networkingv1.Ingress) { i.Spec.IngressClassName = ptr.To("plain") },
		want: ptr.To("plain"),
	}, {
		name: "the ingress.class annotation leaves the class unset",
		edit: func(i *networkingv1.Ingress) {
			i.Annotations = map[string]string{"kubernetes.io/ingress.class": "nginx"}
		},
	}}
	for _, tc := range cases {
		if tc.before != nil {
			tc.before()
		}
		in := ingress(podNameOf(tc.name))
		if tc.edit != nil {
			tc.edit(in)
		}
		got, err := client.NetworkingV1().Ingresses("default").Create(ctx, in, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got.Spec.IngressClassName, tc.want) {
			t.Errorf("%s: ingressClassName = %v, want %v", tc.name, ptrString(got.Spec.IngressClassName), ptrString(tc.want))
		}
	}
	// An update does not default the class.
	got, err := client.NetworkingV1().Ingresses("default").Get(ctx, podNameOf("no default class leaves the class unset"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Labels = map[string]string{"updated": "true"}
	if got, err = client.NetworkingV1().Ingresses("default").Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.Spec.IngressClassName != nil {
		t.Errorf("update: %v, ingressClassName %v (want unset)", err, ptrString(got.Spec.IngressClassName))
	}
}

// ptrString shows a *string.
func ptrString(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// certificateMaterial is a CSR (PEM) with subject organizations orgs and a
// self-signed certificate (PEM) to put in a CSR's status or a trust bundle.
func certificateMaterial(t *testing.T, orgs ...string) (csr, cert []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice", Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	certDER, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certDER})
}

// grantClusterRole makes a ClusterRole of rules and binds it to user.
func grantClusterRole(t *testing.T, admin kubernetes.Interface, name, user string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	ctx := ctxT(t)
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// signerRule grants verbs on the signers named names.
func signerRule(verbs []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: names, Verbs: verbs}
}

// TestCertificateAdmission: approving, denying and signing a CSR and
// attesting a ClusterTrustBundle need the verb on the signer (or its
// domain's wildcard); a kube-apiserver-client CSR may not ask for
// system:masters.
func TestCertificateAdmission(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	admin := kubernetesClient(t, cp)
	ctx := ctxT(t)
	const signer = "example.com/signer"
	// Every user may read and write CSRs and their subresources, and
	// ClusterTrustBundles; the signers verbs are what they differ in.
	api := []rbacv1.PolicyRule{{
		APIGroups: []string{"certificates.k8s.io"},
		Resources: []string{"certificatesigningrequests", "certificatesigningrequests/approval", "certificatesigningrequests/status", "clustertrustbundles"},
		Verbs:     []string{"get", "list", "create", "update", "patch"},
	}}
	users := map[string][]rbacv1.PolicyRule{
		"nobody":    nil,
		"approver":  {signerRule([]string{"approve"}, signer)},
		"domain":    {signerRule([]string{"approve", "sign"}, "example.com/*")},
		"other":     {signerRule([]string{"approve", "sign", "attest"}, "example.org/signer")},
		"signer":    {signerRule([]string{"sign"}, signer)},
		"attester":  {signerRule([]string{"attest"}, signer)},
		"wrongverb": {signerRule([]string{"sign", "attest"}, signer)},
	}
	clients := map[string]kubernetes.Interface{}
	for u, rules := range users {
		grantClusterRole(t, admin, "test:"+u, u, append(rules, api...)...)
		clients[u] = userClient(t, cp, u)
	}
	req, cert := certificateMaterial(t)
	mastersReq, _ := certificateMaterial(t, "system:masters")
	devReq, _ := certificateMaterial(t, "dev")
	csrs := admin.CertificatesV1().CertificateSigningRequests()
	newCSR := func(name, signerName string, request []byte, approved bool) error {
		csr, err := csrs.Create(ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: certificatesv1.CertificateSigningRequestSpec{Request: request, SignerName: signerName, Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}}}, metav1.CreateOptions{})
		if err != nil || !approved {
			return err
		}
		csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test"}}
		_, err = csrs.UpdateApproval(ctx, name, csr, metav1.UpdateOptions{})
		return err
	}
	// approve approves (or denies) a new CSR for signer as user.
	approve := func(user, name string, condition certificatesv1.RequestConditionType) error {
		if err := newCSR(name, signer, req, false); err != nil {
			return err
		}
		c := clients[user].CertificatesV1().CertificateSigningRequests()
		csr, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: condition, Status: corev1.ConditionTrue, Reason: "Test"})
		_, err = c.UpdateApproval(ctx, name, csr, metav1.UpdateOptions{})
		return err
	}
	// writeStatus changes an approved CSR's status through /status as user.
	writeStatus := func(user, name string, edit func(*certificatesv1.CertificateSigningRequest)) error {
		if err := newCSR(name, signer, req, true); err != nil {
			return err
		}
		c := clients[user].CertificatesV1().CertificateSigningRequests()
		csr, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		edit(csr)
		_, err = c.UpdateStatus(ctx, csr, metav1.UpdateOptions{})
		return err
	}
	sign := func(csr *certificatesv1.CertificateSigningRequest) { csr.Status.Certificate = cert }
	ctbs := admin.CertificatesV1().ClusterTrustBundles()
	bundle := func(name, signerName string) *certificatesv1.ClusterTrustBundle {
		return &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: signerName, TrustBundle: string(cert)}}
	}
	createBundle := func(user, name, signerName string) error {
		_, err := clients[user].CertificatesV1().ClusterTrustBundles().Create(ctx, bundle(name, signerName), metav1.CreateOptions{})
		return err
	}
	// updateBundle edits, as user, a bundle for signer that admin made.
	updateBundle := func(user, name string, edit func(*certificatesv1.ClusterTrustBundle)) error {
		if _, err := ctbs.Create(ctx, bundle(name, signer), metav1.CreateOptions{}); err != nil {
			return err
		}
		c := clients[user].CertificatesV1().ClusterTrustBundles()
		b, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		edit(b)
		_, err = c.Update(ctx, b, metav1.UpdateOptions{})
		return err
	}
	cases := []struct {
		name string
		do   func() error
		want string
	}{{
		name: "approving without approve on the signer is refused",
		do:   func() error { return approve("nobody", "approve-nobody", certificatesv1.CertificateApproved) },
		want: `certificatesigningrequests.certificates.k8s.io "approve-nobody" is forbidden: user not permitted to approve requests with signerName "example.com/signer"`,
	}, {
		name: "denying without approve on the signer is refused",
		do:   func() error { return approve("nobody", "deny-nobody", certificatesv1.CertificateDenied) },
		want: `certificatesigningrequests.certificates.k8s.io "deny-nobody" is forbidden: user not permitted to approve requests with signerName "example.com/signer"`,
	}, {
		name: "approving with approve on another signer is refused",
		do:   func() error { return approve("other", "approve-other", certificatesv1.CertificateApproved) },
		want: `certificatesigningrequests.certificates.k8s.io "approve-other" is forbidden: user not permitted to approve requests with signerName "example.com/signer"`,
	}, {
		name: "approving with only sign on the signer is refused",
		do:   func() error { return approve("wrongverb", "approve-wrongverb", certificatesv1.CertificateApproved) },
		want: `certificatesigningrequests.certificates.k8s.io "approve-wrongverb" is forbidden: user not permitted to approve requests with signerName "example.com/signer"`,
	}, {
		name: "approving with approve on the signer is allowed",
		do:   func() error { return approve("approver", "approve-approver", certificatesv1.CertificateApproved) },
	}, {
		name: "denying with approve on the signer is allowed",
		do:   func() error { return approve("approver", "deny-approver", certificatesv1.CertificateDenied) },
	}, {
		name: "approving with approve on the signer's domain wildcard is allowed",
		do:   func() error { return approve("domain", "approve-domain", certificatesv1.CertificateApproved) },
	}, {
		name: "signing without sign on the signer is refused",
		do:   func() error { return writeStatus("approver", "sign-approver", sign) },
		want: `certificatesigningrequests.certificates.k8s.io "sign-approver" is forbidden: user not permitted to sign requests with signerName "example.com/signer"`,
	}, {
		name: "a condition added through status needs sign on the signer",
		do: func() error {
			return writeStatus("nobody", "fail-nobody", func(csr *certificatesv1.CertificateSigningRequest) {
				csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue, Reason: "Test"})
			})
		},
		want: `certificatesigningrequests.certificates.k8s.io "fail-nobody" is forbidden: user not permitted to sign requests with signerName "example.com/signer"`,
	}, {
		name: "a status write that changes neither certificate nor conditions needs no sign",
		do: func() error {
			return writeStatus("nobody", "same-nobody", func(*certificatesv1.CertificateSigningRequest) {})
		},
	}, {
		name: "signing with sign on the signer is allowed",
		do:   func() error { return writeStatus("signer", "sign-signer", sign) },
	}, {
		name: "signing with sign on the signer's domain wildcard is allowed",
		do:   func() error { return writeStatus("domain", "sign-domain", sign) },
	}, {
		name: "a kube-apiserver-client request for system:masters is refused",
		do: func() error {
			return newCSR("masters", certificatesv1.KubeAPIServerClientSignerName, mastersReq, false)
		},
		want: `certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`,
	}, {
		name: "a kube-apiserver-client request for another group is accepted",
		do:   func() error { return newCSR("dev", certificatesv1.KubeAPIServerClientSignerName, devReq, false) },
	}, {
		name: "a system:masters request to another signer is accepted",
		do:   func() error { return newCSR("masters-other-signer", signer, mastersReq, false) },
	}, {
		name: "a trust bundle for a signer without attest is refused",
		do:   func() error { return createBundle("nobody", "example.com:signer:nobody", signer) },
		want: `clustertrustbundles.certificates.k8s.io "example.com:signer:nobody" is forbidden: user not permitted to attest for signerName "example.com/signer"`,
	}, {
		name: "a trust bundle for a signer with attest on another signer is refused",
		do:   func() error { return createBundle("other", "example.com:signer:other", signer) },
		want: `clustertrustbundles.certificates.k8s.io "example.com:signer:other" is forbidden: user not permitted to attest for signerName "example.com/signer"`,
	}, {
		name: "a trust bundle for a signer with attest is accepted",
		do:   func() error { return createBundle("attester", "example.com:signer:attester", signer) },
	}, {
		name: "a trust bundle without a signer needs no attest",
		do:   func() error { return createBundle("nobody", "no-signer", "") },
	}, {
		name: "changing a signer's trust bundle without attest is refused",
		do: func() error {
			return updateBundle("nobody", "example.com:signer:changed", func(b *certificatesv1.ClusterTrustBundle) {
				// Another CA: the same one twice is a 422 (duplicate
				// trust anchor) before admission runs.
				_, other := certificateMaterial(t)
				b.Spec.TrustBundle += string(other)
			})
		},
		want: `clustertrustbundles.certificates.k8s.io "example.com:signer:changed" is forbidden: user not permitted to attest for signerName "example.com/signer"`,
	}, {
		name: "changing only a signer's trust bundle's finalizers needs no attest",
		do: func() error {
			return updateBundle("nobody", "example.com:signer:finalized", func(b *certificatesv1.ClusterTrustBundle) { b.Finalizers = []string{"example.com/keep"} })
		},
	}}
	for _, tc := range cases {
		wantAdmission(t, tc.name, tc.do(), tc.want)
	}
	// What the allowed writes did is stored.
	if got, err := csrs.Get(ctx, "sign-signer", metav1.GetOptions{}); err != nil || string(got.Status.Certificate) != string(cert) {
		t.Errorf("signed request: %v, certificate %q", err, got.Status.Certificate)
	}
	if got, err := csrs.Get(ctx, "approve-domain", metav1.GetOptions{}); err != nil || len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != certificatesv1.CertificateApproved {
		t.Errorf("approved request: %v, conditions %+v", err, got.Status.Conditions)
	}
}

// TestCertificateAdmissionUnderAlwaysAllow: with --authorization-mode
// AlwaysAllow the signers checks allow every user, as kube-apiserver's
// AlwaysAllow authorizer answers them.
func TestCertificateAdmissionUnderAlwaysAllow(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode(fakeplane.AuthorizationAlwaysAllow))
	ctx := ctxT(t)
	c := userClient(t, cp, "anyone").CertificatesV1()
	req, cert := certificateMaterial(t)
	csr, err := c.CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "any"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: "example.com/signer", Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test"}}
	if csr, err = c.CertificateSigningRequests().UpdateApproval(ctx, "any", csr, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	csr.Status.Certificate = cert
	if _, err = c.CertificateSigningRequests().UpdateStatus(ctx, csr, metav1.UpdateOptions{}); err != nil {
		t.Errorf("sign: %v", err)
	}
	if _, err := c.ClusterTrustBundles().Create(ctx, &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "example.com:signer:any"},
		Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/signer", TrustBundle: string(cert)}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("attest: %v", err)
	}
}

// TestCertificateClusterTrustBundleNames: a ClusterTrustBundle is named
// after its signer, as upstream's validation (ValidateClusterTrustBundleName)
// wants, before the ClusterTrustBundleAttest plugin looks at it.
func TestCertificateClusterTrustBundleNames(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctbs := kubernetesClient(t, cp).CertificatesV1().ClusterTrustBundles()
	ctx := ctxT(t)
	_, cert := certificateMaterial(t)
	cases := []struct {
		name, signer, want string
	}{
		{name: "example.com:signer:ok", signer: "example.com/signer"},
		{name: "plain", signer: ""},
		{name: "plain-for-signer", signer: "example.com/signer",
			want: `ClusterTrustBundle.certificates.k8s.io "plain-for-signer" is invalid: metadata.name: Invalid value: "plain-for-signer": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:`},
		{name: "example.com:signer:no-signer", signer: "",
			want: `ClusterTrustBundle.certificates.k8s.io "example.com:signer:no-signer" is invalid: metadata.name: Invalid value: "example.com:signer:no-signer": ClusterTrustBundle without signer name must not have ":" in its name`},
	}
	for _, tc := range cases {
		_, err := ctbs.Create(ctx, &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: tc.name},
			Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: tc.signer, TrustBundle: string(cert)}}, metav1.CreateOptions{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!apierrors.IsInvalid(err) || err.Error() != tc.want):
			t.Errorf("%s: got %v, want 422 %s", tc.name, err, tc.want)
		}
	}
}

// PodTopologyLabels (beta and on in v1.37) copies the node's zone and
// region labels onto a pod created on the node and onto a Binding, which
// hands them to the pod (upstream's plugin/pkg/admission/podtopologylabels).
func TestPodTopologyLabelsAdmission(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	if _, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "zoned", Labels: map[string]string{
		"topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1", "kubernetes.io/hostname": "zoned"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"app": "x", "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1"}
	onNode := testPod("on-node", map[string]string{"app": "x", "topology.kubernetes.io/zone": "mine"})
	onNode.Spec.NodeName = "zoned"
	onNode.Spec.AutomountServiceAccountToken = ptr.To(false)
	got, err := client.CoreV1().Pods("default").Create(ctx, onNode, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got.Labels, want) {
		t.Errorf("pod created on the node: labels %v, want %v", got.Labels, want)
	}
	nowhere := testPod("unknown-node", map[string]string{"app": "x"})
	nowhere.Spec.NodeName = "missing"
	if got, err := client.CoreV1().Pods("default").Create(ctx, nowhere, metav1.CreateOptions{}); err != nil || !maps.Equal(got.Labels, map[string]string{"app": "x"}) {
		t.Errorf("pod on a node that does not exist: %v, %v", got.Labels, err)
	}
	pending := testPod("bound-later", map[string]string{"app": "x"})
	if _, err := client.CoreV1().Pods("default").Create(ctx, pending, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods("default").Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "bound-later"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "zoned"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err = client.CoreV1().Pods("default").Get(ctx, "bound-later", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got.Labels, want) {
		t.Errorf("pod bound to the node: labels %v, want %v", got.Labels, want)
	}
}
