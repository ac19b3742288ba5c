/**
 * The provider runtime: what the serialized shim (`engine/shim.ts`) requires inside the provider process as
 * `platform-pulumi/runtime`. Its shape is a contract with every `__provider` already stored in users' state:
 * `configure(req)` and `providers[kind].{check,diff,create,read,update,delete}`. Add kinds (to the kind registry,
 * `kinds/registry.ts`); never rename one.
 */
import type * as pulumi from "@pulumi/pulumi";
import { processContext } from "./engine/context";
import { KINDS, kindEntry } from "./kinds/registry";
import type { ResourceKind } from "./kinds/registry";
import { isUnknown, type Failure } from "./validation";
import { engineAddressArg, startEngineWatch } from "./engineWatch";
import { wellFormedDeep } from "./text";

/**
 * Receives the stack config (all namespaces) from the dynamic-provider host and configures the process's provider
 * context (`context.ts`, {@link processContext}), which every kind's provider here is bound to.
 */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  // A configure request's config is fixed for the process's life: the context may keep what it resolves from it.
  processContext().configure((key) => req.config.get(key), true);
}

/**
 * The dynamic-provider plugin's entry: the provider object the one-line `__provider` of a resource asks for (see
 * `engine/shim.ts`; stored state calls exactly this), the kind's implementation plus `configure`. Created once
 * per kind and process. Starting the engine watch here is deliberate (`docs/architecture.md`, "The provider
 * context"): from the first call on, the plugin process exits when the engine that started it is gone
 * (`engineWatch.ts`), also when it was gone before that call ran (the watch is given the engine's address, the
 * plugin's first argument, `engineAddressArg`). {@link localProvider} gives the same object without it.
 * @throws Error naming the kind when this package does not know it.
 */
export function provider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  // With the engine's address (the plugin's first argument): in the CLI's bundled plugin this is the first code of
  // this package to run, at the first resource call, and the engine may already be gone by then (killed while the
  // call was on its way); the watch then finds no engine above it and, without the address, would watch the
  // re-parented `sh` wrapper forever.
  const engineAddress = engineAddressArg();
  startEngineWatch(engineAddress ? { engineAddress } : {});
  return localProvider(kind);
}

/**
 * The provider object of a kind for use in this process (e.g. by `platform-pulumi recover`), without the plugin's
 * engine watch. Same object as {@link provider} returns: the kind's provider bound to the process's provider
 * context (`kindEntry(kind).providerFor(processContext())`), so every kind shares one client and one create ledger.
 * @throws Error naming the kind when this package does not know it.
 */
export function localProvider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const cached = cache.get(kind);
  if (cached) return cached;
  const impl = kindEntry(kind)?.providerFor(processContext()) as (typeof providers)[ResourceKind] | undefined;
  if (!impl) throw new Error(`platform-pulumi runtime: unknown resource kind "${kind}" (was this state written by a newer package?)`);
  // Every kind's `createToken` is its declaration's built-in field (`engine/declare.ts`, CREATE_TOKEN_FIELD).
  const p: pulumi.dynamic.ResourceProvider = wellFormedResults({ ...impl, check: engineCheck(impl.check.bind(impl)), configure });
  cache.set(kind, p);
  return p;
}

const cache = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

/** The provider methods whose results go to the engine. */
const TO_ENGINE = ["check", "diff", "create", "read", "update"] as const;

/**
 * `p` with the results of `check`, `diff`, `create`, `read` and `update` passed through `wellFormedDeep`
 * (provider/text.ts): every lone surrogate in a string (server text: a subject, a claimMatch value, a name the API
 * sent as `"\ud800"`, valid JSON) becomes U+FFFD. The dynamic-provider plugin sends these results to the engine
 * as protobuf, where a lone surrogate is invalid UTF-8 and the engine fails the whole call ("invalid UTF-8",
 * naming neither field nor value), so every refresh and `drift` of a stack holding such an object failed. With
 * the replacement the call succeeds, the state holds U+FFFD, and the next read gives the same: no drift from it.
 * The replacement, not an error, is deliberate: the object stays manageable (the native provider does the same,
 * `native/server.ts`).
 */
export function wellFormedResults(p: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  const out: pulumi.dynamic.ResourceProvider = { ...p };
  const target = out as unknown as Record<string, unknown>;
  for (const m of TO_ENGINE) {
    const f = p[m] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (f) target[m] = async (...args: unknown[]) => wellFormedDeep(await f.apply(p, args));
  }
  return out;
}

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
    processContext().settings();
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

/**
 * Implementations by resource kind, one per entry of the kind registry (`kinds/registry.ts`), each made once
 * from its declaration (`engine/declare.ts`) and bound to the process's provider context (the kind's
 * `provider`, as {@link localProvider} binds it). Typed as the SDK's provider, whose inputs are untyped.
 */
export const providers: Record<ResourceKind, Required<Omit<pulumi.dynamic.ResourceProvider, "configure">>> = Object.fromEntries(
  KINDS.map((k) => [k.kind, k.provider as Required<Omit<pulumi.dynamic.ResourceProvider, "configure">>]),
) as Record<ResourceKind, Required<Omit<pulumi.dynamic.ResourceProvider, "configure">>>;
