/**
 * Random orgs on the emulator for the access conformance tests (access-agreement, access-query): their shape
 * (fast-check), building one through the API, tokens through the token exchange, one probe request per capability,
 * and carrying an escalation step out as the identity it is credited to.
 *
 * The orgs are mixed (docs/access.md "The whole org"): every object is made through the API, then about half of
 * the groups (never the root), identities, custom roles and role bindings are taken as one stack's, alternately in
 * the order the spec makes them, starting on a side the spec picks for each kind ({@link stackShare}). Those are
 * written as its state holds them (the provider's outputs of the object as the API returns it, over the program's
 * inputs; half under the dynamic type token, half under the native one) and read back by `objectsFromState`; the
 * rest is read from the API under the root by `readLiveOrg` through a PlatformClient and kept by `outsideStack`, and
 * the model is `orgFromStack([...stack, ...outside], ctx)` with the context `access` gives it, exactly as the
 * commands build it with the org scope. `build` checks that model holds what the model built straight from the
 * API's Lists (`orgFromApi`) holds (every path, role and binding) and grants what it grants, directly and with every
 * escalation, and hands it to the checks. Copies of an org that only carry a path out keep the API's model.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { OrgIndex, effectiveAccess, type AccessOrg, type EscalationKind, type EscalationStep } from "../../provider/access/model";
import { presentedToken, wholeMatch } from "../../provider/access/languages";
import { outsideStack, readLiveOrg } from "../../provider/access/orgRead";
import { orgFromApi } from "../../provider/access/sources";
import { orgFromStack, type RoleInfo, type StackContext, type StackObject, type StackOrg } from "../../provider/access/stack";
import { PlatformClient } from "../../provider/client/client";
import type { ClaimMatch } from "../../provider/client/types";
import { objectsFromState } from "../../provider/commands/access";
import type { StateResource } from "../../provider/commands/stack";
import { kindEntry } from "../../provider/kinds/registry";
import { DYNAMIC_TYPE_PREFIX } from "../../provider/typeTokens";
import { api, base, builtinRole, http, listAll, qs, type Res } from "./helpers";

/** The escalation kinds the emulator serves end to end (no invite redemption, no sign-in through a provider). */
export const EXECUTABLE: EscalationKind[] = ["assume", "bind", "rebind", "editRole", "createRole", "present"];

/** Capabilities a custom role is drawn from (the ones escalation turns on, and a few plain ones). */
export const CUSTOM_CAPS = [
  "CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_UPDATE", "CAP_IAM_GROUPS_DELETE",
  "CAP_IAM_IDENTITY_CREATE", "CAP_IAM_IDENTITY_UPDATE", "CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_UPDATE",
  "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLE_BINDINGS_UPDATE", "CAP_IAM_GROUP_INVITES_CREATE",
];
/** The built-in roles, in the order bindings pick them. */
export const BUILTIN = ["viewer", "editor", "owner", "registry.pull"];

/** The shape of a random org: indices are reduced modulo what exists when the org is built. */
export interface OrgSpec {
  parents: number[];
  identities: number[];
  roles: Array<{ group: number; caps: string[] }>;
  bindings: Array<{ identity: number; role: number; group: number }>;
  /**
   * Whether the first identity trusts a subject pattern every other identity's own token matches (`present`); then
   * the second trusts a branch pattern of its own within it (`present` between two patterns, both ways), and a
   * fourth, where there is one, a pattern that shares no value with any other (never presents).
   */
  broad: boolean;
}

/** Random {@link OrgSpec}s. */
export const orgSpec: fc.Arbitrary<OrgSpec> = fc.record({
  parents: fc.array(fc.nat(), { minLength: 4, maxLength: 7 }),
  identities: fc.array(fc.nat(), { minLength: 3, maxLength: 6 }),
  roles: fc.array(fc.record({ group: fc.nat(), caps: fc.subarray(CUSTOM_CAPS, { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: 3 }),
  bindings: fc.array(fc.record({ identity: fc.nat(), role: fc.nat(), group: fc.nat() }), { minLength: 4, maxLength: 10 }),
  broad: fc.boolean(),
});

/** A built org: uids by spec index, the current subject of each identity, and the model's view of it. */
export interface Built {
  emu: Emulator;
  groups: string[]; // index 0 is the root
  identities: string[];
  customRoles: string[];
  bindings: string[];
  subject: Map<string, string>;
  /** The current claimMatch of each identity the spec made (an `assume` rewrites it). */
  claimMatch: Map<string, ClaimMatch>;
  /** The model the checks run on: the stack's objects and the live org outside it, composed as the commands compose them ({@link composed}). */
  org: AccessOrg;
  /** That model with its identities' uids and where each is managed (`this stack` or `unmanaged`), as `access --scope org` hands it to the queries. */
  composed: StackOrg;
  /** The model built straight from the API's Lists (`orgFromApi`), which {@link org} must agree with. */
  apiOrg: AccessOrg;
  /** The stack's objects, as `objectsFromState` reads them from its state. */
  stackObjects: StackObject[];
  /** The live org's objects outside the stack (`readLiveOrg`, then `outsideStack`). */
  outside: StackObject[];
}

/**
 * Whether object `i` (in the order the spec makes them) of a kind is the stack's: every other one, starting on the
 * side `salt` (a number of the spec) picks, so about half of each kind are, and which half moves from org to org.
 */
export const stackShare = (i: number, salt: number): boolean => (i + salt) % 2 === 0;

/** An object the stack holds: its kind, its API body after the build, and the inputs its program gave. */
interface Held {
  kind: "Group" | "Identity" | "Role" | "RoleBinding";
  api: Record<string, unknown>;
  inputs: Record<string, unknown>;
}

/**
 * The state's resource of `h` (`pulumi stack export`'s shape): the provider's outputs of the object as the API
 * returns it over the program's inputs (engine/declare.ts `outputsOf`, what create and read return), the inputs
 * the program gave. Every other resource carries the dynamic type token, the rest the native one (typeTokens.ts).
 */
function stateResource(h: Held, i: number): StateResource {
  const k = kindEntry(h.kind)!;
  const type = i % 2 === 0 ? `${DYNAMIC_TYPE_PREFIX}${h.kind}` : `platform:${k.module}:${h.kind}`;
  const name = String(h.inputs["name"] ?? `${h.kind.toLowerCase()}-${i}`);
  const outputs = k.outputsOf(h.api as { uid: string }, h.inputs) as Record<string, unknown>;
  return { urn: `urn:pulumi:dev::proj::${type}::${name}`, custom: true, type, id: String(h.api["uid"]), inputs: k.inputsOf(outputs) as Record<string, unknown>, outputs };
}

/**
 * How a mixed org was split, added up over the orgs a test builds: objects in the stack's state and outside it (the
 * live org's: the rest of the spec's objects, and the root, the built-in roles and the owner's binding), by kind.
 */
export class Split {
  readonly stack = new Map<string, number>();
  readonly outside = new Map<string, number>();
  /** Bindings whose identity, role or group is on the other side of the split (a stack's binding of a hand-made identity, …). */
  crossing = 0;
  /** Objects outside the stack that the spec did not make: the root, the built-in roles, the owner and its binding. */
  orgsOwn = 0;
  /** Counts `b`'s objects. */
  add(b: Built): void {
    for (const [m, objs] of [[this.stack, b.stackObjects], [this.outside, b.outside]] as const) for (const o of objs) m.set(o.kind, (m.get(o.kind) ?? 0) + 1);
    const made = new Set([...b.groups.slice(1), ...b.identities, ...b.customRoles, ...b.bindings]);
    this.orgsOwn += b.outside.filter((o) => !made.has(o.props["uid"] as string)).length;
    const mine = new Set(b.stackObjects.map((o) => o.props["uid"]));
    for (const o of [...b.stackObjects, ...b.outside]) {
      if (o.kind === "RoleBinding" && ["identityUid", "roleUid", "groupUid"].some((f) => mine.has(o.props[f]) !== mine.has(o.props["uid"]))) this.crossing++;
    }
  }
  /** Whether every kind the split takes (groups, identities, custom roles, bindings) is on both sides. */
  mixed(): boolean {
    return ["Group", "Identity", "Role", "RoleBinding"].every((k) => (this.stack.get(k) ?? 0) > 0 && (this.outside.get(k) ?? 0) > 0) && this.crossing > 0;
  }
  /** `objects in the stack N (…by kind) / outside M (…by kind), O of them the org's own; C bindings across the split`. */
  toString(): string {
    const side = (m: Map<string, number>) => `${[...m.values()].reduce((x, y) => x + y, 0)} (${[...m].map(([k, n]) => `${n} ${k}`).join(", ")})`;
    return `objects in the stack ${side(this.stack)} / outside ${side(this.outside)}, ${this.orgsOwn} of them the org's own (root, built-in roles, owner and its binding); ${this.crossing} bindings across the split`;
  }
}

/**
 * What a model says of each object, as sorted lines: every group's and identity's path by id (identities of the
 * spec's and of the org's own alike), every role's capabilities, every binding's identity, role and group.
 */
function modelFacts(org: AccessOrg): string[] {
  const ix = new OrgIndex(org);
  return [
    ...org.groups.map((g) => `group ${g.id} ${ix.groupPath(g.id)}`),
    ...org.identities.map((i) => `identity ${i.id} ${ix.identityPath(i.id)}`),
    ...org.roles.filter((r) => !r.id.startsWith("builtin:")).map((r) => `role ${r.id} ${r.name} ${[...r.capabilities].sort().join(",")}`),
    ...org.bindings.map((b) => `binding ${b.identityId} ${b.roleId} ${b.groupId}`),
  ].sort();
}

/** The model's grants as `identityId|capability|groupId` lines, sorted. */
const grantKeys = (org: AccessOrg, escalations: readonly EscalationKind[] | undefined): string[] =>
  [...new Set(effectiveAccess(org, escalations ? { escalations } : {}).map((g) => `${g.identityId}|${g.capability}|${g.groupId}`))].sort();

/**
 * Composes the model of a mixed org as `access --scope org` does (commands/access.ts `loadAccess`): `held` as the
 * stack's state, the live org under the root read through a PlatformClient, what the state does not hold, and
 * `orgFromStack` over both, with the built-in and other roles and the group names the live read gives.
 */
async function composeMixed(emu: Emulator, held: readonly Held[]): Promise<{ composed: StackOrg; stackObjects: StackObject[]; outside: StackObject[] }> {
  const stackObjects = objectsFromState(held.map(stateResource));
  // The state carries what the provider's outputs carry: the uid and the fields naming the other objects.
  const carried: Record<Held["kind"], string[]> = { Group: ["uid", "name", "parentUid"], Identity: ["uid", "name", "parentUid", "claimMatch"], Role: ["uid", "name", "parentUid", "capabilities"], RoleBinding: ["uid", "identityUid", "roleUid", "groupUid", "role"] };
  expect(stackObjects.map((o) => o.kind).sort(), "objectsFromState reads every resource of the state, under either type token").toEqual(held.map((h) => h.kind).sort());
  for (const o of stackObjects) for (const f of carried[o.kind as Held["kind"]]) expect(o.props[f], `${o.urn}: ${f} in the state`).toBeTruthy();
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  try {
    const live = await readLiveOrg(client, emu.orgUid);
    const outside = outsideStack(live.objects, stackObjects);
    const roles = new Map<string, RoleInfo>(live.objects.filter((o) => o.kind === "Role").map((o) => [o.props["uid"] as string, { name: o.name, capabilities: (o.props["capabilities"] as string[] | undefined) ?? [] }]));
    const groupNames = new Map(live.objects.filter((o) => o.kind === "Group").map((o) => [o.props["uid"] as string, o.name]));
    const ctx: StackContext = { role: (uid) => roles.get(uid), groupName: (uid) => groupNames.get(uid), rootUid: emu.orgUid };
    const so = orgFromStack([...stackObjects, ...outside], ctx);
    const mine = new Set(stackObjects.map((o) => o.props["uid"] as string));
    return { composed: { ...so, managed: new Map(so.org.identities.map((i) => [i.id, mine.has(i.id) ? "this stack" : "unmanaged"])) }, stackObjects, outside };
  } finally {
    await client.close();
  }
}

/** A counter for unique names across every org a test builds. */
let unique = 0;
/** The next unique number. */
export const next = (): number => ++unique;
/** Expects a 200, showing the body otherwise. */
export const ok = (r: Res, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(200);

/**
 * Builds `spec` on a fresh emulator through the API (owner token), and its model as a mixed org (see the header),
 * checked against the model of the API's Lists. A copy that only carries a path out (`mixed` false) keeps the
 * API's model and takes no share of the stack (its `stackObjects` and `outside` are empty): the checks never read it.
 */
export async function build(spec: OrgSpec, mixed = true): Promise<Built> {
  const emu = await startEmulator({ seed: {} });
  const groups = [emu.orgUid];
  /** The stack's objects by uid, with the inputs its program gave (their API bodies are read once the org is built). */
  const held = new Map<string, Omit<Held, "api">>();
  for (let i = 0; i < spec.parents.length; i++) {
    // Parent among the last three groups made: orgs come out several levels deep.
    const parent = groups[Math.max(0, groups.length - 1 - (spec.parents[i]! % 3))]!;
    const body = { name: `g${i}-${next()}` };
    const r = await api(emu, "POST", `${base("groups")}/${parent}`, body);
    ok(r, "create group");
    groups.push(r.body.uid);
    if (stackShare(i, spec.parents[0]!)) held.set(r.body.uid, { kind: "Group", inputs: { parentUid: parent, ...body, description: "" } });
  }
  const subject = new Map<string, string>();
  const claimMatches = new Map<string, ClaimMatch>();
  const identities: string[] = [];
  for (let i = 0; i < spec.identities.length; i++) {
    const n = next();
    // Its own workload's subject, and the claimMatch that admits it: exact, or one of the patterns of a broad org.
    let sub = `sub-${i}-${n}`;
    let claimMatch: ClaimMatch = { issuer: emu.issuer.url, subject: sub };
    if (spec.broad && i === 0) claimMatch = { issuer: emu.issuer.url, subjectPattern: "sub-.*" };
    if (spec.broad && i === 1) [sub, claimMatch] = [`sub-1-${n}:ref:refs/heads/main`, { issuer: emu.issuer.url, subjectPattern: `sub-1-${n}:ref:refs/heads/.*` }];
    if (spec.broad && i === 3) [sub, claimMatch] = [`other-3-${n}/x`, { issuer: emu.issuer.url, subjectPattern: `other-3-${n}/.*` }];
    const parent = groups[1 + (spec.identities[i]! % (groups.length - 1))]!;
    const body = { name: `id${i}-${unique}`, claimMatch };
    const r = await api(emu, "POST", `${base("identities")}/${parent}`, body);
    ok(r, "create identity");
    identities.push(r.body.uid);
    if (stackShare(i, spec.identities[0]!)) held.set(r.body.uid, { kind: "Identity", inputs: { parentUid: parent, ...body } });
    subject.set(r.body.uid, sub);
    claimMatches.set(r.body.uid, claimMatch);
  }
  const customRoles: string[] = [];
  for (const [i, role] of spec.roles.entries()) {
    const parent = groups[role.group % groups.length]!;
    const body = { name: `custom${i}-${next()}`, capabilities: role.caps };
    const r = await api(emu, "POST", `${base("roles")}/${parent}`, body);
    ok(r, "create role");
    customRoles.push(r.body.uid);
    if (stackShare(i, spec.roles[0]!.group)) held.set(r.body.uid, { kind: "Role", inputs: { parentUid: parent, ...body } });
  }
  const builtins = await Promise.all(BUILTIN.map((n) => builtinRole(emu, n)));
  const roleUids = [...builtins, ...customRoles];
  const bindings: string[] = [];
  for (const [i, b] of spec.bindings.entries()) {
    const groupUid = groups[b.group % groups.length]!;
    const body = { identityUid: identities[b.identity % identities.length]!, roleUid: roleUids[b.role % roleUids.length]! };
    const r = await api(emu, "POST", `${base("roleBindings")}/${groupUid}`, body);
    ok(r, "create binding");
    bindings.push(r.body.uid);
    if (stackShare(i, spec.bindings[0]!.identity)) held.set(r.body.uid, { kind: "RoleBinding", inputs: { groupUid, ...body } });
  }
  const rows = {
    groups: await listAll(emu, "groups"),
    identities: await listAll(emu, "identities"),
    roles: await listAll(emu, "roles"),
    roleBindings: await listAll(emu, "roleBindings"),
    identityProviders: await listAll(emu, "identityProviders"),
  };
  const apiOrg = orgFromApi(rows);
  if (!mixed) return { emu, groups, identities, customRoles, bindings, subject, claimMatch: claimMatches, org: apiOrg, composed: { org: apiOrg, identityUid: new Map() }, apiOrg, stackObjects: [], outside: [] };
  // The stack's objects as its state holds them after the build (each as the API returns it now), the rest read live.
  const bodies = new Map([...rows.groups, ...rows.identities, ...rows.roles, ...rows.roleBindings].map((x) => [x.uid as string, x as Record<string, unknown>]));
  const { composed, stackObjects, outside } = await composeMixed(emu, [...held].map(([uid, h]) => ({ ...h, api: bodies.get(uid)! })));
  const org = composed.org;
  // The composed model holds the API-built one's objects where it holds them (paths, capabilities, bindings) and
  // grants exactly what it grants: directly, and closed under every escalation.
  expect(modelFacts(org), "the stack's objects and the live org outside it hold what the API's Lists hold").toEqual(modelFacts(apiOrg));
  for (const escalations of [[], undefined] as const) {
    expect(grantKeys(org, escalations), `the stack's objects and the live org outside it grant what the API's Lists grant (${escalations ? "direct" : "with escalations"})`).toEqual(grantKeys(apiOrg, escalations));
  }
  // Direct grants never hide behind escalations: every binding's grant is listed with a binding route.
  const full = effectiveAccess(org);
  for (const b of org.bindings) {
    for (const cap of org.roles.find((r) => r.id === b.roleId)?.capabilities ?? []) {
      const listed = full.some((g) => g.identityId === b.identityId && g.capability === cap && g.via.some((v) => v.kind === "binding") && new OrgIndex(org).within(b.groupId, g.groupId));
      expect(listed, `${b.identityId} ${cap} at ${b.groupId}: a direct grant shown only by escalation`).toBe(true);
    }
  }
  return { emu, groups, identities, customRoles, bindings, subject, claimMatch: claimMatches, org, composed, apiOrg, stackObjects, outside };
}

/** An API token for `identity` through the token exchange, with its current subject. */
export async function tokenFor(b: Built, identity: string): Promise<string> {
  const oidc = await b.emu.issuer.mint(b.subject.get(identity)!);
  const r = await http(`${b.emu.authUrl}/sts/exchange${qs({ aud: b.emu.url, identity })}`, { token: oidc });
  ok(r, `exchange for ${identity}`);
  return r.body.token as string;
}

/** Whether the API allowed a request: 200 yes, PERMISSION_DENIED no, anything else fails the test. */
export function allowed(r: Res, what: string): boolean {
  if (r.status === 200) return true;
  expect(r.body?.code, `${what}: ${JSON.stringify(r.body)}`).toBe(7);
  return false;
}

/**
 * One request per probe capability that needs exactly that capability at `group` (collection.ts: the route's
 * capability at the row's scope). Objects the probe acts on are made first with the owner's token.
 */
export const PROBES: Record<string, (b: Built, group: string, token: string) => Promise<boolean>> = {
  CAP_IAM_GROUPS_LIST: async (b, g, t) => allowed(await api(b.emu, "GET", `${base("groups")}/${g}`, undefined, t), "get group"),
  CAP_IAM_GROUPS_UPDATE: async (b, g, t) => allowed(await api(b.emu, "PATCH", `${base("groups")}/${g}`, { description: `probe ${next()}` }, t), "patch group"),
  CAP_IAM_GROUPS_CREATE: async (b, g, t) => allowed(await api(b.emu, "POST", `${base("groups")}/${g}`, { name: `probe-${next()}` }, t), "create group"),
  CAP_IAM_GROUPS_DELETE: async (b, g, t) => {
    const child = await api(b.emu, "POST", `${base("groups")}/${g}`, { name: `doomed-${next()}` });
    ok(child, "owner creates a child to delete");
    return allowed(await api(b.emu, "DELETE", `${base("groups")}/${child.body.uid}`, undefined, t), "delete group");
  },
  CAP_IAM_IDENTITY_CREATE: async (b, g, t) =>
    allowed(await api(b.emu, "POST", `${base("identities")}/${g}`, { name: `probe-${next()}`, claimMatch: { issuer: "https://probe.example", subject: "p" } }, t), "create identity"),
  CAP_IAM_IDENTITY_UPDATE: async (b, g, t) => {
    const target = await api(b.emu, "POST", `${base("identities")}/${g}`, { name: `target-${next()}`, claimMatch: { issuer: "https://probe.example", subject: "t" } });
    ok(target, "owner creates an identity to edit");
    return allowed(await api(b.emu, "PATCH", `${base("identities")}/${target.body.uid}`, { description: "probe" }, t), "patch identity");
  },
  CAP_IAM_ROLES_CREATE: async (b, g, t) => allowed(await api(b.emu, "POST", `${base("roles")}/${g}`, { name: `probe-${next()}`, capabilities: ["CAP_IAM_GROUPS_LIST"] }, t), "create role"),
  CAP_IAM_ROLE_BINDINGS_CREATE: async (b, g, t) => {
    // The bound identity is a bystander made for the probe: its new grant changes nobody's access under test.
    const bystander = await api(b.emu, "POST", `${base("identities")}/${b.emu.orgUid}`, { name: `bystander-${next()}`, servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" });
    ok(bystander, "owner creates a bystander");
    return allowed(await api(b.emu, "POST", `${base("roleBindings")}/${g}`, { identityUid: bystander.body.uid, roleUid: await builtinRole(b.emu, "viewer") }, t), "create binding");
  },
  CAP_IAM_GROUP_INVITES_CREATE: async (b, g, t) => allowed(await api(b.emu, "POST", `${base("groupInvites")}/${g}`, { roleUid: await builtinRole(b.emu, "viewer"), ttl: "3600s" }, t), "create invite"),
};
/** The capabilities {@link PROBES} can try. */
export const PROBE_CAPS = Object.keys(PROBES);

/** How many `present` steps were carried out through a common value of two patterns (the actor's subject and the target's both patterns). */
export const presentedThroughPatterns = { count: 0 };

/** Carries out one escalation step as its actor; returns the identity acting after it. */
export async function carryOut(b: Built, step: EscalationStep, tokens: Map<string, string>, roleCaps: Map<string, string[]>): Promise<string> {
  const t = tokens.get(step.actorId) ?? (await tokenFor(b, step.actorId));
  tokens.set(step.actorId, t);
  switch (step.kind) {
    case "assume": {
      const sub = `taken-${next()}`;
      ok(await api(b.emu, "PATCH", `${base("identities")}/${step.targetId}`, { claimMatch: { issuer: b.emu.issuer.url, subject: sub } }, t), "rewrite claimMatch");
      b.subject.set(step.targetId, sub);
      b.claimMatch.set(step.targetId, { issuer: b.emu.issuer.url, subject: sub });
      tokens.set(step.targetId, await tokenFor(b, step.targetId));
      return step.targetId;
    }
    case "bind":
      ok(await api(b.emu, "POST", `${base("roleBindings")}/${step.groupId}`, { identityUid: step.actorId, roleUid: step.roleId }, t), "bind itself");
      return step.actorId;
    case "rebind": {
      const binding = (await listAll(b.emu, "roleBindings", { "uidp.children_of": step.binding.groupId })).find(
        (x) => x.identityUid === step.binding.identityId && x.roleUid === step.binding.roleId,
      );
      expect(binding, "the binding to rewrite").toBeDefined();
      ok(await api(b.emu, "PATCH", `${base("roleBindings")}/${binding.uid}`, { identityUid: step.actorId, roleUid: step.roleId }, t), "rewrite binding");
      return step.actorId;
    }
    case "editRole": {
      const caps = [...(roleCaps.get(step.roleId) ?? b.org.roles.find((r) => r.id === step.roleId)!.capabilities), step.capability];
      roleCaps.set(step.roleId, caps);
      ok(await api(b.emu, "PATCH", `${base("roles")}/${step.roleId}`, { capabilities: caps }, t), "edit role");
      return step.actorId;
    }
    case "createRole": {
      const role = await api(b.emu, "POST", `${base("roles")}/${step.roleGroupId}`, { name: `made-${next()}`, capabilities: [step.capability] }, t);
      ok(role, "create a custom role");
      ok(await api(b.emu, "POST", `${base("roleBindings")}/${step.groupId}`, { identityUid: step.actorId, roleUid: role.body.uid }, t), "bind itself to it");
      return step.actorId;
    }
    case "present": {
      // A token of the actor's own workload that the target accepts too, exchanged for the target: no API call, no
      // capability. Between two patterns it carries the common value the model found; with an exact subject, that.
      const common = presentedToken(b.claimMatch.get(step.actorId), b.claimMatch.get(step.targetId));
      const oidc = common
        ? await b.emu.issuer.mint(common.subject, { claims: common.claims, ...(common.audience !== undefined ? { audience: common.audience } : {}) })
        : await b.emu.issuer.mint(b.subject.get(step.actorId)!);
      if (common) {
        expect(common.issuer, "the common issuer is the emulator's test issuer").toBe(b.emu.issuer.url);
        const own = b.claimMatch.get(step.actorId)!;
        expect(own.subject ?? wholeMatch(own.subjectPattern!, common.subject), `${common.subject} is a subject of ${step.actorId}'s own workloads`).toBeTruthy();
        if (!own.subject && !b.claimMatch.get(step.targetId)?.subject) presentedThroughPatterns.count++;
      }
      const r = await http(`${b.emu.authUrl}/sts/exchange${qs({ aud: b.emu.url, identity: step.targetId })}`, { token: oidc });
      ok(r, `present ${step.actorId}'s token for ${step.targetId}`);
      tokens.set(step.targetId, r.body.token as string);
      return step.targetId;
    }
    default:
      throw new Error(`step ${step.kind} is not served by the emulator`);
  }
}

/**
 * Maps uids of org `a` to the same objects in its rebuilt copy `c`; identities the spec did not make (the
 * emulator's own, such as the bootstrap owner bound at the root) by name.
 */
export function translator(a: Built, c: Built): (uid: string) => string {
  const m = new Map<string, string>();
  const zip = (x: string[], y: string[]) => x.forEach((u, i) => m.set(u, y[i]!));
  zip(a.groups, c.groups);
  zip(a.identities, c.identities);
  zip(a.customRoles, c.customRoles);
  const foreign = (b: Built) => b.org.identities.filter((i) => !b.identities.includes(i.id));
  for (const i of foreign(a)) {
    const same = foreign(c).find((j) => j.name === i.name);
    if (same) m.set(i.id, same.id);
  }
  return (uid) => m.get(uid) ?? uid; // built-in role uids are the same in every emulator
}

/** `s` with every uid mapped by `tr` (a step of one org, for its copy). */
export function translateStep(s: EscalationStep, tr: (u: string) => string): EscalationStep {
  switch (s.kind) {
    case "assume":
      return { ...s, actorId: tr(s.actorId), targetId: tr(s.targetId), heldAt: tr(s.heldAt) };
    case "bind":
      return { ...s, actorId: tr(s.actorId), roleId: tr(s.roleId), groupId: tr(s.groupId) };
    case "rebind":
      return { ...s, actorId: tr(s.actorId), roleId: tr(s.roleId), binding: { identityId: tr(s.binding.identityId), roleId: tr(s.binding.roleId), groupId: tr(s.binding.groupId) } };
    case "editRole":
      return { ...s, actorId: tr(s.actorId), roleId: tr(s.roleId), heldAt: tr(s.heldAt) };
    case "createRole":
      return { ...s, actorId: tr(s.actorId), roleGroupId: tr(s.roleGroupId), groupId: tr(s.groupId) };
    case "present":
      return { ...s, actorId: tr(s.actorId), targetId: tr(s.targetId) };
    default:
      return s;
  }
}
