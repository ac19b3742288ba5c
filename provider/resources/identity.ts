/**
 * Identity: a workload identity under a group, trusted through OIDC claim matching
 * (`pulumi-nodejs:dynamic/platform:Identity`).
 *
 * Life cycle: create POSTs under `parentUid`; a change of `parentUid` replaces; a change of `name`,
 * `description` or `claimMatch` PATCHes exactly those fields; read returns the server's values as inputs so
 * drift shows; delete treats NOT_FOUND as done (the server also removes the identity's role bindings).
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClaimMatch as ApiClaimMatch, Identity as ApiIdentity } from "../client/schemas";
import { getClient } from "../state";
import { Failures, isUnknown, nameProblem, optionalStringProblem, uidpProblem } from "../validation";
import { deleteIgnoringNotFound, fieldDiff, parentOfUid, patchChanged, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { shim } from "./shim";

/**
 * OIDC claim rules an incoming token must satisfy. Give exactly one of each exact/pattern pair for issuer and
 * subject; audience is optional. Patterns are regular expressions matched against the whole claim.
 */
export interface ClaimMatchArgs {
  /** Exact issuer URL, e.g. `https://token.actions.githubusercontent.com`. */
  issuer?: pulumi.Input<string>;
  /** Issuer regular expression (instead of `issuer`). */
  issuerPattern?: pulumi.Input<string>;
  /** Exact subject, e.g. `repo:my-org/my-repo:ref:refs/heads/main`. */
  subject?: pulumi.Input<string>;
  /** Subject regular expression (instead of `subject`). */
  subjectPattern?: pulumi.Input<string>;
  /** Exact audience; default: the API's own audience. */
  audience?: pulumi.Input<string>;
  /** Audience regular expression (instead of `audience`). */
  audiencePattern?: pulumi.Input<string>;
  /** Further claims that must equal these values. */
  claims?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** Further claims that must match these regular expressions. */
  claimPatterns?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/** Arguments of an {@link Identity}. */
export interface IdentityArgs {
  /** uid of the group the identity lives in. Changing it replaces the identity. */
  parentUid: pulumi.Input<string>;
  /** Identity name: `^[a-z0-9 ._-]{1,}$`, 3–63 characters. */
  name: pulumi.Input<string>;
  /** Free-text description; default `""`. */
  description?: pulumi.Input<string>;
  /** The OIDC claims a token must carry to act as this identity. */
  claimMatch: pulumi.Input<ClaimMatchArgs>;
}

/** An identity's inputs after `check`. */
export interface IdentityInputs {
  parentUid: string;
  name: string;
  description: string;
  claimMatch: ApiClaimMatch;
}

/** An identity's outputs: the inputs plus every field the server returns. */
export interface IdentityOutputs extends IdentityInputs {
  uid: string;
  createTime: string;
  updateTime: string;
  [serverField: string]: unknown;
}

const MUTABLE = ["name", "description", "claimMatch"] as const;
const PAIRS = [
  ["issuer", "issuerPattern", true],
  ["subject", "subjectPattern", true],
  ["audience", "audiencePattern", false],
] as const;

/** Drops unset and empty entries so server-filled blanks never show as drift. */
export function normalizeClaimMatch(cm: ApiClaimMatch | undefined): ApiClaimMatch {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cm ?? {})) {
    if (v === undefined || v === null || v === "") continue;
    if (typeof v === "object" && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out as ApiClaimMatch;
}

function claimMatchFailures(cm: unknown, f: Failures): void {
  if (isUnknown(cm)) return;
  if (typeof cm !== "object" || cm === null || Array.isArray(cm)) {
    f.add("claimMatch", "is required: an object with issuer (or issuerPattern) and subject (or subjectPattern)");
    return;
  }
  const o = cm as Record<string, unknown>;
  for (const [exact, pattern, required] of PAIRS) {
    const hasExact = o[exact] !== undefined && o[exact] !== "";
    const hasPattern = o[pattern] !== undefined && o[pattern] !== "";
    if (hasExact && hasPattern) f.add(`claimMatch.${exact}`, `set only one of ${exact} and ${pattern}`);
    else if (required && !hasExact && !hasPattern) f.add(`claimMatch.${exact}`, `one of ${exact} and ${pattern} is required`);
    f.add(`claimMatch.${exact}`, optionalStringProblem(o[exact]));
    const p = o[pattern];
    if (typeof p === "string" && !isUnknown(p)) {
      try {
        new RegExp(p);
      } catch (err) {
        f.add(`claimMatch.${pattern}`, `is not a valid regular expression: ${(err as Error).message}`);
      }
    }
  }
}

function outputs(i: ApiIdentity): IdentityOutputs {
  return {
    ...i,
    parentUid: parentOfUid(i.uid),
    description: i.description,
    claimMatch: normalizeClaimMatch(i.claimMatch),
    createTime: i.createTime ?? "",
    updateTime: i.updateTime ?? "",
  };
}

function inputsOf(o: IdentityOutputs): IdentityInputs {
  return { parentUid: o.parentUid, name: o.name, description: o.description ?? "", claimMatch: o.claimMatch };
}

/** The Identity provider implementation (runs in the provider process). */
export const identityProvider: ProviderImpl<IdentityInputs, IdentityOutputs> = {
  /** Validates every field before any API call; reports all failures at once. */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const f = new Failures()
      .add("parentUid", uidpProblem(n["parentUid"]))
      .add("name", nameProblem(n["name"]))
      .add("description", optionalStringProblem(n["description"]));
    claimMatchFailures(n["claimMatch"], f);
    const cm = n["claimMatch"];
    const inputs: IdentityInputs = {
      parentUid: n["parentUid"] as string,
      name: n["name"] as string,
      description: (n["description"] as string | undefined) ?? "",
      claimMatch: typeof cm === "object" && cm !== null ? normalizeClaimMatch(cm as ApiClaimMatch) : (cm as ApiClaimMatch),
    };
    return { inputs, failures: f.list };
  },

  /** `parentUid` replaces; `name`, `description` and `claimMatch` update in place. */
  async diff(_id, olds, news) {
    return fieldDiff<keyof IdentityInputs>(olds, news, ["parentUid"], MUTABLE);
  },

  /** All-or-nothing: if it throws, nothing was created. */
  async create(inputs) {
    const i = await getClient().identities.create(inputs.parentUid, {
      name: inputs.name,
      description: inputs.description,
      claimMatch: inputs.claimMatch,
    });
    return { id: i.uid, outs: outputs(i) };
  },

  /** Current server state; NOT_FOUND reports the identity gone. */
  async read(id) {
    return readOrGone(async () => {
      const outs = outputs(await getClient().identities.get(id));
      return { id, props: outs, inputs: inputsOf(outs) };
    });
  },

  /** PATCHes exactly the changed fields. */
  async update(id, olds, news) {
    return patchChanged(olds, news, MUTABLE, async (body, mask) => outputs(await getClient().identities.patch(id, body, mask)));
  },

  /** Deletes the identity; NOT_FOUND counts as done. */
  async delete(id) {
    await deleteIgnoringNotFound(() => getClient().identities.delete(id));
  },
};

const provider = shim("Identity");

/**
 * A workload identity that tokens from an OIDC issuer can assume.
 *
 * @example
 * ```ts
 * const bot = new Identity("ci-bot", {
 *   parentUid: ci.uid,
 *   name: "ci-bot",
 *   claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/my-repo:ref:refs/heads/main" },
 * });
 * ```
 */
export class Identity extends pulumi.dynamic.Resource {
  /** The identity's uid (its group's uid + `/` + 16 hex characters). */
  declare readonly uid: pulumi.Output<string>;
  /** uid of the group the identity lives in. */
  declare readonly parentUid: pulumi.Output<string>;
  /** Identity name. */
  declare readonly name: pulumi.Output<string>;
  /** Description (`""` when none). */
  declare readonly description: pulumi.Output<string>;
  /** The claim rules, as the server holds them. */
  declare readonly claimMatch: pulumi.Output<ApiClaimMatch>;
  /** Creation time, RFC 3339. */
  declare readonly createTime: pulumi.Output<string>;
  /** Last update time, RFC 3339. */
  declare readonly updateTime: pulumi.Output<string>;

  /**
   * @param name Pulumi resource name (unique in the stack; not the identity's name).
   * @param args the identity's fields.
   * @param opts resource options.
   */
  constructor(name: string, args: IdentityArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, name, { uid: undefined, createTime: undefined, updateTime: undefined, description: undefined, ...args }, opts, "platform", "Identity");
    useIdAsUid(this);
  }
}
