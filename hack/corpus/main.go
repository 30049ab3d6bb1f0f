// Command corpus selects the ARM templates of testdata/quickstarts from a
// local git snapshot of Azure/azure-quickstart-templates (or a fork at the
// same commit) and copies them, with their parameter files, keeping their
// relative paths. It reads only the git directory it is given and downloads
// nothing; it is run by hand when the corpus is refreshed, never by CI or the
// tests.
//
//	go run ./hack/corpus -git-dir /path/to/azure-quickstart-templates.git -out testdata/quickstarts
//
// The selection rule (also in testdata/quickstarts/README.md):
//   - a sample is a directory under quickstarts/, application-workloads/ or
//     demos/ holding a metadata.json (the repository's mark of a sample);
//   - its template is the sample's azuredeploy.json, else its main.json;
//   - kept when the template is deployed at resource-group scope ($schema
//     deploymentTemplate.json; JSON with comments, as ARM accepts, included) and links no template by URI (no
//     "templateLink" anywhere); everything else that qualifies is kept, easy
//     or not;
//   - the sample's azuredeploy.parameters.json is copied beside it when present;
//   - when that file takes values from the sample's prerequisite deployment
//     (GET-PREREQ-...), the prerequisite template and its parameter file
//     (prereqs/prereq.azuredeploy.json, prereqs/prereq.azuredeploy.parameters.json)
//     are copied too, as the repository's pipeline deploys them first, with
//     prereqs/.settings.json when there is one (it names their group).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// roots are the top-level directories of the repository that hold samples.
var roots = []string{"quickstarts/", "application-workloads/", "demos/"}

func main() {
	gitDir := flag.String("git-dir", "", "bare git directory of the snapshot")
	rev := flag.String("rev", "HEAD", "commit to read")
	out := flag.String("out", "testdata/quickstarts", "directory to write")
	flag.Parse()
	if *gitDir == "" {
		fmt.Fprintln(os.Stderr, "corpus: -git-dir is required")
		os.Exit(2)
	}
	if err := run(*gitDir, *rev, *out); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func run(gitDir, rev, out string) error {
	files, err := listFiles(gitDir, rev)
	if err != nil {
		return err
	}
	blobs, err := newBlobReader(gitDir)
	if err != nil {
		return err
	}
	defer blobs.close()
	counts := map[string]int{}
	for _, dir := range sampleDirs(files) {
		tpl := templateOf(dir, files)
		if tpl == "" {
			counts["no template"]++
			continue
		}
		body, err := blobs.read(rev + ":" + tpl)
		if err != nil {
			return err
		}
		if reason := exclude(body); reason != "" {
			counts[reason]++
			continue
		}
		counts["kept"]++
		if err := write(out, tpl, body); err != nil {
			return err
		}
		params := path.Join(dir, "azuredeploy.parameters.json")
		if files[params] {
			pb, err := blobs.read(rev + ":" + params)
			if err != nil {
				return err
			}
			if err := write(out, params, pb); err != nil {
				return err
			}
			n, err := copyPrereqs(blobs, rev, dir, pb, files, out)
			if err != nil {
				return err
			}
			counts["with a prereqs/ template"] += n
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%-40s %d\n", k, counts[k])
	}
	return nil
}

// prereqFiles are what the repository's pipeline deploys before a sample
// whose parameters say GET-PREREQ-...: a template and its parameters.
// prereqs/.settings.json says when the pipeline deploys them into the
// sample's own group (PrereqResourceGroupNameSuffix "").
var prereqFiles = []string{"prereqs/prereq.azuredeploy.json", "prereqs/prereq.azuredeploy.parameters.json", "prereqs/.settings.json"}

// copyPrereqs copies a sample's prerequisite files when its parameters
// need them, and says whether it did (1) or not (0).
func copyPrereqs(blobs *blobReader, rev, dir string, params []byte, files map[string]bool, out string) (int, error) {
	if !bytes.Contains(params, []byte("GET-PREREQ-")) {
		return 0, nil
	}
	n := 0
	for _, f := range prereqFiles {
		p := path.Join(dir, f)
		if !files[p] {
			continue
		}
		b, err := blobs.read(rev + ":" + p)
		if err != nil {
			return 0, err
		}
		if err := write(out, p, b); err != nil {
			return 0, err
		}
		n = 1
	}
	return n, nil
}

func listFiles(gitDir, rev string) (map[string]bool, error) {
	raw, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "--name-only", "-z", rev).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	files := map[string]bool{}
	for _, f := range strings.Split(string(raw), "\x00") {
		if f != "" {
			files[f] = true
		}
	}
	return files, nil
}

// sampleDirs lists, sorted, the directories under roots holding a metadata.json.
func sampleDirs(files map[string]bool) []string {
	var dirs []string
	for f := range files {
		if path.Base(f) != "metadata.json" || !underRoots(f) {
			continue
		}
		dirs = append(dirs, path.Dir(f))
	}
	sort.Strings(dirs)
	return dirs
}

func underRoots(f string) bool {
	for _, r := range roots {
		if strings.HasPrefix(f, r) {
			return true
		}
	}
	return false
}

func templateOf(dir string, files map[string]bool) string {
	for _, name := range []string{"azuredeploy.json", "main.json"} {
		if p := path.Join(dir, name); files[p] {
			return p
		}
	}
	return ""
}

// schemaRE finds the template's $schema file name. A regular expression
// rather than a JSON decoder, because ARM accepts templates with comments,
// trailing commas and multi-line strings, and those are kept too.
var schemaRE = regexp.MustCompile(`"\$schema"\s*:\s*"[^"]*/([A-Za-z]+\.json)#?"`)

// exclude gives the reason a template is left out, or "".
func exclude(body []byte) string {
	m := schemaRE.FindSubmatch(body)
	if m == nil {
		return "no $schema"
	}
	if !strings.EqualFold(string(m[1]), "deploymentTemplate.json") {
		return "not resource-group scope"
	}
	if bytes.Contains(body, []byte(`"templateLink"`)) {
		return "links a template by URI"
	}
	return ""
}

func write(out, rel string, body []byte) error {
	dst := filepath.Join(out, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, body, 0o644)
}

// blobReader reads blobs through one `git cat-file --batch`.
type blobReader struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newBlobReader(gitDir string) (*blobReader, error) {
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &blobReader{cmd: cmd, in: in, out: bufio.NewReader(stdout)}, nil
}

func (b *blobReader) read(object string) ([]byte, error) {
	if _, err := fmt.Fprintln(b.in, object); err != nil {
		return nil, err
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return nil, fmt.Errorf("%s: %s", object, strings.TrimSpace(header))
	}
	size, err := strconv.Atoi(fields[2])
	if err != nil {
		return nil, err
	}
	body := make([]byte, size+1) // the blob and its trailing newline
	if _, err := io.ReadFull(b.out, body); err != nil {
		return nil, err
	}
	return body[:size], nil
}

func (b *blobReader) close() {
	_ = b.in.Close()
	_ = b.cmd.Wait()
}
