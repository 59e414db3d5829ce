package deploy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/pdpp/pdpp-mcp/deploy"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/golden"
)

// limits are the binary's facts the manifests must fit.
var limits = deploy.Limits{ReadyHandlerTimeout: hosted.ReadyCheckTimeout, MinBlipTolerance: 20 * time.Second}

func loadDockerfile(t *testing.T, path string) deploy.Dockerfile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	df, err := deploy.ParseDockerfile(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return df
}

func loadManifests(t *testing.T, dir string) []deploy.Object {
	t.Helper()
	objs, err := deploy.LoadDir(dir)
	if err != nil {
		t.Fatalf("strict decoding: %v", err)
	}
	return objs
}

// TestManifestsDecodeStrictly: every committed manifest decodes into the
// Kubernetes API types with unknown and duplicate fields refused, and the
// set holds the kinds the deployment needs.
func TestManifestsDecodeStrictly(t *testing.T) {
	t.Parallel()
	var kinds []string
	for _, o := range loadManifests(t, "kubernetes") {
		kinds = append(kinds, o.Obj.GetObjectKind().GroupVersionKind().Kind)
	}
	slices.Sort(kinds)
	want := []string{"ConfigMap", "Deployment", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Service"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

// TestBrokenManifestsFail: each deliberately broken manifest in
// testdata/broken fails strict decoding for its own reason. A new file
// there without an entry here fails too.
func TestBrokenManifestsFail(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"unknown-field.yaml":     `unknown field "spec.template.spec.containers[0].readinessProbe.timeoutSecond"`,
		"duplicate-field.yaml":   `"image" already set`,
		"wrong-type.yaml":        "cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32",
		"misplaced-field.yaml":   `unknown field "spec.template.spec.containers[0].preStop"`,
		"unknown-kind.yaml":      `no kind "Ingress" is registered`,
		"wrong-api-version.yaml": `no kind "PodDisruptionBudget" is registered for version "policy/v1beta1"`,
	}
	files, err := filepath.Glob(filepath.Join("testdata", "broken", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no broken manifests: %v", err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			wantErr, ok := want[name]
			if !ok {
				t.Fatalf("testdata/broken/%s has no expected error in this test", name)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = deploy.Decode(name, f)
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("Decode error = %v\nwant one containing %q", err, wantErr)
			}
		})
	}
}

// TestPolicy: the committed image and manifests keep every operational
// invariant.
func TestPolicy(t *testing.T) {
	t.Parallel()
	got := deploy.Policy(loadManifests(t, "kubernetes"), loadDockerfile(t, "Dockerfile"), limits)
	if diff := cmp.Diff([]string(nil), got); diff != "" {
		t.Errorf("policy violations (-want +got):\n%s", diff)
	}
}

// TestPolicyOnTheOldDeployment: the earlier, insecure manifests
// (testdata/insecure) break the policy exactly as recorded in
// violations.golden (go test ./deploy -run OldDeployment -update).
func TestPolicyOnTheOldDeployment(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "insecure")
	got := deploy.Policy(loadManifests(t, dir), loadDockerfile(t, filepath.Join(dir, "Dockerfile")), limits)
	slices.Sort(got)
	text := strings.Join(got, "\n") + "\n"
	path := filepath.Join(dir, "violations.golden")
	want := golden.Read(t, path, []byte(text))
	if diff := cmp.Diff(string(want), text); diff != "" {
		t.Errorf("violations (-golden +got):\n%s", diff)
	}
}

// TestPolicyCatchesEachMistake breaks one invariant at a time in the good
// manifests and expects exactly the matching complaint.
func TestPolicyCatchesEachMistake(t *testing.T) {
	t.Parallel()
	type mutation func(*deploy.Dockerfile, *appsv1.Deployment, []deploy.Object) []deploy.Object
	cases := []struct {
		name   string
		mutate mutation
		want   string // the expected violations, " | " between them
	}{
		{"named user in the image", func(df *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			df.User = "nonroot:nonroot"
			return o
		}, `Dockerfile USER "nonroot:nonroot": want a numeric non-root UID:GID`},
		{"root user in the image", func(df *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			df.User = "0:0"
			return o
		}, `Dockerfile USER "0:0"`},
		{"latest base image", func(df *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			df.Bases[0] = "golang:latest"
			return o
		}, "Dockerfile FROM golang:latest: pin"},
		{"base image pinned by tag only", func(df *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			df.Bases[1] = "gcr.io/distroless/static-debian12:nonroot"
			return o
		}, "Dockerfile FROM gcr.io/distroless/static-debian12:nonroot: pin the base image by digest"},
		{"flag in the entrypoint", func(df *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			df.Entrypoint = append(df.Entrypoint, "--addr", "0.0.0.0:7670")
			return o
		}, "Dockerfile ENTRYPOINT passes --addr"},
		{"no runAsUser", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.SecurityContext.RunAsUser = nil
			return o
		}, "runAsUser must be the image's numeric non-root user 65532"},
		{"runAsUser not the image's", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.SecurityContext.RunAsUser = new(int64(1000))
			return o
		}, "runAsUser must be the image's"},
		{"latest image", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].Image = "ghcr.io/pdpp/pdpp-mcp:latest"
			return o
		}, `image "ghcr.io/pdpp/pdpp-mcp:latest": pin`},
		{"untagged image", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].Image = "ghcr.io/pdpp/pdpp-mcp"
			return o
		}, `image "ghcr.io/pdpp/pdpp-mcp": pin`},
		{"probe timeout not under period", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].LivenessProbe.TimeoutSeconds = 20
			return o
		}, "livenessProbe timeoutSeconds 20 must be shorter than periodSeconds 20"},
		{"readiness timeout under the handler's", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].ReadinessProbe.TimeoutSeconds = 1
			return o
		}, "readinessProbe timeoutSeconds 1s must exceed the /readyz handler's RS deadline 5s"},
		{"readiness drops pods at the first RS blip", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].ReadinessProbe.FailureThreshold = 1
			return o
		}, "readinessProbe takes a pod out after 10s of RS trouble"},
		{"grace period too short", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.TerminationGracePeriodSeconds = new(int64(15))
			return o
		}, "terminationGracePeriodSeconds 15 must exceed preStop 5s + shutdown 10s"},
		{"no preStop", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].Lifecycle = nil
			return o
		}, "no preStop"},
		{"shell preStop on distroless", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].Lifecycle.PreStop = &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "sleep 5"}}}
			return o
		}, "preStop must be a sleep action"},
		{"metrics on the public port", func(df *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			setEnv(d, "PDPP_MCP_METRICS_ADDR", "0.0.0.0:7670")
			return o
		}, "PDPP_MCP_METRICS_ADDR and PDPP_MCP_ADDR share port 7670 | container port metrics (9090) is not PDPP_MCP_METRICS_ADDR's port 7670 | annotation prometheus.io/port=9090 does not name the metrics port 7670"},
		{"no metrics address", func(df *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			delete(df.Env, "PDPP_MCP_METRICS_ADDR")
			setEnv(d, "PDPP_MCP_METRICS_ADDR", "")
			return o
		}, "PDPP_MCP_METRICS_ADDR is not set"},
		{"scrape annotation on the wrong port", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Annotations["prometheus.io/port"] = "7670"
			return o
		}, "annotation prometheus.io/port=7670 does not name the metrics port 9090"},
		{"Service exposes metrics", func(_ *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			s := find[*corev1.Service](o)
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromString("metrics")})
			return o
		}, "Service pdpp-mcp exposes the metrics port metrics"},
		{"memory limit as a constant", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			setEnv(d, "PDPP_MCP_MEMORY_LIMIT", "268435456")
			return o
		}, "PDPP_MCP_MEMORY_LIMIT must come from resourceFieldRef limits.memory"},
		{"GOMEMLIMIT at 100 %", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			c := &d.Spec.Template.Spec.Containers[0]
			c.Env = append(c.Env, corev1.EnvVar{Name: "GOMEMLIMIT", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory"}}})
			return o
		}, "GOMEMLIMIT is set: it overrides the 90 % share of the memory limit (set PDPP_MCP_MEMORY_LIMIT only)"},
		{"no topology spread", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.TopologySpreadConstraints = nil
			return o
		}, "no topologySpreadConstraints"},
		{"replicas fight the autoscaler", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Replicas = new(int32(3))
			return o
		}, "sets replicas while an autoscaler owns the count"},
		{"autoscaler floor of one", func(_ *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			find[*autoscalingv2.HorizontalPodAutoscaler](o).Spec.MinReplicas = new(int32(1))
			return o
		}, "minReplicas 1"},
		{"disruption budget blocks drains", func(_ *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			p := find[*policyv1.PodDisruptionBudget](o)
			p.Spec.MaxUnavailable, p.Spec.MinAvailable = nil, new(intstr.FromInt32(3))
			return o
		}, "minAvailable 3 ≥ minReplicas 3 blocks every node drain"},
		{"disruption budget selects nothing", func(_ *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			find[*policyv1.PodDisruptionBudget](o).Spec.Selector.MatchLabels = map[string]string{"app": "other"}
			return o
		}, "PodDisruptionBudget pdpp-mcp does not select"},
		// Several findings of one kind come in a fixed order (readiness
		// before liveness, ConfigMap keys sorted), not a map's.
		{"both probes missing", func(_ *deploy.Dockerfile, d *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			d.Spec.Template.Spec.Containers[0].ReadinessProbe = nil
			d.Spec.Template.Spec.Containers[0].LivenessProbe = nil
			return o
		}, "no readinessProbe | no livenessProbe"},
		{"secret-looking ConfigMap keys", func(_ *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			return append(o, deploy.Object{Source: "extra.yaml#0", Obj: &corev1.ConfigMap{Data: map[string]string{
				"z_secret": "x", "a_secret": "x", "m_secret": "x", "plain": "x"}}})
		}, `"a_secret"; secrets | "m_secret"; secrets | "z_secret"; secrets`},
		{"committed secret", func(_ *deploy.Dockerfile, _ *appsv1.Deployment, o []deploy.Object) []deploy.Object {
			return append(o, deploy.Object{Source: "secret.yaml#0", Obj: &corev1.Secret{StringData: map[string]string{"cursor_secret": "x"}}})
		}, "commits secret values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			objs := loadManifests(t, "kubernetes")
			df := loadDockerfile(t, "Dockerfile")
			objs = tc.mutate(&df, find[*appsv1.Deployment](objs), objs)
			got := deploy.Policy(objs, df, limits)
			wants := strings.Split(tc.want, " | ")
			ok := len(got) == len(wants)
			for i := 0; ok && i < len(wants); i++ {
				ok = strings.Contains(got[i], wants[i])
			}
			if !ok {
				t.Errorf("violations = %q\nwant exactly %q", got, wants)
			}
		})
	}
}

// find returns the first object of type T.
func find[T any](objs []deploy.Object) T {
	for _, o := range objs {
		if v, ok := o.Obj.(T); ok {
			return v
		}
	}
	panic("no such object")
}

// setEnv sets a literal variable on the Deployment's container.
func setEnv(d *appsv1.Deployment, name, value string) {
	c := &d.Spec.Template.Spec.Containers[0]
	for i := range c.Env {
		if c.Env[i].Name == name {
			c.Env[i] = corev1.EnvVar{Name: name, Value: value}
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value})
}
