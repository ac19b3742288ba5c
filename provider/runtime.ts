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
import { startEngineWatch } from "./engineWatch";

// This module is loaded only inside the dynamic-provider plugin (by the `__provider` shims), on the first provider
// call: from then on the process exits when the engine that started it is gone (issue 11; see engineWatch.ts).
startEngineWatch();

/** Receives the stack config (all namespaces) from the dynamic-provider host. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  setConfigLookup((key) => req.config.get(key));
}

/**
 * The provider object the one-line `__provider` of a resource asks for (see `resources/shim.ts`): the kind's
 * implementation plus `configure`. Created once per kind and process.
 */
export function provider(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  const cached = cache.get(kind);
  if (cached) return cached;
  const impl = providers[kind] as unknown as pulumi.dynamic.ResourceProvider | undefined;
  if (!impl) throw new Error(`platform-pulumi runtime: unknown resource kind "${kind}" (was this state written by a newer package?)`);
  const p: pulumi.dynamic.ResourceProvider = { ...impl, configure };
  cache.set(kind, p);
  return p;
}

const cache = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

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
