package dbg

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"os"
	"testing"
)

func TestEx(t *testing.T) {
	if err := schema.Explain(os.Stdout, schema.Default(), os.Getenv("Q"), schema.ExplainOptions{Output: os.Getenv("O"), Recursive: os.Getenv("R") != ""}); err != nil {
		t.Fatal(err)
	}
}
