/**
 * Declare a resource once: each field says what it does where it is declared, and the provider's
 * check, diff, create (marked, or adoption), read, update and delete follow from the declaration.
 *
 * ## How to declare a new resource
 *
 * One file per resource (`resources/<kind>.ts`) holds, in this order:
 *
 * 1. `XArgs`: the public arguments, a plain interface with a doc comment on every field (no zod, no types from
 *    this module: consumers compile it under Pulumi's template tsconfig).
 * 2. `XInputs` (the inputs after `check`, every field) and `XOutputs extends XInputs` (plus the server's fields).
 * 3. The declaration, `const decl = declareResource<XInputs, XOutputs, ApiX>({ ... })`:
 *    ```ts
 *    kind: "Repo", what: "repo", collection: (c) => c.repos,
 *    fields: {                                    // one entry per key of XInputs (the compiler checks it)
 *      parentUid: parent(),                       // the parent group: in the POST path; a change replaces
 *      name: mutable({ check: nameProblem }),     // PATCHed alone (updateMask=name) when it changes
 *      description: mutable({ check: optionalStringProblem, default: "" }),
 *      sourceUid: replace({ check: uidpProblem }),// a change replaces
 *      adoptUid: createOnly({ check: uidpProblem }), // read at create only (adopts that object); never a diff
 *      token: mutable({ secret: true, writeOnly: true }), // never returned by the API: kept from the inputs
 *      timeoutSeconds: stateOnly(),               // no server field: a change updates the state only
 *    },
 *    server: { createTime: "", updateTime: "" },  // server-set outputs and the value used when one is missing
 *    ```
 *    A kind with `name` and `description` fields gets the marked create (`createNamedSafely`, lifecycle.ts:
 *    ownership marker, recovery after an ambiguous failure) with no more code. A kind without them gives
 *    `hooks.create` (e.g. `createSafely` with a window-based `recover`, as role bindings do).
 * 4. `export const xProvider = decl.provider;` and one line in `runtime.ts`'s `providers` table.
 * 5. `class X extends PlatformResource` (`shim.ts`: `static get`, `static isInstance`, `uid` = the engine id)
 *    with `static override readonly __shape: ResourceShape = decl`, the `declare readonly` outputs with doc
 *    comments, and `constructor(name: string, args: XArgs, opts?) { super(decl, name, args, opts); }`.
 *
 * Special cases stay explicit, as `hooks` beside the fields: cross-field rules in `hooks.check` (Identity's
 * one-of), diff additions in `hooks.diff` (Identity's switch of kind, GroupInvite's expiry), output fix-ups in
 * `hooks.outputs`, the wire body in `hooks.toWire` (IdentityProvider's secret inside `oidc`), adoption without
 * `adoptUid` in `hooks.adopt` (AccountAssociation's uid = its group's), and `hooks.delete`.
 *
 * ## What follows from a field's kind
 *
 * | kind         | check            | diff     | update mask | create body | read's outputs and inputs          |
 * | ------------ | ---------------- | -------- | ----------- | ----------- | ---------------------------------- |
 * | `parent`     | a uid            | replaces | never       | path        | from the uid (`parentOfUid`)       |
 * | `replace`    | its `check`      | replaces | never       | yes         | from the server                    |
 * | `mutable`    | its `check`      | updates  | its path    | yes         | from the server (writeOnly: kept)  |
 * | `createOnly` | when set         | never    | never       | no          | kept from the inputs               |
 * | `stateOnly`  | when set         | updates  | never       | no          | kept from the inputs               |
 *
 * Failures: every field's, at once, before any API call (a field's `check` names the value and what is
 * allowed). Read: NOT_FOUND reports the object gone (empty id). Delete: NOT_FOUND counts as done.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Collection, PlatformClient } from "../client/client";
import { clientAndSettings, getClient } from "../state";
import { Failures, isUnknown, uidpProblem } from "../validation";
import { adoptExisting, canonical, deleteIgnoringNotFound, logInfo, parentOfUid, readOrGone, type ProviderImpl } from "./common";
import { createNamedSafely, createTokenOf } from "./lifecycle";
import { batchedGet } from "./readBatch";
import type { ResourceKind, ResourceShape } from "./shim";

/** What a field does; see the module comment's table. */
export type FieldKind = "parent" | "replace" | "mutable" | "createOnly" | "stateOnly";

/** One declared input field of a resource. */
export interface Field {
  /** What a change of the field does (module comment). */
  readonly kind: FieldKind;
  /**
   * Why a value is wrong, naming it and what is allowed (e.g. `nameProblem`), or undefined when fine; called with
   * the raw value, which may be unknown (preview) or undefined (not set). Fields of kind `createOnly` and
   * `stateOnly`, and fields with `optional`, are checked only when set.
   */
  readonly check?: ((value: unknown) => string | undefined) | undefined;
  /** Failures at nested paths (`claimMatch.issuer`, `capabilities[1]`), added to `f`; called when the value is set. */
  readonly nested?: ((value: unknown, f: Failures) => void) | undefined;
  /** Check the field only when it is set. */
  readonly optional?: boolean | undefined;
  /** The value check stores when the program gives none (e.g. `""` for a description). */
  readonly default?: unknown;
  /** The normal form check stores for a set, known value (e.g. capabilities in wire form, sorted). */
  readonly normalize?: ((value: unknown) => unknown) | undefined;
  /**
   * The output (and read's input) from the server's object; default: the parent from the uid, a `writeOnly`,
   * `createOnly` or `stateOnly` field from `local`, any other the server's value of the same key. An undefined
   * result leaves the field out. `local` is what is known locally (the inputs, or the prior state).
   */
  readonly fromServer?: ((value: unknown, api: Record<string, unknown>, local: Record<string, unknown>) => unknown) | undefined;
  /** The engine keeps the output secret (`additionalSecretOutputs`). */
  readonly secret?: boolean | undefined;
  /** The API never returns it: outputs keep the declared value, and an adoption always sends it. */
  readonly writeOnly?: boolean | undefined;
  /** The update-mask path a change PATCHes; default the field's name (e.g. `clientSecret` → `oidc`). */
  readonly maskPath?: string | undefined;
  /**
   * The field's key in request and response bodies when its JSON name is not its name (a repo's `syncConfig`
   * is `sync_config` on the wire, as the OpenAPI spells it, while its mask path stays camelCase); default the name.
   */
  readonly wireKey?: string | undefined;
}

/** Options of a field, besides its kind. */
export type FieldOptions = Omit<Field, "kind">;

/** The parent group's uid: in the create's path, read back from the object's uid; a change replaces. */
export function parent(opts: FieldOptions = {}): Field {
  return { check: uidpProblem, ...opts, kind: "parent" };
}
/** A field the API cannot change in place: a change replaces the object. */
export function replace(opts: FieldOptions = {}): Field {
  return { ...opts, kind: "replace" };
}
/** A field PATCHed in place: a change sends it alone in the update mask. */
export function mutable(opts: FieldOptions = {}): Field {
  return { ...opts, kind: "mutable" };
}
/** A field read only at create (e.g. `adoptUid`): checked when set, kept in state, never a diff. */
export function createOnly(opts: FieldOptions = {}): Field {
  return { optional: true, ...opts, kind: "createOnly" };
}
/** A field with no server counterpart (e.g. a timeout): a change updates the state only. */
export function stateOnly(opts: FieldOptions = {}): Field {
  return { optional: true, ...opts, kind: "stateOnly" };
}

type Props = Record<string, unknown>;

/**
 * The explicit special cases of a kind, beside its fields. Each is optional; the generic behaviour is in the
 * module comment.
 */
export interface Hooks<I extends object, O extends I, A extends { uid: string }> {
  /** Cross-field rules (e.g. exactly one of several fields), after every field's own check. */
  check?(news: Props, f: Failures): void;
  /** Adjusts the diff the fields give (e.g. a switch of relationship kind replaces). */
  diff?(olds: O, news: I, d: pulumi.dynamic.DiffResult): pulumi.dynamic.DiffResult;
  /** Adjusts the outputs the fields give (`local`: the inputs or the prior state). */
  outputs?(outs: O, api: A, local: Partial<O>): O;
  /** The wire body of a create or PATCH (PATCH sends the mask's paths of it); default the sent fields as they are. */
  toWire?(inputs: I): Props;
  /** Creates the object when the marked named create does not fit; all-or-nothing. */
  create?(inputs: I, client: PlatformClient): Promise<A>;
  /** Runs after a successful create (e.g. opening a group's consistency window). */
  afterCreate?(api: A): void;
  /**
   * The existing object to adopt, or undefined to create one; default: the object named by `adoptUid`, which must
   * live under the parent.
   */
  adopt?(inputs: I, client: PlatformClient): Promise<A | undefined>;
  /** Refuses an adoption that cannot be right (throws, naming the object and why). */
  checkAdopted?(existing: O, inputs: I): void;
  /** Deletes the object; default a DELETE where NOT_FOUND counts as done. */
  delete?(id: string, props: O, client: PlatformClient): Promise<void>;
}

/** A resource kind's one declaration. */
export interface ResourceDeclaration<I extends object, O extends I, A extends { uid: string }> {
  /** The kind: the type token's last segment and the runtime's `providers` key. */
  kind: ResourceKind;
  /** For messages, e.g. `group`, `identity provider`. */
  what: string;
  /** The kind's collection on the client. */
  collection(client: PlatformClient): Collection<A, object>;
  /** Every input field, in the order check reports them. */
  fields: { readonly [K in keyof I & string]-?: Field };
  /**
   * Server-set, output-only fields and the value an output takes when the server sends none (`undefined`: as
   * the server sends it, e.g. a field the schema already defaults). Never inputs, never a diff.
   */
  server?: Readonly<Record<string, unknown>>;
  /** Server-set outputs the engine keeps secret (e.g. an invite's one-time code). */
  secretOutputs?: readonly string[];
  /** The special cases. */
  hooks?: Hooks<I, O, A>;
}

/** What {@link declareResource} gives a resource file: the provider, and the class's shape (`shim.ts`). */
export interface DeclaredResource<I extends object, O extends I> extends ResourceShape {
  /** The provider implementation the runtime serves for the kind. */
  provider: ProviderImpl<I, O>;
}

const SERVER_SIDE: ReadonlySet<FieldKind> = new Set(["replace", "mutable"]);

/**
 * Turns a declaration into the kind's provider (and the class's helpers).
 * @throws Error at module load when a kind has no `parent` field, or neither `name`+`description` nor
 *   `hooks.create` (so a create could not be made).
 */
export function declareResource<I extends object, O extends I, A extends { uid: string }>(d: ResourceDeclaration<I, O, A>): DeclaredResource<I, O> {
  const entries = Object.entries(d.fields) as Array<[string, Field]>;
  const parentKey = entries.find(([, f]) => f.kind === "parent")?.[0];
  if (!parentKey) throw new Error(`declareResource(${d.kind}): no parent field`);
  const named = "name" in d.fields && "description" in d.fields;
  if (!named && !d.hooks?.create) throw new Error(`declareResource(${d.kind}): give hooks.create (no name and description to mark)`);
  const keysOf = (...kinds: FieldKind[]) => entries.filter(([, f]) => kinds.includes(f.kind)).map(([k]) => k);
  const replaceKeys = keysOf("parent", "replace");
  const mutableKeys = keysOf("mutable");
  const updateKeys = keysOf("mutable", "stateOnly");
  const writeOnlyKeys = entries.filter(([, f]) => f.writeOnly).map(([k]) => k);
  const wireKeys = entries.filter(([, f]) => SERVER_SIDE.has(f.kind)).map(([k]) => k);
  const maskPath = (k: string) => d.fields[k as keyof I & string].maskPath ?? k;
  const wireKeyOf = (k: string) => d.fields[k as keyof I & string].wireKey ?? k;
  /** The body key a mask path's value travels under (a field's `wireKey`, else the path itself). */
  const bodyKeyOfPath = new Map(entries.filter(([, f]) => f.wireKey).map(([k, f]) => [maskPath(k), f.wireKey!]));
  const changed = (olds: object, news: object, keys: readonly string[]) =>
    keys.filter((k) => canonical((olds as Props)[k]) !== canonical((news as Props)[k]));
  const pathsOf = (keys: readonly string[]) => [...new Set(keys.map(maskPath))];

  const wire = (inputs: I): Props => {
    if (d.hooks?.toWire) return d.hooks.toWire(inputs);
    const body: Props = {};
    for (const k of wireKeys) if ((inputs as Props)[k] !== undefined) body[wireKeyOf(k)] = (inputs as Props)[k];
    return body;
  };
  const pick = (body: Props, paths: readonly string[]): Props =>
    Object.fromEntries(paths.map((p) => bodyKeyOfPath.get(p) ?? p).filter((b) => body[b] !== undefined).map((b) => [b, body[b]]));

  /** The outputs of a server object: its fields, the declared fields from it (or kept locally), the server defaults. */
  const outputs = (api: A, local: Partial<O> | undefined): O => {
    const l = (local ?? {}) as Props;
    const a = api as unknown as Props;
    const out: Props = { ...a };
    for (const [k, def] of Object.entries(d.server ?? {})) if (def !== undefined) out[k] = a[k] ?? def;
    for (const [k, f] of entries) {
      let v: unknown;
      if (f.fromServer) v = f.fromServer(a[wireKeyOf(k)], a, l);
      else if (f.kind === "parent") v = parentOfUid(api.uid);
      else if (f.writeOnly || !SERVER_SIDE.has(f.kind)) v = l[k];
      else v = a[wireKeyOf(k)];
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    const o = out as O;
    return d.hooks?.outputs ? d.hooks.outputs(o, api, local ?? {}) : o;
  };
  /** The inputs that would produce `o`: the declared fields only (no server-set output ever becomes an input). */
  const inputsOf = (o: O): I => Object.fromEntries(entries.map(([k]) => [k, (o as Props)[k]]).filter(([, v]) => v !== undefined)) as I;

  const client = () => getClient();
  const coll = () => d.collection(client());

  const provider: ProviderImpl<I, O> = {
    /** Validates every field before any API call; reports all failures at once, each naming the field. */
    async check(olds, news) {
      const n = (news ?? {}) as Props;
      // The engine shows an adoption as `+ create`: say, in the step's output, that it creates nothing.
      const adopt = n["adoptUid"];
      if (typeof adopt === "string" && adopt !== "" && Object.keys(olds ?? {}).length === 0) {
        const named = typeof n["name"] === "string" ? ` "${n["name"]}"` : "";
        logInfo(`${d.what}${named} adopts the existing object ${adopt}: no create request; \`up\` takes it under management and writes nothing unless a declared field differs (then one PATCH of those fields)`);
      }
      const f = new Failures();
      const inputs: Props = {};
      for (const [k, field] of entries) {
        const raw = n[k];
        const set = raw !== undefined;
        const checked = set || !(field.optional ?? false);
        if (checked && field.check) f.add(k, field.check(raw));
        if (set && field.nested) field.nested(raw, f);
        let v = set ? raw : field.default;
        if (v !== undefined && v !== null && !isUnknown(v) && field.normalize) v = field.normalize(v);
        if (v !== undefined) inputs[k] = v;
      }
      d.hooks?.check?.(n, f);
      return { inputs: inputs as I, failures: f.list };
    },

    /** A change of a `parent` or `replace` field replaces; of a `mutable` or `stateOnly` field, updates. */
    async diff(_id, olds, news) {
      const replaces = changed(olds, news, replaceKeys);
      const updates = changed(olds, news, updateKeys);
      const r = { changes: replaces.length + updates.length > 0, replaces };
      return d.hooks?.diff ? d.hooks.diff(olds, news, r) : r;
    },

    /** All-or-nothing: if it throws, nothing was created (or the orphan was adopted). */
    async create(inputs) {
      const c = client();
      const collection = d.collection(c);
      const parentUid = (inputs as Props)[parentKey] as string;
      const adoptUid = (inputs as Props)["adoptUid"];
      const existing = d.hooks?.adopt
        ? await d.hooks.adopt(inputs, c)
        : typeof adoptUid === "string" && adoptUid !== ""
          ? await adoptExisting(d.what, adoptUid, parentUid, (uid) => collection.get(uid))
          : undefined;
      if (existing) {
        const current = outputs(existing, inputs as unknown as Partial<O>);
        d.hooks?.checkAdopted?.(current, inputs);
        const mask = pathsOf([...new Set([...changed(current, inputs, mutableKeys), ...writeOnlyKeys])]);
        const o = mask.length ? outputs(await collection.patch(existing.uid, pick(wire(inputs), mask), mask), inputs as unknown as Partial<O>) : current;
        logInfo(`adopted ${d.what} ${existing.uid}${mask.length ? ` and set ${mask.join(", ")}` : ""}`);
        return { id: existing.uid, outs: o };
      }
      const made = d.hooks?.create
        ? await d.hooks.create(inputs, c)
        : await createNamedSafely(collection, d.what, parentUid, (inputs as Props)["name"] as string, wire(inputs), createTokenOf(inputs), logInfo);
      d.hooks?.afterCreate?.(made);
      return { id: made.uid, outs: outputs(made, inputs as unknown as Partial<O>) };
    },

    /** Current server state, returned as inputs too (so a refresh shows drift); NOT_FOUND reports it gone. */
    async read(id, props) {
      return readOrGone(async () => {
        const { client: c, settings } = clientAndSettings();
        const outs = outputs(await batchedGet(d.collection(c), id, settings.readAhead), props);
        return { id, props: outs, inputs: inputsOf(outs) };
      });
    },

    /** PATCHes exactly the changed `mutable` fields (as `updateMask`), or nothing when only state changed. */
    async update(id, olds, news) {
      const mask = pathsOf(changed(olds, news, mutableKeys));
      if (mask.length === 0) return { outs: { ...olds, ...news } };
      return { outs: outputs(await coll().patch(id, pick(wire(news), mask), mask), news as unknown as Partial<O>) };
    },

    /** Deletes the object; NOT_FOUND counts as done. */
    async delete(id, props) {
      if (d.hooks?.delete) return d.hooks.delete(id, props, client());
      await deleteIgnoringNotFound(() => coll().delete(id));
    },
  };

  const defaults = entries.filter(([, f]) => f.default !== undefined).map(([k]) => k);
  const unset = Object.fromEntries(["uid", ...Object.keys(d.server ?? {}), ...defaults].map((k) => [k, undefined]));
  const secrets = [...entries.filter(([, f]) => f.secret).map(([k]) => k), ...(d.secretOutputs ?? [])];
  return {
    kind: d.kind,
    provider,
    // A static get registers every argument but createOnly and stateOnly ones.
    readKeys: keysOf("parent", "replace", "mutable"),
    props: (args, extra = {}) => ({ ...unset, ...args, ...extra }),
    options: (opts) => (secrets.length ? { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secrets] } : { ...opts }),
  };
}
