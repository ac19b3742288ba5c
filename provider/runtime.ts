/**
 * The provider runtime: what the serialized shim (`resources/shim.ts`) requires inside the provider process as
 * `platform-pulumi/runtime`. Its shape is a contract with every `__provider` already stored in users' state:
 * `configure(req)` and `providers[kind].{check,diff,create,read,update,delete}`. Add kinds; never rename one.
 */
import type * as pulumi from "@pulumi/pulumi";
import { accountAssociationProvider } from "./resources/accountAssociation";
import { groupProvider } from "./resources/group";
import { groupInviteProvider } from "./resources/groupInvite";
import { identityProviderProvider } from "./resources/identityProvider";
import { roleProvider } from "./resources/role";
import { identityProvider } from "./resources/identity";
import { roleBindingProvider } from "./resources/roleBinding";
import { repoProvider } from "./resources/repo";
import { tagProvider } from "./resources/tag";
import { overlayProvider } from "./resources/overlay";
import { overlayBindingProvider } from "./resources/overlayBinding";
import { subscriptionProvider } from "./resources/subscription";
import type { ResourceKind } from "./resources/shim";
import { currentSettings, setConfigLookup } from "./state";
import { isUnknown, type Failure } from "./validation";
import { CREATE_TOKEN, newCreateToken } from "./resources/lifecycle";
import { startEngineWatch } from "./engineWatch";

/** Receives the stack config (all namespaces) from the dynamic-provider host. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  setConfigLookup((key) => req.config.get(key));
}

/**
 * The provider object the one-line `__provider` of a resource asks for (see `resources/shim.ts`): the kind's
 * implementation plus `configure`. Created once per kind and process.
 */
export function provider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  // Only the `__provider` shims call this, inside the dynamic-provider plugin: from the first call on, the
  // process exits when the engine that started it is gone (see engineWatch.ts).
  startEngineWatch();
  return localProvider(kind);
}

/**
 * The provider object of a kind for use in this process (e.g. by `platform-pulumi recover`), without the plugin's
 * engine watch. Same object as {@link provider} returns.
 * @throws Error naming the kind when this package does not know it.
 */
export function localProvider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const cached = cache.get(kind);
  if (cached) return cached;
  const impl: pulumi.dynamic.ResourceProvider | undefined = providers[kind];
  if (!impl) throw new Error(`platform-pulumi runtime: unknown resource kind "${kind}" (was this state written by a newer package?)`);
  const p: pulumi.dynamic.ResourceProvider = { ...withCreateToken({ ...impl, check: engineCheck(impl.check!.bind(impl)) }), configure };
  cache.set(kind, p);
  return p;
}

const cache = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

type CheckFn = NonNullable<pulumi.dynamic.ResourceProvider["check"]>;

/**
 * `check` as the engine sees it: the settings first, then the kind's own check, with failures put in a form the
 * engine prints correctly.
 *
 * - Settings: a missing `platform:apiUrl` or credential fails the preview here, with the message `up`
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

type Props = Record<string, unknown> | undefined;

/** The `createToken` a resource already has (from its old inputs or outputs), when well-formed. */
function tokenIn(...sources: Props[]): string | undefined {
  for (const s of sources) {
    const t = s?.["createToken"];
    if (typeof t === "string" && CREATE_TOKEN.test(t)) return t;
  }
  return undefined;
}

/**
 * Gives every resource a `createToken` (16 random hex characters) in its checked inputs, kept for its life:
 * `check` takes it from the old inputs or makes one, and create, read and update carry it into outputs (and
 * read into the inputs it returns). Creates mark what they make with it (`resources/lifecycle.ts`), and because
 * the engine records checked inputs in an interrupted update's pending create operations, `platform-pulumi
 * recover` can prove which object such a create made. Not a field of any resource's diff: it never causes a
 * change.
 */
function withCreateToken(impl: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  return {
    ...impl,
    async check(olds: Props, news: Props) {
      const r = impl.check ? await impl.check(olds, news) : { inputs: news };
      return { ...r, inputs: { ...(r.inputs as object), createToken: tokenIn(olds, news) ?? newCreateToken() } };
    },
    async create(inputs: Props) {
      const r = await impl.create(inputs);
      const token = tokenIn(inputs);
      return token ? { ...r, outs: { ...(r.outs as object), createToken: token } } : r;
    },
    async read(id: string, props: Props) {
      const r = impl.read ? await impl.read(id, props) : { id, props };
      const token = tokenIn(props);
      if (!r.id || !token) return r;
      return { ...r, props: { ...(r.props as object), createToken: token }, ...(r.inputs ? { inputs: { ...(r.inputs as object), createToken: token } } : {}) };
    },
    async update(id: string, olds: Props, news: Props) {
      const r = impl.update ? await impl.update(id, olds, news) : {};
      const token = tokenIn(news, olds);
      return token ? { ...r, outs: { ...(r.outs as object), createToken: token } } : r;
    },
  };
}

/**
 * Implementations by resource kind (each made once, from its declaration: `resources/declare.ts`). Typed as the
 * SDK's provider, whose inputs are untyped, so no kind's table entry needs a cast.
 */
export const providers: Record<ResourceKind, Required<Omit<pulumi.dynamic.ResourceProvider, "configure">>> = {
  Group: groupProvider,
  Identity: identityProvider,
  RoleBinding: roleBindingProvider,
  Role: roleProvider,
  IdentityProvider: identityProviderProvider,
  AccountAssociation: accountAssociationProvider,
  GroupInvite: groupInviteProvider,
  Repo: repoProvider,
  Tag: tagProvider,
  Overlay: overlayProvider,
  OverlayBinding: overlayBindingProvider,
  Subscription: subscriptionProvider,
};
