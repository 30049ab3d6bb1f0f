package templates_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// class is why a template did not pass, or that it did.
type class string

const (
	classPass = class("pass")
	// classConverter: convert failed without naming a construct it cannot
	// express, or wrote manifests the tool does not load.
	classConverter = class("converter")
	// classInexpressible: convert refused, naming what has no manifest
	// form (a value known only while deploying, a linked template).
	classInexpressible = class("not expressible")
	// classTemplate: convert refused what ARM's validation refuses too (a
	// parameters file naming a parameter the template lacks, an expression
	// that does not parse, resourceId without a name for every type
	// segment): the deployment fails as published. Counted among the
	// templates the schema knows, as a failure.
	classTemplate = class("template error")
	// classTool: diff, apply or delete failed on the client side, a
	// re-plan was noisy, a second apply wrote, or delete left resources.
	classTool = class("tool")
	// classEmulator: the emulator refused a write; read the message to
	// judge whether Azure would refuse too.
	classEmulator = class("emulator")
	// classPrerequisite: an apply failure in a template whose parameters
	// name a resource that must exist before it (GEN-VNET-NAME, ...), which the
	// empty emulator does not hold; Azure would refuse it as well. Also a
	// sample that lacks what it needs: a parameter nobody gives a value, a
	// GET-PREREQ-* value its prereqs/ template does not make. The prereqs'
	// own failures are classed as a template's (converter, not expressible,
	// tool, emulator), step "prereqs".
	classPrerequisite = class("needs prerequisites")
	// classSchema: a resource type the schema index does not know; the
	// template is skipped.
	classSchema = class("schema does not know a type")
	// classNotRun: the test's deadline came before the template started.
	classNotRun = class("not run")
)

// classOrder is the table's order.
var classOrder = []class{classPass, classConverter, classTemplate, classInexpressible, classTool, classEmulator, classPrerequisite, classSchema, classNotRun}

// result is one template's outcome.
type result struct {
	template      string
	class         class
	step          string
	reason        string
	secrets       []string
	prerequisites []string
	outputs       []output
	// leaked names the first output a secret value appeared in, or "".
	leaked string
}

// output is one text a run produced: a command's stdout or stderr, a file.
type output struct{ label, text string }

func (r *result) fail(c class, step, reason string) result {
	if len(r.prerequisites) > 0 && step == "apply" && (c == classTool || c == classEmulator) {
		c = classPrerequisite
		reason += " (parameters name " + strings.Join(r.prerequisites, ", ") + ")"
	}
	r.class, r.step, r.reason = c, step, reason
	return *r
}

// scanLeaks records whether any secret value appears in any output, then
// drops the outputs.
func (r *result) scanLeaks() {
	for _, out := range r.outputs {
		for _, s := range r.secrets {
			if s != "" && strings.Contains(out.text, s) && r.leaked == "" {
				r.leaked = out.label
			}
		}
	}
	r.outputs = nil
}

// inexpressibleRE matches convert's messages for constructs a manifest
// cannot hold; every other refusal is the converter's.
var inexpressibleRE = regexp.MustCompile(`(?i)known only (while deploying|at deploy time|when)|linked template|not expressible|cannot be expressed|is not available in a|members cannot be read|a secret cannot be part of`)

// armRefusesRE is convert marking a problem ARM's validation shares.
var armRefusesRE = regexp.MustCompile(`ARM refuses the template: InvalidTemplate`)

// noValueRE is convert's refusal of a parameter the template gives no
// default and the sample's parameter file no value.
var noValueRE = regexp.MustCompile(`parameter \S+ has no value: give it`)

// classifyConvert judges convert's first error line: later lines may name
// other problems. A parameter nobody gives a value is no fault of the
// converter: it names something the sample expects to exist (a failover
// cluster, a container of secrets), and upstream's pipeline has no value
// for it either.
func classifyConvert(first string) class {
	switch {
	case armRefusesRE.MatchString(first):
		return classTemplate
	case inexpressibleRE.MatchString(first):
		return classInexpressible
	case noValueRE.MatchString(first):
		return classPrerequisite
	}
	return classConverter
}

// armRefusalRE matches an error the ARM endpoint answered (a status and
// ARM's error code), or an answer lacking a value Azure fills in (an
// action's keys, a server-generated property a reference reads), as
// opposed to an error the client raised itself.
var armRefusalRE = regexp.MustCompile(`\b[45]\d\d [A-Za-z ]+\([A-Za-z.]+\):|answer of \S+ has no |has no value in Azure after`)

func classifyRun(stderr string) class {
	if armRefusalRE.MatchString(stderr) || servedRE.MatchString(stderr) {
		return classEmulator
	}
	if m := absentExistingRE.FindStringSubmatch(stderr); m != nil && !harnessGroups[strings.ToLower(m[1])] {
		// The template reads a resource of a group nobody here makes
		// (its parameters name a cluster's machines, say): Azure would
		// refuse it as well until someone creates it.
		return classPrerequisite
	}
	return classTool
}

// absentExistingRE is the plan refusing a resource the manifests declare
// existing and Azure lacks; the group is the --output-dir file it is in.
var absentExistingRE = regexp.MustCompile(`\(\S*?([^/\s]+)\.yaml#\d+\) is annotated azure\.kubectl\.io/existing: true, but it does not exist in Azure`)

// harnessGroups are the groups the corpus makes itself: an absent resource
// there is the tool's or the emulator's fault, never a prerequisite.
var harnessGroups = map[string]bool{group: true, prereqGroup: true, genGroup: true}

// servedRE is the tool refusing an api-version because ARM's provider list
// (the emulator's) does not name it: the emulator's answer, whoever prints it.
var servedRE = regexp.MustCompile(`ARM does not serve api-version`)

// envRE finds the variables convert names on stderr for secure parameters.
var envRE = regexp.MustCompile(`environment variable ([A-Za-z_][A-Za-z0-9_]*)`)

func envNames(stderr string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range envRE.FindAllStringSubmatch(stderr, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// exprRE is a template expression quoted in convert's message: long, and
// the table's reader has the template.
var exprRE = regexp.MustCompile(`: \[.*\]: `)

// convertVerdict classes convert's refusal on its whole first error line
// (clipped, "known only when deployed" may be cut off) and gives the
// reason the table shows: that line without the expression it quotes,
// clipped.
func convertVerdict(stderr string) (class, string) {
	line := convertLine(stderr)
	return classifyConvert(line), clip(line)
}

func convertLine(stderr string) string {
	return fullFirstLine(exprRE.ReplaceAllString(stderr, ": "))
}

// failure is the line of an apply or delete that says what failed: a
// failed resource's with ARM's answer when there is one, else the error.
func failure(r harness.Result) string {
	out := r.Stdout + "\n" + r.Stderr
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "✗ failed") && !strings.Contains(l, "required: ") {
			continue
		}
		if m := armRefusalRE.FindStringIndex(l); m != nil {
			typ := ""
			if f := strings.Fields(l); len(f) > 2 {
				typ = strings.SplitN(f[2], ":", 2)[0] + ": "
			}
			l = typ + l[m[0]:]
		}
		return clip(l)
	}
	return firstLine(out)
}

func clip(s string) string {
	const max = 300
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// firstLine is the first line that says what went wrong.
func firstLine(s string) string { return clip(fullFirstLine(s)) }

// fullFirstLine is firstLine unclipped.
func fullFirstLine(s string) string {
	var first string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		if strings.Contains(strings.ToLower(l), "error") {
			first = l
			break
		}
	}
	return first
}

// unknownTypes names the resource types of a template the schema index
// lacks, or "" (also when the file is not plain JSON: convert judges it).
func unknownTypes(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var tpl map[string]any
	if json.Unmarshal(raw, &tpl) != nil {
		return ""
	}
	reg := schema.Default()
	missing := map[string]bool{}
	walkTypes(tpl["resources"], "", func(typ string) {
		if len(reg.Versions(typ)) == 0 {
			missing[typ] = true
		}
	})
	if len(missing) == 0 {
		return ""
	}
	names := make([]string, 0, len(missing))
	for n := range missing {
		names = append(names, n)
	}
	sort.Strings(names)
	return "not in the schema index: " + strings.Join(names, ", ")
}

// walkTypes calls fn with the full type of every resource declared, child
// resources and inline nested deployments included. resources is an array,
// or an object of symbolic names (languageVersion 2.0).
func walkTypes(resources any, parent string, fn func(string)) {
	var list []any
	switch rs := resources.(type) {
	case []any:
		list = rs
	case map[string]any:
		for _, r := range rs {
			list = append(list, r)
		}
	}
	for _, item := range list {
		r, _ := item.(map[string]any)
		typ, _ := r["type"].(string)
		if typ == "" || strings.HasPrefix(typ, "[") || r["existing"] == true {
			continue
		}
		if parent != "" && !strings.Contains(typ, ".") {
			typ = parent + "/" + typ
		}
		if strings.EqualFold(typ, "Microsoft.Resources/deployments") {
			if props, ok := r["properties"].(map[string]any); ok {
				if inner, ok := props["template"].(map[string]any); ok {
					walkTypes(inner["resources"], "", fn)
				}
			}
			continue
		}
		name, _ := r["name"].(string)
		fn(extensionType(typ, name))
		walkTypes(r["resources"], typ, fn)
	}
}

// extensionNamespaces are the providers of the extension types templates
// declare in the nested form without naming the provider in a literal:
// ARM's documentation of diagnostic settings, role assignments, links and
// locks gives each type's namespace.
var extensionNamespaces = map[string]string{
	"diagnosticsettings": "Microsoft.Insights",
	"roleassignments":    "Microsoft.Authorization",
	"locks":              "Microsoft.Authorization",
	"links":              "Microsoft.Resources",
}

// extensionNamespaceRE finds the provider an extension resource's name
// gives (vault/Microsoft.Insights/service).
var extensionNamespaceRE = regexp.MustCompile(`(?i)/(Microsoft\.[A-Za-z]+)/`)

// extensionType is the type ARM deploys for a resource declared in the
// nested extension form, type PARENT/providers/TYPE with name
// parent/NAMESPACE/name (the diagnostic settings of a vault): the extension
// type NAMESPACE/TYPE. Any other type is returned as it is.
func extensionType(typ, name string) string {
	i := strings.Index(strings.ToLower(typ), "/providers/")
	if i < 0 {
		return typ
	}
	ext := typ[i+len("/providers/"):]
	ns := extensionNamespaces[strings.ToLower(ext)]
	if m := extensionNamespaceRE.FindAllStringSubmatch(name, -1); m != nil {
		ns = m[len(m)-1][1]
	}
	if ns == "" {
		return typ
	}
	return ns + "/" + ext
}

// report is the classified outcome of a run.
type report struct{ results []result }

func summarise(rs []result) report { return report{results: rs} }

func (r report) count(c class) int {
	n := 0
	for _, x := range r.results {
		if x.class == c {
			n++
		}
	}
	return n
}

// known counts the templates whose types the schema knows (among those run).
func (r report) known() int { return len(r.results) - r.count(classSchema) - r.count(classNotRun) }

// passRate is in per cent of known.
func (r report) passRate() float64 {
	if r.known() == 0 {
		return 0
	}
	return 100 * float64(r.count(classPass)) / float64(r.known())
}

// leaks maps each template whose output held a secret value to the first
// output it appeared in.
func (r report) leaks() map[string]string {
	out := map[string]string{}
	for _, x := range r.results {
		if x.leaked != "" {
			out[x.template] = x.leaked
		}
	}
	return out
}

// target is the goal: the share of the templates whose types the
// schema knows that pass the whole cycle.
const target = 95.0

// table prints the counts by class, each against the denominator
// (the templates whose types the schema knows) and the target, then every
// failing template with its step and first error line, grouped by class.
func (r report) table() string {
	var b strings.Builder
	known := r.known()
	fmt.Fprintf(&b, "%-30s %6s %8s\n", "class", "count", "of known")
	for _, c := range classOrder {
		share := "-"
		if c != classSchema && c != classNotRun && known > 0 {
			share = fmt.Sprintf("%.1f%%", 100*float64(r.count(c))/float64(known))
		}
		fmt.Fprintf(&b, "%-30s %6d %8s\n", c, r.count(c), share)
	}
	need := int(math.Ceil(target/100*float64(known))) - r.count(classPass)
	fmt.Fprintf(&b, "pass rate: %.1f%% (%d of %d templates whose types the schema knows; %d in all); target %.0f%%: %d more to pass\n",
		r.passRate(), r.count(classPass), known, len(r.results), target, max(need, 0))
	for _, c := range classOrder[1:] {
		if r.count(c) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n== %s\n", c)
		for _, x := range r.results {
			if x.class == c {
				fmt.Fprintf(&b, "%s\t%s\t%s\n", x.template, x.step, x.reason)
			}
		}
	}
	return b.String()
}
