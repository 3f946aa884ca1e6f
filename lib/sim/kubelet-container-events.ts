/**
 * The Events the simulated kubelet records about a pod's containers, with the real kubelet's
 * reasons (`pkg/kubelet/events/event.go`) and messages, source `kubelet` on the pod's node, the
 * container named by the involved object's field path (`spec.containers{name}`), and repeats
 * counted on one Event by the shared recorder (event-recorder.ts):
 * - at every (re)start of a container, `EnsureImageExists` (`pkg/kubelet/images/image_manager.go`):
 *   `Pulled` "Container image "x" already present on machine" — the world models no registry, so
 *   every image is on every node; a container whose pull policy is Always (the default for a
 *   `:latest` or untagged image) gets `Pulling` "Pulling image "x"" and `Pulled` "Successfully
 *   pulled image "x" in 0s (0s including waiting)" (the pull takes no virtual time; the
 *   " Image size: N bytes." suffix kubelet ≥ 1.30 adds is left out: the world knows no sizes);
 *   then `startContainer` (`pkg/kubelet/kuberuntime/kuberuntime_container.go`): `Created`
 *   "Created container: x" (the message since Kubernetes 1.32) and `Started` "Started container x";
 * - `Killing` "Stopping container x" when the pod's deletion stops it (`killContainer`);
 * - `BackOff` Warning "Back-off restarting failed container x in pod <name>_<ns>(<uid>)" when a
 *   crashed container must wait out its back-off (`kuberuntime_manager.go` doBackOff);
 * - `Unhealthy` Warning "Readiness probe failed: <output>" for each failed readiness probe
 *   (`pkg/kubelet/prober/prober.go`), the output as the TCP/HTTP prober reports a refused
 *   connection (`dial tcp <ip>:<port>: connect: connection refused`), or an HTTP probe answered
 *   by a running but unready server ("HTTP probe failed with statuscode: 503").
 * The world models no liveness or startup probes, so it records no `Liveness probe failed`.
 */
import { containerFieldPath, eventRecorder, type EventReport } from './event-recorder.js';
import type { KubeObject } from './object.js';
import type { ObjectStore } from './store.js';

/** The kubelet's component name in `source.component`. */
export const KUBELET_COMPONENT = 'kubelet';

type ContainerSpec = { name?: string; image?: string; imagePullPolicy?: string; readinessProbe?: ProbeSpec | null };
type ProbeSpec = { tcpSocket?: { port?: number | string }; httpGet?: { port?: number | string; path?: string; scheme?: string }; exec?: unknown };

function containerSpec(pod: KubeObject, name: string): ContainerSpec | undefined {
  return ((pod.spec?.containers ?? []) as ContainerSpec[]).find((c) => c.name === name) ?? initContainerSpec(pod, name);
}

function initContainerSpec(pod: KubeObject, name: string): ContainerSpec | undefined {
  return ((pod.spec?.initContainers ?? []) as ContainerSpec[]).find((c) => c.name === name);
}

function report(pod: KubeObject, container: string, type: EventReport['type'], reason: string, message: string): EventReport {
  // An init container's Events name it as the kubelet's ObjectReference does: spec.initContainers{name}.
  const isInit = !((pod.spec?.containers ?? []) as ContainerSpec[]).some((c) => c.name === container) && initContainerSpec(pod, container) !== undefined;
  const fieldPath = isInit ? `spec.initContainers{${container}}` : containerFieldPath(container);
  return { type, reason, message, source: { component: KUBELET_COMPONENT, ...(pod.spec?.nodeName ? { host: String(pod.spec.nodeName) } : {}) }, fieldPath };
}

/**
 * The pull policy the API server defaults for `image` when the container leaves it out
 * (`pkg/apis/core/v1/defaults.go` SetDefaults_Container: Always for `:latest` or no tag).
 */
export function effectivePullPolicy(image: string, policy: string | undefined): string {
  if (policy) return policy;
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  if (lastPart.includes('@')) return 'IfNotPresent';
  const colon = lastPart.lastIndexOf(':');
  return colon < 0 || lastPart.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

/** Records what the kubelet records when it (re)starts container `name` of `pod`: the image, Created, Started. */
export function recordContainerStart(store: ObjectStore, pod: KubeObject, name: string): void {
  const spec = containerSpec(pod, name);
  const image = spec?.image ?? '';
  const recorder = eventRecorder(store);
  if (effectivePullPolicy(image, spec?.imagePullPolicy) === 'Always') {
    recorder.record(pod, report(pod, name, 'Normal', 'Pulling', `Pulling image ${JSON.stringify(image)}`));
    recorder.record(pod, report(pod, name, 'Normal', 'Pulled', `Successfully pulled image ${JSON.stringify(image)} in 0s (0s including waiting)`));
  } else {
    recorder.record(pod, report(pod, name, 'Normal', 'Pulled', `Container image ${JSON.stringify(image)} already present on machine`));
  }
  recorder.record(pod, report(pod, name, 'Normal', 'Created', `Created container: ${name}`));
  recorder.record(pod, report(pod, name, 'Normal', 'Started', `Started container ${name}`));
}

/** `Killing`: the kubelet stops container `name` of a pod being deleted. */
export function recordContainerKilling(store: ObjectStore, pod: KubeObject, name: string): void {
  eventRecorder(store).record(pod, report(pod, name, 'Normal', 'Killing', `Stopping container ${name}`));
}

/** `BackOff`: container `name` crashed and waits out its back-off before the next restart. */
export function recordContainerBackOff(store: ObjectStore, pod: KubeObject, name: string): void {
  const formatPod = `${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;
  eventRecorder(store).record(pod, report(pod, name, 'Warning', 'BackOff', `Back-off restarting failed container ${name} in pod ${formatPod}`));
}

/**
 * What a failed readiness probe of container `name` reports: a refused connection when the process
 * is not serving (`processUp` false, or a TCP probe), a 503 when a running server answers an HTTP
 * probe unready, nothing for an exec probe (its command's output, which the world does not model).
 */
export function readinessFailureOutput(pod: KubeObject, name: string, podIP: string, processUp: boolean): string {
  const probe = containerSpec(pod, name)?.readinessProbe ?? undefined;
  const http = probe?.httpGet;
  const port = http?.port ?? probe?.tcpSocket?.port;
  const refused = `dial tcp ${podIP}:${String(port ?? '')}: connect: connection refused`;
  if (http) {
    if (processUp) return 'HTTP probe failed with statuscode: 503';
    const url = `${(http.scheme ?? 'HTTP').toLowerCase()}://${podIP}:${String(port ?? '')}${http.path ?? '/'}`;
    return `Get ${JSON.stringify(url)}: ${refused}`;
  }
  return probe?.tcpSocket ? refused : '';
}

/** `Unhealthy`: `times` failed readiness probes of container `name`, with the prober's `output`. */
export function recordReadinessFailures(store: ObjectStore, pod: KubeObject, name: string, output: string, times: number): void {
  if (times <= 0) return;
  eventRecorder(store).record(pod, report(pod, name, 'Warning', 'Unhealthy', `Readiness probe failed: ${output}`), times);
}
