/**
 * The provider runtime: what the serialized shim (`resources/shim.ts`) requires inside the provider process as
 * `platform-pulumi/runtime`. Its shape is a contract with every `__provider` already stored in users' state:
 * `configure(req)` and `providers[kind].{check,diff,create,read,update,delete}`. Add kinds; never rename one.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ProviderImpl } from "./resources/common";
import { accountAssociationProvider } from "./resources/accountAssociation";
import { groupProvider } from "./resources/group";
import { groupInviteProvider } from "./resources/groupInvite";
import { identityProviderProvider } from "./resources/identityProvider";
import { roleProvider } from "./resources/role";
import { identityProvider } from "./resources/identity";
import { roleBindingProvider } from "./resources/roleBinding";
import type { ResourceKind } from "./resources/shim";
import { setConfigLookup } from "./state";
import { CREATE_TOKEN, newCreateToken } from "./resources/lifecycle";
import { startEngineWatch } from "./engineWatch";

/** Receives the stack config (all namespaces) from the dynamic-provider host. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  setConfigLookup((key) => req.config.get(key));
}

/**
 * The provider object the one-line `__provider` of a resource asks for (see `resources/shim.ts`): the kind's
 * implementation plus `configure`. Created once per kind and process.
 */
export function provider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  // Only the `__provider` shims call this, inside the dynamic-provider plugin: from the first call on, the
  // process exits when the engine that started it is gone (issue 11; see engineWatch.ts).
  startEngineWatch();
  return localProvider(kind);
}

/**
 * The provider object of a kind for use in this process (e.g. by `platform-pulumi recover`), without the plugin's
 * engine watch. Same object as {@link provider} returns.
 * @throws Error naming the kind when this package does not know it.
 */
export function localProvider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const cached = cache.get(kind);
  if (cached) return cached;
  const impl = providers[kind] as unknown as pulumi.dynamic.ResourceProvider | undefined;
  if (!impl) throw new Error(`platform-pulumi runtime: unknown resource kind "${kind}" (was this state written by a newer package?)`);
  const p: pulumi.dynamic.ResourceProvider = { ...withCreateToken(impl), configure };
  cache.set(kind, p);
  return p;
}

const cache = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

type Props = Record<string, unknown> | undefined;

/** The `createToken` a resource already has (from its old inputs or outputs), when well-formed. */
function tokenIn(...sources: Props[]): string | undefined {
  for (const s of sources) {
    const t = s?.["createToken"];
    if (typeof t === "string" && CREATE_TOKEN.test(t)) return t;
  }
  return undefined;
}

/**
 * Gives every resource a `createToken` (16 random hex characters) in its checked inputs, kept for its life:
 * `check` takes it from the old inputs or makes one, and create, read and update carry it into outputs (and
 * read into the inputs it returns). Creates mark what they make with it (`resources/lifecycle.ts`), and because
 * the engine records checked inputs in an interrupted update's pending create operations, `platform-pulumi
 * recover` can prove which object such a create made. Not a field of any resource's diff: it never causes a
 * change.
 */
function withCreateToken(impl: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
  return {
    ...impl,
    async check(olds: Props, news: Props) {
      const r = impl.check ? await impl.check(olds, news) : { inputs: news };
      return { ...r, inputs: { ...(r.inputs as object), createToken: tokenIn(olds, news) ?? newCreateToken() } };
    },
    async create(inputs: Props) {
      const r = await impl.create(inputs);
      const token = tokenIn(inputs);
      return token ? { ...r, outs: { ...(r.outs as object), createToken: token } } : r;
    },
    async read(id: string, props: Props) {
      const r = impl.read ? await impl.read(id, props) : { id, props };
      const token = tokenIn(props);
      if (!r.id || !token) return r;
      return { ...r, props: { ...(r.props as object), createToken: token }, ...(r.inputs ? { inputs: { ...(r.inputs as object), createToken: token } } : {}) };
    },
    async update(id: string, olds: Props, news: Props) {
      const r = impl.update ? await impl.update(id, olds, news) : {};
      const token = tokenIn(news, olds);
      return token ? { ...r, outs: { ...(r.outs as object), createToken: token } } : r;
    },
  };
}

/** Implementations by resource kind. */
export const providers: Record<ResourceKind, ProviderImpl<never, never>> = {
  Group: groupProvider as unknown as ProviderImpl<never, never>,
  Identity: identityProvider as unknown as ProviderImpl<never, never>,
  RoleBinding: roleBindingProvider as unknown as ProviderImpl<never, never>,
  Role: roleProvider as unknown as ProviderImpl<never, never>,
  IdentityProvider: identityProviderProvider as unknown as ProviderImpl<never, never>,
  AccountAssociation: accountAssociationProvider as unknown as ProviderImpl<never, never>,
  GroupInvite: groupInviteProvider as unknown as ProviderImpl<never, never>,
};
