package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
)

// staticToken is a credential that hands out one fixed token: the
// emulator does not check tokens, and the tests must not need Entra ID.
type staticToken struct{}

func (staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "conformance", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// env is what every suite needs: the subscription, a credential, client
// options aimed at the endpoint, and a raw pipeline for requests no typed
// client makes.
type env struct {
	sub      string
	endpoint string
	cred     azcore.TokenCredential
	opts     *arm.ClientOptions
	raw      *http.Client
	pollFreq time.Duration
}

func newEnv(endpoint, sub string) (*env, error) {
	conf := cloud.Configuration{
		ActiveDirectoryAuthorityHost: endpoint,
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: endpoint, Audience: "https://management.core.windows.net/"},
		},
	}
	opts := &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud: conf,
		// The emulator serves plain HTTP on loopback.
		InsecureAllowCredentialWithHTTP: true,
		Retry:                           policy.RetryOptions{MaxRetries: 2, RetryDelay: 10 * time.Millisecond},
	}}
	return &env{sub: sub, endpoint: endpoint, cred: staticToken{}, opts: opts, raw: &http.Client{Timeout: 30 * time.Second}, pollFreq: time.Second}, nil
}

func (e *env) poll() *runtime.PollUntilDoneOptions {
	return &runtime.PollUntilDoneOptions{Frequency: e.pollFreq}
}

// rg is the ID of a resource group in the test subscription.
func (e *env) rg(name string) string {
	return "/subscriptions/" + e.sub + "/resourceGroups/" + name
}

// armCode returns the ARM error code of err, or "" when it is no
// *azcore.ResponseError.
func armCode(err error) (int, string) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode, re.ErrorCode
	}
	return 0, ""
}

// wantError checks err is an ARM error with status and one of codes.
func wantError(err error, status int, codes ...string) error {
	if err == nil {
		return fmt.Errorf("succeeded; ARM answers %d %v", status, codes)
	}
	st, code := armCode(err)
	if st != status {
		return fmt.Errorf("status %d (%s); ARM answers %d %v", st, code, status, codes)
	}
	for _, c := range codes {
		if c == code {
			return nil
		}
	}
	return fmt.Errorf("code %q; ARM answers %v", code, codes)
}

func expect(cond bool, format string, args ...any) error {
	if cond {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// settle waits for the long-running operation the SDK started (or returns
// the error starting it gave).
func settle[T any](ctx context.Context, e *env, p *runtime.Poller[T], err error) error {
	if err != nil {
		return err
	}
	_, err = p.PollUntilDone(ctx, e.poll())
	return err
}

// put writes body to id with a raw request; any 2xx is success.
func (e *env) put(ctx context.Context, id, version, body string) error {
	res, b, err := e.rawDo(ctx, http.MethodPut, id+"?api-version="+version, body)
	if err != nil {
		return err
	}
	return expect(res.StatusCode < 300, "PUT %s@%s: %d %s", id, version, res.StatusCode, errorCode(b))
}

// getOK reads id with a raw request and wants 200.
func (e *env) getOK(ctx context.Context, id, version string) (map[string]any, error) {
	res, b, err := e.rawGet(ctx, id+"?api-version="+version)
	if err != nil {
		return nil, err
	}
	return b, expect(res.StatusCode == 200, "GET %s: %d %s", id, res.StatusCode, errorCode(b))
}

// postOK calls the action id with an empty body and wants 200.
func (e *env) postOK(ctx context.Context, id, version string) (map[string]any, error) {
	res, b, err := e.rawDo(ctx, http.MethodPost, id+"?api-version="+version, "")
	if err != nil {
		return nil, err
	}
	return b, expect(res.StatusCode == 200, "POST %s: %d %s", id, res.StatusCode, errorCode(b))
}

// listAll follows the SDK pager p to its last page and returns the items of
// every page (each page response's Value, of item type I).
func listAll[I, P any](ctx context.Context, p *runtime.Pager[P]) ([]I, error) {
	var out []I
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return out, err
		}
		v := reflect.ValueOf(page).FieldByName("Value")
		if !v.IsValid() {
			return out, fmt.Errorf("a %T page has no Value", page)
		}
		items, ok := v.Interface().([]I)
		if !ok {
			return out, fmt.Errorf("a %T page's Value is no %T", page, out)
		}
		out = append(out, items...)
	}
	return out, nil
}

// sizesOf follows p to its last page and returns how many items each
// page held.
func sizesOf[P any](ctx context.Context, p *runtime.Pager[P]) ([]int, error) {
	var out []int
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return out, err
		}
		v := reflect.ValueOf(page).FieldByName("Value")
		if !v.IsValid() || v.Kind() != reflect.Slice {
			return out, fmt.Errorf("a %T page has no Value list", page)
		}
		out = append(out, v.Len())
	}
	return out, nil
}

// countAll is how many items the pages of p hold together.
func countAll[P any](ctx context.Context, p *runtime.Pager[P]) (int, error) {
	sizes, err := sizesOf(ctx, p)
	return sum(sizes), err
}

func sum(ns []int) int {
	t := 0
	for _, n := range ns {
		t += n
	}
	return t
}

// storageV2 is the parameters of a Standard_LRS StorageV2 account in
// location.
func storageV2(tags map[string]*string) armstorage.AccountCreateParameters {
	return armstorage.AccountCreateParameters{Kind: to.Ptr(armstorage.KindStorageV2),
		SKU: &armstorage.SKU{Name: to.Ptr(armstorage.SKUNameStandardLRS)}, Location: to.Ptr(location), Tags: tags}
}
