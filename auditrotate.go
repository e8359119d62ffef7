package fakeplane

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// rotatingFile is the audit log file kube-apiserver writes through
// lumberjack, with lumberjack's rotation: a file that would grow past
// maxSize is renamed <name>-<UTC time>.<ext> and a new one started; the
// rotated files beyond maxBackups or older than maxAge are removed, and
// the others gzipped with compress. Unlike lumberjack, it cleans up as it
// rotates, in the writer's goroutine: it starts none, which would outlive
// the control plane.
type rotatingFile struct {
	path       string
	maxSize    int64
	maxAge     time.Duration
	maxBackups int
	compress   bool

	mu   sync.Mutex
	file *os.File
	size int64
}

// backupTimeFormat is lumberjack's timestamp in rotated files' names.
const backupTimeFormat = "2006-01-02T15-04-05.000"

// Write appends p, rotating first when the file would grow past maxSize.
func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if int64(len(p)) > r.maxSize {
		return 0, fmt.Errorf("write length %d exceeds maximum file size %d", len(p), r.maxSize)
	}
	if r.file == nil {
		f, err := os.OpenFile(r.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, err
		}
		r.file, r.size = f, 0
		if fi, err := f.Stat(); err == nil {
			r.size = fi.Size()
		}
	}
	if r.size+int64(len(p)) > r.maxSize {
		if err := r.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := r.file.Write(p)
	r.size += int64(n)
	return n, err
}

// Close closes the file.
func (r *rotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

// rotate renames the file to its backup name, starts a new one with its
// mode, and removes and compresses the backups as configured.
func (r *rotatingFile) rotate() error {
	mode := os.FileMode(0o600)
	if fi, err := r.file.Stat(); err == nil {
		mode = fi.Mode()
	}
	if err := r.file.Close(); err != nil {
		return err
	}
	r.file = nil
	dir, prefix, ext := r.parts()
	backup := filepath.Join(dir, prefix+"-"+time.Now().UTC().Format(backupTimeFormat)+ext)
	if err := os.Rename(r.path, backup); err != nil {
		return fmt.Errorf("can't rename log file: %w", err)
	}
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("can't open new logfile: %w", err)
	}
	r.file, r.size = f, 0
	return r.cleanUp()
}

// parts splits the file's path as lumberjack does: directory, name
// without extension, extension.
func (r *rotatingFile) parts() (dir, prefix, ext string) {
	name := filepath.Base(r.path)
	ext = filepath.Ext(name)
	return filepath.Dir(r.path), name[:len(name)-len(ext)], ext
}

// cleanUp removes the backups beyond maxBackups (newest kept) and those
// older than maxAge, and gzips the others with compress.
func (r *rotatingFile) cleanUp() error {
	if r.maxBackups == 0 && r.maxAge == 0 && !r.compress {
		return nil
	}
	dir, prefix, ext := r.parts()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("can't read log file directory: %w", err)
	}
	type backup struct {
		name string
		t    time.Time
	}
	var backups []backup
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasPrefix(n, prefix+"-") {
			continue
		}
		stamp := strings.TrimPrefix(n, prefix+"-")
		switch {
		case strings.HasSuffix(stamp, ext+".gz"):
			stamp = strings.TrimSuffix(stamp, ext+".gz")
		case strings.HasSuffix(stamp, ext):
			stamp = strings.TrimSuffix(stamp, ext)
		default:
			continue
		}
		if t, err := time.Parse(backupTimeFormat, stamp); err == nil {
			backups = append(backups, backup{n, t})
		}
	}
	sort.Slice(backups, func(i, j int) bool { return backups[i].t.After(backups[j].t) })
	var remove []string
	if r.maxBackups > 0 {
		kept := map[string]bool{}
		var rest []backup
		for _, b := range backups {
			base := strings.TrimSuffix(b.name, ".gz")
			if kept[base] || len(kept) < r.maxBackups {
				kept[base] = true
				rest = append(rest, b)
			} else {
				remove = append(remove, b.name)
			}
		}
		backups = rest
	}
	if r.maxAge > 0 {
		cutoff := time.Now().Add(-r.maxAge)
		var rest []backup
		for _, b := range backups {
			if b.t.Before(cutoff) {
				remove = append(remove, b.name)
			} else {
				rest = append(rest, b)
			}
		}
		backups = rest
	}
	var errs []error
	for _, n := range remove {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			errs = append(errs, err)
		}
	}
	if r.compress {
		for _, b := range backups {
			if !strings.HasSuffix(b.name, ".gz") {
				if err := gzipFile(filepath.Join(dir, b.name)); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("audit log rotation: %w", errs[0])
	}
	return nil
}

// gzipFile replaces the file at path by path.gz.
func gzipFile(path string) (err error) {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(path+".gz", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, fi.Mode())
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = out.Close()
			_ = os.Remove(path + ".gz")
		}
	}()
	zw := gzip.NewWriter(out)
	if _, err = io.Copy(zw, in); err != nil {
		return err
	}
	if err = zw.Close(); err != nil {
		return err
	}
	if err = out.Close(); err != nil {
		return err
	}
	return os.Remove(path)
}
