/**
 * The native provider plugin `pulumi-resource-platform`: Pulumi's `ResourceProvider` gRPC service, served by the
 * same kind implementations as the dynamic resources (each kind's `providerFor(ctx)`, `engine/declare.ts`), so
 * programs in every Pulumi language, and `pulumi import`, reach them. The package schema it answers `GetSchema`
 * with is `schema.json` (`provider/schema/`).
 *
 * Protocol (Pulumi's `provider.proto`, the messages @pulumi/pulumi ships in `proto/`): the engine starts the
 * plugin with its address as the first argument; the plugin prints the port it listens on, on one line of stdout,
 * then serves until the engine closes. Properties travel as `google.protobuf.Struct`s in which a secret is the
 * object `{ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value }` and an unknown the
 * string `04da6b54-80e4-46f7-96ec-b56ff0331ba9` (the same sentinel the kinds' checks know, `validation.ts`).
 *
 * What it does per call: `Configure` resolves the settings from the stack config it is given (`platform:*` keys,
 * then the `PLATFORM_*` environment, `config.ts`) and accepts secrets and previews; `Check`, `Diff`, `Create`,
 * `Read`, `Update` and `Delete` call the kind's provider with secrets unwrapped, and wrap the kind's secret
 * outputs again (`DeclaredResource.secrets`); in a preview, `Create` and `Update` call no API and return the
 * inputs, so a child wired to its parent's `uid` previews as an update, not a replace; `Delete` passes
 * `DeleteRequest.timeout` to a group's patient delete; `Read` with no properties is an import.
 */
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { canonical } from "../engine/common";
import { ProviderContext } from "../engine/context";
import { forEngine } from "../runtime";
import { KINDS, type KindEntry } from "../kinds/registry";
import { PACKAGE_NAME } from "../schema/package";
import * as lookups from "../lookups";
import { LOOKUPS } from "../lookups/catalog";
import { wellFormed, wellFormedDeep } from "../text";

const providerRpc = require("@pulumi/pulumi/proto/provider_grpc_pb") as { ResourceProviderService: grpc.ServiceDefinition };
const proto = require("@pulumi/pulumi/proto/provider_pb") as Record<string, new () => Msg> & {
  DiffResponse: { new (): Msg; DiffChanges: Record<string, number> };
  PropertyDiff: { new (): Msg; Kind: Record<string, number> };
};
const pluginProto = require("@pulumi/pulumi/proto/plugin_pb") as Record<string, new () => Msg>;
const emptyProto = require("google-protobuf/google/protobuf/empty_pb") as { Empty: new () => Msg };
const structProto = require("google-protobuf/google/protobuf/struct_pb") as { Struct: { fromJavaScript(o: object): Msg } };

/** A generated protobuf message, used through its getters and setters. */
type Msg = Record<string, (...args: unknown[]) => unknown>;
type Props = Record<string, unknown>;

/** The secret marker of Pulumi's property values (`sdk/go/common/resource/sig`). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** `v` with every secret unwrapped (the kinds see plain values; secrecy is restored on the way out). */
export function unwrapSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (v !== null && typeof v === "object") {
    const o = v as Props;
    if (o[SIG_KEY] === SECRET_SIG) return unwrapSecrets(o["value"]);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrapSecrets(x)]));
  }
  return v;
}

/** `props` with each of `secrets` wrapped as a secret value. */
export function wrapSecrets(props: Props, secrets: readonly string[]): Props {
  const out: Props = { ...props };
  for (const k of secrets) if (out[k] !== undefined && out[k] !== null) out[k] = { [SIG_KEY]: SECRET_SIG, value: out[k] };
  return out;
}

/** The plain properties of a Struct field (`getProperties()` and the like), secrets unwrapped; `{}` when unset. */
function propsOf(s: unknown): Props {
  if (!s) return {};
  return (unwrapSecrets((s as { toJavaScript(): Props }).toJavaScript()) ?? {}) as Props;
}

/**
 * A Struct of `props`, with `undefined` members left out (protobuf has no undefined), and every string well-formed
 * (`wellFormedDeep`, provider/text.ts): a lone surrogate the API sent (`"\ud800"` is valid JSON) is U+FFFD, as the
 * dynamic provider's results are (`runtime.ts` `wellFormedResults`), since protobuf strings are UTF-8 and the
 * engine refuses a message holding one ("invalid UTF-8", naming neither field nor value).
 */
export function structOf(props: Props): Msg {
  return structProto.Struct.fromJavaScript(wellFormedDeep(JSON.parse(JSON.stringify(props)) as object));
}

/** The type token in a URN (`urn:pulumi:<stack>::<project>::<parent types$>type::<name>`). */
export function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/**
 * Serves the native provider on `127.0.0.1` (a free port), returning the port and a stop function.
 * @param version the plugin's version (GetPluginInfo), the npm package's.
 * @param schemaText the package schema (GetSchema).
 */
export async function serveNativeProvider(version: string, schemaText: string): Promise<{ port: number; stop(): Promise<void> }> {
  const ctx = new ProviderContext();
  const byToken = new Map<string, KindEntry>(KINDS.map((k) => [`${PACKAGE_NAME}:${k.module}:${k.kind}`, k]));
  const impls = new Map(KINDS.map((k) => [k.kind, k.providerFor(ctx)]));
  // Until Configure arrives (the engine sends it first), settings come from the environment alone.
  ctx.configure(ctxLookup({}), false);

  const kindOf = (urn: string): KindEntry => {
    const token = typeOfUrn(urn);
    const k = byToken.get(token);
    if (!k) throw Object.assign(new Error(`unknown resource type ${JSON.stringify(token)}; this provider serves ${[...byToken.keys()].join(", ")}`), { code: grpc.status.INVALID_ARGUMENT });
    return k;
  };
  const implOf = (k: KindEntry) => impls.get(k.kind)!;

  /** Wraps a handler: its result or its error (with the message alone, as the engine prints it). */
  const unary =
    <Req extends Msg>(fn: (req: Req) => Promise<Msg>) =>
    (call: grpc.ServerUnaryCall<Req, Msg>, cb: grpc.sendUnaryData<Msg>): void => {
      fn(call.request).then(
        (res) => cb(null, res),
        (err: unknown) => {
          const e = err as { message?: string; code?: number };
          cb({ code: typeof e.code === "number" && e.code > 0 && e.code < 17 ? e.code : grpc.status.UNKNOWN, details: wellFormed(e.message ?? String(err)) } as grpc.ServiceError, null);
        },
      );
    };

  const impl = {
    handshake: unary(async () => new proto["ProviderHandshakeResponse"]!()),
    getPluginInfo: unary(async () => {
      const r = new pluginProto["PluginInfo"]!();
      r["setVersion"]!(version);
      return r;
    }),
    getSchema: unary(async () => {
      const r = new proto["GetSchemaResponse"]!();
      r["setSchema"]!(schemaText);
      return r;
    }),
    checkConfig: unary(async (req) => {
      const r = new proto["CheckResponse"]!();
      r["setInputs"]!(req["getNews"]!());
      return r;
    }),
    diffConfig: unary(async () => {
      const r = new proto["DiffResponse"]!();
      r["setChanges"]!(proto.DiffResponse.DiffChanges["DIFF_NONE"]);
      return r;
    }),
    configure: unary(async (req) => {
      const vars = Object.fromEntries((req["getVariablesMap"]!() as { toArray(): Array<[string, string]> }).toArray());
      ctx.configure(ctxLookup({ ...vars, ...propsOf(req["getArgs"]!()) }), true);
      const r = new proto["ConfigureResponse"]!();
      r["setAcceptsecrets"]!(true);
      r["setSupportspreview"]!(true);
      r["setAcceptresources"]!(false);
      r["setAcceptoutputs"]!(false);
      return r;
    }),
    check: unary(async (req) => {
      const k = kindOf(req["getUrn"]!() as string);
      ctx.settings();
      const news = propsOf(req["getNews"]!());
      const olds = propsOf(req["getOlds"]!());
      const res = await implOf(k).check(olds, news);
      const r = new proto["CheckResponse"]!();
      r["setInputs"]!(structOf(wrapSecrets((res.inputs ?? {}) as Props, k.secrets)));
      for (const f of res.failures ?? []) {
        const ef = forEngine(f as { property: string; reason: string }, news);
        const cf = new proto["CheckFailure"]!();
        cf["setProperty"]!(ef.property);
        cf["setReason"]!(wellFormed(ef.reason));
        r["addFailures"]!(cf);
      }
      return r;
    }),
    diff: unary(async (req) => {
      const k = kindOf(req["getUrn"]!() as string);
      const olds = propsOf(req["getOlds"]!());
      const news = propsOf(req["getNews"]!());
      const ignore = new Set(req["getIgnorechangesList"]!() as string[]);
      for (const key of ignore) if (key in olds) news[key] = olds[key];
      const d = await implOf(k).diff(req["getId"]!() as string, olds, news);
      const r = new proto["DiffResponse"]!();
      const replaces = (d.replaces ?? []).filter((x) => !ignore.has(x));
      const changed = Object.entries(k.fields)
        .filter(([name, f]) => !f.internal && f.kind !== "createOnly" && !ignore.has(name) && canonical(olds[name]) !== canonical(news[name]))
        .map(([name]) => name);
      const diffs = [...new Set([...replaces, ...changed])];
      r["setChanges"]!(d.changes === false && replaces.length === 0 ? proto.DiffResponse.DiffChanges["DIFF_NONE"] : diffs.length || d.changes ? proto.DiffResponse.DiffChanges["DIFF_SOME"] : proto.DiffResponse.DiffChanges["DIFF_NONE"]);
      r["setReplacesList"]!(replaces);
      r["setStablesList"]!(d.stables ?? []);
      r["setDeletebeforereplace"]!(d.deleteBeforeReplace ?? false);
      r["setDiffsList"]!(diffs);
      const detailed = r["getDetaileddiffMap"]!() as { set(k: string, v: Msg): void };
      for (const key of diffs) {
        const pd = new proto.PropertyDiff();
        const added = olds[key] === undefined;
        const removed = news[key] === undefined;
        const kinds = proto.PropertyDiff.Kind;
        const rep = replaces.includes(key);
        pd["setKind"]!(added ? (rep ? kinds["ADD_REPLACE"] : kinds["ADD"]) : removed ? (rep ? kinds["DELETE_REPLACE"] : kinds["DELETE"]) : rep ? kinds["UPDATE_REPLACE"] : kinds["UPDATE"]);
        pd["setInputdiff"]!(true);
        detailed.set(key, pd);
      }
      r["setHasdetaileddiff"]!(true);
      return r;
    }),
    create: unary(async (req) => {
      const k = kindOf(req["getUrn"]!() as string);
      const inputs = propsOf(req["getProperties"]!());
      const r = new proto["CreateResponse"]!();
      if (req["getPreview"]!()) {
        r["setId"]!("");
        r["setProperties"]!(structOf(wrapSecrets(inputs, k.secrets)));
        return r;
      }
      const res = await implOf(k).create(inputs);
      r["setId"]!(wellFormed(res.id));
      r["setProperties"]!(structOf(wrapSecrets((res.outs ?? {}) as Props, k.secrets)));
      return r;
    }),
    read: unary(async (req) => {
      const k = kindOf(req["getUrn"]!() as string);
      const id = req["getId"]!() as string;
      const props = propsOf(req["getProperties"]!());
      const res = await implOf(k).read(id, props);
      const r = new proto["ReadResponse"]!();
      r["setId"]!(wellFormed(res.id ?? ""));
      if (res.id) {
        const outs = (res.props ?? {}) as Props;
        r["setProperties"]!(structOf(wrapSecrets(outs, k.secrets)));
        // The read's own inputs when it gives them (a kind's read keeps the built-in createToken there, as the
        // dynamic provider's does): recomputed from the outputs, they lost it, and every refresh of a native stack
        // showed createToken as changed outside Pulumi (docs/drift.md).
        const inputs = ((res as { inputs?: Props }).inputs ?? k.inputsOf(outs as never)) as Props;
        r["setInputs"]!(structOf(wrapSecrets(inputs, k.secrets)));
      }
      return r;
    }),
    update: unary(async (req) => {
      const k = kindOf(req["getUrn"]!() as string);
      const olds = propsOf(req["getOlds"]!());
      const news = propsOf(req["getNews"]!());
      const r = new proto["UpdateResponse"]!();
      if (req["getPreview"]!()) {
        r["setProperties"]!(structOf(wrapSecrets({ ...olds, ...news }, k.secrets)));
        return r;
      }
      const res = await implOf(k).update(req["getId"]!() as string, olds, news);
      r["setProperties"]!(structOf(wrapSecrets((res.outs ?? {}) as Props, k.secrets)));
      return r;
    }),
    delete: unary(async (req) => {
      const k = kindOf(req["getUrn"]!() as string);
      const props = propsOf(req["getProperties"]!());
      const timeout = req["getTimeout"]!() as number;
      await implOf(k).delete(req["getId"]!() as string, timeout > 0 ? { ...props, deleteTimeoutSeconds: timeout } : props);
      return new emptyProto.Empty();
    }),
    invoke: unary(async (req) => {
      const tok = req["getTok"]!() as string;
      const spec = LOOKUPS.find((l) => l.token === tok);
      if (!spec) throw Object.assign(new Error(`unknown function ${JSON.stringify(tok)}; this provider serves ${LOOKUPS.map((l) => l.token).join(", ")}`), { code: grpc.status.INVALID_ARGUMENT });
      const fn = (lookups as unknown as Record<string, (args: object, client: unknown) => Promise<unknown>>)[spec.fn]!;
      const args = Object.fromEntries(Object.entries(propsOf(req["getArgs"]!())).filter(([, v]) => v !== undefined && v !== null));
      const k = spec.kind === undefined ? undefined : KINDS.find((x) => x.kind === spec.kind);
      // A kind's lookups return the kind's outputs (the schema's `<Kind>Info`); advisories as the API sends them.
      const shape = (api: unknown): Props => {
        if (!k) return api as Props;
        const outs = k.outputsOf(api as never) as Props;
        return Object.fromEntries(Object.entries(outs).filter(([name]) => !k.secrets.includes(name) && name !== "createToken"));
      };
      const result = await fn(args, ctx.client());
      const r = new proto["InvokeResponse"]!();
      r["setReturn"]!(structOf(spec.plural ? { items: (result as unknown[]).map(shape) } : { value: shape(result) }));
      return r;
    }),
    cancel: unary(async () => new emptyProto.Empty()),
    getMapping: unary(async () => new proto["GetMappingResponse"]!()),
    getMappings: unary(async () => new proto["GetMappingsResponse"]!()),
  };

  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(providerRpc.ResourceProviderService, new Proxy(impl as unknown as grpc.UntypedServiceImplementation, {
    get: (t, name: string) =>
      t[name] ??
      ((_call: unknown, cb: grpc.sendUnaryData<Msg>) => cb({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not implemented by ${PACKAGE_NAME}` } as grpc.ServiceError, null)),
  }));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port,
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** The settings lookup of a configure request's variables (`platform:apiUrl`, `platform:config:apiUrl`, `apiUrl`). */
function ctxLookup(vars: Props): (key: string) => string | undefined {
  return (key) => {
    const bare = key.startsWith(`${PACKAGE_NAME}:`) ? key.slice(PACKAGE_NAME.length + 1) : key;
    const v = vars[bare] ?? vars[`${PACKAGE_NAME}:config:${bare}`] ?? vars[key];
    return v === undefined || v === null || v === "" ? undefined : typeof v === "string" ? v : JSON.stringify(v);
  };
}

/** The package's root (two levels above `dist/provider/native/`), where `package.json` and `schema.json` are. */
export function packageRoot(): string {
  return path.resolve(__dirname, "..", "..", "..");
}

/** The package's version and schema text, read from its root. */
export function packageFiles(root = packageRoot()): { version: string; schema: string } {
  const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  return { version, schema: readFileSync(path.join(root, "schema.json"), "utf8") };
}
