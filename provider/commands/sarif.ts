/**
 * `--format sarif` of `gate`, `access` and `drift`: one SARIF 2.1.0 log (OASIS "Static Analysis Results
 * Interchange Format" 2.1.0), the format GitHub code scanning reads (README "SARIF for code scanning").
 *
 * One run; its tool is `platform-pulumi` (version from package.json) with one rule per policy (gate), per way an
 * access is held (access: a direct binding, or an escalation named by its first step's kind, provider/access/model.ts
 * `EscalationKind`) and per drift kind (drift). Each result has a `level` from the finding's severity
 * ({@link levelOf}), its severity and status in `properties`, and a `partialFingerprints` entry that depends only on
 * what the finding is about (policy, resource, identity, capability, group), so code scanning follows one finding
 * across runs.
 *
 * Where a finding is: the program file and line that declares the resource, as the engine recorded it — the Node.js
 * SDK sends each registration's call stack, and the engine keeps it as `sourcePosition` and `stackTrace` in the
 * state (`pulumi stack export`) and in the plan of `pulumi preview --json` (`project:///<path>#<line>,<column>`,
 * relative to the Pulumi project folder). The first frame outside `node_modules` and outside this package is the
 * user's line. A resource declared by `Org` is placed at its object's line in the org file (the `Org` component's
 * recorded `source.file`, read from disk, else the text the stack recorded). When neither tells, the result has
 * only a logical location: the resource's URN (or, for an unmanaged object, its uid).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type YAMLMap } from "yaml";
import { dottedName } from "../capabilities";
import { CLASS_ROWS_FROM, ESCALATION_KINDS, OrgIndex, effectiveAccess, type EscalationKind, type Grant } from "../access/model";
import { compactRows, identityLabel, moreRoutesWords, type CompactRow, type ReportChange, type ReportGrant } from "../access/report";
import type { SilencedFinding } from "../access/exclusions";
import { orgFromStack, type StackContext, type StackObject } from "../access/stack";
import { exportStack, runPulumi, type StackRef } from "./stack";
import { INFORMATION_URI, LogBuilder, PACKAGE_ROOT, SRCROOT, fingerprint, levelOf, type SarifLocation, type SarifLog, type SarifRule } from "./sarifLog";
import { kindOfType } from "../typeTokens";

export { INFORMATION_URI, LEFT_OUT_KEY, MAX_SARIF_BYTES, MAX_SARIF_RESULTS, SARIF_SCHEMA, SILENCED_KEY, SRCROOT, couldNotRunSarif, levelOf, type LeftOut, type SarifLevel, type SarifLocation, type SarifLog, type SarifResult, type SarifRule, type SilencedProperty } from "./sarifLog";

/** The `Org` component's type token (provider/org `ORG_TYPE`; not imported: the CLI does not load the SDK). */
const ORG_TYPE = "platform:index:Org";

/** A resource as the engine recorded it: a state resource or a plan step's `newState` (fields this module reads). */
export interface SourceRecord {
  urn: string;
  type: string;
  parent?: string | undefined;
  inputs?: Record<string, unknown> | undefined;
  /** `project:///<path relative to the project folder>#<line>,<column>`. */
  sourcePosition?: string | undefined;
  /** The registration's call stack, innermost frame first (a frame without a position is `{}`). */
  stackTrace?: Array<{ sourcePosition?: string }> | undefined;
}

/** The records of a `pulumi preview --json` plan: each step's `newState`, its URN from the step. */
export function recordsOfPlan(plan: { steps?: Array<{ urn: string; newState?: Record<string, unknown> }> }): SourceRecord[] {
  return (plan.steps ?? []).flatMap((s) => (s.newState && typeof s.newState["type"] === "string" ? [{ ...(s.newState as unknown as SourceRecord), urn: s.urn }] : []));
}

/** A file and line (1-based), absolute path. */
interface Position {
  file: string;
  line: number;
  column?: number | undefined;
}

/** The repository folder above `dir` (the nearest with `.git`), else `dir`. */
function repoRootOf(dir: string): string {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, ".git"))) return d;
    if (path.dirname(d) === d) return path.resolve(dir);
  }
}

/** `project:///a/b.ts#12,5` → the absolute file, line and column (the path is relative to `projectDir`). */
export function parseSourcePosition(pos: string, projectDir: string): Position | undefined {
  const m = /^project:\/\/\/(.*)#(\d+)(?:,(\d+))?$/.exec(pos);
  if (!m) return undefined;
  let rel: string;
  try {
    rel = decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
  return { file: path.resolve(projectDir, rel), line: Number(m[2]), ...(m[3] ? { column: Number(m[3]) } : {}) };
}

/** Whether a frame's file is the user's: not under `node_modules`, not this package's own code. */
function userFile(file: string): boolean {
  if (file.split(path.sep).includes("node_modules")) return false;
  return !["provider", "dist", "emulator", "cli", "policies"].some((d) => file.startsWith(path.join(PACKAGE_ROOT, d) + path.sep));
}

/** The line of each object of an org file, keyed `<Kind>:<path>` as `Org` names its children (see {@link orgKey}). */
export function orgFileLines(text: string): Map<string, number> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const out = new Map<string, number>();
  const root = doc.contents;
  if (!isMap(root)) return out;
  const str = (m: YAMLMap, k: string): string | undefined => {
    const v = m.get(k, true);
    return isScalar(v) && v.value !== null && v.value !== undefined ? String(v.value) : undefined;
  };
  const put = (key: string, m: YAMLMap) => {
    if (m.range && !out.has(key)) out.set(key, lc.linePos(m.range[0]).line);
  };
  const items = (k: string): YAMLMap[] => {
    const s = root.get(k, true);
    return isSeq(s) ? s.items.filter(isMap) : [];
  };
  const walk = (seq: unknown, parent: string | undefined) => {
    if (!isSeq(seq)) return;
    for (const g of seq.items) {
      if (!isMap(g)) continue;
      const name = str(g, "name");
      if (name === undefined) continue;
      const p = parent === undefined ? name : `${parent}/${name}`;
      put(`Group:${p}`, g);
      walk(g.get("groups", true), p);
    }
  };
  walk(root.get("groups", true), undefined);
  for (const [list, kind] of [["identities", "Identity"], ["roles", "Role"], ["repos", "Repo"]] as const) {
    for (const m of items(list)) put(`${kind}:${str(m, "group")}/${str(m, "name")}`, m);
  }
  for (const m of items("bindings")) put(`RoleBinding:${str(m, "identity")}@${str(m, "group")}#${str(m, "role")}`, m);
  for (const m of items("subscriptions")) put(`Subscription:${str(m, "group")}->${str(m, "sink")}`, m);
  return out;
}

/** The key {@link orgFileLines} gives the object an `Org` child resource declares: its kind and its name after `<org>/`. */
export function orgKey(type: string, name: string, orgName: string): string | undefined {
  const last = type.split("$").pop()!;
  const kind = kindOfType(last);
  if (kind === undefined || !name.startsWith(`${orgName}/`)) return undefined;
  return `${kind}:${name.slice(orgName.length + 1)}`;
}

/**
 * Places resources in source: the program line the engine recorded, the org file's line for an `Org`'s child, or
 * the URN alone. Relative URIs are relative to the repository above the project folder ({@link SRCROOT}); a file
 * outside it gets an absolute `file://` URI.
 */
export class SourceLocator {
  private readonly byUrn = new Map<string, SourceRecord>();
  private readonly orgLines = new Map<string, { file: string; lines: Map<string, number> } | null>();
  /** The repository folder (the nearest above the project folder with `.git`), the base of relative URIs. */
  readonly root: string;
  /** The Pulumi project folder, absolute. */
  readonly projectDir: string;

  /**
   * @param projectDir the Pulumi project folder (`--cwd`), which the engine's `project:///` paths are relative to.
   * @param records the stack's resources (state) and, later ones winning, the plan's.
   */
  constructor(
    projectDir: string,
    records: Iterable<SourceRecord>,
  ) {
    this.projectDir = path.resolve(projectDir);
    this.root = repoRootOf(projectDir);
    this.add(records);
  }

  /** Adds records (a plan's, after the state's): a URN seen again takes the later record. */
  add(records: Iterable<SourceRecord>): void {
    for (const r of records) if (r && typeof r.urn === "string") this.byUrn.set(r.urn, r);
  }

  /** `originalUriBaseIds` of the run: {@link SRCROOT} as the repository's `file://` URI. */
  baseIds(): Record<string, { uri: string }> {
    return { [SRCROOT]: { uri: pathToFileURL(this.root + path.sep).href } };
  }

  /** The SARIF location of the resource `urn` (physical when known, always its URN as a logical location). */
  locate(urn: string, kind = "resource"): SarifLocation {
    const pos = this.position(urn);
    const logical = { logicalLocations: [{ fullyQualifiedName: urn, name: urn.slice(urn.lastIndexOf("::") + 2), kind }] };
    return pos ? { physicalLocation: this.physical(pos), ...logical } : { ...this.projectFile(), ...logical };
  }

  /**
   * Where a finding goes when nothing tells its line: the project's `Pulumi.yaml`, line 1 (GitHub code scanning
   * shows a result only at a file), beside its logical location; nothing when there is no such file.
   */
  projectFile(): Pick<SarifLocation, "physicalLocation"> {
    for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
      const file = path.join(this.projectDir, name);
      if (existsSync(file)) return { physicalLocation: this.physical({ file, line: 1 }) };
    }
    return {};
  }

  private physical(pos: Position): NonNullable<SarifLocation["physicalLocation"]> {
    const rel = path.relative(this.root, pos.file);
    const inside = rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
    const artifactLocation = inside ? { uri: rel.split(path.sep).map(encodeURIComponent).join("/"), uriBaseId: SRCROOT } : { uri: pathToFileURL(pos.file).href };
    return { artifactLocation, region: { startLine: pos.line, ...(pos.column ? { startColumn: pos.column } : {}) } };
  }

  private position(urn: string): Position | undefined {
    const r = this.byUrn.get(urn);
    if (!r) return undefined;
    const org = this.orgOf(r);
    if (org) {
      const inFile = this.inOrgFile(org, r);
      if (inFile) return inFile;
      return this.programLine(org); // an Org given as a spec: the Org's own declaration
    }
    return this.programLine(r);
  }

  /** The `Org` component `r` is a child of, if any. */
  private orgOf(r: SourceRecord): SourceRecord | undefined {
    const p = r.parent ? this.byUrn.get(r.parent) : undefined;
    return p && p.type === ORG_TYPE ? p : undefined;
  }

  /** The first frame of `r`'s recorded call stack in the user's code, else its `sourcePosition` when that is. */
  private programLine(r: SourceRecord): Position | undefined {
    const frames = [...(Array.isArray(r.stackTrace) ? r.stackTrace : []).map((f) => f?.sourcePosition), r.sourcePosition];
    for (const f of frames) {
      const pos = f ? parseSourcePosition(f, this.projectDir) : undefined;
      if (pos && userFile(pos.file)) return pos;
    }
    return undefined;
  }

  /** The org file line of `r`, a child of `org`. */
  private inOrgFile(org: SourceRecord, r: SourceRecord): Position | undefined {
    let file = this.orgLines.get(org.urn);
    if (file === undefined) {
      file = null;
      const source = org.inputs?.["source"] as { file?: unknown; text?: unknown } | undefined;
      if (source && typeof source.file === "string") {
        const abs = path.resolve(this.projectDir, source.file);
        let text: string | undefined;
        try {
          text = statSync(abs).isFile() ? readFileSync(abs, "utf8") : undefined;
        } catch {
          text = undefined;
        }
        text ??= typeof source.text === "string" ? source.text : undefined;
        if (text !== undefined) file = { file: abs, lines: orgFileLines(text) };
      }
      this.orgLines.set(org.urn, file);
    }
    if (!file) return undefined;
    const orgName = org.urn.slice(org.urn.lastIndexOf("::") + 2);
    const key = orgKey(r.type, r.urn.slice(r.urn.lastIndexOf("::") + 2), orgName);
    const line = key === undefined ? undefined : file.lines.get(key);
    return line === undefined ? undefined : { file: file.file, line };
  }
}

/**
 * A {@link SourceLocator} for the stack `ref`: its state (`pulumi stack export`); with `plan`, when one of `urns` is
 * not in the state (a resource the change creates), also the plan of one `pulumi preview --json` (it writes
 * nothing), whose steps carry the same source positions. A failed export or preview leaves those URNs unplaced.
 */
export async function locatorFor(ref: StackRef, urns: readonly string[], plan = true): Promise<SourceLocator> {
  let records: SourceRecord[] = [];
  try {
    records = ((await exportStack(ref)).deployment.resources ?? []) as unknown as SourceRecord[];
  } catch {
    // no state: every resource comes from the plan, or stays unplaced
  }
  const locator = new SourceLocator(ref.cwd, records);
  const known = new Set(records.map((r) => r.urn));
  if (plan && urns.some((u) => u !== "" && !known.has(u))) {
    try {
      const r = await runPulumi(ref, ["preview", "--json"]);
      locator.add(recordsOfPlan(JSON.parse(r.stdout) as { steps?: Array<{ urn: string; newState?: Record<string, unknown> }> }));
    } catch {
      // the preview could not run: those findings keep their URN alone
    }
  }
  return locator;
}


/** What each way of holding access means, for the access rules' help. */
const ACCESS_HELP: Record<"binding" | EscalationKind, string> = {
  binding: "The identity holds the capability through a role binding of its own at the group or above it.",
  assume: "The identity can take over another identity (identity.update: point its claimMatch at tokens it can present) and hold what that identity holds.",
  bind: "The identity can create a role binding (role_bindings.create) granting itself a role at the group.",
  rebind: "The identity can change an existing role binding (role_bindings.update) to a role of its choice.",
  editRole: "The identity can add capabilities to a custom role it is bound to (roles.update).",
  invite: "The identity can create a group invite (group_invites.create) carrying a role, and accept it.",
  identityProvider: "The identity can create or update an identity provider (identity_providers.*) whose default role it then gets.",
  createRole: "The identity can create a custom role (roles.create) with the capability, then bind it.",
  present: "The identity's own tokens match another identity's claimMatch, so it can exchange them for that identity's token.",
};

/** The rule of an access finding: `access/binding`, or `access/escalation/<kind>` by the route's first step. */
function accessRule(kind: "binding" | EscalationKind): SarifRule {
  const id = kind === "binding" ? "access/binding" : `access/escalation/${kind}`;
  const short = kind === "binding" ? "Access held through a direct role binding" : `Access held by escalation, first step: ${kind}`;
  return { id, name: id, shortDescription: { text: short }, help: { text: `${ACCESS_HELP[kind]} Severity: critical (owner-equivalent or an IAM write that grants access), high (other writes and deletes), low (reads) (README "Severity").` }, helpUri: INFORMATION_URI };
}

/** What {@link accessSarif} reads. */
export interface AccessSarifInput {
  stack: string;
  /** `--current`: `rows` are held grants; else changes, and only the gained ones are results. */
  current: boolean;
  rows: ReadonlyArray<ReportGrant | ReportChange>;
  /** The objects the rows were computed from (the state with `--current`, else the plan's), and how to read them. */
  objects: readonly StackObject[];
  ctx: StackContext;
  locator?: SourceLocator | undefined;
  /** The findings exclusions silenced (`--config`), listed in `run.properties`; undefined without `--config`. */
  silenced?: readonly SilencedFinding[] | undefined;
  /** The `--json-out` file, named where results are left out. */
  jsonFile?: string | undefined;
}

/**
 * The fingerprint of an access finding as the reports group it (../access/report.ts `compactRows`): the identity's
 * path, the group and the route (a binding's role and where it is bound, or an escalation's steps), not the
 * capabilities, so one alert follows an identity's route at a scope while what the route gives changes.
 */
export function accessFingerprint(row: CompactRow): Record<string, string> {
  return fingerprint("access", row.identity.members ? `class ${row.identity.path}` : row.identity.path, row.group, row.direct ? "binding" : "escalation", ...row.how);
}

/**
 * The result message of an access finding: who, holds or gains, what (the role-words of the Markdown report,
 * `CompactRow.gives`), where, and how (`through a binding: editor bound at /platform`, or the escalation's steps).
 */
export function accessMessage(row: CompactRow, verb: "holds" | "gains"): string {
  const who = identityLabel(row.identity);
  const how = row.direct ? `through a binding: ${row.how[0] ?? ""}` : `by escalation: ${row.how.map((h, i) => `${i + 1}. ${h}`).join("; ")}`;
  return `${who} ${verb} ${row.gives} at ${row.group}, ${how}${row.moreRoutes ? ` (${moreRoutesWords(row.moreRoutes)})` : ""}`;
}

/**
 * The access report as SARIF: one result per identity, scope and route, exactly as the Markdown groups its rows
 * (../access/report.ts `compactRows`) — for a change, of the gains only (a loss is no finding). Its message names
 * the identity, what the route gives there (role-words), the group and the route ({@link accessMessage}); its
 * `properties` list the capabilities and the highest severity among them, which gives its level ({@link levelOf});
 * its fingerprint is the identity, scope and route ({@link accessFingerprint}). Its rule is how the route holds
 * access (a direct binding, else the escalation's first step kind). A binding's result is located at the
 * RoleBinding resource that grants it; an escalation's at the identity's own declaration (the Identity resource).
 * The log is capped and lists silenced findings as ./sarifLog.ts `LogBuilder.log` says.
 */
export function accessSarif(input: AccessSarifInput): SarifLog {
  const b = new LogBuilder("access", input.stack, input.locator);
  b.silenced(input.silenced);
  b.fullReportAt(input.jsonFile);
  const so = orgFromStack(input.objects, input.ctx);
  const ix = new OrgIndex(so.org);
  const raw = new Map<string, Grant>();
  for (const g of effectiveAccess(so.org, { escalations: ESCALATION_KINDS, classRowsFrom: CLASS_ROWS_FROM })) raw.set(`${g.members ? "class " : ""}${ix.identityPath(g.identityId)}\u0000${dottedName(g.capability)}\u0000${ix.groupPath(g.groupId)}`, g);
  const urnOfUid = new Map(input.objects.map((o) => [typeof o.props["uid"] === "string" && o.props["uid"] !== "" ? (o.props["uid"] as string) : o.urn, o.urn]));
  const same = (a: readonly string[], c: readonly string[]) => a.length === c.length && a.every((x, i) => x === c[i]);
  const findings = input.rows.filter((r) => !("change" in r) || r.change === "gained");
  for (const row of compactRows(findings)) {
    // The model's route this row shows: by its first capability, the route whose words are the row's.
    const g = raw.get(`${row.identity.members ? "class " : ""}${row.identity.path}\u0000${row.capabilities[0]}\u0000${row.group}`);
    const via = g?.via.find((v) => (v.kind === "binding" ? row.direct && row.how[0] === `${v.role} bound at ${ix.groupPath(v.boundAt)}` : !row.direct && same(v.route ?? v.steps, row.how)));
    const kind: "binding" | EscalationKind = row.direct ? "binding" : (via?.path[0]?.kind ?? "bind");
    let urn: string | undefined;
    if (g && via?.kind === "binding") urn = so.org.bindings.find((x) => x.identityId === g.identityId && x.roleId === via.roleId && x.groupId === via.boundAt)?.label;
    if (g && urn === undefined) urn = urnOfUid.get(g.identityId);
    const loc: SarifLocation = urn && input.locator ? input.locator.locate(urn) : { logicalLocations: [{ fullyQualifiedName: urn ?? row.identity.path, kind: "resource" }] };
    b.result(accessRule(kind), {
      level: levelOf(row.severity),
      message: { text: accessMessage(row, input.current ? "holds" : "gains") },
      locations: [loc],
      partialFingerprints: accessFingerprint(row),
      ...(input.current ? {} : { baselineState: "new" as const }),
      properties: {
        severity: row.severity,
        status: input.current ? "held" : "gained",
        identity: row.identity.path,
        group: row.group,
        gives: row.gives,
        capabilities: row.capabilities,
        route: row.how,
        ...(via && via.kind === "escalation" ? { steps: via.path.map((s) => s.kind) } : {}),
        ...(row.moreRoutes ? { moreRoutes: row.moreRoutes } : {}),
      },
    });
  }
  return b.log();
}
