package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Bounds on what the local backend reads. A state of 10,000 resources is
// about 15 MB; the bounds only stop a wrong path (a device, an endless
// file) from exhausting memory.
const (
	maxStateBytes  = 1 << 30
	maxKeyBytes    = 4 << 10
	maxHolderBytes = 64 << 10
)

// errNotRegular is wrapped by errors about a path that exists but is not a
// regular file: the tool reads and writes only regular files and never
// follows a symbolic link at a path it writes.
var errNotRegular = errors.New("not a regular file")

// kindOf names what a non-regular file is, for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// checkRegular returns nil when path is absent or a regular file (not a
// link to one), and an error wrapping errNotRegular otherwise.
func checkRegular(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is %s: %w; kubectl-azure reads and writes only regular files there, never through links", path, kindOf(fi.Mode()), errNotRegular)
	}
	return nil
}

// readRegular reads a regular file of at most max bytes without following
// a symbolic link and without blocking on a FIFO. A missing file is an
// error for which errors.Is(err, fs.ErrNotExist) holds.
func readRegular(path string, max int64) ([]byte, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if cerr := checkRegular(path); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w; kubectl-azure reads and writes only regular files there, never through links", path, kindOf(fi.Mode()), errNotRegular)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this file can be: it is not one kubectl-azure wrote", path, fi.Size(), max)
	}
	// Sized from Stat: io.ReadAll grows its buffer step by step and holds
	// about twice a large state while reading it.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(fh, max+1)); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s grew beyond %d bytes while being read: it is not one kubectl-azure wrote", path, max)
	}
	return b, nil
}
