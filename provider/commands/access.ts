/**
 * `platform-pulumi access --stack <name> [--cwd <dir>] [--current] [--format table|json|markdown|sarif] [--fail-on <patterns>]`:
 * the review gate on IAM changes. Who can do what, and where, after this change (README "Access review").
 *
 * Default: the difference between effective access now (the stack's state, `pulumi stack export`) and after the
 * change (the plan of `pulumi preview --json`; objects the preview has not created yet are named by path).
 * `--current`: effective access now. Effective access is the direct grants closed under escalation
 * (provider/access/model.ts). Roles the stack binds but does not declare (built-in roles, other stacks' roles) and
 * groups it only references are read from the API with the stack's `platform:*` config or the environment, as
 * the provider does.
 *
 * Exit codes: 1 when a gained capability (with `--current`: a held one) matches `--fail-on`, or is at a severity of
 * `--fail-severity` (for a change by default `critical` and `high`); 0 otherwise; 2 when it could not run (bad
 * arguments, a failed preview, a role it cannot describe).
 */
import { isBuiltinRoleName } from "../access/builtin";
import { CLASS_ROWS_FROM, ESCALATION_KINDS, effectiveAccess } from "../access/model";
import { capabilityMatcher, classTable, diffGrants, identitiesIn, markdown, reportGrants, textTable, type ReportChange, type ReportGrant } from "../access/report";
import { orgFromStack, type RoleInfo, type StackContext, type StackObject, type StackOrg } from "../access/stack";
import { DEFAULT_FAIL_SEVERITIES, type Severity } from "../access/severity";
import type { PlatformClient } from "../client/client";
import { writeFileSync } from "node:fs";
import { FORMATS, REVIEW_OPTIONS, TIMEOUT_USAGE, reviewArgs, type ReportFormat, type ReportOptions } from "./report";
import { UsageError, runStackFrame } from "./frame";
import { SourceLocator, accessSarif, recordsOfPlan } from "./sarif";
import { jsonText, mdText } from "../text";
import { QUERY_OPTIONS, queryArgs, runAccessQuery } from "./access-query";
import { silencedLines, type SilencedFinding } from "../access/exclusions";
import { ACCESS_EXTRA_OPTIONS, ACCESS_EXTRA_USAGE, accessExtras, silenceRows, unusedReview, type AccessExtras } from "./accessExtras";
import { beyondProject, clientFor, exportStack, orgUidOf, runPulumi, stackConfig, stackNames, StackCommandError, type StackRef, type StateResource } from "./stack";
import { outsideStack, readLiveOrg } from "../access/orgRead";
import { withStacksOf } from "./unmanaged";
import { kindOfType } from "../typeTokens";

/** The options `access` and `gate` share for what the model reads: `--scope org|stack` and `--with <stack>`. */
export const SCOPE_OPTIONS = { scope: { type: "string" }, with: { type: "string", multiple: true } } as const;

/** The usage lines of {@link SCOPE_OPTIONS}, the same in `access` and `gate`. */
export const SCOPE_USAGE = `  --scope <s>             org (default): the whole org under the root, read from the API, with the stack (or its
                          plan) on top, each identity marked where it is managed (this stack, stack <name>,
                          unmanaged); stack: the stack's objects alone
  --with <stack>          with the org scope: a stack of another project, <org>/<project>/<stack>, whose objects
                          are marked as managed there (the other projects of a split export); repeat it for each`;

const USAGE = `usage: platform-pulumi access --stack <name> [--cwd <dir>] [--scope org|stack] [--with <stack>]... [--current] [--format table|json|markdown|sarif] [--fail-on <patterns>]
                            [--fail-severity <list>] [--json-out <file>] [--max-chars <n>]
       platform-pulumi access --stack <name> [--current] [--format table|json|markdown] --who-can <glob> --at <group>
       platform-pulumi access --stack <name> [--current] [--format table|json|markdown] --can <identity> <capability> --at <group>

  Effective access (direct grants and the escalations they open) that a change gains and loses: the stack's
  state now against the plan of \`pulumi preview\`. Each row has a severity: critical (owner-equivalent or an IAM
  write that grants access), high (other writes and deletes), low (reads).

  --stack <name>          the stack (required; or PULUMI_STACK)
  --cwd <dir>             the Pulumi project folder (default: the current folder)
${SCOPE_USAGE}
  --current               effective access now, instead of the change
  --format <f>            table (default), json (one object; shape in the README), markdown (for a PR or a CI summary)
                          or sarif (SARIF 2.1.0, for GitHub code scanning)
  --fail-on <globs>       comma-separated globs over capability names (iam.*, *.delete, role_bindings.create):
                          exit 1 when a gained (with --current: held) capability matches
  --fail-severity <list>  exit 1 when a gained capability is at one of these severities (default for a change:
                          critical,high; with --current: none; none: never)
  --json-out <file>       also write the full JSON report to <file> (a CI artifact)
  --max-chars <n>         the most characters of Markdown (default 60000; a GitHub comment holds 65536)
  --who-can <glob>        every identity holding a capability the glob matches at --at, directly or by escalation,
                          with its shortest path (after the change; with --current: now); exit 0 when it ran
  --can <identity> <cap>  whether the identity (path or uid) holds the capability (groups.create) at --at, with
                          the path: exit 0 yes, 1 no
  --at <group>            the group path (/engineering/platform) or uid --who-can and --can ask about
${ACCESS_EXTRA_USAGE}
${TIMEOUT_USAGE}`;

/** The value the engine shows for a property not known until apply. */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The JSON output (README "Access review"). */
export interface AccessJson {
  stack: string;
  changes?: ReportChange[];
  grants?: ReportGrant[];
  /** Findings a live exclusion of `no-new-access` silenced (`--config`), with its reason; absent without exclusions. */
  silenced?: SilencedFinding[];
}

function kindOf(type: string): string | undefined {
  return kindOfType(type);
}

function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** The stack's resources of this package as {@link StackObject}s (every value known). */
export function objectsFromState(resources: readonly StateResource[]): StackObject[] {
  return resources.flatMap((r) => {
    const kind = kindOf(r.type);
    if (!kind || r.custom === false) return [];
    return [{ kind, urn: r.urn, name: nameOf(r.urn), props: { ...(r.inputs ?? {}), ...(r.outputs ?? {}) } }];
  });
}

/** One step of `pulumi preview --json`. */
interface PlanStep {
  op: string;
  urn: string;
  newState?: { type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; propertyDependencies?: Record<string, string[]> };
}

/** Removes unknown values (the engine's sentinel) from a property bag, keeping the known ones. */
function known(v: unknown): unknown {
  if (v === UNKNOWN) return undefined;
  if (Array.isArray(v)) return v.map(known);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (known(x) === undefined ? [] : [[k, known(x)]])));
  return v;
}

/**
 * The stack after the change: each resource as the plan leaves it. A resource the plan creates or replaces has no
 * uid yet (it is named by its URN); one it keeps or updates keeps its uid from the state; one it deletes is gone.
 * Unknown fields are followed to the resource they come from (the plan's property dependencies).
 */
export function objectsFromPlan(plan: { steps?: PlanStep[] }, state: readonly StackObject[]): StackObject[] {
  const before = new Map(state.map((o) => [o.urn, o]));
  const out = new Map<string, StackObject>();
  const deleted = new Set<string>();
  for (const s of plan.steps ?? []) {
    if (/^(delete|discard|delete-replaced|read-discard)$/.test(s.op)) {
      if (!out.has(s.urn)) deleted.add(s.urn);
      continue;
    }
    const ns = s.newState;
    const kind = ns ? kindOf(ns.type) : undefined;
    if (!ns || !kind) continue;
    deleted.delete(s.urn);
    const fresh = /^(create|create-replacement|replace)$/.test(s.op);
    const old = before.get(s.urn);
    const props = { ...(fresh ? {} : (old?.props ?? {})), ...(known(ns.outputs ?? {}) as object), ...(known(ns.inputs ?? {}) as object) } as Record<string, unknown>;
    if (fresh) delete props["uid"];
    const refs: Record<string, string> = {};
    for (const [field, deps] of Object.entries(ns.propertyDependencies ?? {})) {
      const raw = (ns.inputs ?? {})[field];
      if (raw === UNKNOWN && deps.length === 1) refs[field] = deps[0]!;
    }
    out.set(s.urn, { kind, urn: s.urn, name: nameOf(s.urn), props, refs });
  }
  // Resources the plan does not mention stay as they are.
  for (const o of state) if (!out.has(o.urn) && !deleted.has(o.urn)) out.set(o.urn, o);
  return [...out.values()];
}

/** Role uids the objects bind but do not declare. */
function referencedRoles(objs: readonly StackObject[]): string[] {
  const declared = new Set(objs.filter((o) => o.kind === "Role").map((o) => o.props["uid"]));
  return [...new Set(objs.filter((o) => o.kind === "RoleBinding").map((o) => o.props["roleUid"]).filter((u): u is string => typeof u === "string" && u !== "" && !declared.has(u)))];
}

/** Group uids the objects reference (parents, binding groups) but do not declare. */
function referencedGroups(objs: readonly StackObject[]): string[] {
  const declared = new Set(objs.filter((o) => o.kind === "Group").map((o) => o.props["uid"]));
  const out = new Set<string>();
  for (const o of objs) {
    for (const f of ["parentUid", "groupUid"]) {
      let u = o.props[f];
      // Every ancestor of a referenced group, so paths reach the root.
      while (typeof u === "string" && u !== "" && !declared.has(u)) {
        out.add(u);
        const i = u.lastIndexOf("/");
        u = i < 0 ? undefined : u.slice(0, i);
      }
    }
  }
  return [...out];
}

/**
 * Describes the roles and names the groups the stack references without declaring them, through the API.
 * @throws StackCommandError naming a role the API does not describe and whose hydrated name is not a built-in role.
 */
async function lookups(client: PlatformClient | undefined, objs: readonly StackObject[]): Promise<{ roles: Map<string, RoleInfo>; groups: Map<string, string> }> {
  const roles = new Map<string, RoleInfo>();
  const groups = new Map<string, string>();
  if (!client) return { roles, groups };
  await Promise.all(
    referencedRoles(objs).map(async (uid) => {
      try {
        const r = await client.roles.get(uid);
        roles.set(uid, { name: r.name, capabilities: r.capabilities ?? [] });
      } catch (err) {
        throw new StackCommandError(`could not read role ${uid} from the API: ${(err as Error).message}`, "Its capabilities decide what its bindings grant; check the stack's platform:* config or PLATFORM_* environment.");
      }
    }),
  );
  await Promise.all(
    referencedGroups(objs).map(async (uid) => {
      try {
        groups.set(uid, (await client.groups.get(uid)).name);
      } catch {
        // A group the caller may not read is shown by its uid.
      }
    }),
  );
  return { roles, groups };
}

/** The options of one run. */
export interface AccessOptions {
  current: boolean;
  format: ReportFormat;
  failOn: string[];
  /** Severities of a gained (with `current`: held) capability that make the exit code 1. @default critical and high for a change, none with `current` */
  failSeverities?: readonly Severity[] | undefined;
  /** The Markdown budget in characters. @default 60000 */
  maxChars?: number | undefined;
  /** Where the full JSON report is also written (named in the Markdown when rows are left out). */
  jsonFile?: string | undefined;
  /** `--unused`, `--days` and `--config` (./accessExtras.ts). */
  extras?: AccessExtras | undefined;
  /** What the model reads (`--scope`). @default "stack" here; the command's default is "org" */
  scope?: AccessScope | undefined;
  /** Fully qualified stacks of other projects whose objects are marked as managed there (`--with`). @default [] */
  withStacks?: readonly string[] | undefined;
}

/** What {@link loadAccess} read: the stack's objects now and after the change, and how to make them an org. */
export interface LoadedAccess {
  /** The state, as `pulumi stack export` gives it. */
  state: Awaited<ReturnType<typeof exportStack>>;
  /** The plan of `pulumi preview --json`; undefined with `current`. */
  plan?: { steps?: PlanStep[] } | undefined;
  /** The stack's objects now (the state). */
  before: StackObject[];
  /** The stack's objects after the change (the plan); undefined with `current`. */
  after?: StackObject[] | undefined;
  /** Roles and groups the stack references without declaring them, as the API describes them. */
  ctx: StackContext;
  /** The API client of the stack's `platform:*` config or the environment (or the caller's); undefined without API settings. */
  api?: PlatformClient | undefined;
  /**
   * The org `objs` (`before` or `after`) describe, with `ctx`; with the org scope, the live org's objects outside
   * the stack ({@link LoadedAccess.outside}) are added, and each identity marked where it is managed.
   */
  orgOf: (objs: readonly StackObject[]) => StackOrg;
  /** With the org scope: the live org's objects no object of the stack's state holds (./../access/orgRead.ts). */
  outside: StackObject[];
}

/** What the model reads: the whole org under the root, read from the API, with the stack on top (default), or only the stack. */
export type AccessScope = "org" | "stack";

/**
 * Where each object of the org is managed, by uid: `stack <name>` for each other stack of the project in the
 * backend, and `stack <org>/<project>/<stack>` for each of `withStacks` (the other projects of a split set,
 * `--with`); one `pulumi stack export` each, four at a time. Objects of this stack are marked by the caller.
 */
async function otherStacks(ref: StackRef, withStacks: readonly string[] = []): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let names: string[] = [];
  try {
    names = (await stackNames(ref)).filter((n) => n !== ref.stack.split("/").pop());
  } catch {
    // no list of stacks: only the --with stacks name their objects; the rest are marked unmanaged
  }
  const all = [...names, ...beyondProject(ref, names, withStacks)];
  const marks: Array<Array<[string, string]>> = new Array(all.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < all.length; i = next++) {
      try {
        const s = await exportStack({ ...ref, stack: all[i]! });
        marks[i] = (s.deployment.resources ?? []).flatMap((r) => (r.id && kindOfType(r.type) !== undefined ? [[r.id, `stack ${all[i]}`] as [string, string]] : []));
      } catch {
        marks[i] = []; // a stack that cannot be exported names nothing
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, all.length) }, worker));
  // In the order given: the project's stacks, then --with, the first to hold an object names it.
  for (const m of marks) for (const [uid, where] of m ?? []) if (!out.has(uid)) out.set(uid, where);
  return out;
}

/** The live org outside a stack (docs/access.md "The whole org"), as {@link readOrgOutside} reads it. */
export interface OrgOutside {
  /** The objects under the org's root that no object of the stack's state holds (orgRead.ts `outsideStack`). */
  outside: StackObject[];
  /** Where each of them is managed, by uid: `stack <name>` (another stack of the project in the backend) or `unmanaged`. */
  managed: Map<string, string>;
}

/**
 * Reads the org under `root` from the API once and keeps what the stack's state (`stackObjects`) does not hold,
 * each object marked where it is managed (one `pulumi stack export` per other stack of the project, and per
 * `withStacks`, fully qualified stacks of other projects: `--with`).
 * @throws ApiError (or a client limit's error) from the API, naming the List that failed.
 */
export async function readOrgOutside(ref: StackRef, api: PlatformClient, root: string, stackObjects: readonly StackObject[], withStacks: readonly string[] = []): Promise<OrgOutside> {
  const [live, others] = await Promise.all([readLiveOrg(api, root), otherStacks(ref, withStacks)]);
  const outside = outsideStack(live.objects, stackObjects);
  return { outside, managed: new Map(outside.map((o) => [o.props["uid"] as string, others.get(o.props["uid"] as string) ?? "unmanaged"])) };
}

/**
 * Reads what the access review and the access queries (`--who-can`, `--can`) judge: the state, the plan unless
 * `current`, and the roles and groups the stack references from the API (the stack's `platform:*` config or the
 * environment, or `client`); the roles and groups `extra` objects reference are described too (another state of
 * the stack, e.g. the baseline a gate report recorded).
 * @throws StackCommandError when the state, the preview or a role cannot be read.
 */
export async function loadAccess(ref: StackRef, current: boolean, client?: PlatformClient, extra: readonly StackObject[] = [], scope: AccessScope = "stack", withStacks: readonly string[] = []): Promise<LoadedAccess> {
  const state = await exportStack(ref);
  const before = objectsFromState(state.deployment.resources ?? []);
  // The preview (a change's plan) and the org read run side by side; the preview's failure is reported first.
  const previewing = current ? undefined : runPulumi(ref, ["preview", "--json"]);
  const reading = (async () => {
    let config: Record<string, string> = {};
    try {
      config = await stackConfig(ref);
    } catch {
      // No readable config: the environment alone configures the API client.
    }
    let api = client;
    if (!api) {
      try {
        api = clientFor(config);
      } catch {
        api = undefined; // no API settings: roles are known only by their hydrated names
      }
    }
    // The whole org: what the API holds under the root that the stack's state does not (what the plan deletes
    // stays deleted: the state holds it), each object marked where it is managed.
    let org: Awaited<ReturnType<typeof readOrgOutside>> | undefined;
    if (scope === "org") {
      const root = orgUidOf(config);
      if (!api || !root) {
        throw new StackCommandError(
          "the whole org is read from the API under its root: no API settings or no root group uid",
          "Set the stack's platform:orgUid (or PLATFORM_ORG_UID) and the API settings (platform:apiUrl/platform:token or PLATFORM_API_URL/PLATFORM_TOKEN), or give --scope stack to judge the stack's objects alone.",
        );
      }
      org = await readOrgOutside(ref, api, root, before, withStacks);
    }
    return { config, api, org };
  })();
  const [previewed, read] = await Promise.allSettled([previewing, reading]);
  let after: StackObject[] | undefined;
  let plan: { steps?: PlanStep[] } | undefined;
  if (previewed.status === "rejected") throw previewed.reason;
  const r = previewed.value;
  if (r) {
    try {
      plan = JSON.parse(r.stdout) as { steps?: PlanStep[] };
    } catch {
      throw new StackCommandError(`pulumi preview --json --stack ${ref.stack} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split("\n").slice(-5).join("\n")}`);
    }
    if (r.code !== 0) {
      const diags = (plan as { diagnostics?: Array<{ message?: string; severity?: string }> }).diagnostics ?? [];
      const msg = diags.filter((d) => d.severity === "error").map((d) => d.message?.trim()).join("\n") || r.stderr.trim();
      throw new StackCommandError(`pulumi preview --json --stack ${ref.stack} failed (exit ${r.code}): ${msg}`);
    }
    after = objectsFromPlan(plan, before);
  }
  if (read.status === "rejected") throw read.reason;
  const { config, api, org } = read.value;
  let outside: StackObject[] = [];
  const managed = new Map<string, string>();
  if (org) {
    outside = org.outside;
    for (const [uid, where] of org.managed) managed.set(uid, where);
    for (const o of [...before, ...(after ?? [])]) managed.set(typeof o.props["uid"] === "string" && o.props["uid"] !== "" ? (o.props["uid"] as string) : o.urn, "this stack");
  }
  const all = [...before, ...(after ?? []), ...extra, ...outside];
  const found = await lookups(api, all);
  // A binding whose role nobody can describe would grant nothing in the report: stop instead.
  const hydrated = new Set(all.filter((o) => o.kind === "RoleBinding" && isBuiltinRoleName(String((o.props["role"] as Record<string, unknown> | undefined)?.["name"] ?? ""))).map((o) => o.props["roleUid"]));
  const undescribed = referencedRoles(all).filter((u) => !found.roles.has(u) && !hydrated.has(u));
  if (undescribed.length) {
    throw new StackCommandError(
      `the stack binds role(s) ${undescribed.join(", ")} that it does not declare, and no API settings describe them`,
      "Set the stack's platform:apiUrl/platform:token config or PLATFORM_API_URL/PLATFORM_TOKEN, as for the provider, so the command can read those roles' capabilities.",
    );
  }
  const ctx: StackContext = { role: (uid: string) => found.roles.get(uid), groupName: (uid: string) => found.groups.get(uid), rootUid: orgUidOf(config) };
  const orgOf = (objs: readonly StackObject[]): StackOrg => {
    if (scope === "stack") return orgFromStack(objs, ctx);
    const so = orgFromStack([...objs, ...outside], ctx);
    return { ...so, managed: new Map(so.org.identities.map((i) => [i.id, managed.get(i.id) ?? "unmanaged"])) };
  };
  return { state, plan, before, after, ctx, api, orgOf, outside };
}

/**
 * The JSON report (`--format json`, `--json-out`): `{ stack, classes?, grants | changes, silenced? }`, one row per
 * capability grant, a class's members listed once in `classes` ({@link classTable}).
 * @throws StackCommandError naming the number of grants, with what to use instead, when the report is longer than
 *   one JavaScript string can hold (about 512 MB: identities that can present for each other each hold all the
 *   others hold, so such an org's rows grow with the square of those identities; docs/performance.md).
 */
export function jsonReport(stack: string, current: boolean, rows: ReadonlyArray<ReportGrant | ReportChange>, silenced: unknown): string {
  try {
    const { rows: listed, classes } = classTable(rows);
    return `${jsonText({ stack, ...(classes.length ? { classes } : {}), ...(current ? { grants: listed } : { changes: listed }), ...(silenced ? { silenced } : {}) })}\n`;
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new StackCommandError(
      `the access report holds ${rows.length} capability grant(s), more than one JSON document can hold (${err.message})`,
      "Use --format markdown or table (a row per identity, scope and route), --who-can or --can for one question, or --fail-on/--fail-severity for the verdict alone.",
    );
  }
}

/**
 * Runs the review for `ref`: returns the exit code and what to print.
 * @throws StackCommandError when the state, the preview or a role cannot be read.
 */
export async function accessReview(ref: StackRef, opts: AccessOptions, client?: PlatformClient): Promise<{ code: number; output: string }> {
  const match = opts.failOn.length ? capabilityMatcher(opts.failOn) : undefined;
  const { state, plan, before, after, ctx, api, orgOf, outside } = await loadAccess(ref, opts.current, client, [], opts.scope ?? "stack", opts.withStacks ?? []);
  const locator = opts.format === "sarif" ? new SourceLocator(ref.cwd, (state.deployment.resources ?? []) as never) : undefined;
  if (plan) locator?.add(recordsOfPlan(plan));
  const grantsOf = (objs: readonly StackObject[]) => {
    const so = orgOf(objs);
    return reportGrants(so, effectiveAccess(so.org, { escalations: ESCALATION_KINDS, classRowsFrom: CLASS_ROWS_FROM }));
  };
  const now = grantsOf(before);
  if (opts.extras?.unused) {
    if (opts.format === "sarif") throw new StackCommandError("--unused has no SARIF form: use --format table, json or markdown");
    return unusedReview(ref.stack, now, api, opts.extras, opts.format);
  }
  const all0: Array<ReportGrant | ReportChange> = opts.current ? now : diffGrants(now, grantsOf(after!));
  const { rows, silenced, notes } = silenceRows(all0, opts.extras);
  const held = rows.filter((r) => !("change" in r) || r.change === "gained");
  const hits = match ? held.filter((r) => match(r.capability)) : [];
  const severities = opts.failSeverities ?? (opts.current ? [] : DEFAULT_FAIL_SEVERITIES);
  const severe = held.filter((r) => severities.includes(r.severity));
  // The JSON report only when asked for (it is the largest form: every capability grant on its own row).
  const json = opts.format === "json" || opts.jsonFile ? jsonReport(ref.stack, opts.current, rows, silenced) : "";
  if (opts.jsonFile) writeFileSync(opts.jsonFile, json);
  let output: string;
  if (opts.format === "json") output = json;
  else if (opts.format === "sarif") output = `${jsonText(accessSarif({ stack: ref.stack, current: opts.current, rows, objects: [...(opts.current ? before : after!), ...outside], ctx, locator, silenced, jsonFile: opts.jsonFile }))}\n`;
  else if (opts.format === "markdown") output = markdown(ref.stack, rows, opts.current, { ...(opts.maxChars ? { maxChars: opts.maxChars } : {}), jsonFile: opts.jsonFile });
  else output = textTable(rows, opts.current);
  if (opts.format !== "json" && opts.format !== "sarif") {
    output += opts.format === "markdown" ? silencedMarkdown(notes, silenced) : notes;
    if (match) {
      const caps = [...new Set(hits.map((h) => h.capability))].sort();
      output += hits.length ? `\n--fail-on ${opts.failOn.join(",")}: ${opts.current ? "held" : "gained"} ${caps.join(", ")}\n` : `\n--fail-on ${opts.failOn.join(",")}: nothing matched\n`;
    }
    if (severities.length) {
      const ids = identitiesIn(severe);
      output += severe.length ? `\n--fail-severity ${severities.join(",")}: ${severe.length} capability grant(s) ${opts.current ? "held" : "gained"} by ${ids} identit${ids === 1 ? "y" : "ies"}\n` : `\n--fail-severity ${severities.join(",")}: nothing ${opts.current ? "held" : "gained"} at that severity\n`;
    }
  }
  return { code: hits.length || severe.length ? 1 : 0, output };
}

/**
 * Parses {@link SCOPE_OPTIONS}.
 * @throws UsageError naming the value and what is allowed: a scope not `org` or `stack`, a `--with` that is not
 *   `<org>/<project>/<stack>`, or `--with` with `--scope stack`.
 */
export function scopeArgs(values: Record<string, string | boolean | string[] | undefined>): { scope: AccessScope; withStacks: string[] } {
  const scope = (values["scope"] ?? "org") as string;
  if (scope !== "org" && scope !== "stack") throw new UsageError(`--scope: "${scope}" is not one of org, stack`);
  let withStacks: string[];
  try {
    withStacks = withStacksOf(values);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (withStacks.length && scope === "stack") throw new UsageError(`--with ${JSON.stringify(withStacks[0])} is not allowed with --scope stack: it marks where the org's objects are managed`);
  return { scope, withStacks };
}

/** The most characters of silenced-finding lines {@link silencedMarkdown} writes (a GitHub comment holds 65,536 in all). */
export const SILENCED_MARKDOWN_CHARS = 4_000;

/**
 * The notes of the exclusions (./accessExtras.ts `silenceRows`) in a Markdown report: an expired exclusion's line
 * as text, and the silenced findings folded in a `<details>` block (`N finding(s) silenced by exclusions`), one
 * line per exclusion with who, what, where, why and until when (../access/exclusions.ts `silencedLines`). Every line
 * is server text, escaped ({@link mdText}). Lines past {@link SILENCED_MARKDOWN_CHARS} are counted, not shown. Empty
 * when there is nothing to say.
 */
export function silencedMarkdown(notes: string, silenced: readonly SilencedFinding[] | undefined): string {
  const cut = notes.indexOf("\nsilenced by exclusions:");
  const expired = (cut < 0 ? notes : notes.slice(0, cut)).split("\n").filter((l) => l.trim() !== "");
  const parts = expired.map((l) => mdText(l));
  if (silenced?.length) {
    // Within the comment's budget: lines up to SILENCED_MARKDOWN_CHARS, the rest counted.
    const all = silencedLines(silenced).map((l) => `- ${mdText(l)}`);
    const shown: string[] = [];
    let size = 0;
    for (const l of all) {
      if (size + l.length > SILENCED_MARKDOWN_CHARS && shown.length > 0) break;
      shown.push(l);
      size += l.length + 1;
    }
    if (shown.length < all.length) shown.push(`- *${all.length - shown.length} more exclusion(s) not shown; every silenced finding is in the JSON output's \`silenced\`*`);
    parts.push(`<details><summary>${silenced.length} finding(s) silenced by exclusions (until they expire)</summary>\n\n${shown.join("\n")}\n\n</details>`);
  }
  return parts.length ? `\n${parts.join("\n\n")}\n` : "";
}

/** `platform-pulumi access …`; resolves with the exit code (the report commands' contract, `report.ts`). */
export async function accessCommand(argv: readonly string[]): Promise<number> {
  const options: ReportOptions = { current: { type: "boolean" }, "fail-on": { type: "string", multiple: true }, ...SCOPE_OPTIONS, ...REVIEW_OPTIONS, ...QUERY_OPTIONS, ...ACCESS_EXTRA_OPTIONS };
  const frame = {
    name: "access",
    usage: USAGE,
    found: "a gained (with --current: held) capability matched --fail-on or --fail-severity; for a change the\ndefault --fail-severity critical,high already exits 1 on a critical or high gain; --unused found some; --can: no",
    formats: FORMATS,
    options,
    allowPositionals: true,
  };
  return runStackFrame(frame, argv, async ({ ref, format, values, positionals }) => {
    const query = queryArgs(values, positionals, format);
    if (typeof query === "string") throw new UsageError(query);
    const { scope, withStacks } = scopeArgs(values);
    if (query) {
      const loaded = await loadAccess(ref, values["current"] === true, undefined, [], scope, withStacks);
      const r = runAccessQuery(query, ref.stack, values["current"] === true, loaded.orgOf(values["current"] === true ? loaded.before : loaded.after!));
      (r.code === 2 ? process.stderr : process.stdout).write(r.output);
      return r.code;
    }
    const failOn = (values["fail-on"] as string[] | undefined) ?? [];
    let review;
    let extras;
    try {
      if (failOn.length) capabilityMatcher(failOn);
      review = reviewArgs(values);
      extras = accessExtras(values);
      if (extras.unused !== undefined && format === "sarif") throw new Error("--unused prints table, json or markdown; --format sarif is for the review of a change or of --current");
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const r = await accessReview(ref, { current: values["current"] === true || extras.unused !== undefined, format, failOn, ...review, extras, scope, withStacks });
    process.stdout.write(r.output); // the bin exits once it is written (cli/main.ts)
    return r.code;
  });
}
