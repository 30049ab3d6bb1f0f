package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// Numeric, comparison, logical and deployment-independent functions, as
// documented in "Numeric", "Comparison", "Logical" and "Deployment
// functions for ARM templates" (Microsoft Learn).

func init() {
	for name, f := range map[string]Func{
		"add": arith(func(a, b int64) (int64, error) { return a + b, nil }),
		"sub": arith(func(a, b int64) (int64, error) { return a - b, nil }),
		"mul": arith(func(a, b int64) (int64, error) { return a * b, nil }),
		"div": arith(func(a, b int64) (int64, error) {
			if b == 0 {
				return 0, fmt.Errorf("division by zero")
			}
			return a / b, nil // ARM truncates toward zero
		}),
		"mod": arith(func(a, b int64) (int64, error) {
			if b == 0 {
				return 0, fmt.Errorf("division by zero")
			}
			return a % b, nil
		}),
		"int": fInt, "float": fFloat, "bool": fBool,
		"equals": fEquals, "less": compare(func(c int) bool { return c < 0 }),
		"lessorequals": compare(func(c int) bool { return c <= 0 }), "greater": compare(func(c int) bool { return c > 0 }),
		"greaterorequals": compare(func(c int) bool { return c >= 0 }),
		"and":             logic(true), "or": logic(false), "not": fNot, "coalesce": fCoalesce,
		"true": constant(true), "false": constant(false),
		"environment": func(_ *Ctx, args []any) (any, error) { return publicCloud(), nargs(args, 0, 0) },
	} {
		builtins[name] = f
	}
}

func constant(v any) Func {
	return func(_ *Ctx, args []any) (any, error) { return v, nargs(args, 0, 0) }
}

func arith(op func(a, b int64) (int64, error)) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 2, 2); err != nil {
			return nil, err
		}
		a, err := intArg(c, args, 0)
		if err != nil {
			return nil, err
		}
		b, err := intArg(c, args, 1)
		if err != nil {
			return nil, err
		}
		return op(a, b)
	}
}

func fInt(c *Ctx, args []any) (any, error) {
	v, err := oneKnown(c, args)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		return int64(x), nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", x)
		}
		return n, nil
	}
	return nil, fmt.Errorf("wants a string or number, got %s", TypeName(v))
}

func fFloat(c *Ctx, args []any) (any, error) {
	v, err := oneKnown(c, args)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", x)
		}
		return f, nil
	}
	return nil, fmt.Errorf("wants a string or number, got %s", TypeName(v))
}

func fBool(c *Ctx, args []any) (any, error) {
	v, err := oneKnown(c, args)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	case string:
		return Bool(x)
	}
	return nil, fmt.Errorf("wants a string, integer or bool, got %s", TypeName(v))
}

func fEquals(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 2, 2); err != nil {
		return nil, err
	}
	a, ok := deepKnown(args[0])
	if !ok {
		return nil, deferred(c, args[0])
	}
	b, ok := deepKnown(args[1])
	if !ok {
		return nil, deferred(c, args[1])
	}
	return Equal(a, b), nil
}

// compare orders two integers, floats or strings (ordinally).
func compare(ok func(int) bool) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 2, 2); err != nil {
			return nil, err
		}
		a, known := Known(args[0])
		if !known {
			return nil, deferred(c, args[0])
		}
		b, known := Known(args[1])
		if !known {
			return nil, deferred(c, args[1])
		}
		if fa, isNum := num(a); isNum {
			fb, isNum := num(b)
			if !isNum {
				return nil, fmt.Errorf("cannot compare %s with %s", TypeName(a), TypeName(b))
			}
			return ok(cmpFloat(fa, fb)), nil
		}
		sa, isStr := a.(string)
		sb, isStr2 := b.(string)
		if !isStr || !isStr2 {
			return nil, fmt.Errorf("cannot compare %s with %s", TypeName(a), TypeName(b))
		}
		return ok(strings.Compare(sa, sb)), nil
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func logic(and bool) Func {
	return func(c *Ctx, args []any) (any, error) {
		if err := nargs(args, 2, -1); err != nil {
			return nil, err
		}
		for _, a := range args {
			b, err := Bool(a)
			if err != nil {
				return nil, err
			}
			if b != and {
				return !and, nil
			}
		}
		return and, nil
	}
}

func fNot(_ *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	b, err := Bool(args[0])
	return !b, err
}

// fCoalesce returns the first argument that is not null; an unknown value
// before any known one is returned as it is (deploy time decides).
func fCoalesce(_ *Ctx, args []any) (any, error) {
	for _, a := range args {
		v, ok := Known(a)
		if !ok {
			return a, nil
		}
		if v != nil {
			return a, nil
		}
	}
	return nil, nil
}

// publicCloud is environment() in Azure's public cloud, as ARM returns it
// (documented example in "Deployment functions for ARM templates").
func publicCloud() map[string]any {
	return map[string]any{
		"name":                    "AzureCloud",
		"gallery":                 "https://gallery.azure.com/",
		"graph":                   "https://graph.windows.net/",
		"portal":                  "https://portal.azure.com",
		"graphAudience":           "https://graph.windows.net/",
		"activeDirectoryDataLake": "https://datalake.azure.net/",
		"batch":                   "https://batch.core.windows.net/",
		"media":                   "https://rest.media.azure.net",
		"sqlManagement":           "https://management.core.windows.net:8443/",
		"vmImageAliasDoc":         "https://raw.githubusercontent.com/Azure/azure-rest-api-specs/master/arm-compute/quickstart-templates/aliases.json",
		"resourceManager":         "https://management.azure.com/",
		"authentication": map[string]any{
			"loginEndpoint":    "https://login.microsoftonline.com/",
			"audiences":        []any{"https://management.core.windows.net/", "https://management.azure.com/"},
			"tenant":           "common",
			"identityProvider": "AAD",
		},
		"suffixes": map[string]any{
			"acrLoginServer":                      ".azurecr.io",
			"azureDatalakeAnalyticsCatalogAndJob": "azuredatalakeanalytics.net",
			"azureDatalakeStoreFileSystem":        "azuredatalakestore.net",
			"azureFrontDoorEndpointSuffix":        "azurefd.net",
			"keyvaultDns":                         ".vault.azure.net",
			"sqlServerHostname":                   ".database.windows.net",
			"storage":                             "core.windows.net",
		},
	}
}

// oneKnown is the prologue of every function of one argument that needs
// its value now: exactly one argument, and deferred while it is unknown.
func oneKnown(c *Ctx, args []any) (any, error) {
	if err := nargs(args, 1, 1); err != nil {
		return nil, err
	}
	v, ok := Known(args[0])
	if !ok {
		return nil, deferred(c, args[0])
	}
	return v, nil
}
