/**
 * The serialized part of every dynamic provider: a thin, stable shim.
 *
 * Pulumi serializes a dynamic provider object into state (`__provider`) and runs that stored code for `read` and
 * `delete` (FACTS.md). So the shim holds no logic and captures nothing but the resource kind: each method
 * requires this package's runtime by its public name and delegates. An upgraded package changes behaviour
 * without replacing resources, the serialized text stays a few hundred bytes, and no credential, schema or
 * connection object is ever captured.
 *
 * The runtime is resolved from the provider process's working directory (the program's folder), as any package
 * the program depends on. Contract: the package's `exports` map keeps `platform-pulumi/runtime` stable.
 */
import type * as pulumi from "@pulumi/pulumi";

/** Resource kinds served by the runtime; also the last segment of each type token. */
export type ResourceKind = "Group" | "Identity" | "RoleBinding" | "Role" | "IdentityProvider" | "AccountAssociation" | "GroupInvite";

/**
 * The shim for one kind. Call once per kind at module load: Pulumi caches serialization per provider object.
 * The `require` calls are deliberate: they run inside the provider process, not in the program.
 */
export function shim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  return {
    async configure(req) {
      return require("platform-pulumi/runtime").configure(req);
    },
    async check(olds, news) {
      return require("platform-pulumi/runtime").providers[kind].check(olds, news);
    },
    async diff(id, olds, news) {
      return require("platform-pulumi/runtime").providers[kind].diff(id, olds, news);
    },
    async create(inputs) {
      return require("platform-pulumi/runtime").providers[kind].create(inputs);
    },
    async read(id, props) {
      return require("platform-pulumi/runtime").providers[kind].read(id, props);
    },
    async update(id, olds, news) {
      return require("platform-pulumi/runtime").providers[kind].update(id, olds, news);
    },
    async delete(id, props) {
      return require("platform-pulumi/runtime").providers[kind].delete(id, props);
    },
  } satisfies pulumi.dynamic.ResourceProvider;
}
