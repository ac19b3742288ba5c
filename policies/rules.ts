/**
 * The policies of the `platform` policy pack, in a module of their own so tests can call them without the pack
 * (FACTS.md: `new PolicyPack()` starts a gRPC server at once). `index.ts` puts them in the pack.
 *
 * Each policy targets resources by their type token (`pulumi-nodejs:dynamic/platform:<Kind>`) and reads the
 * resource's inputs. Values not known during preview are left to @pulumi/policy: reading one throws its
 * `UnknownValueError`, which the framework turns into "not evaluated". Every enforcement level and list is
 * configurable through the pack's config (`--policy-pack-config`).
 */
import type { PolicyConfigSchema, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import { RE2JS } from "re2js";

/** The type token prefix of this package's resources. */
export const TYPE_PREFIX = "pulumi-nodejs:dynamic/platform:";
/** The seed's name rule and the OpenAPI's length limits. */
export const NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;
export const NAME_MIN = 3;
export const NAME_MAX = 63;

type Props = Record<string, unknown>;

/** Runs `check` only for resources of this package's `kind` (e.g. `Group`). */
function forKind(kind: string, check: (props: Props, args: ResourceValidationArgs, report: ReportViolation) => void) {
  return (args: ResourceValidationArgs, report: ReportViolation): void => {
    if (args.type !== `${TYPE_PREFIX}${kind}`) return;
    check(args.props as Props, args, report);
  };
}

/** Why `name` breaks the name rule, or undefined. */
export function nameViolation(kind: string, name: unknown): string | undefined {
  if (typeof name !== "string") return undefined;
  const problems: string[] = [];
  if (!NAME_PATTERN.test(name)) problems.push(`match ${NAME_PATTERN.source}`);
  if (name.length < NAME_MIN || name.length > NAME_MAX) problems.push(`be ${NAME_MIN}-${NAME_MAX} characters long (it has ${name.length})`);
  return problems.length ? `${kind} name "${name}" must ${problems.join(" and ")}` : undefined;
}

function nameFormat(kind: "Group" | "Identity"): ResourceValidationPolicy {
  return {
    name: `${kind.toLowerCase()}-name-format`,
    description: `${kind} names match ${NAME_PATTERN.source} and are ${NAME_MIN}-${NAME_MAX} characters long.`,
    enforcementLevel: "mandatory",
    validateResource: forKind(kind, (props, _args, report) => {
      const why = nameViolation(kind, props["name"]);
      if (why) report(why);
    }),
  };
}

/** `group-name-format` (mandatory). */
export const groupNameFormat = nameFormat("Group");

/** `identity-name-format` (mandatory). */
export const identityNameFormat = nameFormat("Identity");

/** Whether a pattern is anchored at both ends (`^…$`), so it cannot match inside a longer value. */
export function isAnchored(pattern: string): boolean {
  return pattern.startsWith("^") && pattern.endsWith("$") && !pattern.endsWith("\\$");
}

/** `identity-issuer-https` (mandatory): a claimMatch issuer is an https URL; an issuerPattern is anchored. */
export const identityIssuerHttps: ResourceValidationPolicy = {
  name: "identity-issuer-https",
  description: "A workload identity trusts only https issuers; an issuerPattern is anchored (^...$).",
  enforcementLevel: "mandatory",
  validateResource: forKind("Identity", (props, _args, report) => {
    const cm = props["claimMatch"] as Props | undefined;
    if (!cm) return;
    const issuer = cm["issuer"];
    if (typeof issuer === "string" && !/^https:\/\/[^\s/]+/.test(issuer)) report(`claimMatch.issuer "${issuer}" is not an https URL`);
    const pattern = cm["issuerPattern"];
    if (typeof pattern === "string" && !isAnchored(pattern)) report(`claimMatch.issuerPattern "${pattern}" is not anchored: write it as ^...$`);
  }),
};

/** Values that no honest subject rule should match all of. */
const PROBES = ["", "x", "repo:attacker/evil:ref:refs/heads/main", "system:serviceaccount:kube-system:default", "project_path:other/group:ref_type:tag", "0123456789", "!@#$%^&*()", "line\nbreak"];

/**
 * Whether `pattern`, matched against the whole value, matches every probe (so, effectively anything).
 * The pattern is compiled and run with RE2 (`re2js`), as the service runs it (Go's regexp), never with
 * JavaScript's RegExp: a different language, and a user pattern could backtrack for ever. A pattern RE2 rejects
 * matches nothing here (the provider's check rejects it).
 */
export function matchesAnything(pattern: string): boolean {
  let re: RE2JS;
  try {
    re = RE2JS.compile(`^(?:${pattern})$`, RE2JS.DOTALL);
  } catch {
    return false;
  }
  return PROBES.every((p) => re.matches(p)) || PROBES.slice(1).every((p) => re.matches(p));
}

/** `identity-subject-not-wildcard` (advisory): a subjectPattern that matches anything is flagged. */
export const identitySubjectNotWildcard: ResourceValidationPolicy = {
  name: "identity-subject-not-wildcard",
  description: "A workload identity's subjectPattern must not match any subject (.*, .+, ^.*$, ...).",
  enforcementLevel: "advisory",
  validateResource: forKind("Identity", (props, _args, report) => {
    const pattern = (props["claimMatch"] as Props | undefined)?.["subjectPattern"];
    if (typeof pattern === "string" && matchesAnything(pattern)) {
      report(`claimMatch.subjectPattern "${pattern}" matches any subject: any workload of that issuer could assume this identity`);
    }
  }),
};

/** Config of `no-owner-at-root`. */
export interface NoOwnerAtRootConfig {
  /** The stack's root group uid; default: any single-segment (root) uid. */
  rootGroupUid?: string;
  /** uids of the owner role (the built-in role's uid differs per API); a binding whose hydrated role is named "owner" is caught too. */
  ownerRoleUids?: string[];
}

/** `no-owner-at-root` (advisory): a RoleBinding of the `owner` role on the root group is flagged. */
export const noOwnerAtRoot: ResourceValidationPolicy = {
  name: "no-owner-at-root",
  description: "No identity is bound to the owner role at the organization's root group.",
  enforcementLevel: "advisory",
  configSchema: {
    properties: {
      rootGroupUid: { type: "string", pattern: "^[0-9a-f]{40}$" },
      ownerRoleUids: { type: "array", items: { type: "string" } },
    },
  },
  validateResource: forKind("RoleBinding", (props, args, report) => {
    const cfg = args.getConfig<NoOwnerAtRootConfig>();
    const group = props["groupUid"];
    if (typeof group !== "string") return;
    const atRoot = cfg.rootGroupUid ? group === cfg.rootGroupUid : /^[0-9a-f]{40}$/.test(group);
    if (!atRoot) return;
    const roleUid = props["roleUid"];
    const roleName = (props["role"] as Props | undefined)?.["name"];
    const isOwner = (typeof roleUid === "string" && (cfg.ownerRoleUids ?? []).includes(roleUid)) || roleName === "owner";
    if (isOwner) report(`identity ${String(props["identityUid"])} is bound to the owner role at the root group ${group}; bind it lower in the tree or with a narrower role`);
  }),
};

/** Config of `description-required`. */
export interface DescriptionRequiredConfig {
  /** Kinds that need a description; default Group, Identity, Role, IdentityProvider. */
  kinds?: string[];
}

const DEFAULT_DESCRIBED = ["Group", "Identity", "Role", "IdentityProvider"];

/** `description-required` (advisory, configurable kinds). */
export const descriptionRequired: ResourceValidationPolicy = {
  name: "description-required",
  description: "Resources of the configured kinds have a non-empty description.",
  enforcementLevel: "advisory",
  configSchema: { properties: { kinds: { type: "array", items: { type: "string" } } } },
  validateResource: (args, report) => {
    if (!args.type.startsWith(TYPE_PREFIX)) return;
    const kind = args.type.slice(TYPE_PREFIX.length);
    const kinds = args.getConfig<DescriptionRequiredConfig>().kinds ?? DEFAULT_DESCRIBED;
    if (!kinds.includes(kind)) return;
    const d = (args.props as Props)["description"];
    if (d === undefined || (typeof d === "string" && d.trim() === "")) report(`${kind} "${String((args.props as Props)["name"] ?? args.name)}" has no description`);
  },
};

/** Config of `allowed-issuers`. */
export interface AllowedIssuersConfig {
  /** Issuer URLs identities may trust. Unset or empty: the policy checks nothing. */
  issuers?: string[];
}

/** `allowed-issuers` (mandatory when configured): identities may only trust issuers from the configured list. */
export const allowedIssuers: ResourceValidationPolicy = {
  name: "allowed-issuers",
  description: "Workload identities trust only issuers from the configured list (no list: not checked).",
  enforcementLevel: "mandatory",
  configSchema: { properties: { issuers: { type: "array", items: { type: "string" } } } } satisfies PolicyConfigSchema,
  validateResource: forKind("Identity", (props, args, report) => {
    const allowed = args.getConfig<AllowedIssuersConfig>().issuers ?? [];
    if (allowed.length === 0) return;
    const cm = props["claimMatch"] as Props | undefined;
    const issuer = cm?.["issuer"] ?? (props["staticKeys"] as Props | undefined)?.["issuer"];
    if (typeof issuer === "string" && !allowed.includes(issuer)) report(`issuer "${issuer}" is not one of the allowed issuers: ${allowed.join(", ")}`);
    if (typeof cm?.["issuerPattern"] === "string") report(`claimMatch.issuerPattern "${String(cm["issuerPattern"])}" cannot be checked against the allowed issuers; use claimMatch.issuer`);
  }),
};

/** Config of `repo-sync-source-allowed`. */
export interface RepoSyncSourceAllowedConfig {
  /**
   * Sources a repo may sync from, as written in `syncConfig.source`: a repo uid, a catalog name (`chainguard/nginx`)
   * or an image reference (`cgr.dev/chainguard/nginx`). An entry ending in `*` allows every source that starts
   * with what comes before it (e.g. `chainguard/*`). Unset or empty: the policy checks nothing.
   */
  sources?: string[];
}

/** Whether `source` is one of `allowed` (exact, or by a `prefix*` entry). */
export function sourceAllowed(source: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => (a.endsWith("*") ? source.startsWith(a.slice(0, -1)) : source === a));
}

/** `repo-sync-source-allowed` (mandatory when configured): repos sync only from the configured sources. */
export const repoSyncSourceAllowed: ResourceValidationPolicy = {
  name: "repo-sync-source-allowed",
  description: "Repos sync only from sources in the configured list (no list: not checked).",
  enforcementLevel: "mandatory",
  configSchema: { properties: { sources: { type: "array", items: { type: "string" } } } } satisfies PolicyConfigSchema,
  validateResource: forKind("Repo", (props, args, report) => {
    const allowed = args.getConfig<RepoSyncSourceAllowedConfig>().sources ?? [];
    if (allowed.length === 0) return;
    const source = (props["syncConfig"] as Props | undefined)?.["source"];
    if (typeof source === "string" && !sourceAllowed(source, allowed)) {
      report(`repo "${String(props["name"] ?? args.name)}" syncs from "${source}", which is not one of the allowed sources: ${allowed.join(", ")}`);
    }
  }),
};

/** `subscription-sink-https` (mandatory): an event subscription delivers only to an https URL. */
export const subscriptionSinkHttps: ResourceValidationPolicy = {
  name: "subscription-sink-https",
  description: "Event subscriptions deliver only to https URLs (events carry the org's activity).",
  enforcementLevel: "mandatory",
  validateResource: forKind("Subscription", (props, _args, report) => {
    const sink = props["sink"];
    if (typeof sink !== "string") return;
    let ok: boolean;
    try {
      const u = new URL(sink);
      ok = u.protocol === "https:" && u.hostname !== "";
    } catch {
      ok = false;
    }
    if (!ok) report(`subscription sink "${sink}" is not an https URL; events would travel unencrypted or nowhere`);
  }),
};

/** The group an identity lives in: its uid without the last segment; undefined for a user (one segment). */
function identityGroup(identityUid: string): string | undefined {
  const i = identityUid.lastIndexOf("/");
  return i < 0 ? undefined : identityUid.slice(0, i);
}

/**
 * `identity-bound-above-its-group` (advisory): a RoleBinding grants an identity a role at a group strictly above
 * the group the identity lives in. Whoever may edit identities in that lower group can rewrite the identity (its
 * claimMatch, for one) and so take over the role at the higher group: a child group's editor becomes the parent's
 * whatever-role-it-is. Bind at the identity's own group or below, or move the identity up to the group it acts on.
 */
export const identityBoundAboveItsGroup: ResourceValidationPolicy = {
  name: "identity-bound-above-its-group",
  description: "An identity is not granted a role on a group above its own group (editors of its group could take the role over).",
  enforcementLevel: "advisory",
  validateResource: forKind("RoleBinding", (props, _args, report) => {
    const identityUid = props["identityUid"];
    const groupUid = props["groupUid"];
    if (typeof identityUid !== "string" || typeof groupUid !== "string") return;
    const own = identityGroup(identityUid);
    if (own === undefined || !own.startsWith(`${groupUid}/`)) return;
    const role = (props["role"] as Props | undefined)?.["name"] ?? props["roleUid"];
    report(
      `identity ${identityUid} lives in group ${own} but is granted role ${String(role)} at ${groupUid}, above it: anyone who may edit identities in ${own} can rewrite this identity (e.g. its claimMatch) and assume that role at ${groupUid}; bind it at its own group or move the identity to ${groupUid}`,
    );
  }),
};

/** Every policy of the pack, in report order. */
export const policies: ResourceValidationPolicy[] = [
  groupNameFormat,
  identityNameFormat,
  identityIssuerHttps,
  identitySubjectNotWildcard,
  noOwnerAtRoot,
  descriptionRequired,
  allowedIssuers,
  repoSyncSourceAllowed,
  subscriptionSinkHttps,
  identityBoundAboveItsGroup,
];
