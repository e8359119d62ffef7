package fakeplane_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// BenchmarkCreateAudited is BenchmarkCreate with every request audited to
// a log file at a level, to be compared with BenchmarkCreate (auditing
// off).
func BenchmarkCreateAudited(b *testing.B) {
	for _, level := range []string{"Metadata", "RequestResponse"} {
		b.Run(level, func(b *testing.B) {
			dir := b.TempDir()
			policy := filepath.Join(dir, "policy.yaml")
			if err := os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: "+level+"\n"), 0o600); err != nil {
				b.Fatal(err)
			}
			cp := fakeplane.Start(b, fakeplane.WithAudit(fakeplane.AuditOptions{PolicyFile: policy,
				Log: fakeplane.AuditLogOptions{Path: filepath.Join(dir, "audit.log")}}))
			client := benchClient(b, cp)
			ns := benchNamespace(b, client)
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap("cm-"+strconv.Itoa(i)), metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
