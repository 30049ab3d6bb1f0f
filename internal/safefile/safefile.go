// Package safefile opens files the tool reads as input (manifests, saved
// plans, status files) so that a FIFO, a device or a swapped path cannot
// block the process or feed it without end: only regular files are read,
// and reads are bounded.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError says a path names something other than a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: refusing to read it", e.Path, Describe(e.Mode))
}

// TooLargeError says a file holds more than the caller's bound.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Limit)
}

// Describe names a file type in words.
func Describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a plain file"
}

// IsNotRegular reports whether err comes from refusing a non-regular file.
func IsNotRegular(err error) bool {
	var nr *NotRegularError
	return errors.As(err, &nr)
}

// Open opens a regular file for reading. The path is checked with Stat
// before opening, so a device is never opened at all (opening some has
// effects), then opened without blocking (a FIFO swapped in meanwhile
// would otherwise block the open until a writer comes) and checked again
// on the open descriptor, so the file read is the file checked.
func Open(path string) (*os.File, error) {
	return open(path, false)
}

// OpenNoFollow is Open refusing a symbolic link in the last element: for
// a path already resolved and checked, so a link swapped in after the
// check is not followed.
func OpenNoFollow(path string) (*os.File, error) {
	return open(path, true)
}

func open(path string, noFollow bool) (*os.File, error) {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	fi, err := stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	flags := os.O_RDONLY | nonBlock
	if noFollow {
		flags |= noFollowFlag
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &NotRegularError{Path: path, Mode: fi.Mode()}
		}
		return nil, err
	}
	return f, nil
}

// ReadFile reads a regular file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAtMost(f, path, limit)
}

// ReadAtMost reads all of r, failing with *TooLargeError beyond limit
// bytes; name is the path the error names.
func ReadAtMost(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: name, Limit: limit}
	}
	return data, nil
}

// OpenStream opens a file named explicitly as input, which may be a pipe
// (`-f <(kustomize build)`) or a device: never a directory. The open does
// not block on a FIFO; reads on a pipe can be cut short with a deadline.
func OpenStream(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		f.Close()
		if err == nil {
			err = &NotRegularError{Path: path, Mode: fi.Mode()}
		}
		return nil, err
	}
	return f, nil
}
