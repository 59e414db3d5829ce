package deploy

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Limits are facts of the binary the manifests must fit. Tests take them
// from the code (hosted.ReadyCheckTimeout) so that changing the code
// without the manifests fails.
type Limits struct {
	// ReadyHandlerTimeout bounds the RS check behind /readyz; the
	// readiness probe's timeout must be longer.
	ReadyHandlerTimeout time.Duration
	// MinBlipTolerance is how long the RS may be unreachable before the
	// readiness probe takes a pod out (failureThreshold × period).
	MinBlipTolerance time.Duration
}

// Kubernetes' defaults for fields the manifests may leave out.
const (
	defaultProbePeriod      = 10
	defaultProbeTimeout     = 1
	defaultProbeFailures    = 3
	defaultGracePeriodSecs  = 30
	shutdownTimeoutEnv      = "PDPP_MCP_SHUTDOWN_TIMEOUT"
	addrEnv                 = "PDPP_MCP_ADDR"
	metricsAddrEnv          = "PDPP_MCP_METRICS_ADDR"
	prometheusPortAnnotaton = "prometheus.io/port"
)

// Policy returns one line per broken operational invariant of the
// manifests and the image; none means the deployment can start, roll,
// drain and be scraped as documented.
func Policy(objs []Object, df Dockerfile, lim Limits) []string {
	var out []string
	report := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }

	out = append(out, dockerfilePolicy(df)...)
	var deps []*appsv1.Deployment
	var services []*corev1.Service
	var pdbs []*policyv1.PodDisruptionBudget
	var hpas []*autoscalingv2.HorizontalPodAutoscaler
	for _, o := range objs {
		switch v := o.Obj.(type) {
		case *appsv1.Deployment:
			deps = append(deps, v)
		case *corev1.Service:
			services = append(services, v)
		case *policyv1.PodDisruptionBudget:
			pdbs = append(pdbs, v)
		case *autoscalingv2.HorizontalPodAutoscaler:
			hpas = append(hpas, v)
		case *corev1.Secret:
			if len(v.Data)+len(v.StringData) > 0 {
				report("%s: Secret %s commits secret values; create secrets out of band", o.Source, v.Name)
			}
		case *corev1.ConfigMap:
			for k := range v.Data {
				if strings.Contains(strings.ToLower(k), "secret") {
					report("%s: ConfigMap %s holds %q; secrets belong in a Secret", o.Source, v.Name, k)
				}
			}
		}
	}
	if len(deps) != 1 {
		report("want exactly one Deployment, found %d", len(deps))
		return out
	}
	d := deps[0]
	out = append(out, deploymentPolicy(d, df, lim)...)

	podLabels := labels.Set(d.Spec.Template.Labels)
	metricsPort := portOf(envValue(d, df, metricsAddrEnv))
	for _, s := range services {
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) || len(s.Spec.Selector) == 0 {
			report("Service %s does not select the Deployment's pods", s.Name)
		}
		for _, p := range s.Spec.Ports {
			if p.TargetPort.String() == "metrics" || (metricsPort != "" && p.TargetPort.String() == metricsPort) {
				report("Service %s exposes the metrics port %s; metrics stay off the public Service", s.Name, p.TargetPort.String())
			}
		}
	}
	if len(hpas) != 1 {
		report("want one HorizontalPodAutoscaler, found %d", len(hpas))
	}
	minReplicas := int32(1)
	for _, h := range hpas {
		if h.Spec.ScaleTargetRef.Kind != "Deployment" || h.Spec.ScaleTargetRef.Name != d.Name {
			report("HorizontalPodAutoscaler %s does not scale Deployment %s", h.Name, d.Name)
		}
		if h.Spec.MinReplicas != nil {
			minReplicas = *h.Spec.MinReplicas
		}
		if minReplicas < 2 {
			report("HorizontalPodAutoscaler %s: minReplicas %d; at least 2 keep serving through a disruption", h.Name, minReplicas)
		}
		if d.Spec.Replicas != nil {
			report("Deployment %s sets replicas while an autoscaler owns the count; every apply would reset it", d.Name)
		}
	}
	if len(pdbs) != 1 {
		report("want one PodDisruptionBudget, found %d", len(pdbs))
	}
	for _, p := range pdbs {
		sel, err := metav1Selector(p.Spec.Selector)
		if err != nil || !sel.Matches(podLabels) {
			report("PodDisruptionBudget %s does not select the Deployment's pods", p.Name)
		}
		switch {
		case p.Spec.MaxUnavailable != nil && (p.Spec.MaxUnavailable.String() == "0" || p.Spec.MaxUnavailable.String() == "0%"):
			report("PodDisruptionBudget %s: maxUnavailable 0 blocks every node drain", p.Name)
		case p.Spec.MinAvailable != nil && !strings.HasSuffix(p.Spec.MinAvailable.String(), "%") && int32(p.Spec.MinAvailable.IntValue()) >= minReplicas:
			report("PodDisruptionBudget %s: minAvailable %s ≥ minReplicas %d blocks every node drain", p.Name, p.Spec.MinAvailable.String(), minReplicas)
		}
	}
	return out
}

// dockerfilePolicy: numeric non-root user, base images pinned by digest,
// no flags in the entrypoint (a flag would silently beat the environment).
func dockerfilePolicy(df Dockerfile) []string {
	var out []string
	if _, _, ok := numericUser(df.User); !ok {
		out = append(out, fmt.Sprintf("Dockerfile USER %q: want a numeric non-root UID:GID (runAsNonRoot cannot verify a name)", df.User))
	}
	for _, b := range df.Bases {
		switch {
		case floatingImage(b):
			out = append(out, fmt.Sprintf("Dockerfile FROM %s: pin a version tag or digest, not latest", b))
		case !strings.Contains(b, "@sha256:"):
			// A tag can be pushed again; only a digest names one image.
			out = append(out, fmt.Sprintf("Dockerfile FROM %s: pin the base image by digest (@sha256:…)", b))
		}
	}
	for _, a := range df.Entrypoint[min(2, len(df.Entrypoint)):] {
		if strings.HasPrefix(a, "-") {
			out = append(out, fmt.Sprintf("Dockerfile ENTRYPOINT passes %s; configure through ENV so the Deployment's variables take effect", a))
		}
	}
	return out
}

// deploymentPolicy checks the pod template.
func deploymentPolicy(d *appsv1.Deployment, df Dockerfile, lim Limits) []string {
	var out []string
	report := func(format string, a ...any) {
		out = append(out, fmt.Sprintf("Deployment %s: ", d.Name)+fmt.Sprintf(format, a...))
	}
	spec := d.Spec.Template.Spec
	podLabels := labels.Set(d.Spec.Template.Labels)
	if sel, err := metav1Selector(d.Spec.Selector); err != nil || !sel.Matches(podLabels) {
		report("selector does not match the pod template labels")
	}
	uid, gid, _ := numericUser(df.User)
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		report("pod securityContext.runAsNonRoot must be true")
	}
	switch {
	case uid == 0: // the Dockerfile check reports the image's user
		if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
			report("pod securityContext.runAsUser must be a numeric non-root user")
		}
	case psc == nil || psc.RunAsUser == nil || *psc.RunAsUser != uid:
		report("pod securityContext.runAsUser must be the image's numeric non-root user %d", uid)
	case psc.RunAsGroup == nil || *psc.RunAsGroup != gid:
		report("pod securityContext.runAsGroup must be the image's numeric group %d", gid)
	}
	if len(spec.TopologySpreadConstraints) == 0 {
		report("no topologySpreadConstraints: replicas may share one node or zone")
	}
	for _, c := range spec.TopologySpreadConstraints {
		if sel, err := metav1Selector(c.LabelSelector); err != nil || !sel.Matches(podLabels) {
			report("topology spread over %s does not select the Deployment's pods", c.TopologyKey)
		}
	}
	if len(spec.Containers) != 1 {
		report("want one container, found %d", len(spec.Containers))
		return out
	}
	c := spec.Containers[0]
	if floatingImage(c.Image) {
		report("image %q: pin a release tag or digest, not latest", c.Image)
	}
	if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		report("container must disallow privilege escalation and use a read-only root filesystem")
	}

	// Probes fit their handlers and tolerate a brief RS outage.
	for name, p := range map[string]*corev1.Probe{"readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe} {
		if p == nil {
			report("no %s", name)
			continue
		}
		period, timeout := orDefault(p.PeriodSeconds, defaultProbePeriod), orDefault(p.TimeoutSeconds, defaultProbeTimeout)
		if timeout >= period {
			report("%s timeoutSeconds %d must be shorter than periodSeconds %d", name, timeout, period)
		}
	}
	if p := c.ReadinessProbe; p != nil {
		timeout := time.Duration(orDefault(p.TimeoutSeconds, defaultProbeTimeout)) * time.Second
		if timeout <= lim.ReadyHandlerTimeout {
			report("readinessProbe timeoutSeconds %v must exceed the /readyz handler's RS deadline %v", timeout, lim.ReadyHandlerTimeout)
		}
		tolerance := time.Duration(orDefault(p.FailureThreshold, defaultProbeFailures)*orDefault(p.PeriodSeconds, defaultProbePeriod)) * time.Second
		if tolerance < lim.MinBlipTolerance {
			report("readinessProbe takes a pod out after %v of RS trouble; tolerate at least %v (failureThreshold × periodSeconds)", tolerance, lim.MinBlipTolerance)
		}
	}

	// Draining: preStop sleep, then serve's shutdown, within the grace period.
	preStop := int64(0)
	switch {
	case c.Lifecycle == nil || c.Lifecycle.PreStop == nil:
		report("no preStop: SIGTERM arrives while load balancers still send requests")
	case c.Lifecycle.PreStop.Sleep != nil:
		preStop = c.Lifecycle.PreStop.Sleep.Seconds
	default:
		report("preStop must be a sleep action: the distroless image has no shell or sleep binary")
	}
	shutdown, err := time.ParseDuration(envValue(d, df, shutdownTimeoutEnv))
	if err != nil {
		report("%s must be set to a duration so the grace period can be checked against it", shutdownTimeoutEnv)
	}
	grace := int64(defaultGracePeriodSecs)
	if spec.TerminationGracePeriodSeconds != nil {
		grace = *spec.TerminationGracePeriodSeconds
	}
	if need := time.Duration(preStop)*time.Second + shutdown; time.Duration(grace)*time.Second <= need {
		report("terminationGracePeriodSeconds %d must exceed preStop %ds + shutdown %v", grace, preStop, shutdown)
	}

	// Metrics on a port of their own, and the scrape annotation on it.
	addrPort, metricsPort := portOf(envValue(d, df, addrEnv)), portOf(envValue(d, df, metricsAddrEnv))
	switch {
	case addrPort == "":
		report("%s is not set in the image or the Deployment", addrEnv)
	case metricsPort == "":
		report("%s is not set: /metrics would be served on the public port", metricsAddrEnv)
	case metricsPort == addrPort:
		report("%s and %s share port %s", metricsAddrEnv, addrEnv, metricsPort)
	}
	ports := map[string]string{}
	for _, p := range c.Ports {
		ports[p.Name] = strconv.Itoa(int(p.ContainerPort))
	}
	if addrPort != "" && ports["http"] != addrPort {
		report("container port http (%s) is not %s's port %s", ports["http"], addrEnv, addrPort)
	}
	if metricsPort != "" && ports["metrics"] != metricsPort {
		report("container port metrics (%s) is not %s's port %s", ports["metrics"], metricsAddrEnv, metricsPort)
	}
	if a := d.Spec.Template.Annotations[prometheusPortAnnotaton]; a != "" && metricsPort != "" && a != metricsPort {
		report("annotation %s=%s does not name the metrics port %s", prometheusPortAnnotaton, a, metricsPort)
	}
	for name, p := range map[string]*corev1.Probe{"readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe} {
		if p != nil && p.HTTPGet != nil && p.HTTPGet.Port.String() != "http" && p.HTTPGet.Port.String() != addrPort {
			report("%s probes port %s instead of the serving port", name, p.HTTPGet.Port.String())
		}
	}

	// GOMEMLIMIT follows the container's memory limit.
	if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
		report("no memory limit")
	}
	if i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "GOMEMLIMIT" }); i < 0 ||
		c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.ResourceFieldRef == nil ||
		c.Env[i].ValueFrom.ResourceFieldRef.Resource != "limits.memory" {
		report("GOMEMLIMIT must come from resourceFieldRef limits.memory")
	}
	return out
}

// envValue is a literal environment value of the Deployment's container,
// else the image's ENV.
func envValue(d *appsv1.Deployment, df Dockerfile, name string) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == name && e.ValueFrom == nil {
				return e.Value
			}
		}
	}
	return df.Env[name]
}

// portOf is the port of HOST:PORT, or "".
func portOf(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return port
}

// numericUser parses "UID[:GID]" with a non-zero UID; GID defaults to UID.
func numericUser(u string) (uid, gid int64, ok bool) {
	us, gs, hasGroup := strings.Cut(u, ":")
	uid, err := strconv.ParseInt(us, 10, 64)
	if err != nil || uid == 0 {
		return 0, 0, false
	}
	gid = uid
	if hasGroup {
		if gid, err = strconv.ParseInt(gs, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return uid, gid, true
}

// floatingImage reports an image reference without a pinned version: no
// tag, or the tag latest, and no digest.
func floatingImage(ref string) bool {
	if strings.Contains(ref, "@sha256:") {
		return false
	}
	name := ref[strings.LastIndex(ref, "/")+1:]
	_, tag, ok := strings.Cut(name, ":")
	return !ok || tag == "" || tag == "latest"
}

func orDefault(v, def int32) int32 {
	if v == 0 {
		return def
	}
	return v
}

// metav1Selector converts a label selector; nil or empty selects nothing
// here (an empty selector matching everything is never what a manifest
// means).
func metav1Selector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}
