/**
 * The field types the kinds' declarations share (`declare.ts`, {@link Field.type}): zod schemas of a field as a
 * program gives it, each with its documentation (`.describe()`). The package schema (`provider/schema/`) and the
 * reference pages (`docs/resources/`) are generated from these, so a description here is what a user reads.
 *
 * A named object type carries `.meta({ id: "<module>:<Name>" })`: it becomes the schema type
 * `platform:<module>:<Name>` (seed §2 names the objects; the OpenAPI's names where the seed shows none).
 */
import { z } from "zod";
import { output, type FieldType, type LookupDeclaration, type ServerField } from "./declare";

/** A required uid argument (a UIDP, seed §1), documented. */
export function uidArg(doc: string): z.ZodString {
  return z.string().describe(doc);
}

/** `name`: 3–63 characters of `^[a-z0-9 ._-]{1,}$` (seed §2). */
export function nameArg(what: string, extra = ""): z.ZodString {
  return z.string().describe(`${what} name: \`^[a-z0-9 ._-]{1,}$\`, 3–63 characters.${extra ? ` ${extra}` : ""}`);
}

/** `description`: optional free text, default `""`. */
export const descriptionArg = z.string().optional().describe('Free-text description; default `""`.');

/** `adoptUid`: the uid of an existing object to take under management instead of creating one. */
export function adoptUidArg(what: string): z.ZodOptional<z.ZodString> {
  return z
    .string()
    .optional()
    .describe(`uid of an existing ${what} to take under management instead of creating one; read only at create, later changes are ignored.`);
}

/** A list of strings, optional, documented. */
export function stringList(doc: string): z.ZodOptional<z.ZodArray<z.ZodString>> {
  return z.array(z.string()).optional().describe(doc);
}

/** A map of strings to strings, optional, documented. */
export function stringMap(doc: string): z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodString>> {
  return z.record(z.string(), z.string()).optional().describe(doc);
}

/** The server's `createTime` (RFC 3339). */
/** A lookup's filter: an optional string with its documentation ({@link LookupDeclaration}). */
export function lookupFilter(doc: string): z.ZodOptional<z.ZodString> {
  return z.string().optional().describe(doc);
}

/**
 * The lookups of a kind found by name under a parent (groups, identities, roles, repos, overlays): the List takes
 * `name`, the single lookup `name` and `parentUid` (its direct children, `uidp.children_of`); the kind's
 * `lookups.ts` is generated from this (`provider/schema/typescript.ts`, `kindLookupsModule`).
 * @param plural the List lookup's plural, e.g. `Groups`.
 * @param doc each filter's documentation (`listName`: the List's `name`; `name` and `parentUid`: the single
 *   one's) and the functions' (`list`, `listExample`, `oneExample`, `oneNote`; {@link LookupDeclaration.byName}).
 */
export function lookupsByName(
  plural: string,
  doc: { listName: string; name: string; parentUid: string; list: string; listExample: string; oneExample: string; oneNote?: string },
): LookupDeclaration {
  return {
    plural,
    listFilters: { name: lookupFilter(doc.listName) },
    oneFilters: { name: lookupFilter(doc.name), parentUid: lookupFilter(doc.parentUid) },
    byName: { list: doc.list, listExample: doc.listExample, oneExample: doc.oneExample, oneNote: doc.oneNote },
  };
}

export const createTime: ServerField = output(z.string().describe("Creation time, RFC 3339."), "");
/** The server's `updateTime` (RFC 3339). */
export const updateTime: ServerField = output(z.string().describe("Last update time, RFC 3339."), "");

/** A named object type of module `module`, for the package schema (`platform:<module>:<name>`). */
export function named<T extends z.ZodType>(module: string, name: string, t: T): T {
  return t.meta({ id: `${module}:${name}` });
}

/** A PEM file of a custom overlay (`name`, `content`). */
const OverlayFile = named(
  "registry",
  "OverlayFile",
  z.object({ name: z.string().describe("File name."), content: z.string().describe("PEM-encoded content.") }).describe("A file written into the image."),
);

/**
 * registry.v2beta1.CustomOverlay: apko image customizations applied when a repo's images are rebuilt (a repo's
 * `customOverlay`).
 */
export const CustomOverlay = named(
  "registry",
  "CustomOverlay",
  z
    .object({
      contents: named(
        "registry",
        "OverlayContents",
        z
          .object({
            packages: z.array(z.string()).optional().describe("Packages to append to the image."),
            runtimeRepositories: z.array(z.string()).optional().describe("APK repository URLs written to /etc/apk/repositories (replacing the defaults)."),
            runtimeKeyring: z.array(OverlayFile).optional().describe("APK signing public keys written to /etc/apk/keys."),
          })
          .describe("Image contents: packages to append, runtime APK repositories and signing keys."),
      ).optional(),
      environment: stringMap("Environment variables set in the image; keys starting `CHAINGUARD_` are refused by the API."),
      annotations: stringMap("OCI annotations; keys starting `dev.chainguard.` or `org.opencontainers.` are refused by the API."),
      accounts: named(
        "registry",
        "OverlayAccounts",
        z
          .object({
            runAs: z.string().optional().describe("Run-as user."),
            users: z
              .array(
                named(
                  "registry",
                  "OverlayUser",
                  z
                    .object({
                      username: z.string().describe("User name."),
                      uid: z.number().int().optional().describe("User id (int32)."),
                      gid: z.number().int().optional().describe("Primary group id (int32)."),
                      groupName: z.string().optional().describe("Primary group name."),
                      homeDir: z.string().optional().describe("Home directory."),
                      shell: z.string().optional().describe("Login shell."),
                    })
                    .describe("A user to add to the image."),
                ),
              )
              .optional()
              .describe("Users to add (`username` required)."),
            groups: z
              .array(
                named(
                  "registry",
                  "OverlayGroup",
                  z
                    .object({
                      groupname: z.string().describe("Group name."),
                      gid: z.number().int().optional().describe("Group id (int32)."),
                      members: z.array(z.string()).optional().describe("Member user names."),
                    })
                    .describe("A group to add to the image."),
                ),
              )
              .optional()
              .describe("Groups to add (`groupname` required)."),
          })
          .describe("Accounts: the run-as user, users and groups to add."),
      ).optional(),
      certificates: named(
        "registry",
        "OverlayCertificates",
        z
          .object({
            providers: z.array(z.string()).optional().describe("Certificate provider packages."),
            additional: z.array(OverlayFile).optional().describe("Additional PEM certificates."),
          })
          .describe("Certificates: provider packages and additional PEM certificates."),
      ).optional(),
    })
    .describe("apko customizations applied when the repo's images are rebuilt."),
);

/** A declared field type as the zod schema it is (`declare.ts` types it structurally, {@link FieldType}). */
export function zodOf(t: FieldType): z.ZodType {
  return t as unknown as z.ZodType;
}
