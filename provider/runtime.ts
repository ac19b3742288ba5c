/**
 * The provider runtime: what the serialized shim (`resources/shim.ts`) requires inside the provider process as
 * `platform-pulumi/runtime`. Its shape is a contract with every `__provider` already stored in users' state:
 * `configure(req)` and `providers[kind].{check,diff,create,read,update,delete}`. Add kinds; never rename one.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ProviderImpl } from "./resources/common";
import { accountAssociationProvider } from "./resources/accountAssociation";
import { groupProvider } from "./resources/group";
import { groupInviteProvider } from "./resources/groupInvite";
import { identityProviderProvider } from "./resources/identityProvider";
import { roleProvider } from "./resources/role";
import { identityProvider } from "./resources/identity";
import { roleBindingProvider } from "./resources/roleBinding";
import type { ResourceKind } from "./resources/shim";
import { currentSettings, setConfigLookup } from "./state";
import { isUnknown, type Failure } from "./validation";

/** Receives the stack config (all namespaces) from the dynamic-provider host. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  setConfigLookup((key) => req.config.get(key));
}

/**
 * The provider object the one-line `__provider` of a resource asks for (see `resources/shim.ts`): the kind's
 * implementation plus `configure`. Created once per kind and process.
 */
export function provider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const cached = cache.get(kind);
  if (cached) return cached;
  const impl = providers[kind] as unknown as pulumi.dynamic.ResourceProvider | undefined;
  if (!impl) throw new Error(`platform-pulumi runtime: unknown resource kind "${kind}" (was this state written by a newer package?)`);
  const p: pulumi.dynamic.ResourceProvider = { ...impl, check: engineCheck(impl.check!.bind(impl)), configure };
  cache.set(kind, p);
  return p;
}

const cache = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

type CheckFn = NonNullable<pulumi.dynamic.ResourceProvider["check"]>;

/**
 * `check` as the engine sees it: the settings first, then the kind's own check, with failures put in a form the
 * engine prints correctly.
 *
 * - Settings (issue 9): a missing `platform:apiUrl` or credential fails the preview here, with the message `up`
 *   would give, instead of only when the first API call is made. No network call is made: this only reads
 *   stack config and the environment.
 * - Nested failures: the engine prints `property <p> value <inputs[p]> has a problem: <reason>`, looking `p` up
 *   as a top-level key only, so a path such as `claimMatch.issuer` printed `value {<nil>}` whatever was set.
 *   A failure on a nested path is passed with no property, its reason naming the path and its real value
 *   (secret-named fields show `[secret]`), which the engine prints as
 *   `<type> resource '<name>' has a problem: claimMatch.issuer (value "http://x"): must be an https URL ...`.
 * @throws SettingsError when the API URL or the credentials are missing or malformed.
 */
export function engineCheck(check: CheckFn): CheckFn {
  return async (olds, news) => {
    currentSettings();
    const r = await check(olds, news);
    return r.failures ? { ...r, failures: r.failures.map((f) => forEngine(f, news)) } : r;
  };
}

/** A failure the engine renders correctly: top-level properties as they are; nested paths in the reason, with their value. */
export function forEngine(f: Failure, news: unknown): Failure {
  if (!/[.[]/.test(f.property)) return f;
  return { property: "", reason: `${f.property} (value ${describeValue(f.property, valueAt(news, f.property))}): ${f.reason}` };
}

/** The segments of a property path: `a.b[0]["c.d"]` → `["a", "b", 0, "c.d"]`. */
export function pathSegments(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\.?([^.[\]]+)/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(JSON.parse(`"${m[2]}"`) as string);
    else if (m[3] !== undefined) out.push(m[3]);
  }
  return out;
}

function valueAt(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const seg of pathSegments(path)) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

const SECRET_NAME = /secret|password|token|credential|privateKey/i;
const MAX_VALUE_CHARS = 200;

function describeValue(path: string, v: unknown): string {
  if (v === undefined || v === null) return "not set";
  if (isUnknown(v)) return "unknown until apply";
  if (SECRET_NAME.test(path)) return "[secret]";
  const text = JSON.stringify(v) ?? String(v);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/** Implementations by resource kind. */
export const providers: Record<ResourceKind, ProviderImpl<never, never>> = {
  Group: groupProvider as unknown as ProviderImpl<never, never>,
  Identity: identityProvider as unknown as ProviderImpl<never, never>,
  RoleBinding: roleBindingProvider as unknown as ProviderImpl<never, never>,
  Role: roleProvider as unknown as ProviderImpl<never, never>,
  IdentityProvider: identityProviderProvider as unknown as ProviderImpl<never, never>,
  AccountAssociation: accountAssociationProvider as unknown as ProviderImpl<never, never>,
  GroupInvite: groupInviteProvider as unknown as ProviderImpl<never, never>,
};
