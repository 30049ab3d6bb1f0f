package layout

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// WriteManifests renders rs as one multi-document manifest file.
func WriteManifests(w io.Writer, rs []Resource) error {
	for _, r := range rs {
		spec := map[string]any{"type": r.Type, "body": r.Body}
		if r.Group != "" {
			spec["resourceGroup"] = r.Group
		}
		doc := map[string]any{
			"apiVersion": "azure.kubectl.io/v1alpha1",
			"kind":       "Resource",
			"metadata":   map[string]any{"name": r.Name},
			"spec":       spec,
		}
		b, err := yaml.Marshal(doc)
		if err != nil {
			return fmt.Errorf("layout: %s: %w", r.Name, err)
		}
		if _, err := fmt.Fprintf(w, "---\n%s", b); err != nil {
			return err
		}
	}
	return nil
}

// WriteAzapi renders rs as a Terraform configuration of azapi_resource
// blocks (azapi v2: body as an HCL object, location and tags as
// attributes, parent_id naming the group's resource). Provider settings
// come from the environment (ARM_* variables), so the file holds no
// credentials; see docs/peer-comparison.md.
func WriteAzapi(w io.Writer, rs []Resource) error {
	var b strings.Builder
	b.WriteString(`terraform {
  required_providers {
    azapi = { source = "azure/azapi" }
  }
}

variable "subscription_id" { type = string }
variable "endpoint" { type = string }

provider "azapi" {
  subscription_id            = var.subscription_id
  skip_provider_registration = true
  endpoint = [{
    resource_manager_endpoint       = var.endpoint
    active_directory_authority_host = var.endpoint
    resource_manager_audience       = "https://management.core.windows.net/"
  }]
}
`)
	groups := map[string]string{}
	for _, r := range rs {
		label := tfLabel(r.Group, r.Name)
		parent := `"/subscriptions/${var.subscription_id}"`
		if r.Group != "" {
			g, ok := groups[r.Group]
			if !ok {
				return fmt.Errorf("layout: %s names group %s before it is declared", r.Name, r.Group)
			}
			parent = "azapi_resource." + g + ".id"
		} else {
			groups[r.Name] = label
		}
		body := map[string]any{}
		var location, tags any
		for k, v := range r.Body {
			switch k {
			case "location":
				location = v
			case "tags":
				tags = v
			default:
				body[k] = v
			}
		}
		fmt.Fprintf(&b, "\nresource \"azapi_resource\" %q {\n", label)
		fmt.Fprintf(&b, "  type      = %q\n  name      = %q\n  parent_id = %s\n", r.Type, r.Name, parent)
		if location != nil {
			fmt.Fprintf(&b, "  location  = %s\n", hcl(location, 1))
		}
		if tags != nil {
			fmt.Fprintf(&b, "  tags      = %s\n", hcl(tags, 1))
		}
		if len(body) > 0 {
			fmt.Fprintf(&b, "  body      = %s\n", hcl(body, 1))
		}
		b.WriteString("}\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var nonLabel = regexp.MustCompile(`[^A-Za-z0-9_]`)

// tfLabel makes a Terraform block label from a group and a name (labels
// allow letters, digits, underscores and dashes; dots are not allowed).
func tfLabel(group, name string) string {
	s := name
	if group != "" {
		s = group + "_" + name
	}
	return "r_" + nonLabel.ReplaceAllString(s, "_")
}

// hcl renders decoded JSON as an HCL expression with sorted keys.
func hcl(v any, depth int) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		pad := strings.Repeat("  ", depth+1)
		var b strings.Builder
		b.WriteString("{\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s%s = %s\n", pad, strconv.Quote(k), hcl(x[k], depth+1))
		}
		b.WriteString(strings.Repeat("  ", depth) + "}")
		return b.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = hcl(e, depth+1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		// ${ and %{ start template sequences in HCL strings.
		s := strings.NewReplacer("${", "$${", "%{", "%%{").Replace(x)
		return strconv.Quote(s)
	case nil:
		return "null"
	default:
		return fmt.Sprint(x)
	}
}
