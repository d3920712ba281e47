package examples

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sharechaos/sharechaos/internal/cluster/external"
)

// chaosMeshModule is the Chaos Mesh whose CRDs (manifests/crd.yaml of its
// Go module, from the Go module proxy) the manifests are validated against.
const chaosMeshModule = "github.com/chaos-mesh/chaos-mesh@v0.9.1-0.20260902003049-47411975a8cb"

// manifestSed is the part of a hook that renders a manifest of examples/k8s.
var manifestSed = regexp.MustCompile(`sed(?: -e '[^']*')+ examples/k8s/[a-z0-9-]+\.yaml`)

// TestKubernetesManifestsValidate renders examples/k8s as the hooks of
// examples/hooks/strimzi-chaos-mesh.yaml render them (each hook's own sed,
// for broker 2, the link 1-3, 100ms ± 20ms) and validates them, with the
// Strimzi Kafka and the Job, the way an API server with strict field
// validation would (k8s/validate: Kubernetes' and Strimzi's schemas by
// kubernetes-models, Chaos Mesh's CRDs by ajv, unknown fields refused).
// Broken copies (a misspelt field, a wrong enum, an unknown action) must
// be refused, each naming what is wrong.
func TestKubernetesManifestsValidate(t *testing.T) {
	validator := validatorFor(t)
	dir := t.TempDir()
	h, err := external.LoadHooks("hooks/strimzi-chaos-mesh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := external.HookData{Node: 2, From: 1, To: 3, Latency: "100ms", Jitter: "20ms", LatencyMs: 100, JitterMs: 20}
	var files []string
	for name, hook := range h.Hooks {
		line, err := hook.Render(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, sed := range manifestSed.FindAllString(line, -1) {
			cmd := exec.Command("sh", "-c", sed)
			cmd.Dir = ".."
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("hook %s: %s: %v", name, sed, err)
			}
			if strings.Contains(string(out), "@") {
				t.Errorf("hook %s leaves a placeholder in its manifest:\n%s", name, out)
			}
			f := filepath.Join(dir, string(name)+"-"+string(rune('a'+i))+".yaml")
			if err := os.WriteFile(f, out, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	// kill, isolate, disconnect and latency each apply one manifest.
	if len(files) != 4 {
		t.Fatalf("the hooks rendered %d manifests, want 4 (kill, isolate, disconnect, latency): %v", len(files), files)
	}
	files = append(files, "k8s/strimzi-kafka.yaml", "k8s/sharechaos-job.yaml")
	out, code := validator(files...)
	t.Logf("validate:\n%s", out)
	if code != 0 || strings.Count(out, "valid ") != len(files)+2 { // strimzi-kafka.yaml holds three documents
		t.Fatalf("exit %d, want every document valid:\n%s", code, out)
	}

	// Each broken copy is refused, naming the field.
	broken := []struct{ from, file, old, new, want string }{
		{"latency", "", "action: delay", "action: delayy", "/spec/action must be equal to one of the allowed values"},
		{"isolate", "", "direction: both", "directon: both", "must NOT have additional properties (directon)"},
		{"", "k8s/strimzi-kafka.yaml", "    listeners:", "    listners:", "must have required property listeners"},
		{"", "k8s/strimzi-kafka.yaml", "        deleteClaim: false", "        deleteClaims: false", "'\"deleteClaims\"' does not exist"},
		{"", "k8s/sharechaos-job.yaml", "restartPolicy: Never", "restartPolicy: Sometimes", "restartPolicy"},
		{"", "k8s/sharechaos-job.yaml", "          args:", "          argz:", "'\"argz\"' does not exist"},
	}
	for i, b := range broken {
		src := b.file
		if src == "" {
			src = filepath.Join(dir, b.from+"-a.yaml")
		}
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), b.old) {
			t.Fatalf("%s has no %q to break", src, b.old)
		}
		f := filepath.Join(dir, "broken-"+string(rune('a'+i))+".yaml")
		if err := os.WriteFile(f, []byte(strings.Replace(string(text), b.old, b.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := validator(f)
		if code != 1 || !strings.Contains(out, "INVALID "+f) || !strings.Contains(out, b.want) {
			t.Errorf("%s with %q: exit %d, want 1 and INVALID naming %q:\n%s", src, b.new, code, b.want, out)
		}
	}
}

// validatorFor installs k8s/validate's pinned packages (npm ci) and fetches
// Chaos Mesh's CRDs, and returns a function that validates files.
func validatorFor(t *testing.T) func(files ...string) (string, int) {
	t.Helper()
	for _, tool := range []string{"node", "npm", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("validating the Kubernetes manifests needs %s (Node.js and npm are on every machine this suite supports; Debian: apt-get install nodejs npm)", tool)
		}
	}
	npm := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	npm.Dir = "k8s/validate"
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in examples/k8s/validate: %v\n%s", err, out)
	}
	dl := exec.Command("go", "mod", "download", "-json", chaosMeshModule)
	dl.Dir = t.TempDir()
	out, err := dl.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", chaosMeshModule, err, out)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: no directory in %s", chaosMeshModule, out)
	}
	crds := filepath.Join(mod.Dir, "manifests", "crd.yaml")
	return func(files ...string) (string, int) {
		cmd := exec.Command("node", append([]string{"k8s/validate/validate.mjs", "--chaos-mesh-crds", crds}, files...)...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return string(out), 0
		case errors.As(err, &exit):
			return string(out), exit.ExitCode()
		default:
			t.Fatalf("node validate.mjs: %v\n%s", err, out)
			return "", -1
		}
	}
}
