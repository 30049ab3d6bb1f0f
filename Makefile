# kubectl-azure build entry points. Scripts under hack/ do the work so that
# CI, developers and the README run exactly the same steps.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/kubectl-azure/kubectl-azure/pkg/version.Version=$(VERSION)
# Static binaries: a kubectl plugin must run on any Linux without libc surprises.
export CGO_ENABLED := 0

.PHONY: all build test demo lint bench dist schema fuzz testenv conformance clean FORCE

all: build

build: bin/kubectl-azure bin/arm-emulator bin/kubectl_complete-azure

# kubectl completes `kubectl azure <TAB>` through this script on PATH.
bin/kubectl_complete-azure: bin/kubectl-azure
	bin/kubectl-azure completion kubectl >$@
	chmod 0755 $@

bin/%: FORCE
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $@ ./cmd/$*

# The one test command (README, .ci/run): vet, gofmt, test environment, all tests.
test:
	hack/test.sh

demo: build
	hack/demo.sh

lint:
	hack/lint.sh

# The emulator driven by the Azure SDK for Go, then by the Azure CLI where
# it is installed (part of make test).
conformance:
	hack/conformance.sh

bench: build
	hack/bench.sh

dist:
	VERSION=$(VERSION) hack/dist.sh

# Regenerate the embedded schema index from the Bicep type index and the
# Swagger specs (inputs and flags: docs/schema.md).
schema:
	$(GO) generate ./pkg/schema/...

# Each fuzz target for a minute; not part of CI.
fuzz:
	hack/fuzz.sh

testenv:
	hack/testenv/setup.sh

# The controller's image, named as `controller install` names it
# (kubectl-azure:VERSION), as an OCI archive under bin/: built with ko on a
# base made from scratch, with no Docker daemon and no registry pull.
.PHONY: image
image:
	VERSION=$(VERSION) hack/image.sh

clean:
	rm -rf bin dist
