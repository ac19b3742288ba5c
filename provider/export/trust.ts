/**
 * What the export accepts from the server. The API validates names, uids, digests and sinks when they are
 * written (seed §2 "Group": a name must match `^[a-z0-9 ._-]{1,}$`; §7: a field that fails validation is
 * INVALID_ARGUMENT naming it), so every object it returns keeps those rules. A server that breaks them (compromised,
 * buggy, or something else answering at its URL) could otherwise put any text into the generated program; the
 * export refuses instead, naming the object and the field, before it writes anything.
 *
 * The rules are the ones the provider's own `check` applies to each field (`validation.ts`), so a program the
 * export writes also passes its first `pulumi preview`. Free text (descriptions, READMEs, claim patterns, a
 * binding's email) has no such rule: it is written through the escaping functions of `escape.ts` only.
 */
import { PlatformError, redact } from "../client/errors";
import { digestProblem, nameProblem, repoNameProblem, sinkProblem, tagNameProblem, uidpProblem } from "../validation";
import { printable, tsString } from "../escape";
import type { OrgSnapshot } from "./read";

/** The export met a value the API's own rule for its field forbids; nothing was written. */
export class ExportRefusedError extends PlatformError {
  /** The object's kind, e.g. `Group`. */
  readonly kind: string;
  /** The object's uid as the server sent it. */
  readonly uid: string;
  /** The field, e.g. `name` or `sync_config.source`. */
  readonly field: string;
  /** The value as the server sent it. */
  readonly value: unknown;
  constructor(kind: string, uid: string, field: string, value: unknown, problem: string) {
    super(redact(
      `export refused: the server returned ${kind} ${tsString(String(uid))} with ${field} ${typeof value === "string" ? tsString(value) : printable(JSON.stringify(value) ?? "undefined")}, ` +
        `which the API's own rule for that field forbids (${printable(problem)}); nothing was written. The API validates this field on write, ` +
        "so a server that sends it is not keeping to the API: check what answers at the API URL",
    ));
    this.kind = kind;
    this.uid = uid;
    this.field = field;
    this.value = value;
  }
}

type Rule = (v: unknown) => string | undefined;

/** A rule for a field that may be absent: checked only when set. */
const optional = (rule: Rule): Rule => (v) => (v === undefined || v === null || v === "" ? undefined : rule(v));

/**
 * Checks every server value the export writes as code against the API's rule for its field: uids (UIDP), names
 * of groups, identities, roles, identity providers and overlays (the name rule), repo and tag names (OCI), tag
 * digests, subscription sinks, and the uids objects refer to.
 * @throws ExportRefusedError at the first value that breaks its rule, naming the object's kind and uid, the field
 *   and the value (escaped).
 */
export function checkSnapshot(s: OrgSnapshot): void {
  const check = (kind: string, uid: unknown, fields: Array<[string, unknown, Rule]>) => {
    const uidProblem = uidpProblem(uid);
    if (uidProblem !== undefined) throw new ExportRefusedError(kind, String(uid), "uid", uid, uidProblem);
    for (const [field, value, rule] of fields) {
      const problem = rule(value);
      if (problem !== undefined) throw new ExportRefusedError(kind, uid as string, field, value, problem);
    }
  };
  const uidRef = optional(uidpProblem);
  check("Group", s.rootUid, []);
  check("Group", s.anchor.uid, [["name", s.anchor.name, nameProblem]]);
  for (const g of s.groups) check("Group", g.uid, [["name", g.name, nameProblem]]);
  for (const i of s.identities) check("Identity", i.uid, [["name", i.name, nameProblem]]);
  for (const r of [...s.roles, ...s.outsideRoles]) check("Role", r.uid, [["name", r.name, nameProblem]]);
  for (const b of s.roleBindings) {
    check("RoleBinding", b.uid, [
      ["identityUid", b.identityUid ?? b.identity?.uid, uidRef],
      ["roleUid", b.roleUid ?? b.role?.uid, uidRef],
    ]);
  }
  for (const p of s.identityProviders) check("IdentityProvider", p.uid, [["name", p.name, nameProblem], ["defaultRole", p.defaultRole, uidRef]]);
  for (const a of s.accountAssociations) check("AccountAssociation", a.uid, []);
  for (const r of s.repos) check("Repo", r.uid, [["name", r.name, repoNameProblem], ["sync_config.source", r.sync_config?.source, uidRef]]);
  for (const t of s.tags) check("Tag", t.uid, [["name", t.name, tagNameProblem], ["digest", t.digest, optional(digestProblem)]]);
  for (const o of s.overlays) check("Overlay", o.uid, [["name", o.name, nameProblem]]);
  for (const b of s.overlayBindings) {
    check("OverlayBinding", b.uid, [["overlay.uid", b.overlay?.uid, uidRef], ...b.tags.map((t, i): [string, unknown, Rule] => [`tags[${i}]`, t, tagNameProblem])]);
  }
  for (const x of s.subscriptions) check("Subscription", x.uid, [["sink", x.sink, sinkProblem]]);
}
