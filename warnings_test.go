package fakeplane_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// warningCase is one request of TestStrategyWarningsAsKubeAPIServer and
// what a real kube-apiserver answered to it.
type warningCase struct {
	name     string
	request  string // method and path
	body     string
	code     int
	message  string   // the Status message of a failure
	warnings []string // the Warning headers' texts, in any order
}

// TestStrategyWarningsAsKubeAPIServer sends writes that upstream's
// strategies warn about (deprecated fields, annotations and node labels,
// non-standard IPs, names that are not DNS labels, pod spec mistakes, a
// v1 Job's delete without a policy) and writes that strict IP validation
// and the static-configuration names refuse. Each code, Status message
// and set of Warning headers is what a real v1.37 kube-apiserver answered
// to the same request in the same order (recorded with refplane, whose
// namespace got its default service account by hand). The requests run in
// order: later ones update and delete what earlier ones created.
func TestStrategyWarningsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	for _, tc := range []warningCase{
		{
			name:    `namespace for the cases`,
			request: `POST /api/v1/namespaces`,
			body:    `{"metadata":{"name":"w"}}`,
			code:    201,
		},
		{
			name:    `a pod: every pod spec warning, from annotations, selectors, affinity, volumes, containers and ports`,
			request: `POST /api/v1/namespaces/w/pods?dryRun=All`,
			body:    `{"metadata":{"name":"p.1","annotations":{"scheduler.alpha.kubernetes.io/critical-pod":"","seccomp.security.alpha.kubernetes.io/pod":"runtime/default","container.seccomp.security.alpha.kubernetes.io/c":"runtime/default","container.apparmor.security.beta.kubernetes.io/c":"runtime/default"}},"spec":{"nodeSelector":{"beta.kubernetes.io/os":"linux","beta.kubernetes.io/arch":"amd64"},"terminationGracePeriodSeconds":-5,"imagePullSecrets":[{"name":"a"},{"name":"a"},{"name":""}],"hostAliases":[{"ip":"10.0.0.1","hostnames":["a"]},{"ip":"10.0.0.1","hostnames":["b"]}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"failure-domain.beta.kubernetes.io/zone","operator":"In","values":["a"]}]}]},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"k","operator":"In","values":["bad value!"]}]}}]},"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname"}]},"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologyKey":"kubernetes.io/hostname"}}]}},"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"failure-domain.beta.kubernetes.io/region","whenUnsatisfiable":"DoNotSchedule"}],"volumes":[{"name":"g","gitRepo":{"repository":"x"}},{"name":"cm","configMap":{"name":"cm","items":[{"key":"a","path":"p"},{"key":"b","path":"p/q"}]}},{"name":"pr","projected":{"sources":[{}]}}],"containers":[{"name":"c","image":"i","resources":{"requests":{"memory":"1.5"},"limits":{"memory":"1.5"}},"env":[{"name":"X","value":"1"},{"name":"X","value":"2"}],"ports":[{"containerPort":80,"name":"http"},{"containerPort":80,"name":"web"},{"containerPort":81,"hostIP":"10.0.0.1"}]},{"name":"d","image":"i","ports":[{"containerPort":82,"name":"http"},{"containerPort":80}]}]}}`,
			code:    201,
			warnings: []string{
				`metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead`,
				`metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead`,
				`metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead`,
				`metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead`,
				`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
				`spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values[0]: bad value! is invalid, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
				`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
				`spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null labelSelector results in matching no pod`,
				`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod`,
				`spec.containers[0].env[1]: hides previous definition of "X", which may be dropped when using apply`,
				`spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]`,
				`spec.containers[0].ports[2]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:81 Protocol:TCP HostIP:10.0.0.1}`,
				`spec.containers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer`,
				`spec.containers[0].resources.requests[memory]: fractional byte value "1500m" is invalid, must be an integer`,
				`spec.containers[1].ports[0]: duplicate port name "http" with spec.containers[0].ports[0], services and probes that select ports by name will use spec.containers[0].ports[0]`,
				`spec.containers[1].ports[1]: duplicate port definition with spec.containers[0].ports[0]`,
				`spec.containers[1].ports[1]: duplicate port definition with spec.containers[0].ports[1]`,
				`spec.hostAliases[1].ip: duplicate ip "10.0.0.1"`,
				`spec.imagePullSecrets[1].name: duplicate name "a"`,
				`spec.imagePullSecrets[2].name: invalid empty name ""`,
				`spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
				`spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
				`spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod`,
				`spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/region is deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
				`spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+`,
				`volume "cm" (ConfigMap "cm"): overlapping paths: "p/q" with "p"`,
				`volume "pr" (Projected) has no sources provided`,
			},
		},
		{
			name:    `a pod: non-canonical IPv6 nameserver and host alias`,
			request: `POST /api/v1/namespaces/w/pods?dryRun=All`,
			body:    `{"metadata":{"name":"p2"},"spec":{"dnsConfig":{"nameservers":["2001:db8:0::53"]},"hostAliases":[{"ip":"2001:db8:0::1","hostnames":["a"]}],"containers":[{"name":"c","image":"i"}]}}`,
			code:    201,
			warnings: []string{
				`spec.dnsConfig.nameservers[0]: IPv6 address "2001:db8:0::53" should be in RFC 5952 canonical format ("2001:db8::53")`,
				`spec.hostAliases[0].ip: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`,
			},
		},
		{
			name:    `a plain pod: no warning`,
			request: `POST /api/v1/namespaces/w/pods`,
			body:    `{"metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
			code:    201,
		},
		{
			name:    `pod status: an IPv4-mapped host IP is invalid (strict IP validation)`,
			request: `PUT /api/v1/namespaces/w/pods/p3/status`,
			body:    `{"metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"podIPs":[{"ip":"2001:db8:0::5"}],"podIP":"2001:db8:0::5","hostIPs":[{"ip":"::ffff:10.1.1.1"}],"hostIP":"::ffff:10.1.1.1"}}`,
			code:    422,
			message: `Pod "p3" is invalid: status.hostIPs[0]: Invalid value: "::ffff:10.1.1.1": must not be an IPv4-mapped IPv6 address`,
		},
		{
			name:    `pod status: a pod IP with leading zeros is invalid`,
			request: `PUT /api/v1/namespaces/w/pods/p3/status`,
			body:    `{"metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"podIPs":[{"ip":"010.0.0.5"}],"podIP":"010.0.0.5"}}`,
			code:    422,
			message: `Pod "p3" is invalid: status.podIPs[0]: Invalid value: "010.0.0.5": must not have leading 0s`,
		},
		{
			name:    `pod status: non-canonical IPv6 pod and host IPs`,
			request: `PUT /api/v1/namespaces/w/pods/p3/status`,
			body:    `{"metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"podIPs":[{"ip":"2001:db8:0::5"}],"podIP":"2001:db8:0::5","hostIPs":[{"ip":"2001:db8:0::9"}],"hostIP":"2001:db8:0::9"}}`,
			code:    200,
			warnings: []string{
				`status.hostIPs[0].ip: IPv6 address "2001:db8:0::9" should be in RFC 5952 canonical format ("2001:db8::9")`,
				`status.podIPs[0].ip: IPv6 address "2001:db8:0::5" should be in RFC 5952 canonical format ("2001:db8::5")`,
			},
		},
		{
			name:    `pod status in standard form: no warning`,
			request: `PUT /api/v1/namespaces/w/pods/p3/status`,
			body:    `{"metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"podIPs":[{"ip":"10.0.0.5"}],"podIP":"10.0.0.5","hostIPs":[{"ip":"10.1.1.1"}],"hostIP":"10.1.1.1"}}`,
			code:    200,
		},
		{
			name:    `a deployment: name with a dot, template AppArmor annotation and deprecated node label`,
			request: `POST /apis/apps/v1/namespaces/w/deployments`,
			body:    `{"metadata":{"name":"d.1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"},"annotations":{"container.apparmor.security.beta.kubernetes.io/c":"runtime/default"}},"spec":{"nodeSelector":{"beta.kubernetes.io/os":"linux"},"containers":[{"name":"c","image":"i"}]}}}}`,
			code:    201,
			warnings: []string{
				`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
				`spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead`,
				`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
			},
		},
		{
			name:    `a deployment update that keeps its template still warns about it, not about its name`,
			request: `PUT /apis/apps/v1/namespaces/w/deployments/d.1`,
			body:    `{"metadata":{"name":"d.1"},"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"},"annotations":{"container.apparmor.security.beta.kubernetes.io/c":"runtime/default"}},"spec":{"nodeSelector":{"beta.kubernetes.io/os":"linux"},"containers":[{"name":"c","image":"i"}]}}}}`,
			code:    200,
			warnings: []string{
				`spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead`,
				`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
			},
		},
		{
			name:    `a deployment update that changes its template warns about the new one`,
			request: `PUT /apis/apps/v1/namespaces/w/deployments/d.1`,
			body:    `{"metadata":{"name":"d.1"},"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"nodeSelector":{"beta.kubernetes.io/os":"linux"},"containers":[{"name":"c","image":"i2"}]}}}}`,
			code:    200,
			warnings: []string{
				`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
			},
		},
		{
			name:    `a replica set: name with a dot and negative grace period`,
			request: `POST /apis/apps/v1/namespaces/w/replicasets?dryRun=All`,
			body:    `{"metadata":{"name":"r.1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"terminationGracePeriodSeconds":-1,"containers":[{"name":"c","image":"i"}]}}}}`,
			code:    201,
			warnings: []string{
				`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
				`spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`,
			},
		},
		{
			name:    `a stateful set's name is a DNS label: no warning for an invalid object`,
			request: `POST /apis/apps/v1/namespaces/w/statefulsets?dryRun=All`,
			body:    `{"metadata":{"name":"s.1"},"spec":{"serviceName":"s","selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}},"volumeClaimTemplates":[{"metadata":{"name":"v","annotations":{"volume.beta.kubernetes.io/storage-class":"x"}},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1.5"}}}}]}}`,
			code:    422,
			message: `StatefulSet.apps "s.1" is invalid: metadata.name: Invalid value: "s.1": must not contain dots`,
		},
		{
			name:    `a daemon set: deprecated node label`,
			request: `POST /apis/apps/v1/namespaces/w/daemonsets?dryRun=All`,
			body:    `{"metadata":{"name":"ds.1"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"nodeSelector":{"beta.kubernetes.io/arch":"x"},"containers":[{"name":"c","image":"i"}]}}}}`,
			code:    201,
			warnings: []string{
				`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
			},
		},
		{
			name:    `a job: name with a dot and deprecated node label`,
			request: `POST /apis/batch/v1/namespaces/w/jobs?dryRun=All`,
			body:    `{"metadata":{"name":"j.1"},"spec":{"template":{"spec":{"restartPolicy":"Never","nodeSelector":{"beta.kubernetes.io/arch":"x"},"containers":[{"name":"c","image":"i"}]}}}}`,
			code:    201,
			warnings: []string{
				`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
				`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
			},
		},
		{
			name:    `a cron job schedule with TZ is invalid`,
			request: `POST /apis/batch/v1/namespaces/w/cronjobs?dryRun=All`,
			body:    `{"metadata":{"name":"cj.1"},"spec":{"schedule":"TZ=UTC 0 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}}}`,
			code:    422,
			message: `CronJob.batch "cj.1" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
		},
		{
			name:    `a cron job with a macro schedule: no warning`,
			request: `POST /apis/batch/v1/namespaces/w/cronjobs?dryRun=All`,
			body:    `{"metadata":{"name":"cj2"},"spec":{"schedule":"@every 1h","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}}}`,
			code:    201,
		},
		{
			name:    `a cron job with ? in its schedule: no warning`,
			request: `POST /apis/batch/v1/namespaces/w/cronjobs?dryRun=All`,
			body:    `{"metadata":{"name":"cj3"},"spec":{"schedule":"0 * * * ?","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}}}`,
			code:    201,
		},
		{
			name:    `a replication controller: name with a dot and fractional ephemeral storage`,
			request: `POST /api/v1/namespaces/w/replicationcontrollers?dryRun=All`,
			body:    `{"metadata":{"name":"rc.1"},"spec":{"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"ephemeral-storage":"0.5"}}}]}}}}`,
			code:    201,
			warnings: []string{
				`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
				`spec.template.spec.containers[0].resources.limits[ephemeral-storage]: fractional byte value "500m" is invalid, must be an integer`,
			},
		},
		{
			name:    `a pod template: deprecated node label`,
			request: `POST /api/v1/namespaces/w/podtemplates?dryRun=All`,
			body:    `{"metadata":{"name":"pt.1"},"template":{"spec":{"nodeSelector":{"beta.kubernetes.io/os":"linux"},"containers":[{"name":"c","image":"i"}]}}}`,
			code:    201,
			warnings: []string{
				`template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
			},
		},
		{
			name:    `a load balancer service: external IPs deprecated, non-canonical IP and CIDR`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"s1"},"spec":{"ports":[{"port":80}],"externalIPs":["2001:db8:0::1"],"loadBalancerSourceRanges":["2001:db8:0::/64"],"type":"LoadBalancer","loadBalancerIP":"10.1.1.1"}}`,
			code:    201,
			warnings: []string{
				`spec.externalIPs is deprecated and may no longer be implemented in some clusters`,
				`spec.externalIPs[0]: IPv6 address "2001:db8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`,
				`spec.loadBalancerSourceRanges[0]: IPv6 CIDR value "2001:db8:0::/64" should be in RFC 5952 canonical format ("2001:db8::/64")`,
			},
		},
		{
			name:    `a load balancer source range annotation: no warning`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"s2","annotations":{"service.beta.kubernetes.io/load-balancer-source-ranges":"2001:db8:0::/64"}},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`,
			code:    201,
		},
		{
			name:    `an ExternalName service with ports: no warning`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"s3"},"spec":{"type":"ExternalName","externalName":"a.b","ports":[{"port":80}]}}`,
			code:    201,
		},
		{
			name:    `a headless service ignores external IPs`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"s4"},"spec":{"clusterIP":"None","ports":[{"port":80}],"externalIPs":["10.0.0.1"]}}`,
			code:    201,
			warnings: []string{
				`spec.externalIPs is ignored for headless services`,
			},
		},
		{
			name:    `an external IP with leading zeros is invalid (strict IP validation)`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"s5"},"spec":{"externalIPs":["010.0.0.1"],"ports":[{"port":80}]}}`,
			code:    422,
			message: `Service "s5" is invalid: spec.externalIPs[0]: Invalid value: "010.0.0.1": must not have leading 0s`,
		},
		{
			name:    `external IPs are endpoint IPs: not loopback, unspecified or link-local`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"x1"},"spec":{"ports":[{"port":80}],"externalIPs":["127.0.0.1","0.0.0.0","169.254.1.1","224.0.0.1"]}}`,
			code:    422,
			message: `Service "x1" is invalid: [spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128), spec.externalIPs[1]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0), spec.externalIPs[2]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10), spec.externalIPs[3]: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)]`,
		},
		{
			name:    `the source ranges annotation holds CIDRs`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"x2","annotations":{"service.beta.kubernetes.io/load-balancer-source-ranges":"10.0.0.0/8, nope"}},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`,
			code:    422,
			message: `Service "x2" is invalid: metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
		},
		{
			name:    `the source ranges annotation is for load balancers only`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"x3","annotations":{"service.beta.kubernetes.io/load-balancer-source-ranges":"10.0.0.1/8"}},"spec":{"type":"ClusterIP","ports":[{"port":80}]}}`,
			code:    422,
			message: "Service \"x3\" is invalid: [metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Forbidden: may only be used when `type` is 'LoadBalancer', metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: \"10.0.0.1/8\": must not have bits set beyond the prefix length]",
		},
		{
			name:    `and is checked for CIDRs then`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"x4","annotations":{"service.beta.kubernetes.io/load-balancer-source-ranges":"nope"}},"spec":{"type":"ClusterIP","ports":[{"port":80}]}}`,
			code:    422,
			message: "Service \"x4\" is invalid: [metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Forbidden: may only be used when `type` is 'LoadBalancer', metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: \"nope\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)]",
		},
		{
			name:    `PreferClose traffic distribution is deprecated`,
			request: `POST /api/v1/namespaces/w/services?dryRun=All`,
			body:    `{"metadata":{"name":"s6"},"spec":{"ports":[{"port":80}],"trafficDistribution":"PreferClose"}}`,
			code:    201,
			warnings: []string{
				`spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`,
			},
		},
		{
			name:    `an IPv4-mapped address in Endpoints is invalid`,
			request: `POST /api/v1/namespaces/w/endpoints`,
			body:    `{"metadata":{"name":"e1"},"subsets":[{"addresses":[{"ip":"2001:db8:0::1"},{"ip":"::ffff:10.0.0.3"}],"ports":[{"port":80}]}]}`,
			code:    422,
			message: `Endpoints "e1" is invalid: subsets[0].addresses[1].ip: Invalid value: "::ffff:10.0.0.3": must not be an IPv4-mapped IPv6 address`,
			warnings: []string{
				`v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice`,
			},
		},
		{
			name:    `Endpoints subsets need addresses`,
			request: `POST /api/v1/namespaces/w/endpoints`,
			body:    `{"metadata":{"name":"e2"},"subsets":[{"ports":[{"port":80}]}]}`,
			code:    422,
			message: "Endpoints \"e2\" is invalid: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
			warnings: []string{
				`v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice`,
			},
		},
		{
			name:    `Endpoints addresses and ports are validated`,
			request: `POST /api/v1/namespaces/w/endpoints`,
			body:    `{"metadata":{"name":"e3"},"subsets":[{"addresses":[{"ip":"127.0.0.1"},{"ip":"nope"},{"ip":"010.0.0.1","hostname":"A_B","nodeName":"N_1"}],"ports":[{"port":0,"protocol":"HTTP"},{"name":"b","port":80,"appProtocol":"a/b/c"}]}]}`,
			code:    422,
			message: `Endpoints "e3" is invalid: [subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128), subsets[0].addresses[1].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].addresses[1].ip: Invalid value: "nope": must be a valid IP address, subsets[0].addresses[2].ip: Invalid value: "010.0.0.1": must not have leading 0s, subsets[0].addresses[2].hostname: Invalid value: "A_B": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), subsets[0].addresses[2].nodeName: Invalid value: "N_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), subsets[0].ports[0].name: Required value, subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, subsets[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP", subsets[0].ports[1].appProtocol: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')]`,
			warnings: []string{
				`v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice`,
			},
		},
		{
			name:    `the endpoints controller's label silences IP warnings`,
			request: `POST /api/v1/namespaces/w/endpoints`,
			body:    `{"metadata":{"name":"e4","labels":{"endpoints.kubernetes.io/managed-by":"endpoint-controller"}},"subsets":[{"addresses":[{"ip":"2001:db8:0::1"}]}]}`,
			code:    201,
			warnings: []string{
				`v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice`,
			},
		},
		{
			name:    `an EndpointSlice's deprecated topology: no warning`,
			request: `POST /apis/discovery.k8s.io/v1/namespaces/w/endpointslices?dryRun=All`,
			body:    `{"metadata":{"name":"es1"},"addressType":"IPv6","endpoints":[{"addresses":["2001:db8::1"],"deprecatedTopology":{"a":"b"}}],"ports":[{"port":80}]}`,
			code:    201,
		},
		{
			name:    `an EndpointSlice address with leading zeros is invalid`,
			request: `POST /apis/discovery.k8s.io/v1/namespaces/w/endpointslices?dryRun=All`,
			body:    `{"metadata":{"name":"es2"},"addressType":"IPv4","endpoints":[{"addresses":["010.0.0.1"]}]}`,
			code:    422,
			message: `EndpointSlice.discovery.k8s.io "es2" is invalid: endpoints[0].addresses[0]: Invalid value: "010.0.0.1": must not have leading 0s`,
		},
		{
			name:    `a pod CIDR with host bits is invalid (strict CIDR validation)`,
			request: `POST /api/v1/nodes?dryRun=All`,
			body:    `{"metadata":{"name":"n1","labels":{"beta.kubernetes.io/os":"linux"}},"spec":{"podCIDRs":["10.0.0.1/24"],"podCIDR":"10.0.0.1/24","configSource":{}}}`,
			code:    422,
			message: `Node "n1" is invalid: spec.podCIDRs[0]: Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length`,
		},
		{
			name:    `a node's external ID is deprecated`,
			request: `POST /api/v1/nodes?dryRun=All`,
			body:    `{"metadata":{"name":"n2"},"spec":{"podCIDRs":["10.0.0.0/24"],"podCIDR":"10.0.0.0/24","externalID":"x"}}`,
			code:    201,
			warnings: []string{
				`spec.externalID: this field is deprecated, and is unused by Kubernetes`,
			},
		},
		{
			name:    `a network policy CIDR with host bits is invalid`,
			request: `POST /apis/networking.k8s.io/v1/namespaces/w/networkpolicies?dryRun=All`,
			body:    `{"metadata":{"name":"np"},"spec":{"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.1/8","except":["10.1.0.1/16"]}}]}]}}`,
			code:    422,
			message: `NetworkPolicy.networking.k8s.io "np" is invalid: [spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length, spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.1/16": must not have bits set beyond the prefix length]`,
		},
		{
			name:    `a network policy: non-canonical IPv6 CIDR`,
			request: `POST /apis/networking.k8s.io/v1/namespaces/w/networkpolicies?dryRun=All`,
			body:    `{"metadata":{"name":"np2"},"spec":{"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"2001:db8:0::/64","except":["2001:db8:0:0:1::/80"]}}]}]}}`,
			code:    201,
			warnings: []string{
				`spec.ingress[0].from[0].ipBlock.cidr: IPv6 CIDR value "2001:db8:0::/64" should be in RFC 5952 canonical format ("2001:db8::/64")`,
			},
		},
		{
			name:    `a node: non-canonical IPv6 pod CIDR`,
			request: `POST /api/v1/nodes?dryRun=All`,
			body:    `{"metadata":{"name":"n3"},"spec":{"podCIDRs":["2001:db8:0::/64"],"podCIDR":"2001:db8:0::/64"}}`,
			code:    201,
			warnings: []string{
				`spec.podCIDRs[0]: IPv6 CIDR value "2001:db8:0::/64" should be in RFC 5952 canonical format ("2001:db8::/64")`,
			},
		},
		{
			name:    `an ingress class annotation is deprecated`,
			request: `POST /apis/networking.k8s.io/v1/namespaces/w/ingresses?dryRun=All`,
			body:    `{"metadata":{"name":"in","annotations":{"kubernetes.io/ingress.class":"nginx"}},"spec":{"defaultBackend":{"service":{"name":"s","port":{"number":80}}}}}`,
			code:    201,
			warnings: []string{
				`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`,
			},
		},
		{
			name:    `an ingress wildcard host and path: no warning`,
			request: `POST /apis/networking.k8s.io/v1/namespaces/w/ingresses?dryRun=All`,
			body:    `{"metadata":{"name":"in2"},"spec":{"rules":[{"host":"*.a.b","http":{"paths":[{"path":"/a*","pathType":"ImplementationSpecific","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}}`,
			code:    201,
		},
		{
			name:    `a persistent volume: beta storage class annotation, node affinity label and Recycle policy`,
			request: `POST /api/v1/persistentvolumes?dryRun=All`,
			body:    `{"metadata":{"name":"pv1","annotations":{"volume.beta.kubernetes.io/storage-class":"x"}},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"persistentVolumeReclaimPolicy":"Recycle","hostPath":{"path":"/tmp/x"},"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"beta.kubernetes.io/os","operator":"In","values":["linux"]}]}]}}}}`,
			code:    201,
			warnings: []string{
				`metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead`,
				`spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead`,
				`spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.`,
			},
		},
		{
			name:    `a persistent volume: RBD is deprecated`,
			request: `POST /api/v1/persistentvolumes?dryRun=All`,
			body:    `{"metadata":{"name":"pv2"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"rbd":{"monitors":["a"],"image":"i"}}}`,
			code:    201,
			warnings: []string{
				`spec.rbd: deprecated in v1.28, non-functional in v1.31+`,
			},
		},
		{
			name:    `a claim: beta storage class annotation and fractional storage`,
			request: `POST /api/v1/namespaces/w/persistentvolumeclaims?dryRun=All`,
			body:    `{"metadata":{"name":"pvc1","annotations":{"volume.beta.kubernetes.io/storage-class":"x"}},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1.5"},"limits":{"storage":"2.5"}}}}`,
			code:    201,
			warnings: []string{
				`metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead`,
				`spec.resources.limits[storage]: fractional byte value "2500m" is invalid, must be an integer`,
				`spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer`,
			},
		},
		{
			name:    `a storage class: deprecated topology label`,
			request: `POST /apis/storage.k8s.io/v1/storageclasses?dryRun=All`,
			body:    `{"metadata":{"name":"sc1"},"provisioner":"a.b/c","allowedTopologies":[{"matchLabelExpressions":[{"key":"failure-domain.beta.kubernetes.io/zone","values":["a"]}]}]}`,
			code:    201,
			warnings: []string{
				`allowedTopologies[0].matchLabelExpressions[0].key: deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
			},
		},
		{
			name:    `a CSI driver: no warning`,
			request: `POST /apis/storage.k8s.io/v1/csidrivers?dryRun=All`,
			body:    `{"metadata":{"name":"a.b.c"},"spec":{"seLinuxMount":true,"podInfoOnMount":true,"requiresRepublish":true}}`,
			code:    201,
		},
		{
			name:    `a CSI storage capacity: deprecated node labels in its topology`,
			request: `POST /apis/storage.k8s.io/v1/namespaces/w/csistoragecapacities?dryRun=All`,
			body:    `{"metadata":{"name":"cap"},"storageClassName":"sc","nodeTopology":{"matchLabels":{"beta.kubernetes.io/os":"linux"},"matchExpressions":[{"key":"failure-domain.beta.kubernetes.io/zone","operator":"In","values":["a"]}]}}`,
			code:    201,
			warnings: []string{
				`nodeTopology.matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
				`nodeTopology.matchLabels.beta.kubernetes.io/os: deprecated since v1.14; use "kubernetes.io/os" instead`,
			},
		},
		{
			name:    `a runtime class: deprecated node label in its node selector`,
			request: `POST /apis/node.k8s.io/v1/runtimeclasses?dryRun=All`,
			body:    `{"metadata":{"name":"rc"},"handler":"h","scheduling":{"nodeSelector":{"beta.kubernetes.io/os":"linux"}}}`,
			code:    201,
			warnings: []string{
				`scheduling.nodeSelector: deprecated since v1.14; use "kubernetes.io/os" instead`,
			},
		},
		{
			name:    `a dockercfg secret: no warning`,
			request: `POST /api/v1/namespaces/w/secrets?dryRun=All`,
			body:    `{"metadata":{"name":"sec"},"type":"kubernetes.io/dockercfg","data":{".dockercfg":"e30="}}`,
			code:    201,
		},
		{
			name:    `secret keys: no warning`,
			request: `POST /api/v1/namespaces/w/secrets?dryRun=All`,
			body:    `{"metadata":{"name":"sec2"},"data":{"a_b":"eA==","A":"eA=="},"stringData":{"x":"y"}}`,
			code:    201,
		},
		{
			name:    `a service account token secret needs its service account`,
			request: `POST /api/v1/namespaces/w/secrets?dryRun=All`,
			body:    `{"metadata":{"name":"sec3"},"type":"kubernetes.io/service-account-token","data":{}}`,
			code:    422,
			message: `Secret "sec3" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value`,
		},
		{
			name:    `a service account: enforce-mountable-secrets annotation is deprecated`,
			request: `POST /api/v1/namespaces/w/serviceaccounts?dryRun=All`,
			body:    `{"metadata":{"name":"sa","annotations":{"kubernetes.io/enforce-mountable-secrets":"true"}}}`,
			code:    201,
			warnings: []string{
				`metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`,
			},
		},
		{
			name:    `a quota with fractional memory: no warning`,
			request: `POST /api/v1/namespaces/w/resourcequotas?dryRun=All`,
			body:    `{"metadata":{"name":"q"},"spec":{"hard":{"requests.memory":"1.5","limits.ephemeral-storage":"0.5","requests.storage":"1.5","pods":"10"}}}`,
			code:    201,
		},
		{
			name:    `a limit range with fractional memory: no warning`,
			request: `POST /api/v1/namespaces/w/limitranges?dryRun=All`,
			body:    `{"metadata":{"name":"lr"},"spec":{"limits":[{"type":"Container","default":{"memory":"1.5"}}]}}`,
			code:    201,
		},
		{
			name:    `a validating webhook configuration's name may not end in .static.k8s.io`,
			request: `POST /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?dryRun=All`,
			body:    `{"metadata":{"name":"x.static.k8s.io"},"webhooks":[]}`,
			code:    422,
			message: `ValidatingWebhookConfiguration.admissionregistration.k8s.io "x.static.k8s.io" is invalid: metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`,
		},
		{
			name:    `a webhook rule matching everything: no warning`,
			request: `POST /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?dryRun=All`,
			body:    `{"metadata":{"name":"vw"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://a.b/x"},"rules":[{"operations":["CREATE"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}],"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
			code:    201,
		},
		{
			name:    `a webhook rule for an excluded resource`,
			request: `POST /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?dryRun=All`,
			body:    `{"metadata":{"name":"vw2"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://a.b/x"},"rules":[{"operations":["CREATE"],"apiGroups":["authorization.k8s.io"],"apiVersions":["v1"],"resources":["subjectaccessreviews"]}],"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
			code:    201,
			warnings: []string{
				`webhooks[0].rules[0]: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect`,
			},
		},
		{
			name:    `a mutating webhook configuration's name may not end in .static.k8s.io`,
			request: `POST /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?dryRun=All`,
			body:    `{"metadata":{"name":"x.static.k8s.io"},"webhooks":[]}`,
			code:    422,
			message: `MutatingWebhookConfiguration.admissionregistration.k8s.io "x.static.k8s.io" is invalid: metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`,
		},
		{
			name:    `a validating admission policy's name may not end in .static.k8s.io`,
			request: `POST /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies?dryRun=All`,
			body:    `{"metadata":{"name":"x.static.k8s.io"},"spec":{"validations":[{"expression":"true"}]}}`,
			code:    422,
			message: `ValidatingAdmissionPolicy.admissionregistration.k8s.io "x.static.k8s.io" is invalid: [spec.matchConstraints: Required value, metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API]`,
		},
		{
			name:    `a validating admission policy binding's name may not end in .static.k8s.io`,
			request: `POST /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings?dryRun=All`,
			body:    `{"metadata":{"name":"x.static.k8s.io"},"spec":{"policyName":"p","validationActions":["Deny"]}}`,
			code:    422,
			message: `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "x.static.k8s.io" is invalid: metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`,
		},
		{
			name:    `a job to delete`,
			request: `POST /apis/batch/v1/namespaces/w/jobs`,
			body:    `{"metadata":{"name":"jd"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}`,
			code:    201,
		},
		{
			name:    `a batch/v1 delete without a policy warns even when the job does not exist`,
			request: `DELETE /apis/batch/v1/namespaces/w/jobs/nosuch`,
			code:    404,
			message: `jobs.batch "nosuch" not found`,
			warnings: []string{
				`child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning`,
			},
		},
		{
			name:    `a batch/v1 delete without a policy orphans the pods and warns`,
			request: `DELETE /apis/batch/v1/namespaces/w/jobs/jd`,
			code:    200,
			warnings: []string{
				`child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning`,
			},
		},
		{
			name:    `a batch/v1 delete of a collection without a policy warns`,
			request: `DELETE /apis/batch/v1/namespaces/w/jobs?labelSelector=nothing%3Dhere`,
			code:    200,
			warnings: []string{
				`child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning`,
			},
		},
		{
			name:    `a replication controller to delete`,
			request: `POST /api/v1/namespaces/w/replicationcontrollers`,
			body:    `{"metadata":{"name":"rcd"},"spec":{"replicas":0,"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			code:    201,
		},
		{
			name:    `a v1 delete of a replication controller without a policy orphans its pods, silently`,
			request: `DELETE /api/v1/namespaces/w/replicationcontrollers/rcd`,
			code:    200,
		},
		{
			name:    `an event whose finalizers no delete honours`,
			request: `POST /api/v1/namespaces/w/events`,
			body:    `{"metadata":{"name":"ev","finalizers":["foregroundDeletion"]},"involvedObject":{"name":"x","namespace":"w"},"reason":"R","message":"m","type":"Normal"}`,
			code:    201,
		},
		{
			name:    `an event's delete ignores its propagation policy and finalizers`,
			request: `DELETE /api/v1/namespaces/w/events/ev?propagationPolicy=Orphan`,
			code:    200,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method, path, _ := strings.Cut(tc.request, " ")
			code, header, out := rawExchange(t, cp, method, path, "application/json", []byte(tc.body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			if tc.message != "" {
				var st metav1.Status
				if err := json.Unmarshal(out, &st); err != nil || st.Message != tc.message {
					t.Errorf("message\n got %s\nwant %s", st.Message, tc.message)
				}
			}
			var got []string
			for _, h := range header.Values("Warning") {
				text, err := strconv.Unquote(strings.TrimPrefix(h, "299 - "))
				if err != nil {
					t.Fatalf("warning header %q: %v", h, err)
				}
				got = append(got, text)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.warnings))
			if !slices.Equal(got, want) {
				t.Errorf("warnings:\n got %q\nwant %q", got, want)
			}
		})
		if tc.name == "namespace for the cases" {
			waitForDefaultServiceAccount(t, cp, "w")
		}
	}
}

// waitForDefaultServiceAccount waits for the service account controller to
// make namespace ns's default service account, which a pod needs.
func waitForDefaultServiceAccount(t *testing.T, cp *fakeplane.ControlPlane, ns string) {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	eventually(t, "the default service account of "+ns, func() error {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(context.Background(), "default", metav1.GetOptions{})
		return err
	})
}
