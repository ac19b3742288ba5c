/**
 * `access --can`'s answer (provider/access/query.ts `canDo`, the function the command runs) against the emulator's
 * enforcement, on seeded random orgs (fast-check, the shapes of access-agreement.unit.test.ts): for random identities
 * (named by path or by uid), probe capabilities (dotted names) and groups (by path),
 * - a "yes" by a binding: the identity's exchanged token does the action;
 * - a "yes" by escalation: on a fresh copy of the org the action is refused, then the answer's path is carried out
 *   step by step, each step with the token of the identity it is credited to, and the action succeeds;
 * - a "no": the action is refused, and so is binding itself owner there.
 * Besides the random triples, three per org are drawn among the escalated holders `--who-can` lists for a random
 * probe capability and group, so that every org answers some "yes" by escalation. Only the escalation steps the
 * emulator serves end to end are closed over (no invite redemption, no sign-in through an identity provider).
 * The orgs are mixed: about half of their groups, identities, custom roles and bindings are one stack's (its state),
 * the rest outside it, read from the API; the queries run on the model composed from both as `access --scope org`
 * composes it (access-org.ts `build`, which checks it grants what the model built from the API's Lists grants).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dottedName } from "../../provider/capabilities";
import { accessQuery, canDo, whoCan } from "../../provider/access/query";
import { EXECUTABLE, PROBES, PROBE_CAPS, Split, allowed, build, carryOut, ok, orgSpec, tokenFor, translateStep, translator, type Built } from "./access-org";
import { scaled } from "../harness/scale";
import { api, base, builtinRole } from "./helpers";

const SEED = 3434;
const ORGS = scaled(8, 2);
const TRIPLES = 10;
const ESCALATED_PER_ORG = 3;

const triple = fc.record({ identity: fc.nat(), cap: fc.nat(), group: fc.nat(), byUid: fc.boolean() });

describe("access --can agrees with the API's enforcement", () => {
  it(`${ORGS} orgs from seed ${SEED}: ${TRIPLES} random (identity, capability, group) triples and ${ESCALATED_PER_ORG} escalated holders each; yes carried out, no refused`, async () => {
    const split = new Split();
    const counts = { yesDirect: 0, yesEscalated: 0, no: 0, refusedAttempts: 0, steps: 0, shapes: new Map<string, number>() };
    await fc.assert(
      fc.asyncProperty(orgSpec, fc.array(triple, { minLength: TRIPLES, maxLength: TRIPLES }), fc.array(triple, { minLength: ESCALATED_PER_ORG, maxLength: ESCALATED_PER_ORG }), async (spec, triples, picks) => {
        const a = await build(spec);
        split.add(a);
        try {
          const q = accessQuery(a.composed, EXECUTABLE);
          const asked: Array<{ who: string; cap: string; at: string }> = triples.map((t) => {
            const id = a.identities[t.identity % a.identities.length]!;
            return { who: t.byUid ? id : q.ix.identityPath(id), cap: dottedName(PROBE_CAPS[t.cap % PROBE_CAPS.length]!), at: q.ix.groupPath(a.groups[t.group % a.groups.length]!) };
          });
          // Escalated holders, as --who-can lists them for a capability at a group.
          for (const p of picks) {
            const cap = dottedName(PROBE_CAPS[p.cap % PROBE_CAPS.length]!);
            const candidates = a.groups.flatMap((g) => whoCan(q, cap, q.ix.groupPath(g)).filter((h) => h.holder.length > 0 && a.identities.includes(h.grant.identityId)).map((h) => ({ h, at: q.ix.groupPath(g) })));
            const c = candidates[p.group % Math.max(1, candidates.length)];
            if (c) asked.push({ who: p.byUid ? c.h.grant.identityId : c.h.holder.identity.path, cap, at: c.at });
          }
          const tokens = new Map<string, string>();
          const tokenOf = async (b: Built, id: string, cache: Map<string, string>) => cache.get(id) ?? cache.set(id, await tokenFor(b, id)).get(id)!;
          const owner = await builtinRole(a.emu, "owner");
          for (const { who, cap, at } of asked) {
            const answer = canDo(q, who, cap, at);
            const what = `can ${who} ${cap} at ${at}`;
            const wire = PROBE_CAPS.find((c) => dottedName(c) === cap)!;
            const id = a.identities.find((i) => i === who || q.ix.identityPath(i) === who)!;
            const group = a.groups.find((g) => q.ix.groupPath(g) === at)!;
            if (!answer.yes) {
              const t = await tokenOf(a, id, tokens);
              expect(await PROBES[wire]!(a, group, t), `${what}: "no", but the API allowed the action`).toBe(false);
              const bind = await api(a.emu, "POST", `${base("roleBindings")}/${group}`, { identityUid: id, roleUid: owner }, t);
              expect(allowed(bind, "bind itself owner"), `${what}: "no", but it bound itself owner there`).toBe(false);
              counts.no++;
              counts.refusedAttempts += 2;
              continue;
            }
            const route = answer.hit!.route;
            if (route.path.length === 0) {
              expect(await PROBES[wire]!(a, group, await tokenOf(a, id, tokens)), `${what}: "yes" by ${route.role} bound at ${answer.hit!.holder.via.boundAt}`).toBe(true);
              counts.yesDirect++;
              continue;
            }
            // Carried out on a fresh copy: refused before, allowed after the path.
            const c = await build(spec, false);
            try {
              const tr = translator(a, c);
              expect(await PROBES[wire]!(c, tr(group), await tokenFor(c, tr(id))), `${what}: allowed before its path`).toBe(false);
              const ctokens = new Map<string, string>();
              const roleCaps = new Map<string, string[]>();
              let actor = tr(id);
              for (const s of route.path) {
                const step = translateStep(s, tr);
                if (step.kind === "editRole" && s.kind === "editRole" && !roleCaps.has(step.roleId)) roleCaps.set(step.roleId, [...a.org.roles.find((r) => r.id === s.roleId)!.capabilities]);
                actor = await carryOut(c, step, ctokens, roleCaps);
                counts.steps++;
                // The probes set up their objects with the emulator's owner: a path that took the owner's own
                // binding over gives it back (as the rebinder, who holds that role there now) before the action.
                if (step.kind === "rebind" && !c.identities.includes(step.binding.identityId)) {
                  ok(await api(c.emu, "POST", `${base("roleBindings")}/${step.binding.groupId}`, { identityUid: step.binding.identityId, roleUid: step.binding.roleId }, ctokens.get(step.actorId)), "give the owner its binding back");
                }
              }
              const token = ctokens.get(actor) ?? (await tokenFor(c, actor));
              expect(await PROBES[wire]!(c, tr(group), token), `${what}: after ${route.steps.join("; ")}`).toBe(true);
              counts.yesEscalated++;
              const shape = route.path.map((x) => x.kind).join(">");
              counts.shapes.set(shape, (counts.shapes.get(shape) ?? 0) + 1);
            } finally {
              await c.emu.close();
            }
          }
        } finally {
          await a.emu.close();
        }
      }),
      { seed: SEED, numRuns: ORGS, endOnFailure: true },
    );
    console.log(
      `access --can agreement (seed ${SEED}, ${ORGS} mixed orgs, composed as access/gate compose them; ${split}): ${counts.yesDirect} yes by a binding done, ${counts.yesEscalated} yes by escalation carried out (${counts.steps} steps: ${[...counts.shapes].map(([k, n]) => `${k} ${n}`).join(", ")}), ` +
        `${counts.no} no refused (${counts.refusedAttempts} attempts)`,
    );
    expect(split.mixed(), `every kind on both sides of the split, and bindings across it: ${split}`).toBe(true);
    expect(counts.yesDirect).toBeGreaterThan(0);
    expect(counts.yesEscalated).toBeGreaterThan(0);
    expect(counts.no).toBeGreaterThan(0);
  }, 120_000);
});
