package deploy

import (
	"fmt"
	"maps"
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
	defaultProbePeriod       = 10
	defaultProbeTimeout      = 1
	defaultProbeFailures     = 3
	defaultGracePeriodSecs   = 30
	shutdownTimeoutEnv       = "PDPP_MCP_SHUTDOWN_TIMEOUT"
	addrEnv                  = "PDPP_MCP_ADDR"
	metricsAddrEnv           = "PDPP_MCP_METRICS_ADDR"
	prometheusPortAnnotation = "prometheus.io/port"
)

// Policy returns one line per broken operational invariant of the
// manifests and the image; none means the deployment can start, roll,
// drain and be scraped as documented.
func Policy(objs []Object, df Dockerfile, lim Limits) []string {
	var out findings
	out = append(out, dockerfilePolicy(df)...)
	set := groupObjects(objs, &out)
	if len(set.deployments) != 1 {
		out.add("want exactly one Deployment, found %d", len(set.deployments))
		return out
	}
	d := set.deployments[0]
	out = append(out, deploymentPolicy(d, df, lim)...)

	podLabels := labels.Set(d.Spec.Template.Labels)
	servicePolicy(&out, set.services, podLabels, portOf(envValue(d, df, metricsAddrEnv)))
	minReplicas := autoscalerPolicy(&out, set.autoscalers, d)
	disruptionBudgetPolicy(&out, set.budgets, podLabels, minReplicas)
	return out
}

// findings collects policy violations in the order they are found. Its
// zero value is nil, so a clean deployment yields a nil slice.
type findings []string

// add formats one violation.
func (f *findings) add(format string, a ...any) {
	*f = append(*f, fmt.Sprintf(format, a...))
}

// manifestSet holds the objects whose checks relate them to one another
// (to the single Deployment), grouped by kind in manifest order.
type manifestSet struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	budgets     []*policyv1.PodDisruptionBudget
	autoscalers []*autoscalingv2.HorizontalPodAutoscaler
}

// groupObjects sorts objs by kind. Secrets and ConfigMaps relate to
// nothing else, so they are checked on the way, in manifest order.
func groupObjects(objs []Object, out *findings) manifestSet {
	var set manifestSet
	for _, o := range objs {
		switch v := o.Obj.(type) {
		case *appsv1.Deployment:
			set.deployments = append(set.deployments, v)
		case *corev1.Service:
			set.services = append(set.services, v)
		case *policyv1.PodDisruptionBudget:
			set.budgets = append(set.budgets, v)
		case *autoscalingv2.HorizontalPodAutoscaler:
			set.autoscalers = append(set.autoscalers, v)
		case *corev1.Secret:
			secretPolicy(out, o.Source, v)
		case *corev1.ConfigMap:
			configMapPolicy(out, o.Source, v)
		}
	}
	return set
}

// secretPolicy: a committed Secret must be empty; its values are created
// out of band.
func secretPolicy(out *findings, source string, s *corev1.Secret) {
	if len(s.Data)+len(s.StringData) > 0 {
		out.add("%s: Secret %s commits secret values; create secrets out of band", source, s.Name)
	}
}

// configMapPolicy: no ConfigMap key that looks like a secret.
func configMapPolicy(out *findings, source string, cm *corev1.ConfigMap) {
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) { // findings in a stable order
		if strings.Contains(strings.ToLower(k), "secret") {
			out.add("%s: ConfigMap %s holds %q; secrets belong in a Secret", source, cm.Name, k)
		}
	}
}

// servicePolicy: every Service selects the Deployment's pods and none
// exposes the metrics port (by name or by number).
func servicePolicy(out *findings, services []*corev1.Service, podLabels labels.Set, metricsPort string) {
	for _, s := range services {
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) || len(s.Spec.Selector) == 0 {
			out.add("Service %s does not select the Deployment's pods", s.Name)
		}
		for _, p := range s.Spec.Ports {
			if p.TargetPort.String() == "metrics" || (metricsPort != "" && p.TargetPort.String() == metricsPort) {
				out.add("Service %s exposes the metrics port %s; metrics stay off the public Service", s.Name, p.TargetPort.String())
			}
		}
	}
}

// autoscalerPolicy: one autoscaler owns the Deployment's replica count
// with a floor of at least two. It returns that floor for the disruption
// budget check; with several autoscalers a later one without minReplicas
// keeps the floor of the one before.
func autoscalerPolicy(out *findings, hpas []*autoscalingv2.HorizontalPodAutoscaler, d *appsv1.Deployment) int32 {
	if len(hpas) != 1 {
		out.add("want one HorizontalPodAutoscaler, found %d", len(hpas))
	}
	minReplicas := int32(1)
	for _, h := range hpas {
		if h.Spec.ScaleTargetRef.Kind != "Deployment" || h.Spec.ScaleTargetRef.Name != d.Name {
			out.add("HorizontalPodAutoscaler %s does not scale Deployment %s", h.Name, d.Name)
		}
		if h.Spec.MinReplicas != nil {
			minReplicas = *h.Spec.MinReplicas
		}
		if minReplicas < 2 {
			out.add("HorizontalPodAutoscaler %s: minReplicas %d; at least 2 keep serving through a disruption", h.Name, minReplicas)
		}
		if d.Spec.Replicas != nil {
			out.add("Deployment %s sets replicas while an autoscaler owns the count; every apply would reset it", d.Name)
		}
	}
	return minReplicas
}

// disruptionBudgetPolicy: one PodDisruptionBudget selects the
// Deployment's pods and still lets a node drain.
func disruptionBudgetPolicy(out *findings, pdbs []*policyv1.PodDisruptionBudget, podLabels labels.Set, minReplicas int32) {
	if len(pdbs) != 1 {
		out.add("want one PodDisruptionBudget, found %d", len(pdbs))
	}
	for _, p := range pdbs {
		sel, err := metav1Selector(p.Spec.Selector)
		if err != nil || !sel.Matches(podLabels) {
			out.add("PodDisruptionBudget %s does not select the Deployment's pods", p.Name)
		}
		budgetDrainPolicy(out, p, minReplicas)
	}
}

// budgetDrainPolicy reports a budget that no eviction can satisfy:
// nothing may be unavailable, or at least as many pods must stay as the
// autoscaler's floor. A percentage minAvailable is not compared.
func budgetDrainPolicy(out *findings, p *policyv1.PodDisruptionBudget, minReplicas int32) {
	maxUnavailable, minAvailable := p.Spec.MaxUnavailable, p.Spec.MinAvailable
	switch {
	case maxUnavailable != nil && (maxUnavailable.String() == "0" || maxUnavailable.String() == "0%"):
		out.add("PodDisruptionBudget %s: maxUnavailable 0 blocks every node drain", p.Name)
	case minAvailable != nil && !strings.HasSuffix(minAvailable.String(), "%") && int32(minAvailable.IntValue()) >= minReplicas:
		out.add("PodDisruptionBudget %s: minAvailable %s ≥ minReplicas %d blocks every node drain", p.Name, minAvailable.String(), minReplicas)
	}
}

// dockerfilePolicy: numeric non-root user, base images pinned by digest,
// no flags in the entrypoint (a flag would silently beat the environment),
// and the licence in the image's metadata (registries and scanners read
// org.opencontainers.image.licenses; an image without it ships unlicensed).
func dockerfilePolicy(df Dockerfile) []string {
	var out []string
	if df.Labels[licenseLabel] == "" {
		out = append(out, fmt.Sprintf("Dockerfile: the final stage has no LABEL %s (an SPDX licence expression)", licenseLabel))
	}
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

// licenseLabel is the OCI image annotation naming the licence.
const licenseLabel = "org.opencontainers.image.licenses"

// deploymentPolicy checks the pod template. The checks run in a fixed
// order, which is the order of the findings.
func deploymentPolicy(d *appsv1.Deployment, df Dockerfile, lim Limits) []string {
	r := &deploymentReview{d: d, df: df, lim: lim}
	r.selector()
	r.podRunAsNonRoot()
	r.podUserAndGroup()
	r.topologySpread()
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		r.report("want one container, found %d", len(spec.Containers))
		return r.out
	}
	c := &spec.Containers[0]
	r.image(c)
	r.containerSecurityContext(c)
	r.probeTimeouts(c)
	r.readinessTolerance(c)
	r.draining(c)
	addrPort, metricsPort := portOf(envValue(d, df, addrEnv)), portOf(envValue(d, df, metricsAddrEnv))
	r.listenAddresses(addrPort, metricsPort)
	r.containerPorts(c, addrPort, metricsPort)
	r.scrapeAnnotation(metricsPort)
	r.probePorts(c, addrPort)
	r.memory(c)
	return r.out
}

// deploymentReview is one run of deploymentPolicy: the Deployment, the
// image it runs, the binary's limits, and the findings so far.
type deploymentReview struct {
	d   *appsv1.Deployment
	df  Dockerfile
	lim Limits
	out []string
}

// report adds a finding under the Deployment's name. The prefix is
// formatted on its own so that a % in the name stays literal.
func (r *deploymentReview) report(format string, a ...any) {
	r.out = append(r.out, fmt.Sprintf("Deployment %s: ", r.d.Name)+fmt.Sprintf(format, a...))
}

// podLabels are the labels of the pod template, which every selector must
// match.
func (r *deploymentReview) podLabels() labels.Set {
	return labels.Set(r.d.Spec.Template.Labels)
}

// selector: the Deployment's selector matches its own pods.
func (r *deploymentReview) selector() {
	if sel, err := metav1Selector(r.d.Spec.Selector); err != nil || !sel.Matches(r.podLabels()) {
		r.report("selector does not match the pod template labels")
	}
}

// podRunAsNonRoot: the pod's securityContext sets runAsNonRoot.
func (r *deploymentReview) podRunAsNonRoot() {
	psc := r.d.Spec.Template.Spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		r.report("pod securityContext.runAsNonRoot must be true")
	}
}

// podUserAndGroup: the pod runs as the image's numeric user and group, so
// the kubelet can verify runAsNonRoot. When the image has no numeric
// non-root user (the Dockerfile check reports that), any non-root user
// will do.
func (r *deploymentReview) podUserAndGroup() {
	uid, gid, _ := numericUser(r.df.User)
	psc := r.d.Spec.Template.Spec.SecurityContext
	switch {
	case uid == 0:
		if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
			r.report("pod securityContext.runAsUser must be a numeric non-root user")
		}
	case psc == nil || psc.RunAsUser == nil || *psc.RunAsUser != uid:
		r.report("pod securityContext.runAsUser must be the image's numeric non-root user %d", uid)
	case psc.RunAsGroup == nil || *psc.RunAsGroup != gid:
		r.report("pod securityContext.runAsGroup must be the image's numeric group %d", gid)
	}
}

// topologySpread: replicas are spread, and every constraint counts the
// Deployment's own pods.
func (r *deploymentReview) topologySpread() {
	constraints := r.d.Spec.Template.Spec.TopologySpreadConstraints
	if len(constraints) == 0 {
		r.report("no topologySpreadConstraints: replicas may share one node or zone")
	}
	for _, c := range constraints {
		if sel, err := metav1Selector(c.LabelSelector); err != nil || !sel.Matches(r.podLabels()) {
			r.report("topology spread over %s does not select the Deployment's pods", c.TopologyKey)
		}
	}
}

// image: the container runs a pinned release, not a floating tag.
func (r *deploymentReview) image(c *corev1.Container) {
	if floatingImage(c.Image) {
		r.report("image %q: pin a release tag or digest, not latest", c.Image)
	}
}

// containerSecurityContext: no privilege escalation, read-only root
// filesystem; both must be set explicitly.
func (r *deploymentReview) containerSecurityContext(c *corev1.Container) {
	if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		r.report("container must disallow privilege escalation and use a read-only root filesystem")
	}
}

// namedProbe is one of the container's probes with its manifest name.
type namedProbe struct {
	name  string
	probe *corev1.Probe
}

// probesByName names the container's probes for the probe checks,
// readiness first, so findings about both come in one stable order.
func probesByName(c *corev1.Container) []namedProbe {
	return []namedProbe{{"readinessProbe", c.ReadinessProbe}, {"livenessProbe", c.LivenessProbe}}
}

// probeTimeouts: both probes exist and each times out before its next
// period starts.
func (r *deploymentReview) probeTimeouts(c *corev1.Container) {
	for _, np := range probesByName(c) {
		name, p := np.name, np.probe
		if p == nil {
			r.report("no %s", name)
			continue
		}
		period, timeout := orDefault(p.PeriodSeconds, defaultProbePeriod), orDefault(p.TimeoutSeconds, defaultProbeTimeout)
		if timeout >= period {
			r.report("%s timeoutSeconds %d must be shorter than periodSeconds %d", name, timeout, period)
		}
	}
}

// readinessTolerance: the readiness probe outlasts the /readyz handler's
// RS deadline and tolerates a brief RS outage before taking a pod out.
func (r *deploymentReview) readinessTolerance(c *corev1.Container) {
	p := c.ReadinessProbe
	if p == nil {
		return // probeTimeouts reported it
	}
	timeout := time.Duration(orDefault(p.TimeoutSeconds, defaultProbeTimeout)) * time.Second
	if timeout <= r.lim.ReadyHandlerTimeout {
		r.report("readinessProbe timeoutSeconds %v must exceed the /readyz handler's RS deadline %v", timeout, r.lim.ReadyHandlerTimeout)
	}
	tolerance := time.Duration(orDefault(p.FailureThreshold, defaultProbeFailures)*orDefault(p.PeriodSeconds, defaultProbePeriod)) * time.Second
	if tolerance < r.lim.MinBlipTolerance {
		r.report("readinessProbe takes a pod out after %v of RS trouble; tolerate at least %v (failureThreshold × periodSeconds)", tolerance, r.lim.MinBlipTolerance)
	}
}

// draining: the preStop sleep, then serve's shutdown, fit within the
// termination grace period.
func (r *deploymentReview) draining(c *corev1.Container) {
	preStop := r.preStopSeconds(c)
	shutdown, err := time.ParseDuration(envValue(r.d, r.df, shutdownTimeoutEnv))
	if err != nil {
		r.report("%s must be set to a duration so the grace period can be checked against it", shutdownTimeoutEnv)
	}
	grace := int64(defaultGracePeriodSecs)
	if g := r.d.Spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = *g
	}
	if need := time.Duration(preStop)*time.Second + shutdown; time.Duration(grace)*time.Second <= need {
		r.report("terminationGracePeriodSeconds %d must exceed preStop %ds + shutdown %v", grace, preStop, shutdown)
	}
}

// preStopSeconds is the preStop sleep; a missing or non-sleep hook is
// reported and counts as no wait.
func (r *deploymentReview) preStopSeconds(c *corev1.Container) int64 {
	switch {
	case c.Lifecycle == nil || c.Lifecycle.PreStop == nil:
		r.report("no preStop: SIGTERM arrives while load balancers still send requests")
	case c.Lifecycle.PreStop.Sleep != nil:
		return c.Lifecycle.PreStop.Sleep.Seconds
	default:
		r.report("preStop must be a sleep action: the distroless image has no shell or sleep binary")
	}
	return 0
}

// listenAddresses: the serving and metrics addresses are set and metrics
// have a port of their own.
func (r *deploymentReview) listenAddresses(addrPort, metricsPort string) {
	switch {
	case addrPort == "":
		r.report("%s is not set in the image or the Deployment", addrEnv)
	case metricsPort == "":
		r.report("%s is not set: /metrics would be served on the public port", metricsAddrEnv)
	case metricsPort == addrPort:
		r.report("%s and %s share port %s", metricsAddrEnv, addrEnv, metricsPort)
	}
}

// containerPorts: the container ports named http and metrics are the ports
// the binary listens on.
func (r *deploymentReview) containerPorts(c *corev1.Container, addrPort, metricsPort string) {
	ports := map[string]string{}
	for _, p := range c.Ports {
		ports[p.Name] = strconv.Itoa(int(p.ContainerPort))
	}
	if addrPort != "" && ports["http"] != addrPort {
		r.report("container port http (%s) is not %s's port %s", ports["http"], addrEnv, addrPort)
	}
	if metricsPort != "" && ports["metrics"] != metricsPort {
		r.report("container port metrics (%s) is not %s's port %s", ports["metrics"], metricsAddrEnv, metricsPort)
	}
}

// scrapeAnnotation: a prometheus.io/port annotation names the metrics
// port.
func (r *deploymentReview) scrapeAnnotation(metricsPort string) {
	if a := r.d.Spec.Template.Annotations[prometheusPortAnnotation]; a != "" && metricsPort != "" && a != metricsPort {
		r.report("annotation %s=%s does not name the metrics port %s", prometheusPortAnnotation, a, metricsPort)
	}
}

// probePorts: HTTP probes ask the serving port, not the metrics port.
func (r *deploymentReview) probePorts(c *corev1.Container, addrPort string) {
	for _, np := range probesByName(c) {
		name, p := np.name, np.probe
		if p != nil && p.HTTPGet != nil && p.HTTPGet.Port.String() != "http" && p.HTTPGet.Port.String() != addrPort {
			r.report("%s probes port %s instead of the serving port", name, p.HTTPGet.Port.String())
		}
	}
}

// memory: the container has a memory limit, PDPP_MCP_MEMORY_LIMIT follows
// it (the binary sets the Go soft limit to 90 % of it), and GOMEMLIMIT,
// which would override that share, is not set.
func (r *deploymentReview) memory(c *corev1.Container) {
	if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
		r.report("no memory limit")
	}
	if i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "PDPP_MCP_MEMORY_LIMIT" }); i < 0 ||
		c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.ResourceFieldRef == nil ||
		c.Env[i].ValueFrom.ResourceFieldRef.Resource != "limits.memory" {
		r.report("PDPP_MCP_MEMORY_LIMIT must come from resourceFieldRef limits.memory")
	}
	if slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "GOMEMLIMIT" }) {
		r.report("GOMEMLIMIT is set: it overrides the 90 %% share of the memory limit (set PDPP_MCP_MEMORY_LIMIT only)")
	}
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
