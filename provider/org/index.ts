/**
 * The org as data: {@link Org}, a component that declares a whole org from its YAML file (or the same content as
 * an object), checked completely before any resource is declared (README, "Declarative org setup").
 */
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { markReported } from "../client/reported";
import type { PlatformClient } from "../client/client";
import { programClientFromConfig } from "../lookups/core";
import { getRoles } from "../kinds/role/lookups";
import { Group } from "../kinds/group";
import { Identity, type ClaimMatchArgs } from "../kinds/identity";
import { Repo, type SyncConfigArgs } from "../kinds/repo";
import { Role } from "../kinds/role";
import { RoleBinding } from "../kinds/roleBinding";
import { Subscription } from "../kinds/subscription";
import { orgUid } from "../orgUid";
import { builtinRoleNames, checkOrgSpec, orgFileData, parseOrgFile, type OrgLayout, type OrgOutsidePaths, type OrgSpec } from "./file";

export { OrgFileError, parseOrgFile, checkOrgSpec, type OrgOutsidePaths, type OrgSpec, type OrgGroup, type OrgIdentity, type OrgRole, type OrgBinding, type OrgRepo, type OrgSubscription, type OrgLayout, type FlatGroup } from "./file";

/** The component's type token. */
export const ORG_TYPE = "platform:index:Org";

/**
 * Objects the org refers to that another stack declares (README, "`Org` in a split layout"), each by its path in
 * the org file with its uid: typically read from that stack's outputs through a `pulumi.StackReference`.
 */
export interface OrgOutside {
  /**
   * Every group the file marks `outside: true`, by path (`engineering`, `engineering/platform`): what the file
   * places under it is declared under this uid. Exactly the file's outside groups, no more, no fewer.
   */
  groups?: Record<string, pulumi.Input<string>>;
  /** Identities bindings of the file may name, by path (`<group path>/<identity name>`). */
  identities?: Record<string, pulumi.Input<string>>;
  /**
   * Custom roles bindings of the file may name, by path (`<group path>/<role name>`); like the file's own roles,
   * visible at their group and below, the nearest one above a binding's group taken first.
   */
  roles?: Record<string, pulumi.Input<string>>;
}

/** Arguments of {@link Org}: the root group, and the org as a file or as data (exactly one of `file` and `spec`). */
export interface OrgArgs {
  /**
   * The uid of the group the org's top-level groups are created under (usually the org's root group). Default: the
   * file's own `parentUid` (which `platform-pulumi export --format yaml` records), else {@link orgUid}
   * (`platform:orgUid`, then `PLATFORM_ORG_UID`). When the file records one, a different value here is refused.
   * Unused when every top-level group of the file is `outside` (declared in another stack, its uid in `outside.groups`).
   */
  parentUid?: pulumi.Input<string>;
  /**
   * The org file (YAML; format in the README's "Declarative org setup"), read when the program runs; a relative
   * path is taken from the Pulumi project's folder (where Pulumi.yaml is). Problems are reported with
   * `file:line:col`, the file named as given.
   */
  file?: string;
  /** The org as an object already parsed, instead of `file`; problems are reported with their path. */
  spec?: OrgSpec;
  /**
   * The client used to look up the built-in roles the bindings name (one List of roles, only when a binding
   * names a role the org does not define). Default: the program's client (`platform:*` config, then `PLATFORM_*`).
   */
  client?: PlatformClient;
  /** Groups, identities and custom roles another stack declares that the file refers to, with their uids. */
  outside?: OrgOutside;
}

/** How many objects of each kind the org declares. */
export interface OrgCounts {
  groups: number;
  identities: number;
  roles: number;
  bindings: number;
  repos: number;
  subscriptions: number;
}

/** What {@link Org}'s initialization produces (its outputs, before they are resolved). */
interface OrgData {
  groupUids: Record<string, pulumi.Output<string>>;
  identityUids: Record<string, pulumi.Output<string>>;
  roleUids: Record<string, pulumi.Output<string>>;
  repoUids: Record<string, pulumi.Output<string>>;
  counts: OrgCounts;
}

/**
 * A whole org, declared from its description: groups in a hierarchy, workload identities, custom roles, role
 * bindings, image repos and event subscriptions, as children of this component (each child's Pulumi name is
 * `<component name>/<path>`, e.g. `org/engineering/platform`).
 *
 * The whole file (or spec) is checked before any resource is declared: YAML syntax, unknown or missing fields,
 * names, duplicate or unknown group and identity paths, capabilities, and the bindings' roles (a custom role of
 * the org defined at the binding's group or above, else a built-in role, looked up with `getRoles`). Every problem
 * is reported at once, as an {@link OrgFileError} with `file:line:col` for each, thrown by the constructor; the
 * built-in role names, which need the API, are checked once the rest is valid, still before any child is declared.
 * Either way the update fails and nothing is created. An object with a `uid` is adopted (`adoptUid`), so a file written by
 * `platform-pulumi export --format yaml` adopts the org it describes and changes nothing.
 *
 * @example
 * const org = new Org("org", { file: "org.yaml" }); // under the file's parentUid, else platform:orgUid
 * export const groupUids = org.groupUids;
 */
export class Org extends pulumi.ComponentResource<OrgData> {
  /** The uid of each group the org declares (not its `outside` groups), by its path (`engineering/platform`). */
  readonly groupUids: pulumi.Output<Record<string, string>>;
  /** The uid of each identity, by its path (`engineering/platform/ci-cd/ci-bot`). */
  readonly identityUids: pulumi.Output<Record<string, string>>;
  /** The uid of each custom role, by its path (`engineering/releaser`). */
  readonly roleUids: pulumi.Output<Record<string, string>>;
  /** The uid of each repo, by its path (`engineering/containers/app`). */
  readonly repoUids: pulumi.Output<Record<string, string>>;
  /** How many objects of each kind the org declares. */
  readonly counts: pulumi.Output<OrgCounts>;

  /**
   * Declares the org. The file is read and checked here, synchronously: a problem throws at once, before anything
   * is declared. The built-in roles the bindings name are then checked against the API (one List of roles) before
   * any child is declared; an unknown one fails the update the same way.
   * @throws TypeError when neither or both of `file` and `spec` are given, when `parentUid` differs from the one
   *   the file records, or when `outside.groups` does not name exactly the file's outside groups; SettingsError
   *   when the file declares a top-level group and no parentUid is given, recorded or configured (see {@link orgUid});
   *   OrgFileError with every problem of the org; Error when the file cannot be read.
   */
  constructor(name: string, args: OrgArgs, opts: pulumi.ComponentResourceOptions = {}) {
    if ((args.file === undefined) === (args.spec === undefined)) {
      throw markReported(new TypeError(`Org "${name}": give exactly one of file (a path to the org file) and spec (the org as an object); got ${args.file === undefined ? "neither" : "both"}`));
    }
    const source = readSource(args);
    const outside = outsidePaths(args.outside);
    const layout = checkSource(source, undefined, outside);
    checkOutside(name, args, layout);
    // The built-in roles are looked up after the program's first turn; a bad setting found then would surface as
    // an unhandled rejection (Node's PromiseRejectionHandledWarning lines before the message). Read the settings
    // now, so such a mistake fails here, at once, as one line.
    // (Only read here: the client itself is not an input of the component, whose inputs Pulumi records in state.)
    const parsed = "text" in source ? orgFileData(source.text) : source.spec;
    if (!args.client && builtinRoleNames(parsed, outside.roles).length > 0) programClientFromConfig();
    const init: OrgInit = {
      orgName: name,
      parentUid: topParentUid(name, args, layout, source),
      source,
      layout,
      outside: { groups: args.outside?.groups ?? {}, identities: args.outside?.identities ?? {}, roles: args.outside?.roles ?? {} },
      ...(args.client ? { client: args.client } : {}),
    };
    super(ORG_TYPE, name, init as unknown as pulumi.Inputs, opts);
    const data = pulumi.output(this.getData());
    this.groupUids = data.apply((d) => d.groupUids);
    this.identityUids = data.apply((d) => d.identityUids);
    this.roleUids = data.apply((d) => d.roleUids);
    this.repoUids = data.apply((d) => d.repoUids);
    this.counts = data.apply((d) => d.counts);
  }

  /** Checks the built-in roles the org names (when it names any), then declares every child. */
  protected override async initialize(raw: pulumi.Inputs): Promise<OrgData> {
    const init = raw as unknown as OrgInit;
    const builtinRoles = await checkBuiltinRoles(init);
    const data = declareOrg(this, init.orgName, init.parentUid, init.layout, builtinRoles, init.outside);
    this.registerOutputs({ groupUids: data.groupUids, identityUids: data.identityUids, roleUids: data.roleUids, repoUids: data.repoUids, counts: data.counts });
    return data;
  }

  /** True when `obj` is an {@link Org} (also across copies of this package). */
  static override isInstance(obj: unknown): obj is Org {
    return pulumi.ComponentResource.isInstance(obj) && (obj as { __pulumiType?: string }).__pulumiType === ORG_TYPE;
  }
}

/** What the constructor hands to {@link Org.initialize}. */
interface OrgInit {
  orgName: string;
  parentUid: pulumi.Input<string>;
  source: OrgSource;
  /** The org, checked but for the built-in roles' existence. */
  layout: OrgLayout;
  outside: Required<OrgOutside>;
  client?: PlatformClient;
}

/** The paths of `outside`'s identities and roles, for the file's checks. */
function outsidePaths(o: OrgOutside | undefined): OrgOutsidePaths {
  return { identities: Object.keys(o?.identities ?? {}), roles: Object.keys(o?.roles ?? {}) };
}

/**
 * The uid the file's top-level groups are declared under: `args.parentUid`, else the file's recorded `parentUid`,
 * else {@link orgUid}; "" when the file declares no top-level group of its own. A `parentUid` that differs from the
 * file's is refused here when it is a string, and when its value is known (at preview, or at up) when it is an
 * output: adopting the file's groups under another parent would fail only at `up`.
 * @throws TypeError naming both uids; SettingsError from {@link orgUid}.
 */
function topParentUid(name: string, args: OrgArgs, layout: OrgLayout, source: OrgSource): pulumi.Input<string> {
  if (!layout.groups.some((g) => g.parentPath === undefined && !g.outside)) return args.parentUid ?? "";
  const recorded = layout.parentUid;
  const given = args.parentUid === "" ? undefined : args.parentUid;
  if (given === undefined) return recorded ?? orgUid();
  if (recorded === undefined) return given;
  const where = "text" in source ? source.file : "spec";
  const differs = (uid: string) =>
    markReported(new TypeError(`Org "${name}": parentUid "${uid}" is not allowed: ${where} records parentUid "${recorded}", the group its top-level groups live under (export --under writes it); give that uid, or leave parentUid out to take the file's`));
  if (typeof given === "string") {
    if (given !== recorded) throw differs(given);
    return given;
  }
  return pulumi.output(given).apply((uid) => {
    if (uid !== recorded) throw differs(uid);
    return uid;
  });
}

/**
 * `outside.groups` names exactly the file's outside groups, each with a uid.
 * @throws TypeError naming the field, its value and what is allowed.
 */
function checkOutside(name: string, args: OrgArgs, layout: OrgLayout): void {
  const marked = layout.groups.filter((g) => g.outside).map((g) => g.path);
  const given = args.outside?.groups ?? {};
  for (const [p, uid] of Object.entries(given)) {
    if (!marked.includes(p)) throw markReported(new TypeError(`Org "${name}": outside.groups[${JSON.stringify(p)}] is not allowed: the org has no group marked outside at that path; outside groups: ${marked.length ? marked.join(", ") : "none"}`));
    if (uid === undefined || uid === "") throw markReported(new TypeError(`Org "${name}": outside.groups[${JSON.stringify(p)}] ${JSON.stringify(uid)} is not allowed: the group's uid`));
  }
  for (const p of marked) {
    if (!(p in given)) throw markReported(new TypeError(`Org "${name}": outside.groups[${JSON.stringify(p)}] is required: the org file marks group "${p}" outside (declared in another stack), so its uid comes from here`));
  }
  for (const kind of ["identities", "roles"] as const) {
    for (const [p, uid] of Object.entries(args.outside?.[kind] ?? {})) {
      if (uid === undefined || uid === "") throw markReported(new TypeError(`Org "${name}": outside.${kind}[${JSON.stringify(p)}] ${JSON.stringify(uid)} is not allowed: the uid of the ${kind === "roles" ? "role" : "identity"} at that path`));
    }
  }
}

/** The org as given: the file's text and name, or the spec. */
type OrgSource = { file: string; text: string } | { spec: OrgSpec };

function readSource(args: OrgArgs): OrgSource {
  return args.file !== undefined ? { file: args.file, text: readFileSync(path.resolve(projectRoot(), args.file), "utf8") } : { spec: args.spec! };
}

/**
 * The Pulumi project's folder: the nearest folder at or above the program's current one that holds a
 * `Pulumi.yaml` (or `.yml`), else the current folder. A program's current folder is not always the project's: with
 * `main: dist/index.js` the CLI starts the program in `dist/`.
 */
function projectRoot(): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "Pulumi.yaml")) || existsSync(path.join(dir, "Pulumi.yml"))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** Every check that needs no API. @throws OrgFileError with every problem. */
function checkSource(src: OrgSource, knownRoles: ReadonlySet<string> | undefined, outside: OrgOutsidePaths): OrgLayout {
  return "text" in src ? parseOrgFile(src.text, src.file, knownRoles, outside) : checkOrgSpec(src.spec, "spec", knownRoles, outside);
}

/**
 * The uids of the built-in roles the org's bindings name (none looked up when it names none).
 * @throws OrgFileError placing each binding whose role is neither the org's nor a built-in one.
 */
async function checkBuiltinRoles(init: OrgInit): Promise<ReadonlyMap<string, string>> {
  const builtinRoles = new Map<string, string>();
  const data = "text" in init.source ? orgFileData(init.source.text) : init.source.spec;
  const outside = outsidePaths(init.outside);
  if (builtinRoleNames(data, outside.roles).length === 0) return builtinRoles;
  // Built-in roles by name: their uid is one segment (a custom role's is its group's uid and its own).
  for (const r of await getRoles({}, init.client)) if (!r.uid.includes("/") && !builtinRoles.has(r.name)) builtinRoles.set(r.name, r.uid);
  checkSource(init.source, new Set(builtinRoles.keys()), outside);
  return builtinRoles;
}

/** Declares the children of `parent` for a checked layout. */
function declareOrg(parent: pulumi.Resource, name: string, rootUid: pulumi.Input<string>, org: OrgLayout, builtinRoles: ReadonlyMap<string, string>, outside: Required<OrgOutside>): OrgData {
  const opts: pulumi.CustomResourceOptions = { parent };
  const n = (p: string) => `${name}/${p}`;
  // Every group's uid by path, the outside ones' as given; the declared ones also as resources.
  const groups = new Map<string, { uid: pulumi.Input<string> }>();
  const declaredGroups = new Map<string, Group>();
  for (const g of org.groups) {
    if (g.outside) {
      groups.set(g.path, { uid: outside.groups[g.path]! });
      continue;
    }
    const parentUid = g.parentPath === undefined ? rootUid : groups.get(g.parentPath)!.uid;
    const group = new Group(n(g.path), { parentUid, name: g.name, description: g.description ?? "", ...(g.uid ? { adoptUid: g.uid } : {}) }, opts);
    groups.set(g.path, group);
    declaredGroups.set(g.path, group);
  }

  const identities = new Map<string, Identity>();
  const identityUid = (p: string): pulumi.Input<string> => identities.get(p)?.uid ?? outside.identities[p]!;
  for (const id of org.identities) {
    identities.set(
      id.path,
      new Identity(
        n(id.path),
        { parentUid: groups.get(id.group)!.uid, name: id.name, description: id.description ?? "", claimMatch: Object.fromEntries(Object.entries(id.claimMatch).filter(([, v]) => v !== undefined)) as ClaimMatchArgs, ...(id.uid ? { adoptUid: id.uid } : {}) },
        opts,
      ),
    );
  }

  // Custom roles by name, each at its group; a binding takes the one nearest above its group.
  const customRoles = new Map<string, Array<{ group: string; uid: pulumi.Input<string> }>>();
  const roles = new Map<string, Role>();
  for (const r of org.roles) {
    const role = new Role(n(r.path), { parentUid: groups.get(r.group)!.uid, name: r.name, description: r.description ?? "", capabilities: r.capabilities, ...(r.uid ? { adoptUid: r.uid } : {}) }, opts);
    roles.set(r.path, role);
    customRoles.set(r.name, [...(customRoles.get(r.name) ?? []), { group: r.group, uid: role.uid }]);
  }
  for (const [p, uid] of Object.entries(outside.roles)) {
    const cut = p.lastIndexOf("/");
    const roleName = p.slice(cut + 1);
    customRoles.set(roleName, [...(customRoles.get(roleName) ?? []), { group: p.slice(0, Math.max(cut, 0)), uid }]);
  }
  // A custom role of the org nearest above the binding's group, else the built-in role (the check proved it exists).
  const roleFor = (roleName: string, group: string): pulumi.Input<string> => {
    const near = (customRoles.get(roleName) ?? []).filter((c) => group === c.group || group.startsWith(`${c.group}/`)).sort((a, b) => b.group.length - a.group.length)[0];
    return near ? near.uid : builtinRoles.get(roleName)!;
  };

  for (const b of org.bindings) {
    new RoleBinding(
      n(`${b.identity}@${b.group}#${b.role}`),
      { groupUid: groups.get(b.group)!.uid, identityUid: identityUid(b.identity), roleUid: roleFor(b.role, b.group), ...(b.uid ? { adoptUid: b.uid } : {}) },
      opts,
    );
  }

  const repos = new Map<string, Repo>();
  for (const r of org.repos) {
    const sync = r.syncConfig ? (Object.fromEntries(Object.entries(r.syncConfig).filter(([, v]) => v !== undefined)) as unknown as SyncConfigArgs) : undefined;
    repos.set(
      r.path,
      new Repo(
        n(r.path),
        {
          parentUid: groups.get(r.group)!.uid,
          name: r.name,
          description: r.description ?? "",
          ...(sync ? { syncConfig: sync } : {}),
          ...(r.readme !== undefined ? { readme: r.readme } : {}),
          ...(r.uid ? { adoptUid: r.uid } : {}),
        },
        opts,
      ),
    );
  }

  for (const s of org.subscriptions) {
    new Subscription(n(`${s.group}->${s.sink}`), { parentUid: groups.get(s.group)!.uid, sink: s.sink, ...(s.uid ? { adoptUid: s.uid } : {}) }, opts);
  }

  return {
    groupUids: Object.fromEntries([...declaredGroups].map(([p, g]) => [p, g.uid])),
    identityUids: Object.fromEntries([...identities].map(([p, i]) => [p, i.uid])),
    roleUids: Object.fromEntries([...roles].map(([p, r]) => [p, r.uid])),
    repoUids: Object.fromEntries([...repos].map(([p, r]) => [p, r.uid])),
    counts: { groups: declaredGroups.size, identities: org.identities.length, roles: org.roles.length, bindings: org.bindings.length, repos: org.repos.length, subscriptions: org.subscriptions.length },
  };
}
