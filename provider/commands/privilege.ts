/**
 * Least privilege for the review jobs (docs/policy.md "Least privilege"): `gate` and `drift` run the program under
 * review (`pulumi preview`), which gets the job's API credentials in its environment and can call the API with
 * them before anyone has reviewed anything. The review needs only reads (get and list); this module finds what
 * else the job's credentials can do, so the command can say so.
 *
 * The caller is the identity the credentials name: the workload identity being assumed (`platform:identity` /
 * `PLATFORM_IDENTITY`), else the API token's subject (seed §5: tokens are issued to an identity; the token is
 * decoded, not verified: the answer is advice, the API decides). Its role bindings are listed under the org's
 * root (`platform:orgUid` / `PLATFORM_ORG_UID`, else the identity uid's first segment, seed §2 uidp; a user's
 * single-segment uid names no org), and each bound role's capabilities read (a built-in role by its
 * hydrated name). Any capability the access model does not count as a read (`isReadOnly`) is a write.
 */
import { decodeJwt } from "jose";
import { BUILTIN_ROLE_CAPABILITIES, isBuiltinRoleName } from "../access/builtin";
import { isReadOnly } from "../access/severity";
import type { PlatformClient } from "../client/client";
import type { Settings } from "../config";

/** One role binding of the caller that gives more than reads. */
export interface WriteGrant {
  /** The role's name. */
  role: string;
  /** The group's uid the binding is in. */
  group: string;
  /** Its group's name, when the binding hydrates it. */
  groupName?: string;
  /** The capabilities beyond reads (wire names, e.g. `CAP_IAM_ROLE_BINDINGS_CREATE`), sorted. */
  writes: string[];
}

/** What {@link writeGrants} found: the caller and its bindings beyond reads, or why it could not tell. */
export type PrivilegeCheck = { identity: string; grants: WriteGrant[] } | { unknown: string };

/** Whether a capability (wire name) only reads: the access model's rule (provider/access/severity.ts). */
export const readsOnly = isReadOnly;

/** The identity uid `settings` act as: the identity assumed, else the API token's `sub`; undefined when neither tells. */
export function callerOf(settings: Pick<Settings, "identity" | "token">): string | undefined {
  if (settings.identity) return settings.identity;
  if (!settings.token) return undefined;
  try {
    const sub = decodeJwt(settings.token).sub;
    return typeof sub === "string" && sub !== "" ? sub : undefined;
  } catch {
    return undefined; // not a JWT: an opaque token names no identity
  }
}

/**
 * The caller's role bindings that give more than reads, read from the API.
 * @returns `{ unknown }` with why (no identity in the credentials, a read refused): never throws for the API's answers.
 */
export async function writeGrants(client: PlatformClient, settings: Pick<Settings, "identity" | "token" | "orgUid">): Promise<PrivilegeCheck> {
  const identity = callerOf(settings);
  if (!identity) return { unknown: "the credentials name no identity (the token is not a JWT with a subject)" };
  const root = settings.orgUid || (identity.includes("/") ? identity.split("/")[0]! : undefined);
  if (!root) return { unknown: `identity ${identity} names no org; set platform:orgUid or PLATFORM_ORG_UID` };
  try {
    const bindings = (await client.roleBindings.list({ descendantsOf: root, pageSize: 200 }).collect()).filter((b) => (b.identityUid ?? b.identity?.uid) === identity);
    const out: WriteGrant[] = [];
    for (const b of bindings) {
      const name = b.role?.name ?? "";
      const roleUid = b.roleUid ?? b.role?.uid ?? "";
      const caps = isBuiltinRoleName(name) ? BUILTIN_ROLE_CAPABILITIES[name] : ((await client.roles.get(roleUid)).capabilities ?? []);
      const writes = [...new Set(caps.filter((c) => !readsOnly(c)))].sort();
      const group = b.uid.slice(0, b.uid.lastIndexOf("/"));
      if (writes.length) out.push({ role: name || roleUid, group, ...(b.group?.name ? { groupName: b.group.name } : {}), writes });
    }
    return { identity, grants: out };
  } catch (err) {
    return { unknown: `its role bindings could not be read (${(err as Error).message.split("\n")[0]})` };
  }
}

/** The warning {@link writeGrants}'s answer calls for, one line; undefined when the credentials only read. */
export function privilegeWarning(command: string, check: PrivilegeCheck): string | undefined {
  if ("unknown" in check) return `note: ${command} could not check that its API credentials only read: ${check.unknown}`;
  if (check.grants.length === 0) return undefined;
  const where = check.grants.map((g) => `${g.role} at ${g.groupName ?? g.group} (${g.writes.length} write capabilities, e.g. ${g.writes.slice(0, 2).join(", ")})`).join("; ");
  return `warning: ${command} runs the program under review with API credentials that can write (identity ${check.identity}: ${where}); the program could change the org during the preview, before any review. Give review jobs a viewer identity (docs/policy.md "Least privilege").`;
}
