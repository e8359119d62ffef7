package store

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// noSpaceErrnos are the errors of a write that found no room: a full disk,
// a full quota, the process's file size limit (RLIMIT_FSIZE).
var noSpaceErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG}

// noSpace adds ErrNoSpace to the chain of a failed commit's error when the
// file could not be written for want of room. bbolt reports a failed grow
// of the file with the errno's text only ("file resize error: ..."), so the
// text is matched too.
func noSpace(err error) error {
	for _, errno := range noSpaceErrnos {
		if errors.Is(err, errno) || strings.Contains(err.Error(), errno.Error()) {
			return fmt.Errorf("%w: %w", ErrNoSpace, err)
		}
	}
	return err
}
