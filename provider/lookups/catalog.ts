/**
 * Every lookup as data: its schema token, arguments (zod, documented), result type and whether it returns a list;
 * a kind's come from its declaration's `lookups:` (`engine/declare.ts`, LookupDeclaration).
 * The package schema's functions (`provider/schema/package.ts`) and the reference pages are generated from it;
 * a native provider's Invoke serves the same lookups. `test/schema.unit.test.ts` holds each entry's arguments to the
 * ones its lookup function accepts (the `known:` list of its TypeError for an unknown argument), so the two
 * cannot drift.
 *
 * A kind's lookups return the kind's outputs (the fields its resource has, `uid` included), named
 * `platform:<module>:<Kind>Info`; advisories, which are not a resource, have their own type.
 */
import { z } from "zod";
import type { Field, FieldType, ServerField } from "../engine/declare";
import { named, zodOf } from "../engine/fieldTypes";
import { KINDS, type KindEntry } from "../kinds/registry";

/** One lookup: `get<Kind>` (one object) or `get<Kinds>` (a list). */
export interface LookupSpec {
  /** The lookup's function name in this package, e.g. `getGroup`. */
  readonly fn: string;
  /** Its schema token, `platform:<module>:<fn>`. */
  readonly token: string;
  /** What it does, for a user (Markdown). */
  readonly description: string;
  /** Its arguments: name → type (zod, documented; every argument optional). */
  readonly args: Readonly<Record<string, z.ZodType>>;
  /** The type of one result. */
  readonly result: z.ZodType;
  /** Whether it returns a list (`items`) rather than one object (`value`). */
  readonly plural: boolean;
  /** The kind whose outputs it returns (its `<Kind>Info`); undefined for advisories, returned as the API sends them. */
  readonly kind?: string;
}

const str = (doc: string) => z.string().optional().describe(doc);

/** Paging arguments every plural lookup takes (`core.ts`, PagingArgs). */
const PAGING = {
  orderBy: str("`field [asc|desc]`, e.g. `name`, `created_at desc`; the fields allowed depend on the collection. Default: `uid asc`."),
  pageSize: z.number().int().optional().describe("Items per request (the API caps it at 200). Default: `limit` when given (capped at 200), else 200."),
  skip: z.number().int().optional().describe("Matching items to skip before the first one returned. Default 0."),
  limit: z.number().int().optional().describe("Stop after this many items; further pages are not requested. `0` returns none without a request. Default: all."),
};

/** Hierarchy filters every plural lookup takes (the API's `uidp.*` List parameters; `core.ts`, UidpFilterArgs). */
const UIDP = {
  ids: z.array(z.string()).optional().describe("Only these uids (`uidp.ids`). An empty list matches nothing."),
  childrenOf: str("Only direct children of this uid (`uidp.children_of`)."),
  parentUid: str("Only direct children of this uid (the same filter as `childrenOf`, by the singular lookups' name)."),
  descendantsOf: str("Only strict descendants of this uid, at any depth (`uidp.descendants_of`)."),
  ancestorsOf: str("Only ancestors of this uid (`uidp.ancestors_of`)."),
  inRoot: z.boolean().optional().describe("`true`: only root-level objects; `false`: only non-root ones (`uidp.in_root`)."),
};

const UID = { uid: str("The object's uid (one GET). Give either `uid` or the filters.") };

/**
 * The result type of a kind's lookups: the kind's outputs (every declared field but the internal and create-only
 * ones, `uid`, the server-set outputs), named `<module>:<Kind>Info`.
 */
function infoOf(k: KindEntry): z.ZodType {
  const shape: Record<string, z.ZodType> = { uid: z.string().describe(`The ${k.what}'s uid.`) };
  for (const [name, f] of Object.entries(k.fields) as Array<[string, Field]>) {
    if (f.internal || f.kind === "createOnly" || f.kind === "stateOnly" || !f.type) continue;
    shape[name] = zodOf(f.type).optional();
  }
  for (const [name, s] of Object.entries(k.server) as Array<[string, ServerField]>) if (!k.secrets.includes(name)) shape[name] = zodOf(s.type).optional();
  return named(k.module, `${k.kind}Info`, z.object(shape).describe(`A ${k.what} as a lookup returns it: the outputs of a \`${k.kind}\` resource.`));
}

const ADVISORY = named(
  "vulnerabilities",
  "Advisory",
  z
    .object({
      uid: z.string().describe("The advisory's uid."),
      advisoryId: z.string().optional().describe("Advisory id, e.g. `CGA-2x4m-7v6q-9r3c`."),
      artifactName: z.string().optional().describe("The artifact it is about, e.g. `nginx`."),
      artifactType: z.string().optional().describe("The artifact's type."),
      artifactArchitecture: z.string().optional().describe("The artifact's architecture."),
      componentName: z.string().optional().describe("The affected component."),
      componentType: z.string().optional().describe("The affected component's type."),
      aliases: z.array(z.string()).optional().describe("Other ids of the same vulnerability (CVE, GHSA, …)."),
      events: z.array(z.record(z.string(), z.unknown())).optional().describe("The advisory's history, as the API sends it."),
      createTime: z.string().optional().describe("Creation time, RFC 3339."),
      updateTime: z.string().optional().describe("Last update time, RFC 3339."),
    })
    .describe("A vulnerability advisory as the API returns it."),
);

/** The lookups of a kind that declares them (`lookups:` in its declaration, `engine/declare.ts`): List, then single. */
function kindLookups(k: KindEntry): LookupSpec[] {
  const l = k.lookups;
  if (!l) return [];
  const result = infoOf(k);
  const token = (fn: string) => `platform:${k.module}:${fn}`;
  const zods = (filters: Readonly<Record<string, FieldType>>) => Object.fromEntries(Object.entries(filters).map(([n, t]) => [n, zodOf(t)]));
  const plural = `get${l.plural}`;
  const singular = `get${k.kind}`;
  return [
    {
      fn: plural,
      token: token(plural),
      description: `Lists ${k.what} objects (walking pages lazily); empty when none match.`,
      args: { ...zods(l.listFilters), ...UIDP, ...PAGING },
      result,
      plural: true,
      kind: k.kind,
    },
    {
      fn: singular,
      token: token(singular),
      description: `Gets one ${k.what}: by \`uid\`, or by filters that must match exactly one (none or several is an error that lists the matching uids).`,
      args: { ...UID, ...zods(l.oneFilters) },
      result,
      plural: false,
      kind: k.kind,
    },
  ];
}

/** Every lookup, kinds in the registry's order, then advisories. */
export const LOOKUPS: readonly LookupSpec[] = [
  ...KINDS.flatMap(kindLookups),
  {
    fn: "getAdvisories",
    token: "platform:vulnerabilities:getAdvisories",
    description: "Lists vulnerability advisories (walking pages lazily); empty when none match.",
    args: {
      advisoryIds: z.array(z.string()).optional().describe("Only these advisory ids."),
      artifactNames: z.array(z.string()).optional().describe("Only advisories about these artifacts."),
      ...UIDP,
      ...PAGING,
    },
    result: ADVISORY,
    plural: true,
  },
  {
    fn: "getAdvisory",
    token: "platform:vulnerabilities:getAdvisory",
    description: "Gets one advisory: by `uid`, or by filters that must match exactly one.",
    args: { ...UID, advisoryId: str("The advisory id, e.g. `CGA-2x4m-7v6q-9r3c`."), artifactName: str("The artifact it is about.") },
    result: ADVISORY,
    plural: false,
  },
];
