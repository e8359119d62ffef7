package fakeplane

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAuditLogRotationKeepsLumberjacksNamesAndLimits(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxBackups int
		compress   bool
		// wantBackups is how many rotated files remain, wantGz how many
		// of them are gzipped.
		wantBackups, wantGz int
	}{
		{"every backup kept", 0, false, 3, 0},
		{"the newest two kept", 2, false, 2, 0},
		{"backups gzipped", 0, true, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "audit.log")
			if err := ensureAuditLogFile(path); err != nil {
				t.Fatal(err)
			}
			r := &rotatingFile{path: path, maxSize: 10, maxBackups: tc.maxBackups, compress: tc.compress}
			for i := range 4 {
				if i > 0 {
					// Backups are named to the millisecond.
					time.Sleep(2 * time.Millisecond)
				}
				if _, err := r.Write([]byte("0123456789")); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := r.Write([]byte("01234567890")); err == nil || err.Error() != "write length 11 exceeds maximum file size 10" {
				t.Errorf("a write larger than the file: %v", err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var backups, gz int
			for _, e := range entries {
				n := e.Name()
				if n == "audit.log" {
					continue
				}
				stamp := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(n, "audit-"), ".gz"), ".log")
				if _, err := time.Parse(backupTimeFormat, stamp); err != nil || !strings.HasPrefix(n, "audit-") {
					t.Errorf("backup %q is not named audit-<time>.log", n)
				}
				backups++
				if strings.HasSuffix(n, ".log.gz") {
					gz++
				}
			}
			if backups != tc.wantBackups || gz != tc.wantGz {
				t.Errorf("%d backups, %d gzipped; want %d, %d (%v)", backups, gz, tc.wantBackups, tc.wantGz, slices.Collect(func(yield func(string) bool) {
					for _, e := range entries {
						if !yield(e.Name()) {
							return
						}
					}
				}))
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "0123456789" {
				t.Errorf("the current file: %q %v", b, err)
			}
		})
	}
}
