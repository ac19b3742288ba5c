/**
 * The type tokens this package's resources have in a Pulumi state or plan, and the kind each names. A kind is
 * served two ways (docs/native.md): as a dynamic resource of a Node.js program, `pulumi-nodejs:dynamic/platform:<Kind>`,
 * and by the native plugin, `platform:<module>:<Kind>` (the package schema's resource tokens, `schema.json`). Every
 * command and policy that reads a state, a plan or a preview recognises both, so a stack may hold both while it
 * moves from one to the other by `aliases`.
 */

/** The dynamic resources' type token prefix: `pulumi-nodejs:dynamic/platform:<Kind>`. */
export const DYNAMIC_TYPE_PREFIX = "pulumi-nodejs:dynamic/platform:";

/** A native resource token: `platform:<module>:<Kind>`, the module lower-case, the kind upper camel case. */
const NATIVE_TYPE = /^platform:([a-z][a-z0-9]*):([A-Z][A-Za-z0-9]*)$/;

/**
 * The kind a resource type token names (`Group` for `pulumi-nodejs:dynamic/platform:Group` and for
 * `platform:iam:Group`), or undefined for any other type (another package's, a provider's
 * `pulumi:providers:platform`, a function token such as `platform:iam:getRole`).
 */
export function kindOfType(type: string): string | undefined {
  if (type.startsWith(DYNAMIC_TYPE_PREFIX)) return type.slice(DYNAMIC_TYPE_PREFIX.length) || undefined;
  return NATIVE_TYPE.exec(type)?.[2];
}

/** Whether `type` is this package's resource of `kind`, served either way ({@link kindOfType}). */
export function isKindType(type: string, kind: string): boolean {
  return kindOfType(type) === kind;
}
