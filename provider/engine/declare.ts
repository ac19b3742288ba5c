/**
 * Declare a resource once: each field says what it does where it is declared, and the provider's
 * check, diff, create (marked, or adoption), read, update and delete follow from the declaration.
 *
 * ## How to declare a new resource
 *
 * One file per resource (`resources/<kind>.ts`) holds, in this order:
 *
 * 1. The declaration, `const decl = declareResource<XInputs, XOutputs, ApiX>({ ... })`:
 *    ```ts
 *    kind: "Repo", what: "repo", module: "registry", description: "An image repository under a group.",
 *    collection: (c) => c.repos,                  // or, with no hand-written collection: wire: { api, collection, patch }
 *    fields: {                                    // one entry per key of XInputs (the compiler checks it)
 *      parentUid: parent({ type: uidArg("uid of the group that holds the repo.") }), // in the POST path; replaces
 *      name: mutable({ check: nameProblem, type: nameArg("Repo") }),   // PATCHed alone (updateMask=name)
 *      description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
 *      sourceUid: replace({ check: uidpProblem, type: z.string().describe("…") }), // a change replaces
 *      adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("repo") }),    // read at create only
 *      token: mutable({ secret: true, writeOnly: true, type: z.string().describe("…") }), // never returned
 *      timeoutSeconds: stateOnly({ type: z.number().optional().describe("…") }), // state only
 *    },
 *    server: { createTime, updateTime },          // server-set outputs (`output(type, default)`)
 *    ```
 *    Each field's `type` is a zod schema with its documentation (`.describe()`), `.optional()` when a program
 *    may leave it out; named object types carry `.meta({ id: "<module>:<Name>" })` (`fieldTypes.ts`, `named`).
 *    A kind with `name` and `description` fields gets the marked create (`createNamedSafely`, lifecycle.ts:
 *    ownership marker, recovery after an ambiguous failure) and its ownership rule with no more code. A kind
 *    without them gives `ownership: { proof: "window", matching }`, the `matching` its create's recovery uses
 *    too, so that `platform-pulumi recover` proves a pending create of it by the same rule; its create is then one
 *    POST of its wire body proved in the window (`createProvedInWindow`), or its own `hooks.create` where the
 *    body or the checks before it are special (a tag's name clash, an overlay's nested body).
 *    Beside the fields: `listing` (how `unmanaged` and a group's delete name its objects; `false` when a List
 *    under a group does not find them) and `blocksGroupDelete`.
 *    Every kind also has the built-in field `createToken` ({@link CREATE_TOKEN_FIELD}), never declared by hand.
 * 2. `npm run gen` writes `kinds/<kind>/types.ts` from the declaration: `XArgs` (the public arguments),
 *    `XInputs`, `XOutputs`, `XOutputProperties` and the named object types, each with the field's documentation;
 *    and the package schema and reference pages (`provider/schema/`). The kind file imports the ones it uses and
 *    re-exports them all; `test/schema.unit.test.ts` fails while a generated file is not current.
 * 3. `export const xProvider = decl.provider;`, `export const xKind = decl;`, and its line in the kind
 *    registry (`registry.ts`, whose keys make `ResourceKind`): the runtime, `recover`, `unmanaged`, a group's
 *    delete and `export` follow.
 *    `decl.providerFor(ctx)` is the provider bound to a provider context (`context.ts`: its client and create
 *    ledger); the runtime binds every kind to the process's context, and `decl.provider` is that binding.
 * 4. `export interface X extends XOutputProperties {}` (the class's typed outputs), then
 *    `class X extends PlatformResource` (`shim.ts`: `static get`, `static isInstance`, `uid` = the engine id)
 *    with `static override readonly __shape: ResourceShape = decl` and
 *    `constructor(name: string, args: XArgs, opts?) { super(decl, name, args, opts); }`.
 *    The whole checklist, with the client, emulator and tests: `docs/architecture.md`, "Add a kind".
 *
 * Special cases stay explicit, as `hooks` beside the fields: cross-field rules in `hooks.check` (Identity's
 * one-of), diff additions in `hooks.diff` (Identity's switch of kind, GroupInvite's expiry), output fix-ups in
 * `hooks.outputs`, the wire body in `hooks.toWire` (IdentityProvider's secret inside `oidc`), adoption without
 * `adoptUid` in `hooks.adopt` (AccountAssociation's uid = its group's), and `hooks.delete`. The hooks that create
 * get the provider context: `hooks.create(inputs, ctx)` (`ctx.client()`, and `ctx.creates` for `createSafely`)
 * and `hooks.afterCreate(api, ctx)` (Group opens its consistency window in `ctx.creates`); `hooks.adopt(inputs,
 * client)` creates nothing and gets the context's client; `hooks.delete(id, props, client, ctx)` gets it and the
 * context (Group's delete reads the kinds a group holds from `ctx.groupChildren()`).
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
import { Collection, type CreatableCollection, type PlatformClient } from "../client/client";
import type { Parser } from "../client/types";
import { SERVER_SIDE, wireSchemaOf } from "./wire";
import { processContext, type ProviderContext } from "./context";
import { Failures, isUnknown, uidpProblem } from "../validation";
import { adoptExisting, betaOnly, canonical, deleteIgnoringNotFound, logInfo, parentOfUid, readOrGone, type ProviderImpl } from "./common";
import type { ListParams } from "../client/pagination";
import { tsString } from "../escape";
import { propertyLine, type ProgramLanguage } from "../programLanguage";
import { CREATE_TOKEN, createNamedSafely, createProvedInWindow, createTokenOf, newCreateToken } from "./lifecycle";
import { batchedGet } from "./readBatch";
import type { KindName, ResourceShape } from "./shim";
import type { BadRow, ObjectRow } from "./rows";

export type { BadRow, ObjectRow } from "./rows";

/** What a field does; see the module comment's table. */
export type FieldKind = "parent" | "replace" | "mutable" | "createOnly" | "stateOnly";

/** One declared input field of a resource. */
export interface Field {
  /** What a change of the field does (module comment). */
  readonly kind: FieldKind;
  /**
   * The field's type as a program gives it (its `Args` form), with its documentation: a zod schema with
   * `.describe()` on it and on every nested property, `.optional()` when a program may leave it out. Named object
   * types carry `.meta({ id })`. The package schema (`schema.json`, `provider/schema/`) and the per-kind reference
   * pages (`docs/resources/`) are generated from it; `test/schema.unit.test.ts` requires it, and a description, on
   * every field that is not {@link Field.internal}.
   */
  readonly type?: FieldType | undefined;
  /**
   * Not an argument a program gives: state the class fills in itself (a group's `deleteTimeoutSeconds`, from
   * `customTimeouts`). Left out of the package schema and the reference pages.
   */
  readonly internal?: boolean | undefined;
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
  /**
   * `export` (`export/typescript.ts`): the form a value is written in, when not as read (a role's capabilities by
   * their dotted names). Default: the value `read` gives, as a literal.
   */
  readonly exportAs?: ((value: unknown) => unknown) | undefined;
  /**
   * A `createOnly` field that adopts an existing object: `uid` (its value is the object's uid; `adoptUid` is one
   * by its name) or `flag` (`true` adopts the one object there is, an account association's `adopt`). `export`
   * writes it on every resource, so the first `pulumi up` adopts.
   */
  readonly adoption?: "uid" | "flag" | undefined;
  /** `export`: a reference to an object outside the export makes the resource protected (a grant to a person). */
  readonly protectWhenOutside?: boolean | undefined;
}

/**
 * A field's type: a zod schema (`z.string().describe(…)`). Typed here by the two members the package uses, so the
 * package's public declarations never depend on zod's (a program compiled with Pulumi's template tsconfig
 * would otherwise type-check zod's own declaration files); `provider/schema/` reads it as the zod schema it is.
 */
export interface FieldType {
  /** zod's internals (the schema's definition, read by `z.toJSONSchema`). */
  readonly _zod: unknown;
  /** Whether `value` fits the type (the generator asks it of `undefined`: may a program leave the field out?). */
  safeParse(value: unknown): { success: boolean };
}

/**
 * A kind's lookups: `get<Plural>` (a List, walking pages) and `get<Kind>` (one object, by `uid` or by filters that
 * must match exactly one), each with an `...Output` twin (`provider/lookups/core.ts`). From it: the package
 * schema's functions (`provider/lookups/catalog.ts`), the reference pages, and the argument types `Get<Plural>Args`
 * and `Get<Kind>Args` in the kind's generated `types.ts`. The lookup functions themselves are in the kind's
 * `lookups.ts`, which `test/schema.unit.test.ts` holds to these arguments.
 */
export interface LookupDeclaration {
  /** The plural in the List lookup's name: `Groups` → `getGroups`. */
  readonly plural: string;
  /** The List lookup's own filters, name → documented type; it also takes the `uidp` filters and paging. */
  readonly listFilters: Readonly<Record<string, FieldType>>;
  /** The single lookup's filters, name → documented type; it also takes `uid` (give either `uid` or filters). */
  readonly oneFilters: Readonly<Record<string, FieldType>>;
  /**
   * Present for a kind found by name under a parent (`fieldTypes.ts`, `lookupsByName`): its `lookups.ts` is then
   * generated by `npm run gen` from this declaration, with these docs (Markdown; `list` is the List lookup's first
   * sentence, `oneNote` what the single lookup's doc adds, the examples one line of TypeScript each).
   */
  readonly byName?: { readonly list: string; readonly listExample: string; readonly oneExample: string; readonly oneNote?: string | undefined } | undefined;
}

/** The Pulumi module of a kind's type token (seed §2: the IAM, registry and events services). */
export type KindModule = "iam" | "registry" | "events";

/** A server-set, output-only field of a kind ({@link ResourceDeclaration.server}). */
export interface ServerField {
  /** Its type and documentation (zod, with `.describe()`), as for {@link Field.type}. */
  readonly type: FieldType;
  /** The output's value when the server sends none; `undefined`: as the server sends it. */
  readonly default?: unknown;
  /** The output may be absent (a repo's `syncState` when it does not sync); default: always there. */
  readonly optional?: boolean;
}

/**
 * A server-set, output-only field: its type (zod, described), the value when the server sends none, and whether
 * it may be absent (`{ optional: true }`).
 */
export function output(type: FieldType, fallback?: unknown, opts: { optional?: boolean } = {}): ServerField {
  return { type, default: fallback, ...opts };
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
  /**
   * Creates the object when the marked named create does not fit; all-or-nothing. `ctx` is the provider context:
   * `ctx.client()` for the API, `ctx.creates` for `createSafely`'s ledger.
   */
  create?(inputs: I, ctx: ProviderContext): Promise<A>;
  /** Runs after a successful create, with the provider context (e.g. opening a group's window in `ctx.creates`). */
  afterCreate?(api: A, ctx: ProviderContext): void;
  /**
   * The existing object to adopt, or undefined to create one; default: the object named by `adoptUid`, which must
   * live under the parent. Given the context's client (`ctx.client()`): an adoption creates nothing, so it needs
   * no ledger.
   */
  adopt?(inputs: I, client: PlatformClient): Promise<A | undefined>;
  /** Refuses an adoption that cannot be right (throws, naming the object and why). */
  checkAdopted?(existing: O, inputs: I): void;
  /** Deletes the object, given the context's client (`ctx.client()`); default a DELETE where NOT_FOUND counts as done. */
  delete?(id: string, props: O, client: PlatformClient, ctx: ProviderContext): Promise<void>;
}

/**
 * How a create proves that an object is its own: the one rule that create recovery (`lifecycle.ts`) and
 * `platform-pulumi recover` (a pending create of an interrupted update) both apply.
 *
 * - `marker`: the create's POST carries the ownership marker `[pulumi-create:<createToken>]` in the description;
 *   an object among {@link Ownership.matching} carrying this create's marker is its own (default of a kind with
 *   `name` and `description`).
 * - `window`: no free text to mark: an object among {@link Ownership.matching} (every field the create sends)
 *   made during the attempt (create recovery) or during the interrupted update, held by no stack (`recover`).
 */
export interface Ownership<I, A> {
  /** `marker` or `window` (see above). */
  readonly proof: "marker" | "window";
  /**
   * The objects under the create's parent that match every field the create sends (for `marker`: the same-named
   * children; the marker itself is checked by the caller).
   */
  matching(client: PlatformClient, inputs: I): Promise<A[]>;
  /** The server time that dates an object's creation; default its `createTime` (a tag's: `updateTime`). */
  time?(x: A): string | undefined;
  /** What `recover` does with a lost copy: adopt it (default), or delete it (an invite: its code was lost). */
  readonly lost?: "adopt" | "delete";
  /** For `recover`'s proof column, e.g. `the same identity and role`. */
  readonly same?: string;
  /**
   * `marker` only: when no candidate carries the marker, an unmarked one made during the interrupted update and
   * held by no stack may still be this create's (a server completes the requests of a killed client, restoring
   * the description); `recover` adopts it when it is the only one. Default: true for the default ownership.
   */
  readonly loose?: boolean;
}

/** How `platform-pulumi unmanaged` and a group's delete list and name the kind's objects (`engine/rows.ts`). */
export interface Listing<A> {
  /** The name a person recognises: a field of the object (default `name`), or made from it. */
  readonly label?: (keyof A & string) | ((x: A) => string);
  /** Served under beta version segments only: a List answering UNIMPLEMENTED lists none. */
  readonly betaOnly?: boolean;
  /** Named by its path of names from the root in messages (a container: groups, repos). */
  readonly path?: boolean;
  /** Why an object of the kind cannot be adopted, when it cannot (`unmanaged` then says to delete it). */
  readonly notAdoptable?: string;
}

/**
 * Where a kind declared with `wire:` lives in the API ({@link ResourceDeclaration.wire}): the client's collection
 * comes from it and from the wire schema derived from the declaration (`wire.ts`), so the kind needs no
 * collection, wire type or schema written in `provider/client/`.
 */
export interface WireDeclaration {
  /** The API path segment: `iam`, `registry` or `events` (seed §2). */
  readonly api: string;
  /** The collection's path segment, e.g. `subscriptions`. */
  readonly collection: string;
  /** The API has PATCH for the kind; default false (a change of any field replaces, declared with `replace()`). */
  readonly patch?: boolean;
  /** The List envelope's item key; default {@link collection}. */
  readonly listKey?: string;
}

/** A resource kind's one declaration. */
export interface ResourceDeclaration<I extends object, O extends I, A extends { uid: string }> {
  /** The kind: the type token's last segment and the runtime's `providers` key. */
  kind: KindName;
  /** For messages, e.g. `group`, `identity provider`: the kind's display name. */
  what: string;
  /**
   * How a create proves an object its own (create recovery and `recover` alike). Default for a kind with `name`
   * and `description`: the ownership marker, candidates the same-named children of the parent.
   */
  ownership?: Ownership<I, A>;
  /**
   * How its objects are listed under a group (`unmanaged`, a group's delete); `false`: never listed by a List
   * under a group (an account association: one per group, its uid the group's).
   */
  listing?: Listing<A> | false;
  /** Its objects keep their group from being deleted (FAILED_PRECONDITION `RESOURCE_NOT_EMPTY`). */
  blocksGroupDelete?: boolean;
  /**
   * How `platform-pulumi export` places its objects (`docs/export.md`). Default (absent): the export's generic path
   * (`export/kinds.ts`): read under the anchor, declared in their group after the kinds it places by hand, every
   * declared field from the server's value, its `check` applied to it first. `{ skip: why }`: counted and reported
   * as not exported, with `why` (e.g. a value the API never returns).
   */
  export?: { readonly skip: string };
  /** Its lookups (absent: none), {@link LookupDeclaration}. */
  lookups?: LookupDeclaration;
  /**
   * The kind's hand-written collection on the client (with `patch` when the API has PATCH for the kind). Give
   * either this or {@link wire}.
   */
  collection?(client: PlatformClient): CreatableCollection<A, object> | Collection<A, object>;
  /**
   * Where the kind lives in the API, instead of {@link collection}: its wire schema is derived from `fields` and
   * `server` (`wire.ts`), its collection is `client.collection(...)` of it, and `npm run gen` writes its wire type
   * (`XWire`, in the kind's `types.ts`) from the same schema; `A` is that type.
   */
  wire?: WireDeclaration;
  /** Every input field, in the order check reports them. */
  fields: { readonly [K in keyof I & string]-?: Field };
  /** The Pulumi module of its type token (`platform:<module>:<kind>`): `iam`, `registry` or `events` (seed §2). */
  module: KindModule;
  /** What the kind is, for a user: the package schema's and the reference page's description (Markdown). */
  description: string;
  /**
   * Server-set, output-only fields ({@link output}): their type and documentation, and the value an output takes
   * when the server sends none (`undefined`: as the server sends it, e.g. a field the wire schema already
   * defaults). Never inputs, never a diff.
   */
  server?: Readonly<Record<string, ServerField>>;
  /** Server-set outputs the engine keeps secret (e.g. an invite's one-time code). */
  secretOutputs?: readonly string[];
  /** The special cases. */
  hooks?: Hooks<I, O, A>;
}

/**
 * What {@link declareResource} gives a resource file and the kind registry (`kinds/registry.ts`): the
 * provider, the class's shape (`shim.ts`), and what other modules read of the declaration.
 */
export interface DeclaredResource<I extends object, O extends I, A extends { uid: string } = { uid: string }> extends ResourceShape {
  /**
   * The kind's provider bound to a provider context: its methods reach the API through `ctx.client()` and record
   * their creates in `ctx.creates`. The runtime binds each kind to the process's context (`runtime.ts`).
   */
  providerFor(ctx: ProviderContext): ProviderImpl<I, O>;
  /** The provider bound to the process's one context ({@link processContext}): `providerFor(processContext())`. */
  provider: ProviderImpl<I, O>;
  /** The display name (`what`). */
  readonly what: string;
  /** The Pulumi module of its type token (`platform:<module>:<kind>`). */
  readonly module: KindModule;
  /** What the kind is, for a user (Markdown). */
  readonly description: string;
  /** Its server-set, output-only fields, with their types and documentation. */
  readonly server: Readonly<Record<string, ServerField>>;
  /** Outputs the engine keeps secret: secret fields and the declared secret server outputs. */
  readonly secrets: readonly string[];
  /** The kind's collection on a client (with `patch` when the API has PATCH for the kind). */
  collection(client: PlatformClient): CreatableCollection<A, object> | Collection<A, object>;
  /** Where the kind lives in the API, when declared with `wire:` ({@link ResourceDeclaration.wire}). */
  readonly wire: WireDeclaration | undefined;
  /**
   * The wire schema derived from the declaration (`wire.ts`) when declared with `wire:`: a zod schema, typed here
   * by its `safeParse` only (no public type depends on zod's).
   */
  readonly wireSchema: Parser<A> | undefined;
  /** Every declared field, the built-in `createToken` last, in declaration order. */
  readonly fields: Readonly<Record<string, Field>>;
  /** The field holding the parent's uid (`parentUid`, a tag's `repoUid`, a binding's `groupUid`). */
  readonly parentKey: string;
  /** How a create proves an object its own (resolved: the default of a named kind filled in). */
  readonly ownership: Ownership<I, A>;
  /**
   * Lists the kind's objects under a group; undefined when the kind is not listed ({@link ResourceDeclaration.listing}).
   * With `bad`, each row is checked on its own: one that does not have the kind's shape goes to `bad` (with its
   * uid when it has one, and what is wrong) and the rest are listed; without it, such a row fails the listing.
   */
  readonly list: ((client: PlatformClient, params: ListParams, limit?: number, bad?: (row: BadRow) => void) => Promise<ObjectRow[]>) | undefined;
  /** Named by its path in messages (a container). */
  readonly container: boolean;
  /** The declared field that names an object to a person (`name`, a subscription's `sink`), when one does. */
  readonly labelField: string | undefined;
  /**
   * How `unmanaged` says to take an object under management, spelled for `lang` (default TypeScript):
   * `adoptUid: "<uid>"` (Python `adopt_uid="<uid>"`, …), `adopt: true`, or delete it.
   */
  adoptLine(uid: string, lang?: ProgramLanguage): string;
  /** Its objects keep their group from being deleted. */
  readonly blocksGroupDelete: boolean;
  /** How `export` places its objects ({@link ResourceDeclaration.export}); undefined: the generic path. */
  readonly export: { readonly skip: string } | undefined;
  /** Its lookups, as declared ({@link ResourceDeclaration.lookups}). */
  readonly lookups: LookupDeclaration | undefined;
  /** Its Lists are served under beta version segments only ({@link Listing.betaOnly}). */
  readonly betaOnly: boolean;
  /** The name a person recognises an object by ({@link Listing.label}; `name` when the kind is not listed). */
  labelOf(x: A): string;
  /** The outputs a server object gives (as `read` computes them; `local`: what is known locally). */
  outputsOf(api: A, local?: Partial<O>): O;
  /** The inputs that would produce outputs `o` (the declared fields only), as `read` returns them. */
  inputsOf(o: O): I;
}

/**
 * The built-in field every kind has: `createToken`, 16 random hex characters that `check` puts in the inputs and
 * keeps for the resource's life (from the old inputs, else a fresh one). Creates mark what they make with it
 * (`lifecycle.ts`), and because the engine records checked inputs in an interrupted update's pending create
 * operations, `platform-pulumi recover` can prove which object such a create made. Never a diff: it never causes a
 * change. State shape: in the inputs after check, and in the outputs after create, read and update.
 */
export const CREATE_TOKEN_FIELD: Field = { kind: "stateOnly", optional: true, internal: true };

type Maybe = Record<string, unknown> | undefined;

/** The `createToken` a resource already has (from its old inputs or outputs), when well-formed. */
function tokenIn(...sources: Maybe[]): string | undefined {
  for (const s of sources) {
    const t = s?.["createToken"];
    if (typeof t === "string" && CREATE_TOKEN.test(t)) return t;
  }
  return undefined;
}

/**
 * Turns a declaration into the kind's provider (and the class's helpers).
 * @throws Error at module load when a kind has no `parent` field, or neither `name`+`description` nor a window
 *   ownership nor `hooks.create` (so a create could not be made), or gives both or neither of `collection` and
 *   `wire`.
 */
export function declareResource<I extends object, O extends I, A extends { uid: string }>(d: ResourceDeclaration<I, O, A>): DeclaredResource<I, O, A> {
  const entries = Object.entries(d.fields) as Array<[string, Field]>;
  const parentKey = entries.find(([, f]) => f.kind === "parent")?.[0];
  if (!parentKey) throw new Error(`declareResource(${d.kind}): no parent field`);
  const named = "name" in d.fields && "description" in d.fields;
  if (!named && !d.hooks?.create && d.ownership?.proof !== "window") {
    throw new Error(`declareResource(${d.kind}): give hooks.create or a window ownership (no name and description to mark)`);
  }
  if ((d.collection === undefined) === (d.wire === undefined)) throw new Error(`declareResource(${d.kind}): give exactly one of collection and wire`);
  const wireSchema = d.wire ? (wireSchemaOf(d.kind, d.fields as Record<string, Field>, d.server ?? {}) as unknown as Parser<A>) : undefined;
  const wireAt = d.wire;
  const collectionOf = (c: PlatformClient): CreatableCollection<A, object> | Collection<A, object> =>
    wireAt && wireSchema
      ? c.collection({ api: wireAt.api, collection: wireAt.collection, schema: wireSchema, patch: wireAt.patch, listKey: wireAt.listKey })
      : d.collection!(c);
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
    for (const [k, { default: def }] of Object.entries(d.server ?? {})) if (def !== undefined) out[k] = a[k] ?? def;
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

  /** `o` with the built-in `createToken` of the first source that has one (unchanged when none has). */
  const withToken = <T extends object>(o: T, ...sources: unknown[]): T => {
    const token = tokenIn(...(sources as Maybe[]));
    return token ? { ...o, createToken: token } : o;
  };

  /**
   * The collection when the API has PATCH for the kind; a kind without PATCH declares no `mutable` field and no
   * name and description to mark, so nothing calls this for it.
   * @throws Error naming the kind when it is called for one without PATCH (a declaration error).
   */
  const patchable = (c: CreatableCollection<A, object> | Collection<A, object>): Collection<A, object> => {
    if (c instanceof Collection) return c;
    throw new Error(`${d.what}: the API has no PATCH for this kind; declare its changing fields with replace()`);
  };

  /** The provider of the declaration, bound to `ctx` (its client and create ledger). */
  const providerFor = (ctx: ProviderContext): ProviderImpl<I, O> => {
    const client = () => ctx.client();
    const coll = () => collectionOf(client());
    /**
     * The create of a window-proved kind that gives no `hooks.create`: one POST of its wire body (every field it
     * sends, so a field added to the declaration reaches it), proved after an ambiguous failure by its ownership's
     * `matching`; identical creates of one program run one at a time (their key is the kind, parent and body).
     */
    const createInWindow = (inputs: I, c: PlatformClient, collection: CreatableCollection<A, object> | Collection<A, object>, parentUid: string): Promise<A> => {
      const body = wire(inputs);
      const fields = Object.entries(body).map(([k, v]) => `${k} ${tsString(typeof v === "string" ? v : JSON.stringify(v))}`);
      return createProvedInWindow(ctx, {
        what: `${d.what} (${fields.join(", ")}) under ${parentUid}`,
        parentUid,
        key: JSON.stringify([d.kind, parentUid, body]),
        post: () => collection.create(parentUid, body),
        matching: () => ownership.matching(c, inputs),
        ...(ownership.time ? { time: (x: A) => ownership.time!(x) } : {}),
      });
    };
    return {
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
        inputs["createToken"] = tokenIn(olds as Maybe, n) ?? newCreateToken(); // the built-in field (CREATE_TOKEN_FIELD)
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
        const collection = collectionOf(c);
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
          const o = mask.length ? outputs(await patchable(collection).patch(existing.uid, pick(wire(inputs), mask), mask), inputs as unknown as Partial<O>) : current;
          logInfo(`adopted ${d.what} ${existing.uid}${mask.length ? ` and set ${mask.join(", ")}` : ""}`);
          return { id: existing.uid, outs: withToken(o, inputs) };
        }
        const made = d.hooks?.create
          ? await d.hooks.create(inputs, ctx)
          : ownership.proof === "window"
            ? await createInWindow(inputs, c, collection, parentUid)
            : await createNamedSafely(patchable(collection), d.what, parentUid, (inputs as Props)["name"] as string, wire(inputs), createTokenOf(inputs), ctx.creates, logInfo);
        d.hooks?.afterCreate?.(made, ctx);
        return { id: made.uid, outs: withToken(outputs(made, inputs as unknown as Partial<O>), inputs) };
      },

      /** Current server state, returned as inputs too (so a refresh shows drift); NOT_FOUND reports it gone. */
      async read(id, props) {
        return readOrGone(async () => {
          const { client: c, settings } = ctx.clientAndSettings();
          const outs = withToken(outputs(await batchedGet(collectionOf(c), id, settings.readAhead), props), props);
          return { id, props: outs, inputs: withToken(inputsOf(outs), props) };
        });
      },

      /** PATCHes exactly the changed `mutable` fields (as `updateMask`), or nothing when only state changed. */
      async update(id, olds, news) {
        const mask = pathsOf(changed(olds, news, mutableKeys));
        if (mask.length === 0) return { outs: withToken({ ...olds, ...news }, news, olds) };
        return { outs: withToken(outputs(await patchable(coll()).patch(id, pick(wire(news), mask), mask), news as unknown as Partial<O>), news, olds) };
      },

      /** Deletes the object; NOT_FOUND counts as done. */
      async delete(id, props) {
        if (d.hooks?.delete) return d.hooks.delete(id, props, client(), ctx);
        await deleteIgnoringNotFound(() => coll().delete(id));
      },
    };
  };

  // Every declared field and server output is registered (unset when not given), so each has an Output on the
  // resource: an optional argument left out is still readable (as undefined) from the program.
  const unset = Object.fromEntries(["uid", ...Object.keys(d.server ?? {}), ...entries.map(([k]) => k)].map((k) => [k, undefined]));
  const secrets = [...entries.filter(([, f]) => f.secret).map(([k]) => k), ...(d.secretOutputs ?? [])];
  const ownership: Ownership<I, A> = d.ownership ?? {
    proof: "marker",
    loose: true,
    same: "the same kind, parent and name",
    matching: (c, inputs) =>
      collectionOf(c).list({ childrenOf: (inputs as Props)[parentKey] as string, name: (inputs as Props)["name"] as string, pageSize: 200 }).collect(),
  };
  if (!d.ownership && !named) throw new Error(`declareResource(${d.kind}): give ownership (no name and description to mark)`);
  const listing = d.listing === false ? undefined : (d.listing ?? {});
  const label = listing?.label ?? "name";
  const labelOf = (x: A): string => (typeof label === "function" ? label(x) : String((x as unknown as Props)[label] ?? ""));
  const list = listing
    ? async (c: PlatformClient, params: ListParams, limit?: number, bad?: (row: BadRow) => void): Promise<ObjectRow[]> => {
        if (bad) {
          const rows = collectionOf(c).listRows(params).collect(limit);
          const out: ObjectRow[] = [];
          for (const r of await (listing.betaOnly ? betaOnly(rows) : rows)) {
            if (r.problem === undefined) out.push({ kind: d.kind, uid: r.value.uid, name: labelOf(r.value) });
            else bad({ kind: d.kind, ...(r.uid !== undefined ? { uid: r.uid } : {}), problem: r.problem });
          }
          return out;
        }
        const rows = collectionOf(c).list(params).collect(limit);
        return (await (listing.betaOnly ? betaOnly(rows) : rows)).map((x) => ({ kind: d.kind, uid: x.uid, name: labelOf(x) }));
      }
    : undefined;
  return {
    kind: d.kind,
    what: d.what,
    module: d.module,
    description: d.description,
    server: d.server ?? {},
    secrets,
    collection: collectionOf,
    wire: d.wire,
    wireSchema,
    fields: { ...(d.fields as Record<string, Field>), createToken: CREATE_TOKEN_FIELD },
    parentKey,
    ownership,
    list,
    container: listing?.path ?? false,
    labelField: typeof label === "string" && label in d.fields ? label : undefined,
    adoptLine: (uid, lang = "nodejs") =>
      listing?.notAdoptable ? `delete it (${listing.notAdoptable})` : "adoptUid" in d.fields ? propertyLine(lang, "adoptUid", uid) : propertyLine(lang, "adopt", true),
    blocksGroupDelete: d.blocksGroupDelete ?? false,
    export: d.export,
    lookups: d.lookups,
    betaOnly: listing?.betaOnly ?? false,
    labelOf,
    outputsOf: (api, local) => outputs(api, local),
    inputsOf,
    providerFor,
    provider: providerFor(processContext()),
    // A static get registers every argument but createOnly and stateOnly ones.
    readKeys: keysOf("parent", "replace", "mutable"),
    props: (args, extra = {}) => ({ ...unset, ...args, ...extra }),
    options: (opts) => (secrets.length ? { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secrets] } : { ...opts }),
  };
}
