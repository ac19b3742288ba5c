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
import { digestProblem, nameProblem, repoNameProblem, tagNameProblem, uidpProblem } from "../validation";
import { printable, tsString } from "../escape";
import { onTheWire } from "../engine/wire";
import { GENERIC_KINDS, genericCollection, type HandPlacedKind } from "./kinds";
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

/** One object to check: its uid, and each field the export writes as code with the rule the API keeps for it. */
type Checked = { uid: unknown; fields: Array<[field: string, value: unknown, rule: Rule]> };

const uidRef = optional(uidpProblem);

/**
 * The objects of each kind the export places by hand in a snapshot, with the fields to check. A mapped type over
 * those kinds: a kind placed by hand does not compile until its server values have their rules here.
 */
const CHECKS: { readonly [K in HandPlacedKind]: (s: OrgSnapshot) => Checked[] } = {
  Group: (s) => [
    { uid: s.rootUid, fields: [] },
    { uid: s.anchor.uid, fields: [["name", s.anchor.name, nameProblem]] },
    ...s.groups.map((g): Checked => ({ uid: g.uid, fields: [["name", g.name, nameProblem]] })),
  ],
  Identity: (s) => s.identities.map((i) => ({ uid: i.uid, fields: [["name", i.name, nameProblem]] })),
  Role: (s) => [...s.roles, ...s.outsideRoles].map((r) => ({ uid: r.uid, fields: [["name", r.name, nameProblem]] })),
  RoleBinding: (s) =>
    s.roleBindings.map((b) => ({
      uid: b.uid,
      fields: [
        ["identityUid", b.identityUid ?? b.identity?.uid, uidRef],
        ["roleUid", b.roleUid ?? b.role?.uid, uidRef],
      ],
    })),
  IdentityProvider: (s) => s.identityProviders.map((p) => ({ uid: p.uid, fields: [["name", p.name, nameProblem], ["defaultRole", p.defaultRole, uidRef]] })),
  AccountAssociation: (s) => s.accountAssociations.map((a) => ({ uid: a.uid, fields: [] })),
  Repo: (s) => s.repos.map((r) => ({ uid: r.uid, fields: [["name", r.name, repoNameProblem], ["sync_config.source", r.sync_config?.source, uidRef]] })),
  Tag: (s) => s.tags.map((t) => ({ uid: t.uid, fields: [["name", t.name, tagNameProblem], ["digest", t.digest, optional(digestProblem)]] })),
  Overlay: (s) => s.overlays.map((o) => ({ uid: o.uid, fields: [["name", o.name, nameProblem]] })),
  OverlayBinding: (s) =>
    s.overlayBindings.map((b) => ({
      uid: b.uid,
      fields: [["overlay.uid", b.overlay?.uid, uidRef], ...b.tags.map((t, i): [string, unknown, Rule] => [`tags[${i}]`, t, tagNameProblem])],
    })),
};

/**
 * The objects of each generic kind (`kinds.ts`) that the export declares, with their declaration's rules: every
 * field the writer takes from the server (`onTheWire`, `engine/wire.ts`) that has a `check`, applied to the value `read`
 * gives (as the provider's own check would; an `optional` field only when set), named by its wire key.
 */
function genericChecks(s: OrgSnapshot): Array<[kind: string, objects: Checked[]]> {
  return GENERIC_KINDS.filter((k) => k.export === undefined).map((k) => {
    const ruled = Object.entries(k.fields).filter(([, f]) => onTheWire(f) && f.check !== undefined);
    const rows = s[genericCollection(k.kind)] as ReadonlyArray<{ uid: string }>;
    return [k.kind, rows.map((x): Checked => {
      // A bad uid is refused before any field (checkSnapshot), so the outputs are made only of a well-formed one.
      if (uidpProblem(x.uid) !== undefined) return { uid: x.uid, fields: [] };
      const read = k.inputsOf(k.outputsOf(x)) as Record<string, unknown>;
      return {
        uid: x.uid,
        fields: ruled.filter(([name, f]) => !(f.optional && read[name] === undefined)).map(([name, f]): [string, unknown, Rule] => [f.wireKey ?? name, read[name], f.check!]),
      };
    })];
  });
}

/**
 * Checks every server value the export writes as code against the API's rule for its field: uids (UIDP), names
 * of groups, identities, roles, identity providers and overlays (the name rule), repo and tag names (OCI), tag
 * digests, the uids objects refer to, and each generic kind's fields by their declared `check` (subscription sinks).
 * @throws ExportRefusedError at the first value that breaks its rule, naming the object's kind and uid, the field
 *   and the value (escaped).
 */
export function checkSnapshot(s: OrgSnapshot): void {
  const hand = (Object.entries(CHECKS) as Array<[HandPlacedKind, (s: OrgSnapshot) => Checked[]]>).map(([kind, objects]): [string, Checked[]] => [kind, objects(s)]);
  for (const [kind, objects] of [...hand, ...genericChecks(s)]) {
    for (const { uid, fields } of objects) {
      const uidProblem = uidpProblem(uid);
      if (uidProblem !== undefined) throw new ExportRefusedError(kind, String(uid), "uid", uid, uidProblem);
      for (const [field, value, rule] of fields) {
        const problem = rule(value);
        if (problem !== undefined) throw new ExportRefusedError(kind, uid as string, field, value, problem);
      }
    }
  }
}
