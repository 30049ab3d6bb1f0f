package schema

import (
	"embed"
	"io/fs"
	"sync"
)

//go:generate go run ./internal/gen -out data

// embedded holds the index generated from the project's specs archive.
// Embedding costs nothing at init: the bytes sit in the binary's read-only
// data and are only touched when Default() is first used.
//
//go:embed data
var embedded embed.FS

var (
	defaultOnce sync.Once
	defaultReg  *Registry
)

// Default returns the registry built into the binary. It is cheap to call:
// nothing is decoded until the first Lookup, Versions or Types.
func Default() *Registry {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(embedded, "data")
		if err != nil {
			panic(err) // the embed pattern above guarantees the folder
		}
		defaultReg = newRegistry(sub, "embedded")
	})
	return defaultReg
}
