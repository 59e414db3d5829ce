package ritest

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTrimWorkspace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in, want string
		wantErr        bool
	}{
		{
			name: "archive's workspace",
			in:   "packages:\n  - \"apps/*\"\n  - \"packages/*\"\n  - \"reference-implementation\"\n# note\noverrides:\n  \"@pdpp/cli\": \"workspace:*\"\n",
			want: "packages:\n  - \"packages/*\"\n  - \"!packages/operator-ui\"\n  - \"!packages/pdpp-brand-react\"\n  - \"reference-implementation\"\n# note\n" +
				"overrides:\n" + remoteSurfaceOverride + "  \"@pdpp/cli\": \"workspace:*\"\n",
		},
		{
			name: "no overrides section",
			in:   "packages:\n  - \"apps/*\"\n",
			want: "packages:\n  - \"packages/*\"\n  - \"!packages/operator-ui\"\n  - \"!packages/pdpp-brand-react\"\n  - \"reference-implementation\"\noverrides:\n" + remoteSurfaceOverride,
		},
		{
			name: "already trimmed: unchanged",
			in: "packages:\n  - \"packages/*\"\n  - \"!packages/operator-ui\"\n  - \"!packages/pdpp-brand-react\"\n  - \"reference-implementation\"\n" +
				"overrides:\n" + remoteSurfaceOverride,
			want: "packages:\n  - \"packages/*\"\n  - \"!packages/operator-ui\"\n  - \"!packages/pdpp-brand-react\"\n  - \"reference-implementation\"\n" +
				"overrides:\n" + remoteSurfaceOverride,
		},
		{name: "no packages list", in: "overrides:\n", wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := trimWorkspace(c.in)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzTrimWorkspace: whatever the file, a trimmed workspace lists no
// apps and holds the stand-in override exactly once.
func FuzzTrimWorkspace(f *testing.F) {
	f.Add("packages:\n  - \"apps/*\"\n  - \"packages/*\"\noverrides:\n  a: b\n")
	f.Add("x: 1\npackages:\n  - a\n")
	f.Fuzz(func(t *testing.T, in string) {
		out, err := trimWorkspace(in)
		if err != nil {
			return
		}
		if n := strings.Count(out, `"@opendatalabs/remote-surface"`); n < 1 {
			t.Fatalf("no stand-in override in %q", out)
		}
		if strings.Contains(workspacePackages.FindString(out), "apps/") {
			t.Fatalf("apps still in the workspace: %q", out)
		}
	})
}

func tarOf(t testing.TB, entries map[string]string) []byte {
	b, err := encodeTar(entries)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encodeTar(entries map[string]string) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for name, body := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			return nil, err
		}
	}
	err := tw.Close()
	return b.Bytes(), err
}

func TestUntar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		entries map[string]string
		want    map[string]string // files under the target, by relative path
		wantErr bool
	}{
		{name: "top folder stripped", entries: map[string]string{"pdpp/a.txt": "A", "pdpp/d/b.txt": "B"},
			want: map[string]string{"a.txt": "A", filepath.Join("d", "b.txt"): "B"}},
		{name: "escape refused", entries: map[string]string{"pdpp/../../evil": "x"}, wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			err := untar(bytes.NewReader(tarOf(t, c.entries)), dir, 1)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if c.wantErr {
				return
			}
			got := map[string]string{}
			_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() {
					rel, _ := filepath.Rel(dir, p)
					b, _ := os.ReadFile(p)
					got[rel] = string(b)
				}
				return nil
			})
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzUntarName: no entry name writes outside the target directory.
func FuzzUntarName(f *testing.F) {
	for _, s := range []string{"pdpp/a", "pdpp/../x", "/abs", "pdpp/./b/../../c", "a/b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		root := t.TempDir()
		dir := filepath.Join(root, "target")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		archive, err := encodeTar(map[string]string{name: "x"})
		if err != nil {
			t.Skip("a name archive/tar cannot write")
		}
		_ = untar(bytes.NewReader(archive), dir, 1)
		entries, _ := os.ReadDir(root)
		if len(entries) != 1 {
			t.Fatalf("entry %q wrote outside the target: %v", name, entries)
		}
	})
}
