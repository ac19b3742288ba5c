/**
 * The serialized part of every resource: one line of code in state.
 *
 * Pulumi stores a dynamic resource's provider as code (`__provider`) and runs that stored code for `read` and
 * `delete` (FACTS.md). The dynamic-provider plugin evaluates it with `require-from-string` and calls its
 * `handler()` to get the provider object. So instead of letting the closure serializer write out every method
 * (about 2.6 KB per resource type), each resource stores a line that requires this package's runtime by its
 * public name and asks it for the provider of its kind:
 *
 *     exports.handler = () => require("platform-pulumi/runtime").provider("Group");
 *
 * An upgraded package changes behaviour without replacing resources; no credential, schema or connection
 * object can ever be captured; and the text is the same for every resource of a kind. The runtime is resolved
 * from the provider process's working directory (the program's folder), as any package the program depends on.
 * Contract: the package's `exports` map keeps `platform-pulumi/runtime`, and the runtime keeps `provider(kind)`
 * (and, for state written by 0.1.0, `configure` and `providers[kind]`).
 */
import * as pulumi from "@pulumi/pulumi";

/** Resource kinds served by the runtime; also the last segment of each type token. */
export type ResourceKind =
  | "Group"
  | "Identity"
  | "RoleBinding"
  | "Role"
  | "IdentityProvider"
  | "AccountAssociation"
  | "GroupInvite"
  | "Repo"
  | "Tag"
  | "Overlay"
  | "OverlayBinding"
  | "Subscription";

/** The type token of a kind: `pulumi-nodejs:dynamic/platform:<kind>`. */
export function typeToken(kind: ResourceKind): string {
  return `pulumi-nodejs:dynamic/platform:${kind}`;
}

/**
 * Whether `obj` is a resource of `kind`, judged by its Pulumi type token (`__pulumiType`, which every
 * `pulumi.Resource` carries), not by `instanceof`: so it holds across two copies of this package in one program,
 * as generated SDKs' `isInstance` does.
 */
export function isResourceOfKind(obj: unknown, kind: ResourceKind): boolean {
  return typeof obj === "object" && obj !== null && (obj as { __pulumiType?: unknown }).__pulumiType === typeToken(kind);
}

/**
 * The arguments a static `get` passes: every argument key, unset. The SDK makes an `Output` on the resource only
 * for keys present in the props it registers, so without them a resource read by id would have no `name`
 * (the outputs would be in state but unreachable from the program).
 */
export function readArgs<A>(keys: ReadonlyArray<string>): A {
  return Object.fromEntries(keys.map((k) => [k, undefined])) as A;
}

/** The `__provider` text of a kind. */
export function providerSource(kind: ResourceKind): string {
  return `exports.handler = () => require("platform-pulumi/runtime").provider(${JSON.stringify(kind)});`;
}

/**
 * Base class of this package's resources: a `pulumi-nodejs:dynamic/platform:<Kind>` custom resource, served by
 * Pulumi's Node.js dynamic-provider plugin exactly like a `pulumi.dynamic.Resource`, with the one-line provider.
 */
export abstract class PlatformResource extends pulumi.CustomResource {
  /**
   * @param kind the resource kind (type token `pulumi-nodejs:dynamic/platform:<kind>`).
   * @param name Pulumi resource name. @param props inputs, with output-only properties as `undefined`.
   * @param opts resource options.
   * @throws Error when `props` defines `__provider` (reserved).
   */
  protected constructor(kind: ResourceKind, name: string, props: pulumi.Inputs, opts?: pulumi.CustomResourceOptions) {
    if ("__provider" in props) throw new Error("a platform resource must not define the __provider property");
    super(typeToken(kind), name, { ...props, __provider: providerSource(kind) }, opts);
  }
}
