/**
 * The serialized part of every resource: one line of code in state.
 *
 * Pulumi stores a dynamic resource's provider as code (`__provider`) and runs that stored code for `read` and
 * `delete` (README, How it works). The dynamic-provider plugin evaluates it with `require-from-string` and calls its
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
import { warnUnknownConfigKeys } from "../configCheck";
import { useIdAsUid } from "./common";

/**
 * The typed outputs of a resource class: each of `keys` of the kind's outputs `O` as a read-only `pulumi.Output`
 * (present, with `undefined` in its type where the field may be absent), its documentation that of `O`'s field.
 * Each kind's generated `types.ts` names its `XOutputProperties` so (see `provider/schema/typescript.ts`).
 */
export type OutputProperties<O, K extends keyof O> = { readonly [P in keyof Pick<O, K>]-?: pulumi.Output<O[P]> };

/**
 * The plain form of an argument type `T`: every `pulumi.Input` (a value, a `Promise` or an `Output`) replaced by
 * its value, at every level; optional fields stay optional (and may hold `undefined`) and each keeps `T`'s
 * documentation (a homomorphic mapped type). `unknown` stays `unknown`. The generated `XInputs` and the plain named types are computed so from
 * the `XArgs` the generator writes (`provider/schema/typescript.ts`), so each field is written once.
 */
export type Plain<T> = unknown extends T
  ? T
  : T extends Promise<infer U>
    ? Plain<U>
    : T extends pulumi.OutputInstance<infer U>
      ? Plain<U>
      : T extends readonly (infer E)[]
        ? Plain<E>[]
        : T extends object
          ? { [K in keyof T]: Plain<T[K]> | (string extends K ? never : Pick<T, K> extends Required<Pick<T, K>> ? never : undefined) }
          : T;

/**
 * A kind's inputs after `check`, computed from its arguments `A`: the plain form ({@link Plain}) of every argument,
 * the ones in `D` (those with a default) always present, plus `Extra` (the fields the engine adds, such as a
 * delete timeout taken from `customTimeouts`).
 */
export type Checked<A, D extends keyof A = never, Extra = unknown> = Plain<Omit<A, D>> & { [K in keyof Pick<A, D>]-?: Exclude<Plain<A[K]>, undefined> } & Extra;

/**
 * A resource kind's name, the last segment of its type token. The union of the kinds this package serves is
 * derived from the kind registry (`kinds/registry.ts`); the machinery takes any name.
 */
export type KindName = string;

/** The type token of a kind: `pulumi-nodejs:dynamic/platform:<kind>`. */
export function typeToken(kind: KindName): string {
  return `pulumi-nodejs:dynamic/platform:${kind}`;
}

/**
 * Whether `obj` is a resource of `kind`, judged by its Pulumi type token (`__pulumiType`, which every
 * `pulumi.Resource` carries), not by `instanceof`: so it holds across two copies of this package in one program,
 * as generated SDKs' `isInstance` does.
 */
export function isResourceOfKind(obj: unknown, kind: KindName): boolean {
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
export function providerSource(kind: KindName): string {
  return `exports.handler = () => require("platform-pulumi/runtime").provider(${JSON.stringify(kind)});`;
}

/**
 * What a resource class is made from: its kind and the helpers its declaration gives (`engine/declare.ts`).
 */
export interface ResourceShape {
  /** The kind (type token `pulumi-nodejs:dynamic/platform:<kind>`). */
  readonly kind: KindName;
  /** The argument keys a static `get` registers unset, so each becomes an `Output` of the resource. */
  readonly readKeys: readonly string[];
  /** The props a resource registers: every declared output unset, then the program's arguments, then `extra`. */
  props(args: object, extra?: Record<string, unknown>): pulumi.Inputs;
  /** Resource options with the kind's secret outputs added to `additionalSecretOutputs`. */
  options(opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions;
}

/** The static side of a resource class, which `get` and `isInstance` are called on. */
export interface ResourceClass<R> {
  new (name: string, args: never, opts?: pulumi.CustomResourceOptions): R;
  /** @internal The kind's shape. */
  readonly __shape: ResourceShape;
}

/**
 * Base class of this package's resources: a `pulumi-nodejs:dynamic/platform:<Kind>` custom resource, served by
 * Pulumi's Node.js dynamic-provider plugin exactly like a `pulumi.dynamic.Resource`, with the one-line provider.
 * Its `uid` output is its engine id (see `useIdAsUid`).
 */
export abstract class PlatformResource extends pulumi.CustomResource {
  /** @internal The kind's shape; every resource class sets its own. */
  declare static readonly __shape: ResourceShape;

  /**
   * Reads an existing object by uid without managing it: its current server state becomes this resource's
   * outputs (refreshed by `pulumi refresh`), and `pulumi destroy` leaves the object alone. Built on
   * `new X(name, args, { id: uid })`, which works for dynamic resources (`pulumi import` does not).
   * @param name Pulumi resource name (unique in the stack).
   * @param uid the object's uid.
   * @param opts resource options (`id` is set to `uid`).
   * @returns the typed resource; the operation fails at preview/up with NOT_FOUND when no object has that uid.
   * @example const org = Group.get("org", orgUid);
   */
  static get<R extends PlatformResource>(this: ResourceClass<R>, name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): R {
    return new this(name, readArgs<never>(this.__shape.readKeys), { ...opts, id: uid });
  }

  /**
   * Whether `obj` is a resource of this class's kind (type token `pulumi-nodejs:dynamic/platform:<Kind>`). Checks
   * the token, not the class, so it holds when the program loads two copies of this package.
   */
  static override isInstance<R extends PlatformResource>(this: ResourceClass<R>, obj: unknown): obj is R {
    return isResourceOfKind(obj, this.__shape.kind);
  }

  /**
   * @param shape the kind's shape (from its declaration).
   * @param name Pulumi resource name. @param args the program's arguments. @param opts resource options.
   * @param extra further props (e.g. a group's delete timeout from `customTimeouts`).
   * @throws Error when the props define `__provider` (reserved).
   */
  protected constructor(shape: ResourceShape, name: string, args: object, opts?: pulumi.CustomResourceOptions, extra?: Record<string, unknown>) {
    warnUnknownConfigKeys();
    const props = shape.props(args, extra);
    if ("__provider" in props) throw new Error("a platform resource must not define the __provider property");
    super(typeToken(shape.kind), name, { ...props, __provider: providerSource(shape.kind) }, shape.options(opts));
    useIdAsUid(this as unknown as pulumi.CustomResource & { uid: pulumi.Output<string> });
  }
}
