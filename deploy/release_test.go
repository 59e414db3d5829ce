package deploy_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/pdpp/pdpp-mcp/deploy"
)

// goreleaserConfig is the part of .goreleaser.yaml the release promise
// rests on.
type goreleaserConfig struct {
	Version int `json:"version"`
	Builds  []struct {
		ID      string   `json:"id"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Env     []string `json:"env"`
		Goos    []string `json:"goos"`
		Goarch  []string `json:"goarch"`
		Flags   []string `json:"flags"`
		Ldflags []string `json:"ldflags"`
		Ignore  []any    `json:"ignore"`
	} `json:"builds"`
	Archives []struct {
		Formats []string `json:"formats"`
		Files   []string `json:"files"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
		Algorithm    string `json:"algorithm"`
		Disable      bool   `json:"disable"`
	} `json:"checksum"`
}

// TestReleaseConfig: the release builds static binaries for linux and
// darwin × amd64 and arm64, stamps the version, and publishes checksums.
// Offline on purpose; `make release-check` runs goreleaser's own check.
func TestReleaseConfig(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf("version %d, want goreleaser config version 2", cfg.Version)
	}
	if len(cfg.Builds) != 1 {
		t.Fatalf("%d builds, want 1", len(cfg.Builds))
	}
	b := cfg.Builds[0]
	type matrix struct{ Main, Binary, Goos, Goarch string }
	got := matrix{b.Main, b.Binary, strings.Join(slices.Sorted(slices.Values(b.Goos)), ","), strings.Join(slices.Sorted(slices.Values(b.Goarch)), ",")}
	if diff := cmp.Diff(matrix{"./cmd/pdpp-mcp", "pdpp-mcp", "darwin,linux", "amd64,arm64"}, got); diff != "" {
		t.Errorf("build matrix (-want +got):\n%s", diff)
	}
	if len(b.Ignore) > 0 {
		t.Errorf("the matrix ignores %v", b.Ignore)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("env %v lacks CGO_ENABLED=0: binaries must be static", b.Env)
	}
	if !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("flags %v lack -trimpath", b.Flags)
	}
	if !slices.ContainsFunc(b.Ldflags, func(l string) bool { return strings.Contains(l, "-X main.version=") }) {
		t.Errorf("ldflags %v do not stamp main.version", b.Ldflags)
	}
	if len(cfg.Archives) == 0 || !slices.Contains(cfg.Archives[0].Formats, "tar.gz") {
		t.Errorf("archives %+v: want tar.gz", cfg.Archives)
	}
	for _, a := range cfg.Archives {
		for _, f := range []string{"LICENSE", "NOTICE"} {
			if !slices.Contains(a.Files, f) {
				t.Errorf("archive files %v lack %s: the licence must travel with the binary", a.Files, f)
			}
		}
		for _, f := range a.Files {
			if _, err := os.Stat("../" + f); err != nil {
				t.Errorf("archive file %s: %v", f, err)
			}
		}
	}
	if cfg.Checksum.Disable || cfg.Checksum.NameTemplate == "" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v: want a sha256 checksum file", cfg.Checksum)
	}
}

// TestOneImageReference: the image the Deployment runs is the one `make
// image-push` publishes ($(IMAGE):<tag>), the README names the same
// reference, and that tag has release notes (docs/releases/<tag>.md), so
// the reference a reader copies is the one a release produces.
func TestOneImageReference(t *testing.T) {
	t.Parallel()
	objs, err := deploy.LoadDir("kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	var image string
	for _, o := range objs {
		if d, ok := o.Obj.(*appsv1.Deployment); ok {
			image = d.Spec.Template.Spec.Containers[0].Image
		}
	}
	repo, tag, ok := strings.Cut(image, ":")
	if !ok || !strings.HasPrefix(tag, "v") {
		t.Fatalf("Deployment image %q is not <repository>:v<version>", image)
	}
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^IMAGE\s*\?=\s*(\S+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("Makefile sets no IMAGE ?= …")
	}
	if diff := cmp.Diff(string(m[1]), repo); diff != "" {
		t.Errorf("Deployment image repository vs Makefile IMAGE (-Makefile +Deployment):\n%s", diff)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "`"+image+"`") {
		t.Errorf("README.md does not name the Deployment's image `%s`", image)
	}
	if _, err := os.Stat("../docs/releases/" + tag + ".md"); err != nil {
		t.Errorf("no release notes for the Deployment's tag %s: %v", tag, err)
	}
}

// TestLicence: the repository, the image and the archives carry one
// licence, Apache-2.0 (as the PDPP reference implementation): the LICENSE
// text, a NOTICE, and the image's licence label naming the same.
func TestLicence(t *testing.T) {
	t.Parallel()
	license, err := os.ReadFile("../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"} {
		if !strings.Contains(string(license), want) {
			t.Errorf("LICENSE lacks %q: not the Apache License 2.0 text", want)
		}
	}
	if notice, err := os.ReadFile("../NOTICE"); err != nil || !strings.Contains(string(notice), "Apache License, Version 2.0") {
		t.Errorf("NOTICE missing or not naming the Apache License, Version 2.0 (%v)", err)
	}
	df := loadDockerfile(t, "Dockerfile")
	if got := df.Labels["org.opencontainers.image.licenses"]; got != "Apache-2.0" {
		t.Errorf("Dockerfile licence label %q, want Apache-2.0", got)
	}
}
