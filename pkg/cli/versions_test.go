package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type fakeVersions struct {
	served map[string][]string
	calls  int
}

func (f *fakeVersions) ProviderAPIVersions(_ context.Context, _, _ string) (map[string][]string, error) {
	f.calls++
	if f.served == nil {
		return nil, errors.New("unreachable")
	}
	return f.served, nil
}

func TestCheckVersions(t *testing.T) {
	const typ = "Microsoft.Storage/storageAccounts"
	set := func(versions ...string) *manifest.Set {
		s := &manifest.Set{}
		for i, v := range versions {
			s.Resources = append(s.Resources, &manifest.Resource{Type: typ, APIVersion: v, Origin: manifest.Origin{File: "st.yaml", Index: i},
				ID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st" + v})
		}
		return s
	}
	served := map[string][]string{"microsoft.storage/storageaccounts": {"2023-01-01", "2023-05-01", "2099-01-01", "2099-03-01"}}
	cases := []struct {
		name      string
		set       *manifest.Set
		arm       *fakeVersions
		wantCode  int
		wantWarn  string
		wantErr   string
		wantCalls int
	}{
		{"known version asks nothing", set("2023-05-01"), &fakeVersions{served: served}, 0, "", "", 0},
		{"served but not indexed warns", set("2099-01-01"), &fakeVersions{served: served}, 0, "ARM serves it", "", 1},
		{"not served is invalid input with the nearest", set("2099-02-01"), &fakeVersions{served: served}, ExitValidation, "", "nearest it serves: 2099-01-01, 2099-03-01", 1},
		{"one request per provider", set("2099-01-01", "2099-03-01"), &fakeVersions{served: served}, 0, "ARM serves it", "", 1},
		{"ARM unreachable warns", set("2099-02-01"), &fakeVersions{}, 0, "could not ask ARM", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var warn bytes.Buffer
			err := checkVersions(context.Background(), schema.Default(), tc.arm, tc.set, "", &warn)
			if got := exitCode(err); got != tc.wantCode {
				t.Fatalf("exit %d, want %d (%v)", got, tc.wantCode, err)
			}
			if tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q lacks %q", err, tc.wantErr)
			}
			if !strings.Contains(warn.String(), tc.wantWarn) {
				t.Errorf("warnings %q lack %q", warn.String(), tc.wantWarn)
			}
			if tc.arm.calls != tc.wantCalls {
				t.Errorf("%d provider requests, want %d", tc.arm.calls, tc.wantCalls)
			}
		})
	}
}

func TestNearestVersions(t *testing.T) {
	vs := []string{"2021-01-01", "2023-05-01", "2023-09-01", "2024-01-01-preview"}
	got := nearestVersions("2023-07-01", vs, 2)
	if strings.Join(got, ",") != "2023-09-01,2023-05-01" && strings.Join(got, ",") != "2023-05-01,2023-09-01" {
		t.Errorf("nearest = %v", got)
	}
	if got := nearestVersions("2023-07-01", nil, 3); len(got) != 0 {
		t.Errorf("nearest of none = %v", got)
	}
}
