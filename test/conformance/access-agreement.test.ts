/**
 * The effective-access model (provider/access) against the emulator's enforcement, on seeded random orgs
 * (fast-check): groups nested several deep, identities, custom and built-in roles, bindings at several levels.
 *
 * 1. Direct grants: for every generated identity and every (probe capability, group) pair, allowed and denied
 *    alike, what the model says equals what the API answers when that identity, through the token exchange,
 *    attempts the action.
 * 2. Escalations: for every grant (of the probe capabilities) the model reports only through escalation, the test
 *    carries its path out step by step through the API on a fresh copy of the org (rewrite the claimMatch and
 *    assume, bind, rebind, edit the role, create a custom role and bind itself to it, present its own workload's
 *    token for an identity whose claimMatch pattern admits it) and the final action succeeds (it failed before).
 *    Each step is taken with the token of the identity the model credits it to. Half the orgs hold an identity
 *    trusting a subject pattern every other identity's token matches.
 * 4. Every direct grant is listed with its binding, never only behind an escalation above it.
 * 3. Out of reach: for a sample of pairs the closure does not reach, every attempt to get there is refused:
 *    the action itself, binding itself owner there, rewriting a binding there, taking over an identity that holds
 *    it, and adding it to a custom role bound to the identity.
 *
 * Invites and identity providers are left out of the executed closure: the emulator does not serve invite
 * redemption or sign-in through a provider, so those paths cannot be carried out here (their first step, creating
 * the invite or provider with the owner role, is checked to be accepted).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { OrgIndex, effectiveAccess, holds, type AccessOrg, type EscalationKind, type EscalationStep, type Grant } from "../../provider/access/model";
import { orgFromApi } from "../../provider/access/sources";
import { api, base, builtinRole, http, listAll, qs, type Res } from "./helpers";

const SEED = 2424;
const ORGS = 8;
const OUT_OF_REACH_PER_ORG = 40;
const EXECUTABLE: EscalationKind[] = ["assume", "bind", "rebind", "editRole", "createRole", "present"];

/** Capabilities a custom role is drawn from (the ones escalation turns on, and a few plain ones). */
const CUSTOM_CAPS = [
  "CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_UPDATE", "CAP_IAM_GROUPS_DELETE",
  "CAP_IAM_IDENTITY_CREATE", "CAP_IAM_IDENTITY_UPDATE", "CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_UPDATE",
  "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLE_BINDINGS_UPDATE", "CAP_IAM_GROUP_INVITES_CREATE",
];
const BUILTIN = ["viewer", "editor", "owner", "registry.pull"];

/** The shape of a random org: indices are reduced modulo what exists when the org is built. */
interface OrgSpec {
  parents: number[];
  identities: number[];
  roles: Array<{ group: number; caps: string[] }>;
  bindings: Array<{ identity: number; role: number; group: number }>;
  /** Whether the first identity trusts a subject pattern every other identity's own token matches (`present`). */
  broad: boolean;
}

const orgSpec: fc.Arbitrary<OrgSpec> = fc.record({
  parents: fc.array(fc.nat(), { minLength: 4, maxLength: 7 }),
  identities: fc.array(fc.nat(), { minLength: 3, maxLength: 6 }),
  roles: fc.array(fc.record({ group: fc.nat(), caps: fc.subarray(CUSTOM_CAPS, { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: 3 }),
  bindings: fc.array(fc.record({ identity: fc.nat(), role: fc.nat(), group: fc.nat() }), { minLength: 4, maxLength: 10 }),
  broad: fc.boolean(),
});

/** A built org: uids by spec index, the current subject of each identity, and the model's view of it. */
interface Built {
  emu: Emulator;
  groups: string[]; // index 0 is the root
  identities: string[];
  customRoles: string[];
  bindings: string[];
  subject: Map<string, string>;
  org: AccessOrg;
}

let unique = 0;
const ok = (r: Res, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(200);

/** Builds `spec` on a fresh emulator through the API (owner token). */
async function build(spec: OrgSpec): Promise<Built> {
  const emu = await startEmulator({ seed: {} });
  const groups = [emu.orgUid];
  for (let i = 0; i < spec.parents.length; i++) {
    // Parent among the last three groups made: orgs come out several levels deep.
    const parent = groups[Math.max(0, groups.length - 1 - (spec.parents[i]! % 3))]!;
    const r = await api(emu, "POST", `${base("groups")}/${parent}`, { name: `g${i}-${++unique}` });
    ok(r, "create group");
    groups.push(r.body.uid);
  }
  const subject = new Map<string, string>();
  const identities: string[] = [];
  for (let i = 0; i < spec.identities.length; i++) {
    const sub = `sub-${i}-${++unique}`;
    const claimMatch = spec.broad && i === 0 ? { issuer: emu.issuer.url, subjectPattern: "sub-.*" } : { issuer: emu.issuer.url, subject: sub };
    const r = await api(emu, "POST", `${base("identities")}/${groups[1 + (spec.identities[i]! % (groups.length - 1))]}`, { name: `id${i}-${unique}`, claimMatch });
    ok(r, "create identity");
    identities.push(r.body.uid);
    subject.set(r.body.uid, sub);
  }
  const customRoles: string[] = [];
  for (const [i, role] of spec.roles.entries()) {
    const r = await api(emu, "POST", `${base("roles")}/${groups[role.group % groups.length]}`, { name: `custom${i}-${++unique}`, capabilities: role.caps });
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
  return { emu, groups, identities, customRoles, bindings, subject, org };
}

/** An API token for `identity` through the token exchange, with its current subject. */
async function tokenFor(b: Built, identity: string): Promise<string> {
  const oidc = await b.emu.issuer.mint(b.subject.get(identity)!);
  const r = await http(`${b.emu.authUrl}/sts/exchange${qs({ aud: b.emu.url, identity })}`, { token: oidc });
  ok(r, `exchange for ${identity}`);
  return r.body.token as string;
}

/** Whether the API allowed a request: 200 yes, PERMISSION_DENIED no, anything else fails the test. */
function allowed(r: Res, what: string): boolean {
  if (r.status === 200) return true;
  expect(r.body?.code, `${what}: ${JSON.stringify(r.body)}`).toBe(7);
  return false;
}

/**
 * One request per probe capability that needs exactly that capability at `group` (collection.ts: the route's
 * capability at the row's scope). Objects the probe acts on are made first with the owner's token.
 */
const PROBES: Record<string, (b: Built, group: string, token: string) => Promise<boolean>> = {
  CAP_IAM_GROUPS_LIST: async (b, g, t) => allowed(await api(b.emu, "GET", `${base("groups")}/${g}`, undefined, t), "get group"),
  CAP_IAM_GROUPS_UPDATE: async (b, g, t) => allowed(await api(b.emu, "PATCH", `${base("groups")}/${g}`, { description: `probe ${++unique}` }, t), "patch group"),
  CAP_IAM_GROUPS_CREATE: async (b, g, t) => allowed(await api(b.emu, "POST", `${base("groups")}/${g}`, { name: `probe-${++unique}` }, t), "create group"),
  CAP_IAM_GROUPS_DELETE: async (b, g, t) => {
    const child = await api(b.emu, "POST", `${base("groups")}/${g}`, { name: `doomed-${++unique}` });
    ok(child, "owner creates a child to delete");
    return allowed(await api(b.emu, "DELETE", `${base("groups")}/${child.body.uid}`, undefined, t), "delete group");
  },
  CAP_IAM_IDENTITY_CREATE: async (b, g, t) =>
    allowed(await api(b.emu, "POST", `${base("identities")}/${g}`, { name: `probe-${++unique}`, claimMatch: { issuer: "https://probe.example", subject: "p" } }, t), "create identity"),
  CAP_IAM_IDENTITY_UPDATE: async (b, g, t) => {
    const target = await api(b.emu, "POST", `${base("identities")}/${g}`, { name: `target-${++unique}`, claimMatch: { issuer: "https://probe.example", subject: "t" } });
    ok(target, "owner creates an identity to edit");
    return allowed(await api(b.emu, "PATCH", `${base("identities")}/${target.body.uid}`, { description: "probe" }, t), "patch identity");
  },
  CAP_IAM_ROLES_CREATE: async (b, g, t) => allowed(await api(b.emu, "POST", `${base("roles")}/${g}`, { name: `probe-${++unique}`, capabilities: ["CAP_IAM_GROUPS_LIST"] }, t), "create role"),
  CAP_IAM_ROLE_BINDINGS_CREATE: async (b, g, t) => {
    // The bound identity is a bystander made for the probe: its new grant changes nobody's access under test.
    const bystander = await api(b.emu, "POST", `${base("identities")}/${b.emu.orgUid}`, { name: `bystander-${++unique}`, servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" });
    ok(bystander, "owner creates a bystander");
    return allowed(await api(b.emu, "POST", `${base("roleBindings")}/${g}`, { identityUid: bystander.body.uid, roleUid: await builtinRole(b.emu, "viewer") }, t), "create binding");
  },
  CAP_IAM_GROUP_INVITES_CREATE: async (b, g, t) => allowed(await api(b.emu, "POST", `${base("groupInvites")}/${g}`, { roleUid: await builtinRole(b.emu, "viewer"), ttl: "3600s" }, t), "create invite"),
};
const PROBE_CAPS = Object.keys(PROBES);

/** Carries out one escalation step as its actor; returns the identity acting after it. */
async function carryOut(b: Built, step: EscalationStep, tokens: Map<string, string>, roleCaps: Map<string, string[]>): Promise<string> {
  const t = tokens.get(step.actorId) ?? (await tokenFor(b, step.actorId));
  tokens.set(step.actorId, t);
  switch (step.kind) {
    case "assume": {
      const sub = `taken-${++unique}`;
      ok(await api(b.emu, "PATCH", `${base("identities")}/${step.targetId}`, { claimMatch: { issuer: b.emu.issuer.url, subject: sub } }, t), "rewrite claimMatch");
      b.subject.set(step.targetId, sub);
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
      const role = await api(b.emu, "POST", `${base("roles")}/${step.roleGroupId}`, { name: `made-${++unique}`, capabilities: [step.capability] }, t);
      ok(role, "create a custom role");
      ok(await api(b.emu, "POST", `${base("roleBindings")}/${step.groupId}`, { identityUid: step.actorId, roleUid: role.body.uid }, t), "bind itself to it");
      return step.actorId;
    }
    case "present": {
      // The actor's own workload token, exchanged for the target: no API call, no capability.
      const oidc = await b.emu.issuer.mint(b.subject.get(step.actorId)!);
      const r = await http(`${b.emu.authUrl}/sts/exchange${qs({ aud: b.emu.url, identity: step.targetId })}`, { token: oidc });
      ok(r, `present ${step.actorId}'s token for ${step.targetId}`);
      tokens.set(step.targetId, r.body.token as string);
      return step.targetId;
    }
    default:
      throw new Error(`step ${step.kind} is not served by the emulator`);
  }
}

/** The same uid in a rebuilt copy of the org. */
function translator(a: Built, c: Built): (uid: string) => string {
  const m = new Map<string, string>();
  const zip = (x: string[], y: string[]) => x.forEach((u, i) => m.set(u, y[i]!));
  zip(a.groups, c.groups);
  zip(a.identities, c.identities);
  zip(a.customRoles, c.customRoles);
  return (uid) => m.get(uid) ?? uid; // built-in role uids are the same in every emulator
}

function translateStep(s: EscalationStep, tr: (u: string) => string): EscalationStep {
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

describe("effective access agrees with the API's enforcement", () => {
  it(`${ORGS} orgs from seed ${SEED}: every identity × ${PROBE_CAPS.length} capabilities × every group; every reported escalation carried out, ${OUT_OF_REACH_PER_ORG} out-of-reach pairs attempted per org`, async () => {
    const counts = { direct: 0, allowed: 0, denied: 0, escalations: 0, paths: 0, escalationKinds: new Map<string, number>(), outOfReach: 0, refusedAttempts: 0, firstStepsOnly: 0 };
    await fc.assert(
      fc.asyncProperty(orgSpec, async (spec) => {
        const a = await build(spec);
        try {
          const ix = new OrgIndex(a.org);
          const direct = effectiveAccess(a.org, { escalations: [] });
          const closed = effectiveAccess(a.org, { escalations: EXECUTABLE });
          const tokens = new Map<string, string>();
          for (const id of a.identities) tokens.set(id, await tokenFor(a, id));

          // 1. Direct grants, every pair.
          for (const id of a.identities) {
            for (const g of a.groups) {
              for (const cap of PROBE_CAPS) {
                const says = holds(ix, direct, id, cap, g) !== undefined;
                const answer = await PROBES[cap]!(a, g, tokens.get(id)!);
                expect(answer, `${ix.identityPath(id)} ${cap} at ${ix.groupPath(g)}: model ${says}, API ${answer}`).toBe(says);
                counts.direct++;
                if (answer) counts.allowed++;
                else counts.denied++;
              }
            }
          }

          // 3. Out of reach (before any escalation changes the org).
          const unreachable: Array<[string, string, string]> = [];
          for (const id of a.identities) for (const g of a.groups) for (const cap of PROBE_CAPS) if (!holds(ix, closed, id, cap, g)) unreachable.push([id, cap, g]);
          const owner = await builtinRole(a.emu, "owner");
          for (const [id, cap, g] of fc.sample(fc.shuffledSubarray(unreachable, { minLength: Math.min(OUT_OF_REACH_PER_ORG, unreachable.length), maxLength: Math.min(OUT_OF_REACH_PER_ORG, unreachable.length) }), { seed: SEED, numRuns: 1 })[0]!) {
            const t = tokens.get(id)!;
            const attempts: Array<[string, Promise<Res>]> = [["bind itself owner", api(a.emu, "POST", `${base("roleBindings")}/${g}`, { identityUid: id, roleUid: owner }, t)]];
            const up = ix.ancestors(g);
            for (const b of a.org.bindings.filter((x) => up.includes(x.groupId))) {
              // Rewriting a binding that reaches g into one of itself to owner.
              const uid = (await listAll(a.emu, "roleBindings", { "uidp.children_of": b.groupId })).find((x) => x.identityUid === b.identityId && x.roleUid === b.roleId)?.uid;
              if (uid && b.identityId !== id) attempts.push([`rewrite binding ${uid}`, api(a.emu, "PATCH", `${base("roleBindings")}/${uid}`, { identityUid: id, roleUid: owner }, t)]);
              const role = a.org.roles.find((r) => r.id === b.roleId);
              // Adding the capability to a custom role bound to it where the binding reaches g.
              if (b.identityId === id && role?.groupId !== undefined && !role.capabilities.includes(cap)) {
                attempts.push([`edit role ${role.name}`, api(a.emu, "PATCH", `${base("roles")}/${role.id}`, { capabilities: [...role.capabilities, cap] }, t)]);
              }
            }
            // Taking over an identity that holds cap at g.
            for (const other of a.identities) {
              if (other !== id && holds(ix, closed, other, cap, g)) {
                attempts.push([`rewrite claimMatch of ${other}`, api(a.emu, "PATCH", `${base("identities")}/${other}`, { claimMatch: { issuer: a.emu.issuer.url, subject: `hijack-${++unique}` } }, t)]);
              }
            }
            attempts.push(["the action itself", PROBES[cap]!(a, g, t).then((yes) => ({ status: yes ? 200 : 403, body: { code: yes ? 0 : 7 }, ms: 0 }))]);
            for (const [what, p] of attempts) {
              const r = await p;
              expect(allowed(r, what), `${ix.identityPath(id)} reached ${cap} at ${ix.groupPath(g)} by "${what}", which the model says is out of reach`).toBe(false);
              counts.refusedAttempts++;
            }
            counts.outOfReach++;
          }

          // 2. Escalations: every reported escalated grant (of the probe capabilities). Grants that share a path
          // share one fresh copy of the org: the path is carried out once, then each of its final actions.
          const escalated: Grant[] = closed.filter((gr) => PROBE_CAPS.includes(gr.capability) && a.identities.includes(gr.identityId) && !holds(ix, direct, gr.identityId, gr.capability, gr.groupId));
          // Creating a custom role gives only what no existing role gives when every step is open (the probes' are
          // owner's): the closure of that step alone is carried out too, two of its paths per org.
          const created = effectiveAccess(a.org, { escalations: ["createRole"] }).filter(
            (gr) => PROBE_CAPS.includes(gr.capability) && a.identities.includes(gr.identityId) && !holds(ix, direct, gr.identityId, gr.capability, gr.groupId),
          );
          escalated.push(...created.slice(0, 2));
          const byPath = new Map<string, Grant[]>();
          for (const gr of escalated) {
            const key = JSON.stringify(gr.via[0]!.path);
            byPath.set(key, [...(byPath.get(key) ?? []), gr]);
          }
          for (const grants of byPath.values()) {
            const first = grants[0]!;
            const c = await build(spec);
            try {
              const tr = translator(a, c);
              const ctokens = new Map<string, string>();
              let actor = tr(first.identityId);
              const startToken = await tokenFor(c, actor);
              for (const gr of grants) {
                const before = await PROBES[gr.capability]!(c, tr(gr.groupId), startToken);
                expect(before, `${ix.identityPath(gr.identityId)} already holds ${gr.capability} directly`).toBe(false);
              }
              const roleCaps = new Map<string, string[]>();
              for (const s of first.via[0]!.path) {
                const step = translateStep(s, tr);
                // The copy's custom roles start as the original's.
                if (step.kind === "editRole" && s.kind === "editRole" && !roleCaps.has(step.roleId)) roleCaps.set(step.roleId, [...a.org.roles.find((r) => r.id === s.roleId)!.capabilities]);
                actor = await carryOut(c, step, ctokens, roleCaps);
              }
              const token = ctokens.get(actor) ?? (await tokenFor(c, actor));
              const shape = first.via[0]!.path.map((s) => s.kind).join(">");
              for (const gr of grants) {
                const after = await PROBES[gr.capability]!(c, tr(gr.groupId), token);
                expect(after, `after ${gr.via[0]!.steps.join("; ")}: ${gr.capability} at ${ix.groupPath(gr.groupId)}`).toBe(true);
                counts.escalations++;
                counts.escalationKinds.set(shape, (counts.escalationKinds.get(shape) ?? 0) + 1);
              }
              counts.paths++;
            } finally {
              await c.emu.close();
            }
          }

          // Invites and identity providers: the first step (the owner role at a group) is accepted.
          const full = effectiveAccess(a.org);
          const onlyByInvite = full.find((gr) => a.identities.includes(gr.identityId) && !holds(ix, closed, gr.identityId, gr.capability, gr.groupId) && gr.via[0]!.path.at(-1)?.kind === "invite" && gr.via[0]!.path.length === 1);
          if (onlyByInvite) {
            const step = onlyByInvite.via[0]!.path[0] as Extract<EscalationStep, { kind: "invite" }>;
            ok(await api(a.emu, "POST", `${base("groupInvites")}/${step.groupId}`, { roleUid: step.roleId, ttl: "3600s" }, tokens.get(step.actorId)), "create an owner invite");
            counts.firstStepsOnly++;
          }
        } finally {
          await a.emu.close();
        }
      }),
      { seed: SEED, numRuns: ORGS, endOnFailure: true },
    );
    const kinds = [...counts.escalationKinds].map(([k, n]) => `${k}: ${n}`).join(", ");
    console.log(
      `access agreement (seed ${SEED}, ${ORGS} orgs): ${counts.direct} direct pairs checked (${counts.allowed} allowed, ${counts.denied} denied); ` +
        `${counts.escalations} escalated grants carried out over ${counts.paths} paths (${kinds}); ${counts.outOfReach} out-of-reach pairs, ${counts.refusedAttempts} attempts all refused; ` +
        `${counts.firstStepsOnly} owner invites accepted as a first step`,
    );
    expect(counts.direct).toBeGreaterThan(0);
    expect(counts.allowed).toBeGreaterThan(0);
    expect(counts.denied).toBeGreaterThan(0);
    expect(counts.escalations).toBeGreaterThan(0);
  }, 120_000);
});
