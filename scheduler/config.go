package scheduler

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Configuration is kube-scheduler's configuration file,
// kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration.
type Configuration = configv1.KubeSchedulerConfiguration

// DefaultSchedulerName is the scheduler name of the one profile a
// configuration without profiles gets, and what the API server defaults a
// pod's spec.schedulerName to.
const DefaultSchedulerName = corev1.DefaultSchedulerName

// Plugin names, as kube-scheduler's configuration spells them.
const (
	SchedulingGates                 = "SchedulingGates"
	PrioritySort                    = "PrioritySort"
	NodeName                        = "NodeName"
	NodeUnschedulable               = "NodeUnschedulable"
	TaintToleration                 = "TaintToleration"
	NodeAffinity                    = "NodeAffinity"
	NodePorts                       = "NodePorts"
	NodeResourcesFit                = "NodeResourcesFit"
	VolumeRestrictions              = "VolumeRestrictions"
	NodeVolumeLimits                = "NodeVolumeLimits"
	VolumeBinding                   = "VolumeBinding"
	VolumeZone                      = "VolumeZone"
	PodTopologySpread               = "PodTopologySpread"
	InterPodAffinity                = "InterPodAffinity"
	DefaultPreemption               = "DefaultPreemption"
	NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation"
	ImageLocality                   = "ImageLocality"
	DefaultBinder                   = "DefaultBinder"
)

// defaultPlugins are kube-scheduler v1.37's default multiPoint plugins
// (feature-gated ones left out), in its order, with its score weights.
func defaultPlugins() *configv1.Plugins {
	w := func(n int32) *int32 { return &n }
	return &configv1.Plugins{MultiPoint: configv1.PluginSet{Enabled: []configv1.Plugin{
		{Name: SchedulingGates},
		{Name: PrioritySort},
		{Name: NodeName},
		{Name: NodeUnschedulable},
		{Name: TaintToleration, Weight: w(3)},
		{Name: NodeAffinity, Weight: w(2)},
		{Name: NodePorts},
		{Name: NodeResourcesFit, Weight: w(1)},
		{Name: VolumeRestrictions},
		{Name: NodeVolumeLimits},
		{Name: VolumeBinding},
		{Name: VolumeZone},
		{Name: PodTopologySpread, Weight: w(2)},
		{Name: InterPodAffinity, Weight: w(2)},
		// DynamicResourceAllocation (GA) puts it before DefaultPreemption,
		// so that its PostFilter deallocates an idle claim first.
		{Name: DynamicResources, Weight: w(2)},
		{Name: DefaultPreemption},
		{Name: NodeResourcesBalancedAllocation, Weight: w(1)},
		{Name: ImageLocality, Weight: w(1)},
		{Name: DefaultBinder},
	}}}
}

// LoadConfigFile reads a KubeSchedulerConfiguration file (--config), as
// LoadConfig does.
func LoadConfigFile(path string) (*Configuration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	cfg, err := LoadConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// LoadConfig decodes a KubeSchedulerConfiguration (YAML or JSON), strictly
// as kube-scheduler does (unknown fields are errors), applies kube-scheduler's
// defaults and validates it. Only kubescheduler.config.k8s.io/v1 is known:
// v1beta2 and v1beta3 were removed from kube-scheduler in v1.28 and v1.29.
func LoadConfig(data []byte) (*Configuration, error) {
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("couldn't decode as KubeSchedulerConfiguration: %w", err)
	}
	if head.Kind == "" {
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", bytes.TrimSpace(data))
	}
	if head.APIVersion != configv1.SchemeGroupVersion.String() || head.Kind != "KubeSchedulerConfiguration" {
		return nil, fmt.Errorf("no kind %q is registered for version %q", head.Kind, head.APIVersion)
	}
	cfg := &Configuration{}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("couldn't decode as KubeSchedulerConfiguration: %w", err)
	}
	strictErrs, err := kjson.UnmarshalStrict(js, cfg)
	if err != nil {
		return nil, fmt.Errorf("couldn't decode as KubeSchedulerConfiguration: %w", err)
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return nil, fmt.Errorf("strict decoding error: %s", strings.Join(msgs, ", "))
	}
	if err := Complete(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// NewConfig returns a configuration with the given profiles (none: one
// default-scheduler profile), defaulted and validated.
func NewConfig(profiles ...configv1.KubeSchedulerProfile) (*Configuration, error) {
	cfg := &Configuration{Profiles: profiles}
	if err := Complete(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Complete sets kube-scheduler's defaults on cfg and validates it: the
// errors are kube-scheduler's for the fields this scheduler uses.
func Complete(cfg *Configuration) error {
	cfg.APIVersion, cfg.Kind = configv1.SchemeGroupVersion.String(), "KubeSchedulerConfiguration"
	if err := setDefaults(cfg); err != nil {
		return err
	}
	return validate(cfg)
}

// setDefaults applies kube-scheduler's SetDefaults_KubeSchedulerConfiguration
// and plugin-args defaults.
func setDefaults(cfg *Configuration) error {
	if cfg.Parallelism == nil {
		cfg.Parallelism = ptr.To[int32](16)
	}
	if len(cfg.Profiles) == 0 {
		cfg.Profiles = append(cfg.Profiles, configv1.KubeSchedulerProfile{})
	}
	if len(cfg.Profiles) == 1 && cfg.Profiles[0].SchedulerName == nil {
		cfg.Profiles[0].SchedulerName = ptr.To(DefaultSchedulerName)
	}
	for i := range cfg.Profiles {
		if err := setProfileDefaults(&cfg.Profiles[i]); err != nil {
			return fmt.Errorf("profiles[%d]: %w", i, err)
		}
	}
	if cfg.PercentageOfNodesToScore == nil {
		cfg.PercentageOfNodesToScore = ptr.To[int32](0)
	}
	le := &cfg.LeaderElection
	if le.ResourceLock == "" {
		le.ResourceLock = "leases"
	}
	if le.ResourceNamespace == "" {
		le.ResourceNamespace = configv1.SchedulerDefaultLockObjectNamespace
	}
	if le.ResourceName == "" {
		le.ResourceName = configv1.SchedulerDefaultLockObjectName
	}
	componentbaseconfigv1alpha1.RecommendedDefaultLeaderElectionConfiguration(le)
	cc := &cfg.ClientConnection
	if cc.ContentType == "" {
		cc.ContentType = "application/vnd.kubernetes.protobuf"
	}
	if cc.QPS == 0 {
		cc.QPS = 50
	}
	if cc.Burst == 0 {
		cc.Burst = 100
	}
	if cfg.PodInitialBackoffSeconds == nil {
		cfg.PodInitialBackoffSeconds = ptr.To[int64](1)
	}
	if cfg.PodMaxBackoffSeconds == nil {
		cfg.PodMaxBackoffSeconds = ptr.To[int64](10)
	}
	if cfg.EnableProfiling == nil {
		cfg.EnableProfiling = ptr.To(true)
	}
	if *cfg.EnableProfiling && cfg.EnableContentionProfiling == nil {
		cfg.EnableContentionProfiling = ptr.To(true)
	}
	return nil
}

// setProfileDefaults merges the profile's plugins into the default ones and
// defaults the args of every enabled plugin that takes args.
func setProfileDefaults(prof *configv1.KubeSchedulerProfile) error {
	prof.Plugins = mergePlugins(defaultPlugins(), prof.Plugins)
	have := sets.New[string]()
	for i := range prof.PluginConfig {
		pc := &prof.PluginConfig[i]
		have.Insert(pc.Name)
		args, err := decodeArgs(pc.Name, pc.Args)
		if err != nil {
			return fmt.Errorf("pluginConfig[%d]: %w", i, err)
		}
		if args != nil {
			defaultArgs(args)
			pc.Args = runtime.RawExtension{Object: args}
		}
	}
	for _, name := range enabledNames(prof.Plugins) {
		if have.Has(name) {
			continue
		}
		args := newArgs(name)
		if args == nil {
			continue
		}
		defaultArgs(args)
		prof.PluginConfig = append(prof.PluginConfig, configv1.PluginConfig{Name: name, Args: runtime.RawExtension{Object: args}})
	}
	return nil
}

// mergePlugins merges custom into defaults per extension point as
// kube-scheduler does: disabled names (or "*") drop default plugins, a
// default plugin enabled again is replaced in place, other custom plugins
// are appended.
func mergePlugins(defaults, custom *configv1.Plugins) *configv1.Plugins {
	if custom == nil {
		return defaults
	}
	for _, p := range extensionPoints(defaults, custom) {
		*p.def = mergePluginSet(*p.def, *p.custom)
	}
	return defaults
}

type setPair struct{ def, custom *configv1.PluginSet }

func extensionPoints(d, c *configv1.Plugins) []setPair {
	return []setPair{
		{&d.MultiPoint, &c.MultiPoint}, {&d.PreEnqueue, &c.PreEnqueue}, {&d.QueueSort, &c.QueueSort},
		{&d.PreFilter, &c.PreFilter}, {&d.Filter, &c.Filter}, {&d.PostFilter, &c.PostFilter},
		{&d.PreScore, &c.PreScore}, {&d.Score, &c.Score}, {&d.Reserve, &c.Reserve},
		{&d.Permit, &c.Permit}, {&d.PreBind, &c.PreBind}, {&d.Bind, &c.Bind}, {&d.PostBind, &c.PostBind},
	}
}

func mergePluginSet(def, custom configv1.PluginSet) configv1.PluginSet {
	disabled := sets.New[string]()
	var disabledList []configv1.Plugin
	for _, p := range append(slices.Clone(custom.Disabled), def.Disabled...) {
		disabledList = append(disabledList, configv1.Plugin{Name: p.Name})
		disabled.Insert(p.Name)
	}
	customIndex := map[string]int{}
	for i, p := range custom.Enabled {
		customIndex[p.Name] = i
	}
	replaced := sets.New[int]()
	var enabled []configv1.Plugin
	if !disabled.Has("*") {
		for _, p := range def.Enabled {
			if disabled.Has(p.Name) {
				continue
			}
			if i, ok := customIndex[p.Name]; ok {
				p = custom.Enabled[i]
				replaced.Insert(i)
			}
			enabled = append(enabled, p)
		}
	}
	for i, p := range custom.Enabled {
		if !replaced.Has(i) {
			enabled = append(enabled, p)
		}
	}
	return configv1.PluginSet{Enabled: enabled, Disabled: disabledList}
}

// enabledNames lists the plugins enabled at any extension point, sorted.
func enabledNames(p *configv1.Plugins) []string {
	n := sets.New[string]()
	for _, s := range extensionPoints(p, &configv1.Plugins{}) {
		for _, e := range s.def.Enabled {
			n.Insert(e.Name)
		}
	}
	return sets.List(n)
}

// newArgs returns empty args of the plugins that take args this scheduler
// uses, nil for others.
func newArgs(plugin string) runtime.Object {
	switch plugin {
	case NodeResourcesFit:
		return &configv1.NodeResourcesFitArgs{}
	case NodeResourcesBalancedAllocation:
		return &configv1.NodeResourcesBalancedAllocationArgs{}
	case PodTopologySpread:
		return &configv1.PodTopologySpreadArgs{}
	case InterPodAffinity:
		return &configv1.InterPodAffinityArgs{}
	case DefaultPreemption:
		return &configv1.DefaultPreemptionArgs{}
	case NodeAffinity:
		return &configv1.NodeAffinityArgs{}
	}
	return nil
}

// decodeArgs decodes a pluginConfig's args for the plugins newArgs knows;
// other plugins' args are kept as they are.
func decodeArgs(plugin string, raw runtime.RawExtension) (runtime.Object, error) {
	args := newArgs(plugin)
	if args == nil {
		return nil, nil
	}
	if raw.Object != nil {
		if _, ok := raw.Object.(*runtime.Unknown); !ok {
			if fmt.Sprintf("%T", raw.Object) != fmt.Sprintf("%T", args) {
				return nil, fmt.Errorf("args: has to match plugin args")
			}
			return raw.Object, nil
		}
	}
	if len(raw.Raw) == 0 {
		return args, nil
	}
	strictErrs, err := kjson.UnmarshalStrict(raw.Raw, args)
	if err != nil {
		return nil, fmt.Errorf("decoding args for plugin %s: %w", plugin, err)
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return nil, fmt.Errorf("decoding args for plugin %s: strict decoding error: %s", plugin, strings.Join(msgs, ", "))
	}
	return args, nil
}

// defaultArgs applies kube-scheduler's defaults to plugin args.
func defaultArgs(args runtime.Object) {
	switch a := args.(type) {
	case *configv1.NodeResourcesFitArgs:
		if a.ScoringStrategy == nil {
			a.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.LeastAllocated}
		}
		if len(a.ScoringStrategy.Resources) == 0 {
			a.ScoringStrategy.Resources = defaultResourceSpec()
		}
		for i := range a.ScoringStrategy.Resources {
			if a.ScoringStrategy.Resources[i].Weight == 0 {
				a.ScoringStrategy.Resources[i].Weight = 1
			}
		}
	case *configv1.NodeResourcesBalancedAllocationArgs:
		if len(a.Resources) == 0 {
			a.Resources = defaultResourceSpec()
		}
		for i := range a.Resources {
			if a.Resources[i].Weight == 0 {
				a.Resources[i].Weight = 1
			}
		}
	case *configv1.PodTopologySpreadArgs:
		if a.DefaultingType == "" {
			a.DefaultingType = configv1.SystemDefaulting
		}
	case *configv1.InterPodAffinityArgs:
		if a.HardPodAffinityWeight == nil {
			a.HardPodAffinityWeight = ptr.To[int32](1)
		}
	case *configv1.DefaultPreemptionArgs:
		if a.MinCandidateNodesPercentage == nil {
			a.MinCandidateNodesPercentage = ptr.To[int32](10)
		}
		if a.MinCandidateNodesAbsolute == nil {
			a.MinCandidateNodesAbsolute = ptr.To[int32](100)
		}
	}
}

func defaultResourceSpec() []configv1.ResourceSpec {
	return []configv1.ResourceSpec{{Name: string(corev1.ResourceCPU), Weight: 1}, {Name: string(corev1.ResourceMemory), Weight: 1}}
}

// validate is kube-scheduler's ValidateKubeSchedulerConfiguration for the
// fields this scheduler uses, with its messages.
func validate(cfg *Configuration) error {
	var errs field.ErrorList
	le := cfg.LeaderElection
	lePath := field.NewPath("leaderElection")
	if ptr.Deref(le.LeaderElect, false) {
		if le.LeaseDuration.Duration <= 0 {
			errs = append(errs, field.Invalid(lePath.Child("leaseDuration"), le.LeaseDuration, "must be greater than zero"))
		}
		if le.RenewDeadline.Duration <= 0 {
			errs = append(errs, field.Invalid(lePath.Child("renewDeadline"), le.RenewDeadline, "must be greater than zero"))
		}
		if le.RetryPeriod.Duration <= 0 {
			errs = append(errs, field.Invalid(lePath.Child("retryPeriod"), le.RetryPeriod, "must be greater than zero"))
		}
		if le.LeaseDuration.Duration <= le.RenewDeadline.Duration {
			errs = append(errs, field.Invalid(lePath.Child("leaseDuration"), le.RenewDeadline, "LeaseDuration must be greater than RenewDeadline"))
		}
		if le.ResourceName == "" {
			errs = append(errs, field.Invalid(lePath.Child("resourceName"), le.ResourceName, "resourceName is required"))
		}
		if le.ResourceLock != "leases" {
			errs = append(errs, field.Invalid(lePath.Child("resourceLock"), le.ResourceLock, `resourceLock value must be "leases"`))
		}
	}
	if *cfg.Parallelism <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("parallelism"), *cfg.Parallelism, "should be an integer value greater than zero"))
	}
	profilesPath := field.NewPath("profiles")
	seen := map[string]int{}
	for i := range cfg.Profiles {
		prof := &cfg.Profiles[i]
		path := profilesPath.Index(i)
		name := ptr.Deref(prof.SchedulerName, "")
		if name == "" {
			errs = append(errs, field.Required(path.Child("schedulerName"), ""))
		}
		errs = append(errs, validatePercentage(path.Child("percentageOfNodesToScore"), prof.PercentageOfNodesToScore)...)
		errs = append(errs, validatePluginConfig(path, prof)...)
		if j, ok := seen[name]; ok {
			errs = append(errs, field.Duplicate(path.Child("schedulerName"), profilesPath.Index(j).Child("schedulerName")))
		}
		seen[name] = i
	}
	if len(cfg.Profiles) > 0 {
		first := queueSortOf(&cfg.Profiles[0])
		for i := 1; i < len(cfg.Profiles); i++ {
			if queueSortOf(&cfg.Profiles[i]) != first {
				errs = append(errs, field.Invalid(profilesPath.Index(i).Child("plugins", "queueSort"), cfg.Profiles[i].Plugins.QueueSort, "must be the same for all profiles"))
			}
		}
	}
	errs = append(errs, validatePercentage(field.NewPath("percentageOfNodesToScore"), cfg.PercentageOfNodesToScore)...)
	if *cfg.PodInitialBackoffSeconds <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("podInitialBackoffSeconds"), *cfg.PodInitialBackoffSeconds, "must be greater than 0"))
	}
	if *cfg.PodMaxBackoffSeconds < *cfg.PodInitialBackoffSeconds {
		errs = append(errs, field.Invalid(field.NewPath("podMaxBackoffSeconds"), *cfg.PodMaxBackoffSeconds, "must be greater than or equal to PodInitialBackoffSeconds"))
	}
	if len(cfg.Extenders) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("extenders"), "extenders are not supported by fakeplane's scheduler"))
	}
	return errs.ToAggregate()
}

// queueSortOf names the profile's queue sort plugin.
func queueSortOf(prof *configv1.KubeSchedulerProfile) string {
	for _, p := range prof.Plugins.QueueSort.Enabled {
		return p.Name
	}
	for _, p := range prof.Plugins.MultiPoint.Enabled {
		if p.Name == PrioritySort {
			return p.Name
		}
	}
	return ""
}

func validatePercentage(path *field.Path, p *int32) field.ErrorList {
	if p != nil && (*p < 0 || *p > 100) {
		return field.ErrorList{field.Invalid(path, *p, "not in valid range [0-100]")}
	}
	return nil
}

// validatePluginConfig checks duplicate pluginConfig entries and the args of
// the plugins this scheduler reads args of.
func validatePluginConfig(path *field.Path, prof *configv1.KubeSchedulerProfile) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, pc := range prof.PluginConfig {
		p := path.Child("pluginConfig").Index(i)
		if seen.Has(pc.Name) {
			errs = append(errs, field.Duplicate(p, pc.Name))
		}
		seen.Insert(pc.Name)
		ap := p.Child("args")
		switch a := pc.Args.Object.(type) {
		case *configv1.NodeResourcesFitArgs:
			errs = append(errs, validateFitArgs(ap, a)...)
		case *configv1.PodTopologySpreadArgs:
			errs = append(errs, validateSpreadArgs(ap, a)...)
		case *configv1.InterPodAffinityArgs:
			if w := *a.HardPodAffinityWeight; w < 0 || w > 100 {
				errs = append(errs, field.Invalid(ap.Child("hardPodAffinityWeight"), w, "not in valid range [0, 100]"))
			}
		case *configv1.NodeResourcesBalancedAllocationArgs:
			rs := sets.New[string]()
			for j, r := range a.Resources {
				if rs.Has(r.Name) {
					errs = append(errs, field.Duplicate(ap.Child("resources").Index(j).Child("name"), r.Name))
				}
				rs.Insert(r.Name)
				if r.Weight != 1 {
					errs = append(errs, field.Invalid(ap.Child("resources").Index(j).Child("weight"), r.Weight, "must be 1"))
				}
			}
		}
	}
	return errs
}

func validateFitArgs(path *field.Path, a *configv1.NodeResourcesFitArgs) field.ErrorList {
	var errs field.ErrorList
	sp := path.Child("scoringStrategy")
	s := a.ScoringStrategy
	supported := []string{string(configv1.LeastAllocated), string(configv1.MostAllocated), string(configv1.RequestedToCapacityRatio)}
	if !slices.Contains(supported, string(s.Type)) {
		errs = append(errs, field.NotSupported(sp.Child("type"), s.Type, supported))
	}
	for i, r := range s.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			errs = append(errs, field.Invalid(sp.Child("resources").Index(i).Child("weight"), r.Weight, fmt.Sprintf("resource weight of %v not in valid range (0, 100]", r.Name)))
		}
	}
	if s.Type == configv1.RequestedToCapacityRatio {
		if s.RequestedToCapacityRatio == nil {
			errs = append(errs, field.Required(sp.Child("requestedToCapacityRatio"), "must be specified when type is RequestedToCapacityRatio"))
		} else {
			shape := s.RequestedToCapacityRatio.Shape
			shapePath := sp.Child("requestedToCapacityRatio").Child("shape")
			if len(shape) == 0 {
				errs = append(errs, field.Required(shapePath, "at least one point must be specified"))
			}
			for i := 1; i < len(shape); i++ {
				if shape[i-1].Utilization >= shape[i].Utilization {
					errs = append(errs, field.Invalid(shapePath.Index(i).Child("utilization"), shape[i].Utilization, "values must be sorted in increasing order"))
					break
				}
			}
			for i, pt := range shape {
				if pt.Utilization < 0 || pt.Utilization > 100 {
					errs = append(errs, field.Invalid(shapePath.Index(i).Child("utilization"), pt.Utilization, "not in valid range [0, 100]"))
				}
				if pt.Score < 0 || pt.Score > 10 {
					errs = append(errs, field.Invalid(shapePath.Index(i).Child("score"), pt.Score, "not in valid range [0, 10]"))
				}
			}
		}
	} else if s.RequestedToCapacityRatio != nil {
		errs = append(errs, field.Forbidden(sp.Child("requestedToCapacityRatio"), "must be nil when type is not RequestedToCapacityRatio"))
	}
	return errs
}

func validateSpreadArgs(path *field.Path, a *configv1.PodTopologySpreadArgs) field.ErrorList {
	var errs field.ErrorList
	dt := path.Child("defaultingType")
	if a.DefaultingType != configv1.SystemDefaulting && a.DefaultingType != configv1.ListDefaulting {
		errs = append(errs, field.NotSupported(dt, a.DefaultingType, []string{string(configv1.SystemDefaulting), string(configv1.ListDefaulting)}))
	} else if a.DefaultingType == configv1.SystemDefaulting && len(a.DefaultConstraints) > 0 {
		errs = append(errs, field.Invalid(dt, a.DefaultingType, "when .defaultConstraints are not empty"))
	}
	cp := path.Child("defaultConstraints")
	for i, c := range a.DefaultConstraints {
		p := cp.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "not in valid range (0, inf)"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, p.Child("topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case "":
			errs = append(errs, field.Required(p.Child("whenUnsatisfiable"), "can not be empty"))
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, []string{string(corev1.DoNotSchedule), string(corev1.ScheduleAnyway)}))
		}
		if c.LabelSelector != nil {
			errs = append(errs, field.Forbidden(p.Child("labelSelector"), "constraint must not define a selector, as they deduced for each pod"))
		}
		for j := range a.DefaultConstraints[:i] {
			o := a.DefaultConstraints[j]
			if o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(cp.Index(i), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
	}
	return errs
}

// leaseTimings returns the leader-election durations.
func leaseTimings(cfg *Configuration) (lease, renew, retry time.Duration) {
	le := cfg.LeaderElection
	return le.LeaseDuration.Duration, le.RenewDeadline.Duration, le.RetryPeriod.Duration
}
