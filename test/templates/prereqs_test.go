package templates_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// What the quickstart repository's pipeline does before a sample runs,
// done here through the tool: the fixed resources its GEN-* values name
// (a vnet, a vault, an identity: test/ci-gen-setup upstream) exist in a
// group of their own, and a sample whose parameters say GET-PREREQ-NAME has
// its prereqs/ template deployed first, in another group, whose output NAME
// replaces the placeholder.

const (
	// prereqGroup holds a sample's prereqs/ deployment; the pipeline gives
	// it a group of its own too.
	prereqGroup = "rg-corpus-prereq"
	// prereqTemplate is the sample's prerequisite template, relative to its folder.
	prereqTemplate = "prereqs/prereq.azuredeploy.json"
)

// stage is a deployment made before the template's own: deleted after it.
type stage struct {
	label string // what the table names: "prereqs", "fixed resources"
	out   string // its manifests
	state string
}

// prepare makes what the template's parameters name before it runs and
// returns its parameters with every placeholder it can fill replaced (nil
// when the sample has none). false: the run is over, the result says why.
func (c *cycle) prepare(rel string) (*substitution, bool) {
	raw, err := os.ReadFile(filepath.Join(corpusDir, paramsOf(rel)))
	if err != nil {
		return nil, true
	}
	sub := substitute(rel, string(raw))
	c.res.secrets = append(c.res.secrets, sub.secrets...)
	if len(sub.fixed) > 0 && !c.makeFixed(sub.fixed) {
		return nil, false
	}
	if !strings.Contains(sub.text, "GET-PREREQ-") {
		return &sub, true
	}
	outs, ok := c.deployPrereq(rel)
	if !ok {
		return nil, false
	}
	sub.text = fillPrereqOutputs(sub.text, outs)
	sub.prerequisites = unresolved(sub)
	if left := prereqOutputRE.FindAllString(sub.text, -1); len(left) > 0 {
		cls, why := missingOutputs(rel, left)
		c.res.fail(cls, "prereqs", why+c.outputsWarning)
		return nil, false
	}
	return &sub, true
}

// missingOutputs says why placeholders are left: the prereqs template
// declares no such output (the sample's parameters are wrong, upstream's
// pipeline would fail too: a prerequisite the sample lacks), or convert
// gave it no value (a secret, or a value known only while deploying:
// not expressible).
func missingOutputs(rel string, left []string) (class, string) {
	declared := outputTypes(filepath.Join(corpusDir, path.Dir(rel), prereqTemplate))
	var absent, unknown []string
	for _, ph := range left {
		if _, ok := declared[strings.ToLower(strings.TrimPrefix(ph, "GET-PREREQ-"))]; ok {
			unknown = append(unknown, ph)
		} else {
			absent = append(absent, ph)
		}
	}
	var why []string
	if len(absent) > 0 {
		why = append(why, fmt.Sprintf("%s declares no output for %s", prereqTemplate, strings.Join(absent, ", ")))
	}
	cls := classPrerequisite
	if len(unknown) > 0 {
		why = append(why, fmt.Sprintf("convert lists no value for %s among the prereqs' outputs", strings.Join(unknown, ", ")))
		if len(absent) == 0 {
			cls = classInexpressible
		}
	}
	return cls, strings.Join(why, "; ")
}

// unresolved lists the placeholders still standing for something that
// must exist: the flagged GEN-* values and every GET-PREREQ-* left.
func unresolved(sub substitution) []string {
	var out []string
	for _, p := range sub.prerequisites {
		if !strings.HasPrefix(p, "GET-PREREQ-") {
			out = append(out, p)
		}
	}
	return append(out, prereqOutputRE.FindAllString(sub.text, -1)...)
}

// fillPrereqOutputs replaces "GET-PREREQ-NAME", quotes included, with the
// JSON of output NAME, as the pipeline's Gen-TemplateParameters.ps1 does.
func fillPrereqOutputs(text string, outs map[string]string) string {
	names := make([]string, 0, len(outs))
	for n := range outs {
		names = append(names, n)
	}
	// Longest first, so that a name never replaces part of a longer one.
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		text = strings.ReplaceAll(text, `"GET-PREREQ-`+n+`"`, outs[n])
	}
	return text
}

// deployPrereq converts and applies the sample's prereqs/ template and
// returns its outputs, each as the JSON that replaces its placeholder.
func (c *cycle) deployPrereq(rel string) (map[string]string, bool) {
	tpl := path.Join(path.Dir(rel), prereqTemplate)
	if _, err := os.Stat(filepath.Join(corpusDir, tpl)); err != nil {
		c.res.fail(classPrerequisite, "prereqs", "the parameters name GET-PREREQ-* values and the sample has no "+prereqTemplate)
		return nil, false
	}
	st := stage{label: "prereqs", out: filepath.Join(c.work, "prereq-manifests"), state: filepath.Join(c.work, "prereq-state.json")}
	rg := prereqGroup
	if sameGroup(rel) {
		// One group, one state: the template's delete of its group then
		// takes the prerequisites with it as resources the state manages.
		rg, st.state = group, c.state
	}
	var sub *substitution
	if raw, err := os.ReadFile(filepath.Join(corpusDir, paramsOf(tpl))); err == nil {
		s := substitute(tpl, string(raw))
		c.res.secrets = append(c.res.secrets, s.secrets...)
		if len(s.fixed) > 0 && !c.makeFixed(s.fixed) {
			return nil, false // the prereqs' own GEN-* resources
		}
		sub = &s
	}
	args, err := convertCommand(tpl, rg, sub, filepath.Join(c.work, "prereq.azuredeploy.parameters.json"))
	if err != nil {
		c.res.fail(classTool, "setup", err.Error())
		return nil, false
	}
	conv := c.record("prereq convert", harness.RunRaw(append(args, "--output-dir", st.out)...))
	if !c.setEnv(conv.Stderr) {
		return nil, false
	}
	if m := outputsWarningRE.FindString(conv.Stderr); m != "" {
		c.outputsWarning = " (" + clip(strings.TrimSpace(exprRE.ReplaceAllString(m, ": "))) + ")"
	}
	if conv.Code != 0 {
		// The pipeline deploys the prereqs as it does any template: what
		// stops them is the converter's, or not expressible, as for a sample.
		cl, reason := convertVerdict(conv.Stderr)
		c.res.fail(cl, "prereqs", fmt.Sprintf("%s does not convert: %s", prereqTemplate, reason))
		return nil, false
	}
	if !c.applyStage(st) {
		return nil, false
	}
	outs, cls, why := c.prereqOutputs(tpl, st, conv.Stderr)
	if why != "" {
		c.res.fail(cls, "prereqs", why)
		return nil, false
	}
	return outs, true
}

// sameGroup says whether the pipeline deploys a sample's prerequisites
// into the sample's own group: its prereqs/.settings.json sets
// PrereqResourceGroupNameSuffix to "" (Gen-ResourceGroupNames.ps1 upstream).
func sameGroup(rel string) bool {
	raw, err := os.ReadFile(filepath.Join(corpusDir, path.Dir(rel), "prereqs", ".settings.json"))
	if err != nil {
		return false
	}
	var s struct {
		Suffix *string `json:"PrereqResourceGroupNameSuffix"`
	}
	return json.Unmarshal(raw, &s) == nil && s.Suffix != nil && *s.Suffix == ""
}

// applyStage applies a stage's manifests and queues its delete. A stage
// that fails to apply is the tool's or the emulator's failure, as the
// template's own apply would be: it holds what the test made or the
// sample's prereqs, never something missing.
func (c *cycle) applyStage(st stage) bool {
	c.stages = append(c.stages, st)
	r := c.record(st.label+" apply", harness.Run(c.arm.URL, st.state, "apply", "-f", st.out, "--yes"))
	if r.Code != 0 {
		c.res.fail(classifyRun(r.Stdout+r.Stderr), st.label, fmt.Sprintf("apply of the %s failed: %s", st.label, failure(r)))
		return false
	}
	return true
}

// deleteStages deletes what prepare made, last made first.
func (c *cycle) deleteStages() bool {
	for i := len(c.stages) - 1; i >= 0; i-- {
		st := c.stages[i]
		r := c.record(st.label+" delete", harness.Run(c.arm.URL, st.state, "delete", "-f", st.out, "--yes"))
		if r.Code != 0 {
			c.res.fail(classifyRun(r.Stdout+r.Stderr), st.label+" delete", failure(r))
			return false
		}
	}
	return true
}

// outputsWarningRE is convert's warning that it could not render the outputs.
var outputsWarningRE = regexp.MustCompile(`(?m)outputs: .*$`)

// outputLineRE is an output convert lists on stderr: its value, and the
// get command that reads it after apply when only Azure knows it.
// A replace()/split() output adds the steps that make it of that value.
var outputLineRE = regexp.MustCompile(`(?m)^output ([^:\s]+): (.*?)(?: \(after apply: kubectl azure get -f MANIFESTS (\S+) -o jsonpath='([^']*)'(?:, then transform: (\[.*\]))?\))?$`)

// prereqOutputs reads every output convert listed, with the tool once the
// prerequisites are applied. why says which output could not be read, and
// cls whose failure that is.
func (c *cycle) prereqOutputs(tpl string, st stage, stderr string) (outs map[string]string, cls class, why string) {
	types := outputTypes(filepath.Join(corpusDir, tpl))
	var live *liveIndex
	outs = map[string]string{}
	for _, m := range outputLineRE.FindAllStringSubmatch(stderr, -1) {
		name, value := m[1], m[2]
		if m[3] != "" {
			r := c.record("prereqs get", harness.Run(c.arm.URL, st.state, "get", "-f", st.out, m[3], "-o", "jsonpath="+m[4]))
			if r.Code != 0 {
				return nil, getClass(r.Stderr), fmt.Sprintf("output %s of the prereqs: get %s failed: %s", name, m[3], firstLine(r.Stderr))
			}
			value = strings.TrimSpace(r.Stdout)
			if m[5] != "" {
				if value, why = transformOutput(value, m[5]); why != "" {
					return nil, classTool, fmt.Sprintf("output %s of the prereqs: %s", name, why)
				}
			}
		}
		if strings.Contains(value, "${") {
			if value, cls, why = c.resolveLive(&live, st, value); why != "" {
				return nil, cls, fmt.Sprintf("output %s of the prereqs is %q: %s", name, m[2], why)
			}
		}
		if strings.HasPrefix(value, "(") && strings.HasSuffix(value, ")") {
			// (secret), (not converted: ...): convert gives no value.
			outs[name] = ""
			c.outputsWarning += fmt.Sprintf(" (output %s: %s)", name, clip(value))
			continue
		}
		outs[name] = outputJSON(value, types[strings.ToLower(name)])
	}
	for n, v := range outs {
		if v == "" {
			delete(outs, n)
		}
	}
	return outs, "", ""
}

// resolveLive replaces the references in an output's value with what the
// stage's resources hold, reading them once (live).
func (c *cycle) resolveLive(live **liveIndex, st stage, value string) (string, class, string) {
	if *live == nil {
		li, why := c.readLive(st)
		if why != "" {
			return "", classTool, why
		}
		*live = li
	}
	v, ok := (*live).resolve(value)
	if !ok {
		return "", classPrerequisite, "a reference the test cannot read"
	}
	return v, "", ""
}

// getClass judges a failed get of an output: a path the answer lacks is a
// value Azure fills in that the emulator does not (a key's versioned URI,
// a script's outputs); anything else is judged as a run is.
func getClass(stderr string) class {
	if strings.Contains(stderr, " is not found") {
		return classEmulator
	}
	return classifyRun(stderr)
}

// outputJSON is an output's value as the JSON text that replaces a
// quoted placeholder: strings quoted, other types as they are.
func outputJSON(value, typ string) string {
	switch typ {
	case "int", "bool", "array", "object":
		if json.Valid([]byte(value)) {
			return value
		}
	case "string", "securestring":
	default:
		if (strings.HasPrefix(value, "[") || strings.HasPrefix(value, "{")) && json.Valid([]byte(value)) {
			return value
		}
	}
	b, _ := json.Marshal(value)
	return string(b)
}

// outputTypes maps each output of a template, lower-cased, to its type
// lower-cased; empty when the template is not plain JSON.
func outputTypes(file string) map[string]string {
	out := map[string]string{}
	raw, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	var tpl struct {
		Outputs map[string]struct {
			Type string `json:"type"`
		} `json:"outputs"`
	}
	if json.Unmarshal(raw, &tpl) != nil {
		return out
	}
	for n, o := range tpl.Outputs {
		out[strings.ToLower(n)] = strings.ToLower(o.Type)
	}
	return out
}

// liveIndex answers the references convert leaves in outputs: each
// manifest's ARM ID and its body as get read it.
type liveIndex struct {
	// ids maps every way a reference names a manifest, lower-cased, to
	// its ARM ID: its metadata.name, and TYPE/NAME with NAME the
	// metadata.name or the ARM name (the form convert writes when two
	// resources of a template share a name, a site and a packet core).
	ids    map[string]string
	bodies map[string]map[string]any // by ARM ID
}

func newLiveIndex() *liveIndex {
	return &liveIndex{ids: map[string]string{}, bodies: map[string]map[string]any{}}
}

// add indexes one resource read back. A metadata.name two resources
// share names the first; the TYPE/NAME forms tell them apart.
func (li *liveIndex) add(name, typ, id string, body map[string]any) {
	leaf := id[strings.LastIndex(id, "/")+1:]
	for _, k := range []string{typ + "/" + name, typ + "/" + leaf, name} {
		if _, taken := li.ids[strings.ToLower(k)]; !taken {
			li.ids[strings.ToLower(k)] = id
		}
	}
	li.bodies[id] = body
}

// readLive reads every resource of a stage with `kubectl azure get -o json`
// and names each by its manifest.
func (c *cycle) readLive(st stage) (*liveIndex, string) {
	set, err := manifest.Load(context.Background(), manifest.LoadOptions{Filenames: []string{st.out}, Subscription: harness.Sub, Tenant: tenantID})
	if err != nil {
		return nil, "the prereqs' manifests do not load for their outputs: " + firstLine(err.Error())
	}
	r := c.record("prereqs get", harness.Run(c.arm.URL, st.state, "get", "-f", st.out, "-o", "json"))
	if r.Code != 0 {
		return nil, "get of the prereqs failed: " + firstLine(r.Stderr)
	}
	var list struct {
		Resources []struct {
			ID   string         `json:"id"`
			Body map[string]any `json:"body"`
		} `json:"resources"`
	}
	err = json.Unmarshal([]byte(r.Stdout), &list)
	// get prints the set's resources in the order Load gives them.
	got := list.Resources
	if err != nil || len(got) != len(set.Resources) {
		return nil, fmt.Sprintf("get -o json of the prereqs: %d resources for %d manifests (%v)", len(got), len(set.Resources), err)
	}
	li := newLiveIndex()
	for i, res := range set.Resources {
		li.add(res.Name, res.Type, got[i].ID, got[i].Body)
	}
	return li, ""
}

// refRE is a reference convert leaves in a value: ${ref:ARG}, ARG a
// manifest and, after a dot, a path into its body.
var refRE = regexp.MustCompile(`\$\{(ref:([^}]+)|subscriptionId|tenantId)\}`)

// resolve replaces every reference in v; false when one names nothing read.
func (li *liveIndex) resolve(v string) (string, bool) {
	ok := true
	out := refRE.ReplaceAllStringFunc(v, func(m string) string {
		g := refRE.FindStringSubmatch(m)
		switch g[1] {
		case "subscriptionId":
			return harness.Sub
		case "tenantId":
			return tenantID
		}
		id, p := li.split(g[2])
		if id == "" {
			ok = false
			return m
		}
		if p == "" {
			return id
		}
		val, found := lookup(li.bodies[id], p)
		ok = ok && found
		return val
	})
	return out, ok && !strings.Contains(out, "${")
}

// split divides a reference's argument into the ID of the manifest it
// names ("" when none) and the path after it, as the tool does: the
// longest prefix ending before a dot that names a manifest wins, since a
// TYPE/NAME form holds its namespace's dot and a name may hold dots too.
func (li *liveIndex) split(arg string) (id, path string) {
	for k := len(arg); k > 0; k-- {
		if k < len(arg) && arg[k] != '.' && arg[k] != '[' {
			continue
		}
		if id := li.ids[strings.ToLower(arg[:k])]; id != "" {
			return id, strings.TrimPrefix(arg[k:], ".")
		}
	}
	return "", ""
}

// lookup reads a dotted path (items as [n]) of a body as text.
func lookup(body map[string]any, p string) (string, bool) {
	var cur any = body
	for _, seg := range strings.Split(strings.ReplaceAll(p, "[", ".["), ".") {
		if seg == "" {
			continue
		}
		if strings.HasPrefix(seg, "[") {
			i, err := strconv.Atoi(strings.Trim(seg, "[]"))
			list, _ := cur.([]any)
			if err != nil || i < 0 || i >= len(list) {
				return "", false
			}
			cur = list[i]
			continue
		}
		m, _ := cur.(map[string]any)
		if m == nil {
			return "", false
		}
		cur = m[seg]
	}
	switch x := cur.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	default:
		b, _ := json.Marshal(x)
		return string(b), true
	}
}

// transformOutput applies the transform steps convert listed for an
// output (replace, split with an index; -1 the last part), as ARM's
// replace() and split()[i] do: written here from ARM's semantics, not the
// tool's, so the tool's listing is checked against them.
func transformOutput(value, steps string) (string, string) {
	var list []struct {
		Replace *struct{ Old, New string }
		Split   *struct {
			Separator  string
			Separators []string
			Index      int
		}
	}
	if err := json.Unmarshal([]byte(steps), &list); err != nil {
		return "", "transform " + steps + ": " + err.Error()
	}
	for _, st := range list {
		switch {
		case st.Replace != nil:
			value = strings.ReplaceAll(value, st.Replace.Old, st.Replace.New)
		case st.Split != nil:
			parts := []string{value}
			for _, sep := range append(st.Split.Separators, st.Split.Separator) {
				if sep == "" {
					continue
				}
				var next []string
				for _, p := range parts {
					next = append(next, strings.Split(p, sep)...)
				}
				parts = next
			}
			i := st.Split.Index
			if i < 0 {
				i += len(parts)
			}
			if i < 0 || i >= len(parts) {
				return "", fmt.Sprintf("split of %q has no part %d", value, st.Split.Index)
			}
			value = parts[i]
		default:
			return "", "unknown transform step in " + steps
		}
	}
	return value, ""
}
