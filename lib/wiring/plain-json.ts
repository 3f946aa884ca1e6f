/**
 * The one place the Kubernetes port's loose JSON objects and the model's `kubernetes-models` types
 * meet. Both describe the same JSON the API server sends (nothing is converted or copied), so the
 * change of type is a statement, not a transformation; rules and adapters read every field
 * defensively, since any field of a Kubernetes object may be absent.
 */

/** `value` as `T`: use only for Kubernetes object JSON crossing between the port and the model. */
export function plainJson<T>(value: unknown): T {
  return value as T;
}
