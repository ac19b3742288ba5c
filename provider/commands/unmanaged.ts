/**
 * `platform-pulumi unmanaged --stack <name> [--cwd <dir>] [--format table|json|markdown] [--with <org/project/stack>]...
 * [--json-out <file>] [--max-chars <n>]`: the objects a stack's groups hold that no state references: what a failed or
 * interrupted apply may have left, and grants nobody manages. `--format json` (and the `--json-out` file) is one
 * object, {@link UnmanagedReport}; the output options are every report command's (./report.ts).
 *
 * It looks at:
 * - everything at any depth under each group the stack manages (groups, identities, custom roles, role bindings,
 *   identity providers, group invites, repos, tags, overlays, overlay bindings, subscriptions, and the account
 *   association of each group found);
 * - directly in the group the stack's top-level groups live in, when that is not the root (an `Org`'s `parentUid`,
 *   the `--under` group of an export): every child no stack holds (docs/export.md: the org file cannot hold them);
 * - under the stack's configured root (`platform:orgUid`, then `PLATFORM_ORG_UID`): the children of a kind and
 *   name the stack declares there (the duplicates a lost create leaves), and the role bindings that grant one of
 *   the stack's identities a role there.
 *
 * An object counts as managed when any stack of the project in the current backend holds it, so two stacks that
 * share a root do not report each other; `--with` adds the stacks of other projects (the other projects of a split
 * export, README "Export: one stack per top-level group"), so a set of stacks that shares an org does not report
 * each other's objects either. Each object comes with the line that adopts it, spelled in the language of the
 * stack's program (`adoptUid: "<uid>"`, `adopt_uid="<uid>"` in Python, …; `adopt: true` for an account
 * association; an invite cannot be adopted, its code is gone: delete it).
 * A row the server sends that the client cannot read is reported, naming what is wrong, and the rest are listed.
 * Exit code 1 when any are found, so a CI job can fail on it, like the drift report; 2 when it could not run.
 */
import { writeFileSync } from "node:fs";
import { programLanguage, propertyLine } from "../programLanguage";
import type { PlatformClient } from "../client/client";
import { ResponseShapeError, ResponseTooLargeError, isNotFound } from "../client/errors";
import { tsString } from "../escape";
import type { BadRow } from "../engine/declare";
import { KINDS, kindEntry } from "../kinds/registry";
import { jsonText, mdCode, printable } from "../text";
import { TIMEOUT_USAGE } from "./failure";
import { runStackFrame, type CommandFrame } from "./frame";
import { BoundedMarkdown, OUTPUT_OPTIONS, OUTPUT_USAGE, formatUsage, outputArgs, type OutputArgs } from "./report";
import { beyondProject, clientFor, exportStack, held, orgUidOf, referencedUids, stackConfig, stackNames, table, type StackRef } from "./stack";
import { isKindType, kindOfType } from "../typeTokens";

/** One object no state references. */
export interface UnmanagedObject {
  /**
   * Resource kind: `Group`, `Identity`, `Role`, `RoleBinding`, `IdentityProvider`, `GroupInvite`,
   * `AccountAssociation`, `Repo`, `Tag`, `Overlay`, `OverlayBinding` or `Subscription`.
   */
  kind: string;
  uid: string;
  /**
   * Its name (for a role binding: `<identity> → <role>`; for an invite: its email or role; for an overlay binding:
   * `<overlay> → <tags>`; for a subscription: its sink).
   */
  name: string;
  /** The group it lives under. */
  parentUid: string;
  /** That group's path of names from the org's root (`engineering/platform`; `/` for the root itself). */
  parentPath?: string;
  /** How to take it under management: the argument to declare, or what to do. */
  adopt: string;
  /**
   * Present when the server's row for it could not be read (it lacks the kind's fields or has them of the wrong
   * type): what is wrong, as the client found it. Its `uid` is the row's when it had one, else empty; the other
   * rows are listed all the same.
   */
  problem?: string;
}

/** The entry for a listed row that does not have its kind's shape (`under`: the group whose listing sent it). */
function unreadable(row: BadRow, under: string): UnmanagedObject {
  return {
    kind: row.kind,
    uid: row.uid ?? "",
    name: "",
    parentUid: row.uid ? parentOf(row.uid) : under,
    adopt: "look at it on the API: the server's row for it could not be read",
    problem: printable(row.problem),
  };
}

/** What the client's path check (provider/client/client.ts) allows as a uid: `/`-joined segments of letters, digits, `.`, `_`, `-`. */
const UID_SAFE = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/**
 * Why a listed row's `uid` cannot be used (the client refuses it in a request path: a segment with another
 * character, an empty, `.` or `..` segment), quoted escaped; undefined when it can. Such a row is reported as one
 * the server sent that could not be read, and not listed: no adopt line names it, and nothing is asked about it
 * (its account association, its name), so one such row does not stop the command.
 */
export function uidProblem(uid: string): string | undefined {
  if (UID_SAFE.test(uid) && !uid.split("/").some((seg) => seg === "." || seg === "..")) return undefined;
  return `uid ${printable(JSON.stringify(uid))} is not a valid uid (segments of letters, digits, ".", "_" or "-" joined by "/", none of them "." or "..")`;
}

function parentOf(uid: string): string {
  const i = uid.lastIndexOf("/");
  return i < 0 ? "" : uid.slice(0, i);
}

/**
 * Finds the objects under a stack's groups (and, for its declared names, under its root) that no stack of the
 * project references.
 * @throws StackCommandError when the state cannot be read; SettingsError when the API settings are missing.
 */
export async function findUnmanaged(ref: StackRef, client: PlatformClient, root: string | undefined, others: readonly string[] = []): Promise<UnmanagedObject[]> {
  const state = await exportStack(ref);
  // Adopt lines in the language of the stack's program (its project's runtime).
  const lang = programLanguage(ref.cwd);
  // Resources read with `X.get` are in the state as external: the stack references them but does not manage
  // them, so what lies under them (or binds them) is not the stack's to report.
  const mine = (state.deployment.resources ?? []).filter((r) => kindOfType(r.type) !== undefined && r.id && r["external"] !== true);
  // This project's stacks, then the --with stacks they do not already hold (each exported once).
  const names = await stackNames(ref);
  const holders = await referencedUids(ref, names);
  const beyond = beyondProject(ref, names, others);
  if (beyond.length) for (const h of await referencedUids(ref, beyond)) holders.add(h);
  const found = new Map<string, UnmanagedObject>();
  const add = (o: UnmanagedObject) => {
    if (!holders.has(held(o.kind, o.uid))) found.set(held(o.kind, o.uid), o);
  };
  // A row the server sent that the client cannot read is reported (once), and the listing goes on.
  const addBad = (under: string) => (row: BadRow) => {
    if (row.uid !== undefined && holders.has(held(row.kind, row.uid))) return;
    found.set(`unreadable ${row.kind}:${row.uid ?? row.problem}`, unreadable(row, under));
  };
  const groups = mine.filter((r) => r.type.endsWith(":Group")).map((r) => r.id!);
  const identities = new Set(mine.filter((r) => r.type.endsWith(":Identity")).map((r) => r.id!));

  // Every kind the registry lists under a group (`listing`), with the line that adopts one of its objects.
  const scans = KINDS.flatMap((k) =>
    k.list
      ? [
          [
            k,
            async (g: string): Promise<UnmanagedObject[]> => {
              const out: UnmanagedObject[] = [];
              for (const o of await k.list!(client, { descendantsOf: g, pageSize: 200 }, undefined, addBad(g))) {
                const wrong = uidProblem(o.uid);
                if (wrong === undefined) out.push({ ...o, parentUid: parentOf(o.uid), adopt: k.adoptLine(o.uid, lang) });
                else addBad(g)({ kind: o.kind, uid: o.uid, problem: wrong });
              }
              return out;
            },
          ] as const,
        ]
      : [],
  );
  const allGroups = new Set(groups);
  for (const g of groups) {
    for (const [, scan] of scans) for (const o of await scan(g)) {
      add(o);
      if (o.kind === "Group") allGroups.add(o.uid);
    }
  }
  // The group the stack's top-level groups live in (an Org's parentUid, the --under group of an export), when it is
  // not the org's root: what lives directly in it and no stack manages is the stack's to report too (the org file
  // an export writes cannot hold it, docs/export.md). The root has its own rule below.
  const stackGroups = new Set(groups);
  const anchors = new Set(
    mine
      .filter((r) => r.type.endsWith(":Group"))
      .map((r) => r.inputs?.["parentUid"])
      .filter((p): p is string => typeof p === "string" && p.includes("/") && p !== root && !stackGroups.has(p)),
  );
  for (const a of anchors) for (const [, scan] of scans) for (const o of (await scan(a)).filter((x) => x.parentUid === a)) add(o);
  // Account associations have their group's uid: one GET per group found.
  for (const g of allGroups) {
    try {
      const a = await client.accountAssociations.get(g);
      add({ kind: "AccountAssociation", uid: a.uid, name: a.name ?? "", parentUid: g, adopt: propertyLine(lang, "adopt", true) });
    } catch (err) {
      if (err instanceof ResponseShapeError && !(err instanceof ResponseTooLargeError)) addBad(g)({ kind: "AccountAssociation", uid: g, problem: err.message });
      else if (!isNotFound(err)) throw err;
    }
  }
  if (root) {
    // Under the root: only what looks like the stack's own (a declared kind and name), and grants to its identities.
    // A kind counts when it lives in a group (`parentUid`) and a declared field names it (`name`; a subscription's
    // sink): bindings are matched below, invites have no name, tags and overlay bindings live under repos.
    const nameField = (type: string) => kindEntry(kindOfType(type) ?? "")?.labelField ?? "name";
    const declared = new Set(mine.filter((r) => r.inputs?.["parentUid"] === root).map((r) => `${kindOfType(r.type)}:${String(r.inputs?.[nameField(r.type)])}`));
    for (const [k, scan] of scans) {
      if (k.parentKey !== "parentUid" || k.labelField === undefined) continue;
      for (const o of (await scan(root)).filter((x) => x.parentUid === root)) if (declared.has(`${o.kind}:${o.name}`)) add(o);
    }
    for (const row of await client.roleBindings.listRows({ childrenOf: root, pageSize: 200 }).collect()) {
      if (row.problem !== undefined) {
        addBad(root)({ kind: "RoleBinding", ...(row.uid !== undefined ? { uid: row.uid } : {}), problem: row.problem });
        continue;
      }
      const b = row.value;
      if (b.identityUid && identities.has(b.identityUid)) {
        const wrong = uidProblem(b.uid);
        if (wrong !== undefined) {
          addBad(root)({ kind: "RoleBinding", uid: b.uid, problem: wrong });
          continue;
        }
        add({ kind: "RoleBinding", uid: b.uid, name: `${b.identity?.name ?? b.identityUid} → ${b.role?.name ?? b.roleUid}`, parentUid: root, adopt: propertyLine(lang, "adoptUid", b.uid) });
      }
    }
  }
  const rows = [...found.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.uid.localeCompare(b.uid));
  await placeInOrg(rows, state.deployment.resources ?? [], client, root);
  return rows;
}

/** The org file's section of each kind it holds (README, "Declarative org setup"). */
const ORG_FILE_SECTIONS: Record<string, string> = { Group: "groups", Identity: "identities", Role: "roles", RoleBinding: "bindings", Repo: "repos", Subscription: "subscriptions" };

/**
 * Gives each row its group's path (names from the root: what the `under` column shows), and, when that group is
 * one an `Org` component of the stack declares, the org file's way to adopt it (`uid:` on the entry at that path)
 * instead of the TypeScript `adoptUid` line. Names come from the state and the rows; a group named by neither is
 * read (one GET each, cached).
 */
async function placeInOrg(rows: UnmanagedObject[], resources: ReadonlyArray<{ urn: string; type: string; id?: string; parent?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }>, client: PlatformClient, root: string | undefined): Promise<void> {
  const names = new Map<string, string>();
  // A parent is a group, or for a tag or overlay binding a repo: names of both from the state and the rows.
  for (const r of resources) if (kindOfType(r.type) !== undefined && r.id && typeof r.outputs?.["name"] === "string") names.set(r.id, r.outputs["name"] as string);
  for (const o of rows) if (o.kind === "Group" || o.kind === "Repo") names.set(o.uid, o.name);
  // Groups an Org declares: their path in its file is their resource name without `<component name>/`.
  const orgs = new Map(resources.filter((r) => r.type === "platform:index:Org").map((r) => [r.urn, r.urn.slice(r.urn.lastIndexOf("::") + 2)]));
  const filePath = new Map<string, string>();
  const orgParents = new Set<string>();
  for (const r of resources) {
    const org = r.parent ? orgs.get(r.parent) : undefined;
    if (org === undefined || !isKindType(r.type, "Group") || !r.id) continue;
    const p = r.urn.slice(r.urn.lastIndexOf("::") + 2).slice(org.length + 1);
    filePath.set(r.id, p);
    if (!p.includes("/") && typeof r.inputs?.["parentUid"] === "string") orgParents.add(r.inputs["parentUid"] as string);
  }
  const nameOf = async (uid: string): Promise<string> => {
    if (!names.has(uid)) {
      try {
        names.set(uid, (await client.groups.get(uid)).name);
      } catch {
        // Not a group (a repo the stack does not hold), or unreadable: its id segment stands for its name.
        names.set(uid, uid.slice(uid.lastIndexOf("/") + 1));
      }
    }
    return names.get(uid)!;
  };
  const pathOf = async (uid: string): Promise<string> => {
    const top = root && (uid === root || uid.startsWith(`${root}/`)) ? root : uid.slice(0, 40);
    if (uid === top) return "/";
    const segs = uid.slice(top.length + 1).split("/");
    const out: string[] = [];
    for (let i = 1; i <= segs.length; i++) out.push(await nameOf(`${top}/${segs.slice(0, i).join("/")}`));
    return out.join("/");
  };
  for (const o of rows) {
    o.parentPath = await pathOf(o.parentUid);
    const section = ORG_FILE_SECTIONS[o.kind];
    const at = filePath.get(o.parentUid);
    if (o.problem !== undefined || section === undefined || (at === undefined && !(o.kind === "Group" && orgParents.has(o.parentUid)))) continue;
    const uid = `uid: ${tsString(o.uid)}`;
    o.adopt =
      o.kind === "Group" ? `org file: ${uid} on the group ${tsString(at === undefined ? o.name : `${at}/${o.name}`)}`
      : o.kind === "RoleBinding" ? `org file: ${uid} on the binding at group ${tsString(at!)} (${o.name})`
      : o.kind === "Subscription" ? `org file: ${uid} on the subscription of group ${tsString(at!)} to ${o.name}`
      : `org file: ${uid} on ${section} ${tsString(o.name)} of group ${tsString(at!)}`;
  }
}

/** Options of {@link unmanaged}. */
export interface UnmanagedOptions extends StackRef {
  /**
   * How to print: `table` (default), `json` (one object, {@link UnmanagedReport}) or `markdown` (a heading and
   * Markdown tables, for a pull request or a CI summary, within {@link UnmanagedOptions.maxChars}).
   */
  format?: "table" | "json" | "markdown";
  /** The most characters of Markdown: rows past it are counted in a closing line naming the JSON report. @default 60000 */
  maxChars?: number | undefined;
  /** Also write the JSON report ({@link UnmanagedReport}) to this file (`--json-out`). */
  jsonFile?: string | undefined;
  /** Print JSON: the same as `format: "json"` (kept for callers of this function; the CLI's `--json` is deprecated). */
  json?: boolean;
  /** Fully qualified stacks of other projects (`<org>/<project>/<stack>`) whose objects count as managed too. */
  with?: readonly string[];
  /** Where output goes; default stdout. */
  out?: (s: string) => void;
}

/** A row the server sent for a listed object that could not be read, as `unmanaged --format json` gives it. */
export interface UnreadableRow {
  /** The kind whose listing sent it (`Identity`, …). */
  kind: string;
  /** The row's uid when it had one (printable, as the server sent it), else null. */
  uid: string | null;
  /** The group (or repo) whose listing sent it. */
  parentUid: string;
  /** That group's path of names from the org's root, as {@link UnmanagedObject.parentPath}. */
  parentPath?: string;
  /** What is wrong with it, as the client found it (inert text). */
  problem: string;
}

/**
 * The `unmanaged` report: exactly the object `--format json` prints (and `--json-out` writes; README, "Objects no
 * stack manages"). When the command cannot run, `--format json` prints `{ "stack", "error" }` instead
 * (./failure.ts).
 */
export interface UnmanagedReport {
  stack: string;
  /** The objects no stack references, each with the line that adopts it ({@link UnmanagedObject}, no `problem`). */
  unmanaged: UnmanagedObject[];
  /** The rows the server sent that could not be read; the rest are listed in `unmanaged` all the same. */
  unreadable: UnreadableRow[];
}

/** The report of {@link findUnmanaged}'s rows: the readable ones as they are, the others as {@link UnreadableRow}s. */
export function unmanagedReport(stack: string, rows: readonly UnmanagedObject[]): UnmanagedReport {
  return {
    stack,
    unmanaged: rows.filter((r) => r.problem === undefined),
    unreadable: rows
      .filter((r) => r.problem !== undefined)
      .map((r) => ({ kind: r.kind, uid: r.uid === "" ? null : r.uid, parentUid: r.parentUid, ...(r.parentPath !== undefined ? { parentPath: r.parentPath } : {}), problem: r.problem! })),
  };
}

/**
 * Prints the unmanaged objects of a stack (and writes the JSON report to `opts.jsonFile` when given).
 * @returns the exit code: 1 when any were found (or rows could not be read), 0 when none.
 * @throws as {@link findUnmanaged}.
 */
export async function unmanaged(opts: UnmanagedOptions): Promise<number> {
  const out = opts.out ?? ((s: string) => void process.stdout.write(s));
  const config = await stackConfig(opts);
  const client = clientFor(config);
  try {
    const rows = await findUnmanaged(opts, client, orgUidOf(config), opts.with);
    const report = unmanagedReport(opts.stack, rows);
    const bad = rows.filter((r) => r.problem !== undefined);
    const good = report.unmanaged;
    const format = opts.json ? "json" : (opts.format ?? "table");
    if (opts.jsonFile !== undefined) writeFileSync(opts.jsonFile, `${jsonText(report)}\n`);
    if (format === "json") out(`${jsonText(report)}\n`);
    else if (format === "markdown") out(unmanagedMarkdown(opts.stack, good, bad, opts));
    else if (rows.length === 0) out(`stack ${opts.stack}: no unmanaged objects under its groups or root\n`);
    else {
      if (good.length) out(`${table(["kind", "uid", "name", "under", "to manage it"], good.map((r) => [r.kind, r.uid, r.name, r.parentPath ?? r.parentUid, r.adopt]))}\n`);
      if (good.length) out(`\n${good.length} object(s) no stack references.\n`);
      if (bad.length) {
        out(`${good.length ? "\n" : ""}${bad.length} row(s) the server sent that could not be read (the rest are listed above):\n`);
        out(`${table(["kind", "uid", "under", "problem"], bad.map((r) => [r.kind, r.uid || "(none)", r.parentPath ?? r.parentUid, r.problem ?? ""]))}\n`);
      }
    }
    return rows.length > 0 ? 1 : 0;
  } finally {
    await client.close();
  }
}

/**
 * The Markdown form: a heading naming the stack, the objects as a table, the unreadable rows as another, within
 * `opts.maxChars` (./report.ts {@link BoundedMarkdown}: rows past it counted in a closing line naming the JSON report).
 */
export function unmanagedMarkdown(stack: string, good: readonly UnmanagedObject[], bad: readonly UnmanagedObject[], opts: OutputArgs = {}): string {
  const md = new BoundedMarkdown(opts.maxChars);
  md.lines(`### platform-pulumi unmanaged on stack ${mdCode(stack)}`, "");
  if (good.length === 0 && bad.length === 0) md.lines("No unmanaged objects under its groups or root.", "");
  if (good.length) {
    md.lines(`${good.length} object(s) no stack references:`, "");
    md.table(["kind", "uid", "name", "under", "to manage it"], good.map((r) => [r.kind, r.uid, r.name, r.parentPath ?? r.parentUid, r.adopt]));
  }
  if (bad.length) {
    md.lines(`${bad.length} row(s) the server sent that could not be read:`, "");
    md.table(["kind", "uid", "under", "problem"], bad.map((r) => [r.kind, r.uid || "(none)", r.parentPath ?? r.parentUid, r.problem ?? ""]));
  }
  return md.text(opts.jsonFile);
}

/** The `unmanaged` subcommand's usage. */
export const UNMANAGED_USAGE = `usage: platform-pulumi unmanaged --stack <name> [--cwd <dir>] [--format table|json|markdown] [--with <stack>]...
                               [--json-out <file>] [--max-chars <n>] [--timeout <d>]
  Lists objects under the stack's groups (and its declared names under its root) that no stack of the project
  references, with the line that adopts each.
  --stack <name>          the stack (required; or PULUMI_STACK)
  --cwd <dir>             the Pulumi project's folder (default: the current one)
${formatUsage(["table", "json", "markdown"])}
  --json                  deprecated: the same as --format json (says so on stderr)
  --with <stack>          a stack of another project, <org>/<project>/<stack>, whose objects count as managed too
                          (the other projects of a split export); repeat it for each
${OUTPUT_USAGE}
${TIMEOUT_USAGE}
  A row the server sends that cannot be read is reported with what is wrong, and the rest are listed. The JSON:
  { "stack", "unmanaged": [{ "kind", "uid", "name", "parentUid", "parentPath", "adopt" }],
    "unreadable": [{ "kind", "uid" (null when the row had none), "parentUid", "parentPath", "problem" }] }`;

/**
 * `platform-pulumi unmanaged …`: parses `argv` (the arguments after `unmanaged`) and runs {@link unmanaged}.
 * @returns the exit code: 0 none found, 1 objects found, 2 for a usage error or when the command could not run.
 */
export function unmanagedCommand(argv: readonly string[]): Promise<number> {
  const frame = {
    name: "unmanaged",
    usage: UNMANAGED_USAGE,
    found: "objects no stack references, or rows the server sent that could not be read",
    formats: ["table", "json", "markdown"],
    options: { with: { type: "string", multiple: true }, ...OUTPUT_OPTIONS },
    deprecated: { json: { instead: ["--format", "json"] } },
    check: (values) => {
      outputArgs(values);
      withStacksOf(values);
    },
  } satisfies Omit<CommandFrame, "stack">;
  return runStackFrame(frame, argv, ({ ref, format, values }) => unmanaged({ ...ref, ...outputArgs(values), format: format as "table" | "json" | "markdown", with: (values["with"] as string[] | undefined) ?? [] }));
}

/** A fully qualified stack name: `<org>/<project>/<stack>` (`--with` of `unmanaged` and `drift --unmanaged`). */
export const WITH_STACK = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;

/**
 * The `--with` values of `values` (`unmanaged`, `drift --unmanaged`, `access`, `gate`), each a {@link WITH_STACK}.
 * @throws Error naming the first value that is not `<org>/<project>/<stack>` and what is allowed.
 */
export function withStacksOf(values: Record<string, unknown>): string[] {
  const withs = (values["with"] as string[] | undefined) ?? [];
  const bad = withs.find((w) => !WITH_STACK.test(w));
  if (bad !== undefined) throw new Error(`--with ${JSON.stringify(bad)} is not allowed: a fully qualified stack, <org>/<project>/<stack> (letters, digits, _, . and -)`);
  return withs;
}
