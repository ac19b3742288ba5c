/**
 * The policies of the `platform` policy pack, in a module of their own so tests can call them without the pack
 * (`new PolicyPack()` starts a gRPC server at once). `index.ts` puts them in the pack.
 *
 * Each policy targets resources by their type token (`pulumi-nodejs:dynamic/platform:<Kind>`, or the native plugin's `platform:<module>:<Kind>`: `kindOfType`) and reads the
 * resource's inputs. The access policies (`access.ts`) decide from what is known at preview and follow unknown values
 * to the resources they come from; the others leave values not known during preview to @pulumi/policy (reading one
 * throws its `UnknownValueError`, which the framework turns into "not evaluated"). Every enforcement level and
 * list is configurable through the pack's config (`--policy-pack-config`).
 */
import type { PolicyConfigSchema, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { RE2JS } from "re2js";
import { isTrustworthyIssuer } from "../provider/validation";
import { outsideWorkloads } from "../provider/access/claims";
import { claimMatchOf } from "../provider/access/sources";
import { isKindType, kindOfType } from "../provider/typeTokens";
import { tagged } from "./change";
import {
  FOREIGN_PROBES,
  TYPE_PREFIX,
  customRoleNoEscalation,
  foreignMatch,
  groupInviteNarrow,
  identityBoundAboveItsGroup,
  identityProviderDefaultRole,
  noNewAccess,
  noOwnerAtRoot,
  roleBoundAboveItsGroup,
  apiRoleLookup,
  stackObjects,
} from "./access";
import { apiIdentityReader, unusedAccessWith } from "./unused";

/** `unused-access` (policies/unused.ts), reading roles and identities from the API with the environment's settings. */
export const unusedAccess = unusedAccessWith(() => ({ role: apiRoleLookup(), identity: apiIdentityReader() }), stackObjects);

export { TYPE_PREFIX, customRoleNoEscalation, groupInviteNarrow, identityBoundAboveItsGroup, identityProviderDefaultRole, noNewAccess, noOwnerAtRoot, roleBoundAboveItsGroup };
/** The seed's name rule and the OpenAPI's length limits. */
export const NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;
export const NAME_MIN = 3;
export const NAME_MAX = 63;

type Props = Record<string, unknown>;

/** Runs `check` only for resources of this package's `kind` (e.g. `Group`). */
function forKind(kind: string, check: (props: Props, args: ResourceValidationArgs, report: ReportViolation) => void) {
  return (args: ResourceValidationArgs, report: ReportViolation): void => {
    if (!isKindType(args.type, kind)) return;
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

/**
 * `identity-issuer-https` (mandatory): a claimMatch issuer is an https URL (or http on a loopback address, which
 * nothing off the machine can mint for, as the Identity resource's check allows); an issuerPattern is anchored.
 */
export const identityIssuerHttps: ResourceValidationPolicy = {
  name: "identity-issuer-https",
  description: "A workload identity trusts only https issuers; an issuerPattern is anchored (^...$) and matches no foreign issuer.",
  enforcementLevel: "mandatory",
  validateResource: forKind("Identity", (props, _args, report) => {
    const cm = props["claimMatch"] as Props | undefined;
    if (!cm) return;
    const issuer = cm["issuer"];
    if (typeof issuer === "string" && !(/^https:\/\/[^\s/]+/.test(issuer) || isTrustworthyIssuer(issuer))) report(`claimMatch.issuer "${issuer}" is not an https URL (nor http on a loopback address, a local test issuer)`);
    const pattern = cm["issuerPattern"];
    if (typeof pattern === "string" && !isAnchored(pattern)) report(`claimMatch.issuerPattern "${pattern}" is not anchored: write it as ^...$`);
    const foreign = typeof pattern === "string" ? foreignMatch(pattern, FOREIGN_PROBES.issuer) : undefined;
    if (foreign !== undefined) report(`claimMatch.issuerPattern "${String(pattern)}" matches a foreign issuer ("${foreign}"): anyone who runs an OIDC issuer there could mint tokens for this identity; list the issuer exactly`);
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

/** Where a pattern sits in an identity, and the probes it is judged by. */
function patternsOf(props: Props): Array<{ field: string; pattern: string; probes: readonly string[] }> {
  const out: Array<{ field: string; pattern: string; probes: readonly string[] }> = [];
  const cm = props["claimMatch"] as Props | undefined;
  const aws = props["awsIdentity"] as Props | undefined;
  const add = (field: string, v: unknown, probes: readonly string[]) => {
    if (typeof v === "string") out.push({ field, pattern: v, probes });
  };
  add("claimMatch.subjectPattern", cm?.["subjectPattern"], FOREIGN_PROBES.subject);
  add("claimMatch.audiencePattern", cm?.["audiencePattern"], FOREIGN_PROBES.audience);
  for (const [k, v] of Object.entries((cm?.["claimPatterns"] as Props | undefined) ?? {})) add(`claimMatch.claimPatterns.${k}`, v, FOREIGN_PROBES.claim);
  add("awsIdentity.arnPattern", aws?.["arnPattern"], FOREIGN_PROBES.arn);
  add("awsIdentity.userIdPattern", aws?.["userIdPattern"], FOREIGN_PROBES.userId);
  return out;
}

/**
 * `identity-subject-not-wildcard` (advisory): an identity pattern (subject, audience, claim, AWS ARN or user id)
 * judged by what it can match: it must match none of the values a foreign workload presents (another org's
 * repository, another namespace, an arbitrary string, the empty string), tried with RE2 as the service matches.
 */
export const identitySubjectNotWildcard: ResourceValidationPolicy = {
  name: "identity-subject-not-wildcard",
  description: "A workload identity's patterns (subject, audience, claims, AWS ARN or user id) match no foreign workload's values (.*, repo:.*, [^!]*, ...).",
  enforcementLevel: "advisory",
  validateResource: forKind("Identity", (props, _args, report) => {
    for (const { field, pattern, probes } of patternsOf(props)) {
      if (field === "claimMatch.subjectPattern" && matchesAnything(pattern)) {
        report(`${field} "${pattern}" matches any subject: any workload of that issuer could assume this identity`);
        continue;
      }
      const hit = foreignMatch(pattern, probes);
      if (hit !== undefined) report(`${field} "${pattern}" matches what a foreign workload presents (${JSON.stringify(hit)}): a workload outside yours could assume this identity; pin the owner, repository or namespace`);
    }
    // A well-known issuer's subject format says who else presents a matching token (provider/access/claims.ts).
    const cm = props["claimMatch"] as Props | undefined;
    const outside = outsideWorkloads(claimMatchOf(cm));
    if (outside.length) report(tagged("high", `claimMatch.subjectPattern "${String(cm?.["subjectPattern"])}" admits tokens of ${outside.join("; ")}: each can assume this identity and act with its grants; pin the repository and ref (or environment)`));
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
    const kind = kindOfType(args.type);
    if (kind === undefined) return;
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

/** Config of `unreviewed-resource`. */
export interface UnreviewedResourceConfig {
  /**
   * Globs over type tokens (`*` any run of characters) of resources the review may pass without seeing what they
   * do, e.g. `random:*`, `aws:s3/bucket:Bucket`. @default [] (every resource outside the package's kinds is reported)
   */
  allowedTypes?: string[];
  /** The severity of a finding (`critical`, `high` or `low`; the gate fails on critical and high by default). @default "high" */
  severity?: "critical" | "high" | "low";
}

/** A matcher of type tokens for `globs` (`*` any run of characters), compiled with RE2JS (linear time). */
export function typeMatcher(globs: readonly string[]): (type: string) => boolean {
  const res = globs.map((g, i) => {
    if (typeof g !== "string" || g === "" || g.length > 256) throw new Error(`unreviewed-resource.allowedTypes[${i}]: ${JSON.stringify(g)} is not a type glob of 1 to 256 characters, such as "random:*"`);
    return RE2JS.compile(`^${g.split("*").map((part) => RE2JS.quote(part)).join(".*")}$`);
  });
  return (type) => res.some((re) => re.matches(type));
}

/**
 * `unreviewed-resource` (mandatory, `high` by default): a custom resource outside this package's kinds, such as a
 * raw dynamic resource, a command or HTTP provider's resource, or any other provider's, can act on the API in ways
 * the review does not see (its create runs only at `pulumi up`), so the gate fails closed on it until its type is
 * allowed (`allowedTypes`). Components (no provider), the stack and providers (`pulumi:*`) are not reported.
 */
export const unreviewedResource: ResourceValidationPolicy = {
  name: "unreviewed-resource",
  description: "Every resource the change declares is one the review can judge: outside this package's kinds, a resource's type must be allowed (allowedTypes).",
  enforcementLevel: "mandatory",
  configSchema: { properties: { allowedTypes: { type: "array", items: { type: "string" } }, severity: { type: "string", enum: ["critical", "high", "low"] } } },
  validateResource: (args, report) => {
    if (kindOfType(args.type) !== undefined || args.type.startsWith("pulumi:") || args.provider === undefined) return;
    const cfg = args.getConfig<UnreviewedResourceConfig>();
    if (cfg.allowedTypes?.length && typeMatcher(cfg.allowedTypes)(args.type)) return;
    const dynamic = /^pulumi-[a-z]+:dynamic(?:[:/]|$)/.test(args.type);
    const what = dynamic ? "a dynamic resource runs its own code at `pulumi up`" : `provider ${JSON.stringify(args.provider.type.replace(/^pulumi:providers:/, ""))} acts outside the package's kinds`;
    report(
      tagged(
        cfg.severity ?? "high",
        `resource "${args.name}" of type ${args.type}: ${what}, and may change the org (role bindings, identities) where this review cannot see; remove it from the pull request, or allow its type in unreviewed-resource's allowedTypes once you know it cannot reach the Platform API`,
      ),
    );
  },
};

/** Every policy of the pack, in report order. */
export const policies: Array<ResourceValidationPolicy | StackValidationPolicy> = [
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
  roleBoundAboveItsGroup,
  customRoleNoEscalation,
  identityProviderDefaultRole,
  groupInviteNarrow,
  noNewAccess,
  unusedAccess,
  unreviewedResource,
];
