/**
 * The pack's access policies: what a change lets an identity do, decided from what is known at preview.
 *
 * - Built-in roles are found by name (the API's uids differ from one API to another): a binding's hydrated
 *   `role.name`, or the role's uid read from the API with the provider's settings from the environment
 *   (`PLATFORM_API_URL`, `PLATFORM_TOKEN`, …; README "Access review").
 * - A value not known until apply is read only when the decision needs it, and then followed to the resource it
 *   comes from (the engine's property dependencies), so a binding on a group the change creates is judged by
 *   that group, not reported "can't run during preview".
 *
 * Escalation paths (README "Access review", provider/access/model.ts) are mandatory by default.
 */
import type { PolicyResource, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { RE2JS } from "re2js";
import { BUILTIN_ROLE_CAPABILITIES, isBuiltinRoleName } from "../provider/access/builtin";
import { CLASS_ROWS_FROM, ESCALATION_KINDS, OrgIndex, effectiveAccess } from "../provider/access/model";
import { capabilityMatcher, classTable, compactRows, diffGrants, identityWords, moreRoutesWords, outsideWords, reportGrants } from "../provider/access/report";
import { parentUid } from "../provider/access/sources";
import { orgFromStack, type RoleInfo, type StackObject } from "../provider/access/stack";
import { wireName } from "../provider/capabilities";
import { DYNAMIC_TYPE_PREFIX, isKindType, kindOfType } from "../provider/typeTokens";
import { severityOf } from "../provider/access/severity";
import { loadBaseline, loadOrg, tagged, writeGateFile } from "./change";
import { applyExclusions } from "../provider/access/exclusions";
import { EXCLUSIONS_CONFIG_SCHEMA, configExclusions, recordSilenced } from "./unused";

/**
 * The dynamic resources' type token prefix. A policy recognises a kind by {@link kindOfType}, which also takes the
 * native plugin's tokens (`platform:<module>:<Kind>`); this stays exported for packs that compared with it.
 */
export const TYPE_PREFIX = DYNAMIC_TYPE_PREFIX;

type Props = Record<string, unknown>;

/** Marks a value not known until apply. */
export const UNKNOWN: unique symbol = Symbol("unknown until apply");

/** Whether `err` is @pulumi/policy's signal that a value is not known during preview. */
function isUnknownError(err: unknown): boolean {
  return err instanceof Error && (err.constructor.name === "UnknownValueError" || err.name === "UnknownValueError");
}

/** `obj[key]`, or {@link UNKNOWN} when @pulumi/policy says it is not known during preview. */
export function known(obj: unknown, key: string): unknown {
  if (obj === undefined || obj === null || typeof obj !== "object") return undefined;
  try {
    return (obj as Props)[key];
  } catch (err) {
    if (isUnknownError(err)) return UNKNOWN;
    throw err;
  }
}

/** Describes a role by uid; undefined when it cannot. */
export type RoleLookup = (uid: string) => Promise<RoleInfo | undefined>;

/** The environment's API client (no stack config reaches a policy pack), made once; null without settings. */
let envClient:
  | { roles: { get(uid: string): Promise<{ name: string; capabilities?: string[] }> }; groups: { get(uid: string): Promise<{ name: string }> }; identities: { get(uid: string): Promise<{ name: string }> } }
  | null
  | undefined;
function apiClient(): NonNullable<typeof envClient> | null {
  if (envClient === undefined) {
    try {
      const { resolveSettings } = require("../provider/config") as typeof import("../provider/config");
      const { clientFromSettings } = require("../provider/clientFactory") as typeof import("../provider/clientFactory");
      envClient = clientFromSettings(resolveSettings(() => undefined));
    } catch {
      envClient = null;
    }
  }
  return envClient;
}

/** Names a group by uid (for messages); undefined when it cannot. */
export type GroupLookup = (uid: string) => Promise<string | undefined>;

/**
 * A lookup by uid through the environment's API client ({@link apiClient}), each uid read once per run (the
 * promise is kept, so concurrent policies share one request). Without settings, or when a read fails, it gives
 * undefined.
 */
function cachedApiLookup<T>(read: (client: NonNullable<typeof envClient>, uid: string) => Promise<T>): (uid: string) => Promise<T | undefined> {
  const cache = new Map<string, Promise<T | undefined>>();
  return (uid) => {
    let hit = cache.get(uid);
    if (!hit) {
      hit = (async () => {
        const client = apiClient();
        if (!client) return undefined;
        try {
          return await read(client, uid);
        } catch {
          return undefined;
        }
      })();
      cache.set(uid, hit);
    }
    return hit;
  };
}

let envGroupLookup: GroupLookup | undefined;

/**
 * Reads group names from the API with the provider's settings from the environment, once per uid per run, for
 * the groups a stack refers to without declaring them (a stack of a split export, README "Export: one stack per
 * top-level group"). Without settings, or when a read fails, it names nothing (the message shows the uid).
 */
export function apiGroupLookup(): GroupLookup {
  return (envGroupLookup ??= cachedApiLookup(async (client, uid) => (await client.groups.get(uid)).name));
}

let envIdentityLookup: GroupLookup | undefined;

/** Names an identity by uid through the environment's API client, once per uid per run; undefined when it cannot. */
export function apiIdentityNameLookup(): GroupLookup {
  return (envIdentityLookup ??= cachedApiLookup(async (client, uid) => (await client.identities.get(uid)).name));
}

/**
 * An identity's path (`/<group name>/…/<identity name>`, the form every other finding uses), its name and its
 * groups' named by `names`/`groups` (its uid's segments are its groups', seed §2 uidp); the uid itself when a name
 * cannot be read.
 */
export async function identityPathOf(uid: string, names: { identity: GroupLookup; group: GroupLookup }, hydrated?: string): Promise<string> {
  const segs = uid.split("/");
  if (segs.length < 2) return uid;
  const name = hydrated || (await names.identity(uid));
  if (!name) return uid;
  const groups: string[] = [];
  for (let i = 2; i < segs.length; i++) {
    const g = await names.group(segs.slice(0, i).join("/"));
    if (!g) return uid;
    groups.push(g);
  }
  return `/${[...groups, name].join("/")}`;
}

let envLookup: RoleLookup | undefined;

/**
 * Reads roles from the API with the provider's settings from the environment (no stack config reaches a policy
 * pack), once per uid per run. Without settings, or when a read fails, it describes nothing.
 */
export function apiRoleLookup(): RoleLookup {
  return (envLookup ??= cachedApiLookup(async (client, uid) => {
    const r = await client.roles.get(uid);
    return { name: r.name, capabilities: r.capabilities ?? [] };
  }));
}

/**
 * The role a resource's `field` (a role uid) names, by what is known: the binding's hydrated `role` output, then
 * the lookup. {@link UNKNOWN} when the uid is not known yet (a role the change creates: a custom role).
 */
export async function roleOf(props: Props, field: string, lookup: RoleLookup): Promise<RoleInfo | undefined | typeof UNKNOWN> {
  const hydrated = known(known(props, "role"), "name");
  if (typeof hydrated === "string" && isBuiltinRoleName(hydrated)) return { name: hydrated, capabilities: BUILTIN_ROLE_CAPABILITIES[hydrated] };
  const uid = known(props, field);
  if (uid === UNKNOWN) return UNKNOWN;
  if (typeof uid !== "string" || uid === "") return undefined;
  return (await lookup(uid)) ?? (typeof hydrated === "string" && hydrated !== "" ? { name: hydrated, capabilities: [] } : undefined);
}

function forKind(kind: string, check: (props: Props, args: ResourceValidationArgs, report: ReportViolation) => Promise<void> | void) {
  return (args: ResourceValidationArgs, report: ReportViolation): Promise<void> | void => {
    if (!isKindType(args.type, kind)) return;
    return check(args.props as Props, args, report);
  };
}

/** Config of `no-owner-at-root`. */
export interface NoOwnerAtRootConfig {
  /** The stack's root group uid; default: any single-segment (root) uid. */
  rootGroupUid?: string;
  /** Extra uids to treat as the owner role (kept for older configs; the role is found by name without them). */
  ownerRoleUids?: string[];
}

/**
 * `no-owner-at-root` (advisory; make it mandatory in the pack config): a RoleBinding of the built-in `owner` role
 * on the root group. Decided from the group and the role's name, both known at preview for a binding of an
 * existing role on the root group; a group the change creates is never the root, and a role it creates is a
 * custom role. The identity, often new, is read only for the message.
 */
export function noOwnerAtRootWith(lookup: () => RoleLookup, names: () => { identity: GroupLookup; group: GroupLookup } = () => ({ identity: apiIdentityNameLookup(), group: apiGroupLookup() })): ResourceValidationPolicy {
  return {
    name: "no-owner-at-root",
    description: "No identity is bound to the owner role at the organization's root group.",
    enforcementLevel: "advisory",
    configSchema: {
      properties: {
        rootGroupUid: { type: "string", pattern: "^[0-9a-f]{40}$" },
        ownerRoleUids: { type: "array", items: { type: "string" } },
      },
    },
    validateResource: forKind("RoleBinding", async (props, args, report) => {
      const cfg = args.getConfig<NoOwnerAtRootConfig>();
      const group = known(props, "groupUid");
      if (typeof group !== "string") return; // unknown: a group this change creates, never the root
      const atRoot = cfg.rootGroupUid ? group === cfg.rootGroupUid : /^[0-9a-f]{40}$/.test(group);
      if (!atRoot) return;
      const roleUid = known(props, "roleUid");
      let isOwner = typeof roleUid === "string" && (cfg.ownerRoleUids ?? []).includes(roleUid);
      if (!isOwner) {
        const role = await roleOf(props, "roleUid", lookup());
        if (role === UNKNOWN) return; // a role this change creates: a custom role, judged by custom-role-no-escalation
        if (role === undefined) {
          if (typeof roleUid === "string" && parentUid(roleUid) === undefined) {
            report(`role binding "${args.name}" binds built-in role ${roleUid} at the root group ${group}, and the pack cannot tell which role that is: give the pack the API's settings (PLATFORM_API_URL, PLATFORM_TOKEN) so it can read the role's name`);
          }
          return;
        }
        isOwner = role.name === "owner";
      }
      if (!isOwner) return;
      const identity = known(props, "identityUid");
      const hydrated = known(known(props, "identity"), "name");
      const who =
        typeof identity === "string"
          ? `identity ${await identityPathOf(identity, names(), typeof hydrated === "string" ? hydrated : undefined)}`
          : `the identity of role binding "${args.name}" (created by this change)`;
      report(tagged("critical", `${who} is bound to the owner role at the root group / (uid ${group}); bind it lower in the tree or with a narrower role`));
    }),
  };
}

/** `no-owner-at-root`, reading roles from the API with the environment's settings. */
export const noOwnerAtRoot = noOwnerAtRootWith(apiRoleLookup);

/** Capabilities that make a custom role owner-equivalent wherever it is bound, and why. */
const ESCALATING: Record<string, string> = {
  CAP_IAM_ROLE_BINDINGS_CREATE: "role_bindings.create lets its holder bind itself any role, owner included, where the role is bound",
  CAP_IAM_ROLE_BINDINGS_UPDATE: "role_bindings.update lets its holder rewrite a binding there into one of itself to any role",
  CAP_IAM_ROLES_UPDATE: "roles.update lets its holder add any capability to the custom roles defined where the role is bound, itself included",
};

/** `custom-role-no-escalation` (mandatory): a custom role that can grant itself more (the escalation steps `bind`, `rebind`, `editRole`). */
export const customRoleNoEscalation: ResourceValidationPolicy = {
  name: "custom-role-no-escalation",
  description: "A custom role does not hold role_bindings.create, role_bindings.update or roles.update: each lets its holders grant themselves any role.",
  enforcementLevel: "mandatory",
  validateResource: forKind("Role", (props, args, report) => {
    const caps = known(props, "capabilities");
    if (!Array.isArray(caps)) return;
    const wire = caps.filter((c): c is string => typeof c === "string").map((c) => wireName(c) ?? c);
    const why = Object.entries(ESCALATING).filter(([c]) => wire.includes(c)).map(([, w]) => w);
    if (why.length) report(tagged("critical", `custom role "${String(known(props, "name") ?? args.name)}" can escalate: ${why.join("; ")}. Use the built-in owner role where that is meant, bound as low as possible`));
  }),
};

/**
 * `identity-provider-default-role` (mandatory): an identity provider whose default role is owner (or a role that
 * can grant itself more) makes everyone who signs in through it an owner of its group.
 */
export function identityProviderDefaultRoleWith(lookup: () => RoleLookup): ResourceValidationPolicy {
  return {
    name: "identity-provider-default-role",
    description: "An identity provider's default role is not owner, nor a role holding role_bindings.create, role_bindings.update or roles.update.",
    enforcementLevel: "mandatory",
    validateResource: forKind("IdentityProvider", async (props, args, report) => {
      const role = await roleOf(props, "defaultRole", lookup());
      if (role === UNKNOWN || role === undefined) return;
      const wire = role.capabilities.map((c) => wireName(c) ?? c);
      if (role.name === "owner" || Object.keys(ESCALATING).some((c) => wire.includes(c))) {
        report(tagged("critical", `identity provider "${String(known(props, "name") ?? args.name)}" gives everyone who signs in through it the role "${role.name}" (which can grant any role) at its group; use viewer, or no default role`));
      }
    }),
  };
}

/** `identity-provider-default-role`, reading roles from the API with the environment's settings. */
export const identityProviderDefaultRole = identityProviderDefaultRoleWith(apiRoleLookup);

/** Seconds in a duration such as `"72h"`, `"30m"`, `"3600s"` or `"1h30m"`; undefined when malformed. */
export function durationSeconds(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s);
  let total = 0;
  let used = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)) {
    total += Number(m[1]) * { h: 3600, m: 60, s: 1 }[m[2] as "h" | "m" | "s"];
    used += m[0].length;
  }
  return used === s.length && used > 0 ? total : undefined;
}

/** Config of `group-invite-narrow`. */
export interface GroupInviteNarrowConfig {
  /** The longest an invite may stay valid, in seconds. @default 604800 (7 days) */
  maxTtlSeconds?: number;
}

/**
 * `group-invite-narrow` (mandatory): an invite is valid at most `maxTtlSeconds`, and one that grants owner (or a
 * role that can grant itself more) is single-use: a reusable owner code is an owner seat for whoever holds it.
 */
export function groupInviteNarrowWith(lookup: () => RoleLookup): ResourceValidationPolicy {
  return {
    name: "group-invite-narrow",
    description: "Group invites expire within 7 days (configurable), and invites granting owner are single-use.",
    enforcementLevel: "mandatory",
    configSchema: { properties: { maxTtlSeconds: { type: "number", minimum: 1 } } },
    validateResource: forKind("GroupInvite", async (props, args, report) => {
      const max = args.getConfig<GroupInviteNarrowConfig>().maxTtlSeconds ?? 604_800;
      const ttl = durationSeconds(known(props, "ttl"));
      if (ttl !== undefined && ttl > max) report(tagged("high", `group invite "${args.name}" stays valid ${ttl}s, longer than ${max}s: anyone who gets the code in that time joins the group`));
      const role = await roleOf(props, "roleUid", lookup());
      if (role === UNKNOWN || role === undefined) return;
      const wire = role.capabilities.map((c) => wireName(c) ?? c);
      if ((role.name === "owner" || Object.keys(ESCALATING).some((c) => wire.includes(c))) && known(props, "singleUse") !== true) {
        report(tagged("critical", `group invite "${args.name}" grants "${role.name}" and is reusable: every holder of the code becomes an owner of the group; set singleUse: true`));
      }
    }),
  };
}

/** `group-invite-narrow`, reading roles from the API with the environment's settings. */
export const groupInviteNarrow = groupInviteNarrowWith(apiRoleLookup);

/** The fields the access policies read from each kind. */
const FIELDS: Record<string, readonly string[]> = {
  Group: ["uid", "name", "parentUid"],
  Identity: ["uid", "name", "parentUid", "claimMatch"],
  Role: ["uid", "name", "parentUid", "capabilities"],
  RoleBinding: ["uid", "identityUid", "roleUid", "groupUid", "role"],
  IdentityProvider: ["uid", "name", "parentUid", "defaultRole"],
};

/**
 * A stack policy's resources as {@link StackObject}s: known values as they are; an unknown one followed to the
 * resource its property dependencies name. A resource the baseline (the stack before the change, `change.ts`)
 * holds keeps its uid while a preview does not know it (a dynamic provider's update shows its outputs unknown), so
 * an updated group is still the group its identities and bindings name.
 */
export function stackObjects(resources: readonly PolicyResource[]): StackObject[] {
  const known0 = new Map((loadBaseline()?.objects ?? []).filter((o) => typeof o.props["uid"] === "string").map((o) => [o.urn, o.props["uid"] as string]));
  const out: StackObject[] = [];
  for (const r of resources) {
    const kind = kindOfType(r.type);
    if (kind === undefined) continue;
    const fields = FIELDS[kind];
    if (!fields) continue;
    const props: Props = {};
    const refs: Record<string, string> = {};
    for (const f of fields) {
      const v = known(r.props, f);
      if (v === UNKNOWN) {
        // Followed only to a single resource: a value built from several (a component's map of uids) names none
        // of them for sure, and a guess could judge the wrong identity.
        const deps = r.propertyDependencies?.[f] ?? [];
        if (deps.length === 1) refs[f] = deps[0]!.urn;
      } else if (v !== undefined) props[f] = f === "role" ? { name: known(v, "name") === UNKNOWN ? undefined : known(v, "name") } : v;
    }
    if (props["uid"] === undefined && known0.has(r.urn)) props["uid"] = known0.get(r.urn);
    out.push({ kind, urn: r.urn, name: r.name, props, refs });
  }
  return out;
}

/** Describes every role uid the stack's bindings name but the stack does not declare. */
async function describeRoles(objs: readonly StackObject[], lookup: RoleLookup): Promise<Map<string, RoleInfo>> {
  const declared = new Set(objs.filter((o) => o.kind === "Role").map((o) => o.props["uid"]));
  const uids = new Set(objs.filter((o) => o.kind === "RoleBinding").map((o) => o.props["roleUid"]).filter((u): u is string => typeof u === "string" && !declared.has(u)));
  const out = new Map<string, RoleInfo>();
  await Promise.all([...uids].map(async (u) => {
    const info = await lookup(u);
    if (info) out.set(u, info);
  }));
  return out;
}

/** A resource's name from its URN (the part after the last `::`). */
function nameOfUrn(urn: string | undefined): string {
  return urn === undefined ? "?" : urn.slice(urn.lastIndexOf("::") + 2);
}

/** What the stack policies read besides the stack: roles and group names the stack refers to without declaring. */
export interface StackLookups {
  role: RoleLookup;
  group: GroupLookup;
}

/**
 * The stack's org, indexed, with the roles it binds described and the groups it refers to without declaring named
 * (for messages: a stack of a split export holds a team's subtree, its top-level group and the root declared by
 * another stack) by `lookups`. A name changes no verdict: groups are placed by their uids either way.
 */
async function stackIndex(resources: readonly PolicyResource[], lookups: StackLookups): Promise<OrgIndex> {
  const objs = stackObjects(resources);
  const roles = await describeRoles(objs, lookups.role);
  const first = orgFromStack(objs, { role: (u) => roles.get(u) }).org;
  // Groups known by uid only (referenced, not declared): name them when the API can.
  const unnamed = first.groups.filter((g) => g.name === "" && !g.id.startsWith("urn:") && parentUid(g.id) !== undefined).map((g) => g.id);
  if (unnamed.length === 0) return new OrgIndex(first);
  const names = new Map<string, string>();
  await Promise.all(unnamed.map(async (u) => {
    const name = await lookups.group(u);
    if (name) names.set(u, name);
  }));
  return new OrgIndex(orgFromStack(objs, { role: (u) => roles.get(u), groupName: (u) => names.get(u) }).org);
}

const apiLookups = (): StackLookups => ({ role: apiRoleLookup(), group: apiGroupLookup() });

/**
 * `identity-bound-above-its-group` (mandatory): a RoleBinding grants an identity a role at a group strictly above
 * the group the identity lives in. Whoever may update identities in that lower group can rewrite the identity
 * (its claimMatch), assume it, and hold the role at the higher group: the escalation step `assume`. Judged by
 * path when the identity or group is new.
 *
 * A stack that declares only part of the org (a stack of a split export) is judged by what it sees: a group,
 * identity or role it refers to by uid is placed by that uid (a uid names its parent group); a value it cannot see
 * at all (not known until apply and coming from no resource of this package, e.g. a `StackReference` output of a
 * stack not yet updated) decides nothing, so it never refuses on a guess. Groups it does not declare are named in
 * the message through `lookups` (the API, with the environment's settings).
 */
export function identityBoundAboveItsGroupWith(lookups: () => StackLookups): StackValidationPolicy {
  return {
    name: "identity-bound-above-its-group",
    description: "An identity is not granted a role on a group above its own group (editors of its group could take the role over).",
    enforcementLevel: "mandatory",
    validateStack: async (args: StackValidationArgs, report: ReportViolation) => {
      const ix = await stackIndex(args.resources, lookups());
      ix.org.bindings.forEach((b) => {
        const own = ix.identities.get(b.identityId)?.groupId;
        if (own === undefined || own === b.groupId || !ix.within(own, b.groupId)) return;
        const role = ix.roleName(b.roleId);
        // What whoever takes the identity over gains: the role's capabilities at the higher group.
        const caps = ix.roles.get(b.roleId)?.capabilities;
        const severity = caps ? severityOf(caps) : "high";
        report(
          tagged(severity, `role binding "${nameOfUrn(b.label)}": identity ${ix.identityPath(b.identityId)} lives in group ${ix.groupPath(own)} but is granted role ${role} at ${ix.groupPath(b.groupId)}, above it: anyone who may update identities in ${ix.groupPath(own)} can rewrite this identity (its claimMatch) and assume that role at ${ix.groupPath(b.groupId)}; bind it at its own group or move the identity to ${ix.groupPath(b.groupId)}`),
          b.label,
        );
      });
    },
  };
}

/** {@link identityBoundAboveItsGroupWith} reading the API with the environment's settings. */
export const identityBoundAboveItsGroup = identityBoundAboveItsGroupWith(apiLookups);

/**
 * `role-bound-above-its-group` (mandatory): a custom role defined in a group is bound at a group strictly above
 * it. Whoever may update roles in the lower group can add any capability to the role and so act at the higher
 * group with it: the escalation step `editRole`.
 */
export const roleBoundAboveItsGroup: StackValidationPolicy = {
  name: "role-bound-above-its-group",
  description: "A custom role is bound only at its own group or below (owners of its group could otherwise widen it above their reach).",
  enforcementLevel: "mandatory",
  validateStack: async (args: StackValidationArgs, report: ReportViolation) => {
    const ix = await stackIndex(args.resources, apiLookups());
    ix.org.bindings.forEach((b) => {
      const role = ix.roles.get(b.roleId);
      if (role?.groupId === undefined || role.groupId === b.groupId || !ix.within(role.groupId, b.groupId)) return;
      report(
        tagged("critical", `role binding "${nameOfUrn(b.label)}": custom role "${role.name}" is defined in ${ix.groupPath(role.groupId)} but bound at ${ix.groupPath(b.groupId)}, above it: anyone who may update roles in ${ix.groupPath(role.groupId)} can add capabilities to it (role_bindings.create, groups.delete, …) and use them at ${ix.groupPath(b.groupId)}; define the role at ${ix.groupPath(b.groupId)}`),
        b.label,
      );
    });
  },
};

/** Config of `no-new-access`. */
export interface NoNewAccessConfig {
  /**
   * Globs over capability names (`iam.*`, `*.delete`, `role_bindings.create`), as `platform-pulumi access
   * --fail-on`. Run by the gate: only gains of matching capabilities are reported (default: every capability).
   * Run by hand: the stack's holders of matching capabilities are reported (default: nothing is checked).
   */
  capabilities?: string[];
  /** Identities allowed to hold them: uid, name or path (`/engineering/ci-deployer`). */
  allowedIdentities?: string[];
  /** Reviewed exceptions that silence findings until they expire (provider/access/exclusions.ts). */
  exclusions?: unknown;
}

/**
 * `no-new-access` (mandatory): the access a change gives.
 *
 * Run by `platform-pulumi gate` (a baseline of the stack before the change, `change.ts`): every capability an
 * identity gains at a scope it did not effectively hold before, directly or by escalation (the model of
 * `platform-pulumi access`, provider/access/model.ts), one finding per identity, scope and route, tagged with the
 * severity of what is gained; the gate fails on `critical` and `high` by default. The full list of changes is
 * written to `access.json` in the folder `PLATFORM_GATE_OUT` names, for the gate's report.
 *
 * Run by hand, with `capabilities` configured: no identity outside `allowedIdentities` holds a matching
 * capability through the stack's bindings. Identities and groups the change creates are judged by path.
 */
export function noNewAccessWith(lookup: () => RoleLookup): StackValidationPolicy {
  return {
    name: "no-new-access",
    description: "A change gives no identity a capability at a scope it did not hold before (escalations included); severity from what is gained.",
    enforcementLevel: "mandatory",
    configSchema: { properties: { capabilities: { type: "array", items: { type: "string" } }, allowedIdentities: { type: "array", items: { type: "string" } }, exclusions: EXCLUSIONS_CONFIG_SCHEMA } },
    validateStack: async (args: StackValidationArgs, report: ReportViolation) => {
      const cfg = args.getConfig<NoNewAccessConfig>();
      const exclusions = configExclusions("no-new-access", cfg);
      const baseline = loadBaseline();
      if (!baseline && !cfg.capabilities?.length) return;
      const match = cfg.capabilities?.length ? capabilityMatcher(cfg.capabilities) : () => true;
      const allowed = new Set(cfg.allowedIdentities ?? []);
      const objs = stackObjects(args.resources);
      // The whole org, when the gate read it (docs/access.md "The whole org"): the objects the stack does not hold,
      // in the model before and after the change alike, each identity marked where it is managed.
      // The gate writes it while the preview runs (loadOrg waits for it); an older gate put it in the baseline.
      const org = baseline ? await loadOrg() : undefined;
      const outside = org?.outside ?? baseline?.outside ?? [];
      const managedOutside = new Map(Object.entries(org?.managed ?? baseline?.managed ?? {}));
      const roles = await describeRoles([...objs, ...(baseline?.objects ?? []), ...outside], lookup());
      const grantsOf = (o: readonly StackObject[]) => {
        const so = orgFromStack([...o, ...outside], { role: (u) => roles.get(u) });
        if (org ?? baseline?.outside) so.managed = new Map(so.org.identities.map((i) => [i.id, managedOutside.get(i.id) ?? "this stack"]));
        return reportGrants(so, effectiveAccess(so.org, { escalations: ESCALATION_KINDS, classRowsFrom: CLASS_ROWS_FROM }));
      };
      const after = grantsOf(objs);
      const changes = baseline ? diffGrants(grantsOf(baseline.objects), after) : undefined;
      const rows = (changes ? changes.filter((c) => c.change === "gained") : after).filter(
        (g) => match(g.capability) && !(allowed.has(g.identity.name) || allowed.has(g.identity.path) || (g.identity.uid !== null && allowed.has(g.identity.uid))),
      );
      // Reviewed exceptions: a live one silences its findings (listed by the gate), an expired one says so.
      const verdict = applyExclusions("no-new-access", rows, exclusions);
      recordSilenced("no-new-access", verdict.silenced);
      const kept = new Set(verdict.kept);
      const gone = new Set(rows.filter((r) => !kept.has(r)));
      if (changes) {
        // A class's members once (provider/access/report.ts `classTable`), not on each of its rows.
        const { rows: listed, classes } = classTable(changes.filter((c) => !gone.has(c)));
        writeGateFile("access.json", JSON.stringify({ changes: listed, ...(classes.length ? { classes } : {}) }));
      }
      for (const r of compactRows(verdict.kept)) {
        const lapsed = verdict.expired.filter((x) => x.finding.identity.path === r.identity.path && x.finding.group === r.group && r.capabilities.includes(x.finding.capability)).map((x) => x.exclusion);
        const note = [...new Set(lapsed)].map((e) => `; exclusion of ${e.capability} for ${e.identity} at ${e.group} expired on ${e.expires} ("${e.reason}")`).join("");
        const how = `${r.direct ? r.how[0]! : `escalation: ${r.how.map((h, i) => `${i + 1}. ${h}`).join(" ")}`}${r.outside ? `; ${outsideWords(r.outside)}` : ""}${r.moreRoutes ? `; ${moreRoutesWords(r.moreRoutes)}` : ""}`;
        report(tagged(r.severity, `identity ${identityWords(r.identity)} ${changes ? "gains" : "would hold"} ${r.gives} at ${r.group} (${how})${changes && !allowed.size ? "" : "; it is not in no-new-access's allowedIdentities"}${note}`));
      }
    },
  };
}

/** `no-new-access`, reading roles from the API with the environment's settings. */
export const noNewAccess = noNewAccessWith(apiRoleLookup);

/** Probes a pattern is tried on: values a foreign workload presents, per field. */
export const FOREIGN_PROBES = {
  subject: [
    "", "x", "repo:attacker-org/evil-repo:ref:refs/heads/main", "repo:attacker-org/evil-repo:environment:production",
    "project_path:attacker-group/evil-project:ref_type:branch:ref:main", "system:serviceaccount:attacker:default",
    "arn:aws:iam::000000000000:role/attacker", "attacker@example.com",
  ],
  audience: ["", "x", "https://attacker.example", "attacker"],
  claim: ["", "x", "attacker", "attacker-org", "refs/heads/attacker"],
  issuer: ["https://attacker.example", "https://attacker.example/oidc", "https://evil.example.com"],
  arn: ["", "x", "arn:aws:iam::000000000000:role/attacker", "arn:aws:sts::000000000000:assumed-role/attacker/session"],
  userId: ["", "x", "AROAATTACKER0000000000:session", "AIDAATTACKER0000000000"],
} as const;

/**
 * The first probe `pattern` matches as a whole (RE2, as the service matches), or undefined. A pattern RE2 rejects
 * matches nothing here (the provider's check rejects it).
 */
export function foreignMatch(pattern: string, probes: readonly string[]): string | undefined {
  let re: RE2JS;
  try {
    re = RE2JS.compile(`^(?:${pattern})$`, RE2JS.DOTALL);
  } catch {
    return undefined;
  }
  return probes.find((p) => re.matches(p));
}
