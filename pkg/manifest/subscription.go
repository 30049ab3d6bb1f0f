package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// azureProfile is the part of the Azure CLI's azureProfile.json we read.
type azureProfile struct {
	Subscriptions []struct {
		ID        string `json:"id"`
		TenantID  string `json:"tenantId"`
		IsDefault bool   `json:"isDefault"`
	} `json:"subscriptions"`
}

// account is the resolved subscription and tenant, and where they came from.
type account struct {
	subscription, subSource string
	tenant, tenantSource    string
	// profileNote explains why the Azure CLI profile gave nothing, for the
	// "no subscription" message.
	profileNote string
}

// resolveAccount applies the documented order: explicit option, then
// environment, then the Azure CLI's default subscription.
func resolveAccount(o *LoadOptions) account {
	var a account
	if o.Subscription != "" {
		a.subscription, a.subSource = o.Subscription, "--subscription"
	} else if v, ok := o.LookupEnv("AZURE_SUBSCRIPTION_ID"); ok && strings.TrimSpace(v) != "" {
		a.subscription, a.subSource = strings.TrimSpace(v), "AZURE_SUBSCRIPTION_ID"
	}
	if o.Tenant != "" {
		a.tenant, a.tenantSource = o.Tenant, "tenant option"
	} else if v, ok := o.LookupEnv("AZURE_TENANT_ID"); ok && strings.TrimSpace(v) != "" {
		a.tenant, a.tenantSource = strings.TrimSpace(v), "AZURE_TENANT_ID"
	}
	if a.subscription != "" && a.tenant != "" {
		return a
	}
	prof, path, err := readAzureProfile(o.LookupEnv)
	if err != nil {
		a.profileNote = err.Error()
		return a
	}
	if prof == nil {
		return a
	}
	for _, s := range prof.Subscriptions {
		if a.subscription == "" && s.IsDefault {
			a.subscription, a.subSource = s.ID, "the Azure CLI default subscription ("+filepath.Base(path)+")"
		}
		if a.tenant == "" && strings.EqualFold(s.ID, a.subscription) && s.TenantID != "" {
			a.tenant, a.tenantSource = s.TenantID, "the Azure CLI profile"
		}
	}
	if a.subscription == "" {
		a.profileNote = "the Azure CLI profile has no default subscription"
	}
	return a
}

// readAzureProfile reads $AZURE_CONFIG_DIR/azureProfile.json, else
// ~/.azure/azureProfile.json. A missing file is not an error (nil profile).
func readAzureProfile(lookup func(string) (string, bool)) (*azureProfile, string, error) {
	dir, ok := lookup("AZURE_CONFIG_DIR")
	if !ok || dir == "" {
		home, ok := lookup("HOME")
		if !ok || home == "" {
			home, ok = lookup("USERPROFILE")
		}
		if !ok || home == "" {
			return nil, "", nil
		}
		dir = filepath.Join(home, ".azure")
	}
	path := filepath.Join(dir, "azureProfile.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("cannot read the Azure CLI profile: %v", err)
	}
	// The Azure CLI writes this file with a UTF-8 byte order mark.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var p azureProfile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, path, fmt.Errorf("the Azure CLI profile is not valid JSON (%v); run `az login` again", err)
	}
	return &p, path, nil
}

// Subscription resolves the subscription the way Load does: explicit, then
// $AZURE_SUBSCRIPTION_ID, then the Azure CLI's default subscription. It
// returns "" when none is configured. Commands that take no manifests
// (import --resource-group) use it so every command agrees.
func Subscription(explicit string) string {
	o := LoadOptions{Subscription: explicit}
	o.defaults()
	return resolveAccount(&o).subscription
}
