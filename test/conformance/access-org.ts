/**
 * Random orgs on the emulator for the access conformance tests (access-agreement, access-query): their shape
 * (fast-check), building one through the API, tokens through the token exchange, one probe request per capability,
 * and carrying an escalation step out as the identity it is credited to.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { OrgIndex, effectiveAccess, type AccessOrg, type EscalationKind, type EscalationStep } from "../../provider/access/model";
import { presentedToken, wholeMatch } from "../../provider/access/languages";
import { orgFromApi } from "../../provider/access/sources";
import type { ClaimMatch } from "../../provider/client/types";
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
  org: AccessOrg;
}

/** A counter for unique names across every org a test builds. */
let unique = 0;
/** The next unique number. */
export const next = (): number => ++unique;
/** Expects a 200, showing the body otherwise. */
export const ok = (r: Res, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(200);

/** Builds `spec` on a fresh emulator through the API (owner token). */
export async function build(spec: OrgSpec): Promise<Built> {
  const emu = await startEmulator({ seed: {} });
  const groups = [emu.orgUid];
  for (let i = 0; i < spec.parents.length; i++) {
    // Parent among the last three groups made: orgs come out several levels deep.
    const parent = groups[Math.max(0, groups.length - 1 - (spec.parents[i]! % 3))]!;
    const r = await api(emu, "POST", `${base("groups")}/${parent}`, { name: `g${i}-${next()}` });
    ok(r, "create group");
    groups.push(r.body.uid);
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
    const r = await api(emu, "POST", `${base("identities")}/${groups[1 + (spec.identities[i]! % (groups.length - 1))]}`, { name: `id${i}-${unique}`, claimMatch });
    ok(r, "create identity");
    identities.push(r.body.uid);
    subject.set(r.body.uid, sub);
    claimMatches.set(r.body.uid, claimMatch);
  }
  const customRoles: string[] = [];
  for (const [i, role] of spec.roles.entries()) {
    const r = await api(emu, "POST", `${base("roles")}/${groups[role.group % groups.length]}`, { name: `custom${i}-${next()}`, capabilities: role.caps });
    ok(r, "create role");
    customRoles.push(r.body.uid);
  }
  const builtins = await Promise.all(BUILTIN.map((n) => builtinRole(emu, n)));
  const roleUids = [...builtins, ...customRoles];
  const bindings: string[] = [];
  for (const b of spec.bindings) {
    const r = await api(emu, "POST", `${base("roleBindings")}/${groups[b.group % groups.length]}`, {
      identityUid: identities[b.identity % identities.length],
      roleUid: roleUids[b.role % roleUids.length],
    });
    ok(r, "create binding");
    bindings.push(r.body.uid);
  }
  const org = orgFromApi({
    groups: await listAll(emu, "groups"),
    identities: await listAll(emu, "identities"),
    roles: await listAll(emu, "roles"),
    roleBindings: await listAll(emu, "roleBindings"),
    identityProviders: await listAll(emu, "identityProviders"),
  });
  // Direct grants never hide behind escalations: every binding's grant is listed with a binding route.
  const full = effectiveAccess(org);
  for (const b of org.bindings) {
    for (const cap of org.roles.find((r) => r.id === b.roleId)?.capabilities ?? []) {
      const listed = full.some((g) => g.identityId === b.identityId && g.capability === cap && g.via.some((v) => v.kind === "binding") && new OrgIndex(org).within(b.groupId, g.groupId));
      expect(listed, `${b.identityId} ${cap} at ${b.groupId}: a direct grant shown only by escalation`).toBe(true);
    }
  }
  return { emu, groups, identities, customRoles, bindings, subject, claimMatch: claimMatches, org };
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
