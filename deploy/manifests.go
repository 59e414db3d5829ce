package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Object is one decoded manifest document and where it came from.
type Object struct {
	Source string         // file:document-index, for messages
	Obj    runtime.Object // a typed Kubernetes API object
}

// scheme knows exactly the kinds the manifests may use; anything else is
// an error rather than an unchecked blob.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme, autoscalingv2.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err) // static registration of the API packages
		}
	}
	return s
}()

// strictYAML decodes YAML into the registered Go types and fails on an
// unknown or duplicated field, as `kubectl apply --validate=strict` would.
var strictYAML = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
	json.SerializerOptions{Yaml: true, Strict: true})

// Decode strictly decodes every document of a multi-document YAML stream.
// Documents holding only comments are skipped.
func Decode(name string, r io.Reader) ([]Object, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var out []Object
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if isBlankYAML(doc) {
			continue
		}
		src := fmt.Sprintf("%s#%d", name, i)
		obj, _, err := strictYAML.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		out = append(out, Object{Source: src, Obj: obj})
	}
}

// isBlankYAML reports a document of only comments and whitespace.
func isBlankYAML(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

// LoadDir strictly decodes every *.yaml and *.yml file of dir, in name
// order.
func LoadDir(dir string) ([]Object, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Object
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !slices.Contains([]string{".yaml", ".yml"}, strings.ToLower(filepath.Ext(e.Name()))) {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objs, err := Decode(e.Name(), f)
		f.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, objs...)
	}
	if len(out) == 0 && len(errs) == 0 {
		return nil, fmt.Errorf("%s: no manifests", dir)
	}
	return out, errors.Join(errs...)
}
