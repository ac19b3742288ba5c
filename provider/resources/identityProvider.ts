/**
 * IdentityProvider: an OIDC identity provider for an org's users (`pulumi-nodejs:dynamic/platform:IdentityProvider`).
 *
 * `clientSecret` is a secret input of its own (not inside `oidc`), so only it is secret in state. The API never
 * returns it: outputs keep it from the inputs, and a change of it PATCHes `oidc` with the new secret. A change
 * of `parentUid` replaces; the other fields PATCH in place.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ApiIdentityProvider as ApiIdp } from "../client/types";
import { getClient } from "../state";
import { Failures, isUnknown, nameProblem, optionalStringProblem, uidpProblem } from "../validation";
import { adoptExisting, changedFields, deleteIgnoringNotFound, fieldDiff, logInfo, parentOfUid, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { createNamedSafely } from "./lifecycle";
import { batchedGet } from "./readBatch";
import { isResourceOfKind, PlatformResource, readArgs } from "./shim";

/** The OIDC settings of an identity provider (without the client secret, which is its own argument). */
export interface OidcArgs {
  /** Issuer URL (https). */
  issuer: pulumi.Input<string>;
  /** OAuth client id at the issuer. */
  clientId: pulumi.Input<string>;
  /** Scopes requested besides `openid`; default none. */
  additionalScopes?: pulumi.Input<pulumi.Input<string>[]>;
  /** Claim holding the user's groups; default none. */
  groupsClaim?: pulumi.Input<string>;
  /** Use PKCE; default false. */
  pkceEnabled?: pulumi.Input<boolean>;
}

/** Arguments of an {@link IdentityProvider}. */
export interface IdentityProviderArgs {
  /** uid of the group the provider belongs to. Changing it replaces the provider. */
  parentUid: pulumi.Input<string>;
  /** Name: `^[a-z0-9 ._-]{1,}$`, 3–63 characters. */
  name: pulumi.Input<string>;
  /** Free-text description; default `""`. */
  description?: pulumi.Input<string>;
  /** OIDC settings. */
  oidc: pulumi.Input<OidcArgs>;
  /** OAuth client secret (kept secret in state; the API never returns it). */
  clientSecret: pulumi.Input<string>;
  /** uid of the role new users get; default none. */
  defaultRole?: pulumi.Input<string>;
  /** uid of an existing identity provider to take under management (read only at create). */
  adoptUid?: pulumi.Input<string>;
}

/** Inputs after `check`. */
export interface IdentityProviderInputs {
  parentUid: string;
  name: string;
  description: string;
  oidc: { issuer: string; clientId: string; additionalScopes?: string[]; groupsClaim?: string; pkceEnabled?: boolean };
  clientSecret: string;
  defaultRole?: string | undefined;
  adoptUid?: string | undefined;
}

/** Outputs: the inputs (secret kept from them) plus the server's fields. */
export interface IdentityProviderOutputs extends IdentityProviderInputs {
  uid: string;
  createTime: string;
  updateTime: string;
  [serverField: string]: unknown;
}

const MUTABLE = ["name", "description", "oidc", "clientSecret", "defaultRole"] as const;

function normalizeOidc(o: object | undefined): IdentityProviderInputs["oidc"] {
  const { clientSecret: _secret, ...rest } = (o ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0) || v === false) continue;
    out[k] = v;
  }
  return out as IdentityProviderInputs["oidc"];
}

function outputs(p: ApiIdp, local: Partial<IdentityProviderInputs>): IdentityProviderOutputs {
  return {
    ...p,
    parentUid: parentOfUid(p.uid),
    description: p.description,
    oidc: normalizeOidc(p.oidc),
    clientSecret: local.clientSecret ?? "",
    ...(p.defaultRole ? { defaultRole: p.defaultRole } : {}),
    createTime: p.createTime ?? "",
    updateTime: p.updateTime ?? "",
    ...(local.adoptUid !== undefined ? { adoptUid: local.adoptUid } : {}),
  };
}

function body(i: IdentityProviderInputs): Record<string, unknown> {
  return { name: i.name, description: i.description, oidc: { ...i.oidc, clientSecret: i.clientSecret }, ...(i.defaultRole ? { defaultRole: i.defaultRole } : {}) };
}

/** The IdentityProvider provider implementation (runs in the provider process). */
export const identityProviderProvider: ProviderImpl<IdentityProviderInputs, IdentityProviderOutputs> = {
  /** Validates every field before any API call. */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const f = new Failures()
      .add("parentUid", uidpProblem(n["parentUid"]))
      .add("name", nameProblem(n["name"]))
      .add("description", optionalStringProblem(n["description"]));
    if (n["adoptUid"] !== undefined) f.add("adoptUid", uidpProblem(n["adoptUid"]));
    if (n["defaultRole"] !== undefined) f.add("defaultRole", uidpProblem(n["defaultRole"]));
    const oidc = n["oidc"] as Record<string, unknown> | undefined;
    if (!isUnknown(oidc)) {
      if (typeof oidc !== "object" || oidc === null) f.add("oidc", "is required: { issuer, clientId, ... }");
      else {
        const issuer = oidc["issuer"];
        if (!isUnknown(issuer) && !(typeof issuer === "string" && /^https:\/\/\S+$/.test(issuer))) f.add("oidc.issuer", `must be an https URL, got ${JSON.stringify(issuer)}`);
        if (!isUnknown(oidc["clientId"]) && (typeof oidc["clientId"] !== "string" || oidc["clientId"] === "")) f.add("oidc.clientId", "is required");
        if ("clientSecret" in oidc) f.add("oidc.clientSecret", "give the secret as the top-level clientSecret argument, so only it is secret in state");
      }
    }
    const secret = n["clientSecret"];
    if (!isUnknown(secret) && (typeof secret !== "string" || secret === "")) f.add("clientSecret", "is required (a string; pass it as a secret)");
    return {
      inputs: {
        parentUid: n["parentUid"] as string,
        name: n["name"] as string,
        description: (n["description"] as string | undefined) ?? "",
        oidc: typeof oidc === "object" && oidc !== null ? normalizeOidc(oidc) : (oidc as never),
        clientSecret: secret as string,
        ...(n["defaultRole"] !== undefined ? { defaultRole: n["defaultRole"] as string } : {}),
        ...(n["adoptUid"] !== undefined ? { adoptUid: n["adoptUid"] as string } : {}),
      },
      failures: f.list,
    };
  },

  /** `parentUid` replaces; the rest update in place. */
  async diff(_id, olds, news) {
    return fieldDiff<keyof IdentityProviderInputs>(olds, news, ["parentUid"], MUTABLE);
  },

  /** All-or-nothing: if it throws, nothing was created (or the orphan was adopted). */
  async create(inputs) {
    const client = getClient();
    if (inputs.adoptUid) {
      const existing = await adoptExisting("identity provider", inputs.adoptUid, inputs.parentUid, (uid) => client.identityProviders.get(uid));
      // The secret cannot be read back, so an adopted provider always gets the declared one.
      const p = await client.identityProviders.patch(existing.uid, body(inputs), ["name", "description", "oidc", "defaultRole"]);
      logInfo(`adopted identity provider ${existing.uid}`);
      return { id: p.uid, outs: outputs(p, inputs) };
    }
    const p = await createNamedSafely(client.identityProviders, "identity provider", inputs.parentUid, inputs.name, body(inputs), logInfo);
    return { id: p.uid, outs: outputs(p, inputs) };
  },

  /** Current server state (the secret is kept from state: the API never returns it); NOT_FOUND reports it gone. */
  async read(id, props) {
    return readOrGone(async () => {
      const outs = outputs(await batchedGet(getClient().identityProviders, id), props ?? {});
      const inputs: IdentityProviderInputs = {
        parentUid: outs.parentUid,
        name: outs.name,
        description: outs.description,
        oidc: outs.oidc,
        clientSecret: outs.clientSecret,
        ...(outs.defaultRole ? { defaultRole: outs.defaultRole } : {}),
        ...(outs.adoptUid ? { adoptUid: outs.adoptUid } : {}),
      };
      return { id, props: outs, inputs };
    });
  },

  /** PATCHes exactly the changed fields; a new secret goes in `oidc`. */
  async update(id, olds, news) {
    const changed = changedFields<keyof IdentityProviderInputs>(olds, news, MUTABLE);
    if (changed.length === 0) return { outs: { ...olds, ...news } };
    const mask = [...new Set(changed.map((f) => (f === "clientSecret" ? "oidc" : f)))];
    const p = await getClient().identityProviders.patch(id, body(news), mask);
    return { outs: outputs(p, news) };
  },

  /** Deletes the provider; NOT_FOUND counts as done. */
  async delete(id) {
    await deleteIgnoringNotFound(() => getClient().identityProviders.delete(id));
  },
};

/**
 * An OIDC identity provider for the org's users.
 *
 * @example
 * ```ts
 * new IdentityProvider("okta", {
 *   parentUid: orgUid, name: "okta",
 *   oidc: { issuer: "https://example.okta.com", clientId: "0oa1b2c3" },
 *   clientSecret: config.requireSecret("oktaClientSecret"),
 * });
 * ```
 */
export class IdentityProvider extends PlatformResource {
  /**
   * Reads an existing identity provider by uid without managing it: its current server state becomes this resource's
   * outputs (refreshed by `pulumi refresh`), and `pulumi destroy` leaves the identity provider alone. Built on
   * `new IdentityProvider(name, args, { id: uid })`, which works for dynamic resources (`pulumi import` does not).
   * Its `clientSecret` output is `""`: the API never returns the secret.
   * @param name Pulumi resource name (unique in the stack).
   * @param uid the identity provider's uid.
   * @param opts resource options (`id` is set to `uid`).
   * @returns the typed resource; the operation fails at preview/up with NOT_FOUND when no identity provider has that uid.
   * @example const org = IdentityProvider.get("org", orgUid);
   */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): IdentityProvider {
    return new IdentityProvider(name, readArgs<IdentityProviderArgs>(["parentUid", "name", "description", "oidc", "clientSecret", "defaultRole"]), { ...opts, id: uid });
  }

  /**
   * Whether `obj` is a IdentityProvider (type token `pulumi-nodejs:dynamic/platform:IdentityProvider`). Checks the token, not the
   * class, so it holds when the program loads two copies of this package.
   */
  static override isInstance(obj: unknown): obj is IdentityProvider {
    return isResourceOfKind(obj, "IdentityProvider");
  }

  /** The provider's uid. */
  declare readonly uid: pulumi.Output<string>;
  /** uid of its group. */
  declare readonly parentUid: pulumi.Output<string>;
  /** Name. */
  declare readonly name: pulumi.Output<string>;
  /** OIDC settings as the server holds them (never the secret). */
  declare readonly oidc: pulumi.Output<IdentityProviderInputs["oidc"]>;
  /** The client secret, as given (secret). */
  declare readonly clientSecret: pulumi.Output<string>;
  /** Creation time, RFC 3339. */
  declare readonly createTime: pulumi.Output<string>;

  /** @param name Pulumi resource name. @param args the provider's fields. @param opts resource options. */
  constructor(name: string, args: IdentityProviderArgs, opts?: pulumi.CustomResourceOptions) {
    super("IdentityProvider", name,
      { uid: undefined, createTime: undefined, updateTime: undefined, description: undefined, ...args },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "clientSecret"] });
    useIdAsUid(this);
  }
}
