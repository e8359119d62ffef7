package certificatesigningrequest

import (
	"context"
	"reflect"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

func TestPrepareForCreateSetsTheRequestor(t *testing.T) {
	sent := func() *certificatesv1.CertificateSigningRequest {
		return &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{
			Username: "someone-else", UID: "x", Groups: []string{"g"}, Extra: map[string]certificatesv1.ExtraValue{"k": {"v"}},
			SignerName: "example.com/signer",
		}}
	}
	u := &user.DefaultInfo{Name: "alice", UID: "a1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"scopes": {"s1"}}}
	csr := sent()
	Strategy.PrepareForCreate(genericapirequest.WithUser(context.Background(), u), csr)
	want := certificatesv1.CertificateSigningRequestSpec{
		Username: "alice", UID: "a1", Groups: []string{"dev", "system:authenticated"},
		Extra: map[string]certificatesv1.ExtraValue{"scopes": {"s1"}}, SignerName: "example.com/signer",
	}
	if !reflect.DeepEqual(csr.Spec, want) {
		t.Errorf("spec %+v, want %+v", csr.Spec, want)
	}

	csr = sent()
	Strategy.PrepareForCreate(genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "bob"}), csr)
	if csr.Spec.Username != "bob" || csr.Spec.UID != "" || csr.Spec.Groups != nil || csr.Spec.Extra != nil {
		t.Errorf("user without extra: spec %+v", csr.Spec)
	}

	csr = sent()
	Strategy.PrepareForCreate(context.Background(), csr)
	if csr.Spec.Username != "" || csr.Spec.UID != "" || csr.Spec.Groups != nil || csr.Spec.Extra != nil {
		t.Errorf("no user: spec %+v", csr.Spec)
	}
}

func TestPrepareForUpdateKeepsTheSpec(t *testing.T) {
	old := &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{Username: "alice", SignerName: "example.com/a"}}
	csr := &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{Username: "mallory", SignerName: "example.com/b"}}
	Strategy.PrepareForUpdate(context.Background(), csr, old)
	if !reflect.DeepEqual(csr.Spec, old.Spec) {
		t.Errorf("spec %+v, want the stored %+v", csr.Spec, old.Spec)
	}
}
