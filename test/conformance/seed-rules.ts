/**
 * Every numbered rule and table row of the API description (the seed, "Platform API v2 (beta)", §1–§9), in the
 * project's own words: an id, a one-line summary and, for a rule the emulator and provider client cannot honour
 * or that states no behaviour, the reason it has no test.
 *
 * Traceability: a test whose name is `<id>: <behaviour>` covers that rule (`test/conformance/seed.test.ts` holds
 * them). The summary reporter (`test/summary-reporter.ts`) prints `seed coverage: N/M rules covered; uncovered:
 * …` from the tests that passed, and counts a rule with neither a passing test nor a reason as a failure.
 *
 * This list is project-owned on purpose: it must not be read from outside the repository at test time.
 */

/** One rule or table row of the seed. */
export interface SeedRule {
  /** Its place, e.g. `§4 rule 4` or `§2 Group verified`; a covering test's name starts with `<id>:`. */
  id: string;
  /** What the rule says, in one line. */
  summary: string;
  /** Why no test covers it (e.g. "gRPC: out of scope"); absent when a test must cover it. */
  reason?: string;
}

/** The seed's rules and table rows, in document order. */
export const SEED_RULES: readonly SeedRule[] = [
  // §1 What the service does
  { id: "§1 table IAM", summary: "Groups, Identities, Roles, RoleBindings, IdentityProviders, AccountAssociations, GroupInvites: List, Get, Create, Update, Delete" },
  { id: "§1 table Registry", summary: "Repos, Tags: List, Get" },
  { id: "§1 table Vulnerabilities", summary: "Advisories: List, Get" },
  { id: "§1 rule 1", summary: "v2 endpoints live under /iam/v2beta1/, /registry/v2beta1/, /vulnerabilities/v2beta1/" },
  { id: "§1 rule 2", summary: "the v2 API is in beta", reason: "informational: the API is in beta (no behaviour to test)" },
  { id: "§1 rule 3", summary: "v2 adds cursor pagination, order_by, skip, structured errors, uid/createTime/updateTime, hydrated references, field masks, Get by uid" },
  { id: "§1 rule 4", summary: "groups form a hierarchy under a root organization; uidp.descendants_of / uidp.children_of scope on it" },
  { id: "§1 rule 5", summary: "v1 endpoints stay available alongside v2" },

  // §2 Resources and their fields
  { id: "§2 common rule 1", summary: "every resource has uid, createTime, updateTime (RFC 3339, milliseconds, Z); role bindings have no updateTime" },
  { id: "§2 common rule 2", summary: "a child's uid extends its parent group's uid by slash-separated segments; a built-in role uid is one hex segment" },
  { id: "§2 common rule 3", summary: "timestamps are server-assigned" },
  { id: "§2 Group uid", summary: "group uid is server-assigned" },
  { id: "§2 Group name", summary: "group name is required on create and must match ^[a-z0-9 ._-]{1,}$" },
  { id: "§2 Group description", summary: "group description is optional" },
  { id: "§2 Group resourceLimits", summary: "resourceLimits is an object, empty when no limits are set" },
  { id: "§2 Group verified", summary: "verified is a boolean, false for a newly created group" },
  { id: "§2 Group createTime/updateTime", summary: "group createTime and updateTime are timestamps" },
  { id: "§2 Identity uid", summary: "identity uid is server-assigned" },
  { id: "§2 Identity name", summary: "identity name is required on create" },
  { id: "§2 Identity description", summary: "identity description is optional" },
  { id: "§2 Identity claimMatch", summary: "claimMatch holds issuer (URL) and subject" },
  { id: "§2 Identity lastSeenTime", summary: "lastSeenTime is a server-set timestamp, present in the create response" },
  { id: "§2 Identity createTime/updateTime", summary: "identity createTime and updateTime are timestamps" },
  { id: "§2 Role fields", summary: "a role has uid, name, description" },
  { id: "§2 Role built-in viewer", summary: "built-in roles exist; one is named viewer with a description marking it built in" },
  { id: "§2 Role listed without scope", summary: "roles are listed without a scoping parameter" },
  { id: "§2 RoleBinding request identityUid", summary: "role-binding create requires identityUid" },
  { id: "§2 RoleBinding request roleUid", summary: "role-binding create requires roleUid" },
  { id: "§2 RoleBinding response uid", summary: "the binding response has uid" },
  { id: "§2 RoleBinding response identity", summary: "identity is hydrated: uid, name, description, subject, issuer" },
  { id: "§2 RoleBinding response group", summary: "group is hydrated: uid, name, description" },
  { id: "§2 RoleBinding response role", summary: "role is hydrated: uid, name, description" },
  { id: "§2 RoleBinding response createTime", summary: "the binding response has createTime" },
  { id: "§2 Repo fields", summary: "a repo has uid, name, createTime" },
  { id: "§2 Other resources", summary: "fields of tags, advisories, identity providers, account associations, group invites", reason: "informational: their fields are not shown in the seed" },
  { id: "§2 List envelope plural", summary: "the page's resources sit under the plural lower-camel resource name" },
  { id: "§2 List envelope nextPageToken", summary: "nextPageToken is an opaque cursor, absent or empty on the last page" },
  { id: "§2 List envelope totalCount", summary: "totalCount counts all matches across pages, as a decimal string" },
  { id: "§2 List envelope skipped", summary: "skipped is an integer echoing the skip applied" },

  // §3 States and transitions
  { id: "§3 States", summary: "no lifecycle states or transitions", reason: "informational: no states or transitions are described" },

  // §4 Endpoints
  { id: "§4 preamble", summary: "JSON bodies; the parent group goes in the URL path on create and the body holds only resource fields" },
  { id: "§4 param uidp.descendants_of", summary: "restricts a List to resources under a group at any depth" },
  { id: "§4 param uidp.children_of", summary: "restricts a List to a group's direct children" },
  { id: "§4 param name", summary: "exact-match name filter" },
  { id: "§4 param page_size", summary: "results per page; default 50, max 200" },
  { id: "§4 param page_token", summary: "opaque cursor from the previous nextPageToken" },
  { id: "§4 param order_by", summary: "sort field, optionally followed by ' desc'; ascending by default; name, name desc, created_at desc" },
  { id: "§4 param skip", summary: "number of leading results to skip" },
  { id: "§4 list rule 1", summary: "ordering persists across pages when a cursor is followed" },
  { id: "§4 list rule 2", summary: "skip combines with page_size and order_by; skipped equals the value applied" },
  { id: "§4 list rule 3", summary: "name filtering returns exact matches only" },
  { id: "§4 list rule 4", summary: "all List endpoints accept the same pagination and ordering parameters" },
  { id: "§4 list rule 5", summary: "a List call can be made without a scoping parameter" },
  { id: "§4 endpoint GET /iam/v2beta1/groups", summary: "List envelope with groups" },
  { id: "§4 endpoint GET /iam/v2beta1/groups/{group_uid}", summary: "returns the Group" },
  { id: "§4 endpoint POST /iam/v2beta1/groups/{parent_group_uid}", summary: "body name (required), description; returns the Group" },
  { id: "§4 endpoint PATCH /iam/v2beta1/groups/{group_uid}", summary: "optional updateMask; returns the updated Group" },
  { id: "§4 endpoint DELETE /iam/v2beta1/groups/{group_uid}", summary: "empty body on success" },
  { id: "§4 endpoint POST /iam/v2beta1/identities/{group_uid}", summary: "body name, description, claimMatch; returns the Identity" },
  { id: "§4 endpoint DELETE /iam/v2beta1/identities/{identity_uid}", summary: "empty body on success" },
  { id: "§4 endpoint GET /iam/v2beta1/roles", summary: "List envelope with roles, no parameter required" },
  { id: "§4 endpoint POST /iam/v2beta1/roleBindings/{group_uid}", summary: "body identityUid, roleUid; returns the hydrated RoleBinding" },
  { id: "§4 endpoint DELETE /iam/v2beta1/roleBindings/{binding_uid}", summary: "empty body on success" },
  { id: "§4 endpoint GET /registry/v2beta1/repos", summary: "List envelope with repos" },
  { id: "§4 rule 1", summary: "Get by uid is a direct lookup returning the bare resource" },
  { id: "§4 rule 2", summary: "PATCH without updateMask changes only the fields present in the body" },
  { id: "§4 rule 3", summary: "PATCH with updateMask changes only the listed fields; other body fields are ignored" },
  { id: "§4 rule 4", summary: "deleting a group that still has children fails with a precondition failure" },
  { id: "§4 rule 5", summary: "creating a group with {} fails validation (name required)" },
  { id: "§4 rule 6", summary: "a full cleanup deletes role binding, identity, group, in that order" },
  { id: "§4 token exchange", summary: "GET {auth_url}/sts/exchange?aud=<API base>&identity=<uid> with a Bearer OIDC token returns {token}" },

  // §5 Authentication
  { id: "§5 rule 1", summary: "every API call sends Authorization: Bearer <token>; the token model is OIDC-based" },
  { id: "§5 rule 2", summary: "access control is identity based: the caller's role bindings decide" },
  { id: "§5 rule 3", summary: "users get a token from the vendor CLI after a browser login", reason: "vendor CLI: interactive browser login is outside the HTTP API" },
  { id: "§5 rule 4", summary: "a workload assumes an identity by CLI or by the token exchange; an exchanged token is valid for one hour" },
  { id: "§5 rule 5", summary: "the token audience is the API base address" },
  { id: "§5 rule 6", summary: "a role binding ties an identity to a role within a group; built-in roles include viewer" },
  { id: "§5 rule 7", summary: "any identity may be made assumable; assumable identities are created with the Identity create endpoint" },
  { id: "§5 rule 8", summary: "the registry accepts the same kind of token" },

  // §6 Events
  { id: "§6 Events", summary: "no events, webhooks or notifications", reason: "informational: no events are described" },

  // §7 Errors
  { id: "§7 field code", summary: "code is an integer of the gRPC code space" },
  { id: "§7 field message", summary: "message reads 'Invalid argument: <field>: <description>' or 'Precondition failed: <description>'" },
  { id: "§7 field details", summary: "details are typed objects with @type ending in the detail type name" },
  { id: "§7 detail ErrorInfo", summary: "ErrorInfo has reason and domain, domain shaped iam.<service_domain>" },
  { id: "§7 detail BadRequest", summary: "BadRequest has fieldViolations [{field, description}]" },
  { id: "§7 detail PreconditionFailure", summary: "PreconditionFailure has violations [{type, description}]" },
  { id: "§7 known case validation", summary: "a failing field is code 3, reason INVALID_ARGUMENT, one BadRequest violation per field" },
  { id: "§7 known case non-empty group", summary: "deleting a group with children is code 9, reason FAILED_PRECONDITION, violation type RESOURCE_NOT_EMPTY" },
  { id: "§7 other rule 1", summary: "an expired page token is not an error: the query restarts from the beginning" },
  { id: "§7 other rule 2", summary: "HTTP status codes for these codes", reason: "informational: not shown in the seed (the emulator uses the standard gRPC-to-HTTP mapping, tested elsewhere)" },
  { id: "§7 other rule 3", summary: "codes for missing resources, unauthenticated or forbidden calls", reason: "informational: not shown in the seed" },

  // §8 Limits
  { id: "§8 limit page_size default", summary: "page_size defaults to 50" },
  { id: "§8 limit page_size maximum", summary: "page_size is at most 200" },
  { id: "§8 limit page token lifetime", summary: "a page token lives 3 days; afterwards the query restarts without error" },
  { id: "§8 limit token lifetime", summary: "an exchanged API token lives 1 hour" },
  { id: "§8 limit rate limits", summary: "rate limits are not enforced during beta" },

  // §9 Versioning
  { id: "§9 rule 1", summary: "the path segment v2beta1 marks the beta of v2" },
  { id: "§9 rule 2", summary: "v1 paths (/iam/v1/..., /registry/v1/...) remain available" },
  { id: "§9 rule 3", summary: "migration: /iam/v1/ -> /iam/v2beta1/; id -> uid, createdAt -> createTime, updatedAt -> updateTime" },
  { id: "§9 rule 4", summary: "v1 List responses use the key items; v2 uses the plural resource name" },
  { id: "§9 rule 5", summary: "v1 updates need the full resource; v2 updates are partial", reason: "v1 write methods and bodies are not shown; v1 is served read-only (List, Get), v2 partial updates are §4 rules 2 and 3" },
  { id: "§9 rule 6", summary: "v1 gets a deprecation window after v2 GA", reason: "informational: a future policy; its length is not shown" },
  { id: "§9 rule 7", summary: "every endpoint is also offered over gRPC", reason: "gRPC: out of scope (the emulator serves HTTP/JSON only)" },
];

/** Whether a test named `name` claims rule `id`: the name is `<id>: …`. */
export function namesRule(name: string, id: string): boolean {
  return name.startsWith(`${id}:`);
}

/**
 * Seed coverage from the names of the tests that passed.
 * @returns covered ids, uncovered rules that have a reason, and uncovered rules without one (a failure).
 */
export function seedCoverage(passedNames: readonly string[], rules: readonly SeedRule[] = SEED_RULES): { covered: SeedRule[]; excused: SeedRule[]; missing: SeedRule[] } {
  const claims = passedNames.filter((n) => n.startsWith("§"));
  const covered: SeedRule[] = [];
  const excused: SeedRule[] = [];
  const missing: SeedRule[] = [];
  for (const r of rules) {
    if (claims.some((n) => namesRule(n, r.id))) covered.push(r);
    else if (r.reason) excused.push(r);
    else missing.push(r);
  }
  return { covered, excused, missing };
}

/**
 * The one-line figure the reporter prints: `seed coverage: N/M rules covered; uncovered: <id> (<reason>), …`.
 * @param allNames every test that ran, to tell a rule whose test failed from one with no test at all.
 */
export function coverageLine(passedNames: readonly string[], rules: readonly SeedRule[] = SEED_RULES, allNames: readonly string[] = passedNames): string {
  const { covered, excused, missing } = seedCoverage(passedNames, rules);
  const why = (r: SeedRule) => (allNames.some((n) => namesRule(n, r.id)) ? "its test did not pass" : "NO TEST AND NO REASON");
  const uncovered = [...missing.map((r) => `${r.id} (${why(r)})`), ...excused.map((r) => `${r.id} (${r.reason})`)];
  return `seed coverage: ${covered.length}/${rules.length} rules covered${uncovered.length ? `; uncovered: ${uncovered.join(", ")}` : ""}`;
}
