/**
 * The reference pages (`docs/resources/<Kind>.md`, `docs/resources/README.md`), generated from the package schema
 * ({@link packageSchema}), itself generated from the kinds' declarations: one page per resource with its inputs,
 * outputs, the object types it uses and its lookups. `scripts/gen-schema.ts` writes them; `test/schema.unit.test.ts`
 * fails when a committed page differs from what this module renders.
 */
import type { ComplexTypeSpec, PackageSpec, PropertySpec, ResourceSpec, TypeSpec } from "./package";

/** A Markdown table cell: one line, pipes escaped. */
function cell(s: string): string {
  return s.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}

/** The last segment of a token, e.g. `ClaimMatch` of `platform:iam:ClaimMatch`. */
function shortName(token: string): string {
  return token.slice(token.lastIndexOf(":") + 1);
}

/** A type as a reader reads it: `string`, `list of string`, `map of string`, [ClaimMatch](#claimmatch). */
function typeText(t: TypeSpec): string {
  if (t.$ref === "pulumi.json#/Any") return "any";
  if (t.$ref) {
    const n = shortName(t.$ref.replace("#/types/", ""));
    return `[${n}](#${n.toLowerCase()})`;
  }
  if (t.type === "array") return `list of ${typeText(t.items ?? {})}`;
  if (t.type === "object") return `map of ${typeText(t.additionalProperties ?? {})}`;
  return t.type ?? "any";
}

/** The named types `t` reaches, transitively, into `seen`. */
function reach(t: TypeSpec | undefined, types: PackageSpec["types"], seen: Set<string>): void {
  if (!t) return;
  if (t.$ref?.startsWith("#/types/")) {
    const token = t.$ref.slice("#/types/".length);
    if (seen.has(token)) return;
    seen.add(token);
    for (const p of Object.values(types[token]?.properties ?? {})) reach(p, types, seen);
  }
  reach(t.items, types, seen);
  reach(t.additionalProperties, types, seen);
}

function propertyTable(props: Record<string, PropertySpec>, required: readonly string[], notes: (name: string, p: PropertySpec) => string[]): string[] {
  const rows = ["| Name | Type | Required | Description |", "| --- | --- | --- | --- |"];
  for (const [name, p] of Object.entries(props)) {
    const extra = notes(name, p);
    rows.push(`| \`${name}\` | ${typeText(p)} | ${required.includes(name) ? "yes" : "no"} | ${cell([p.description, ...extra].filter(Boolean).join(" "))} |`);
  }
  return rows;
}

function typeSection(token: string, t: ComplexTypeSpec): string[] {
  const out = [`### ${shortName(token)}`, "", `\`${token}\`: ${t.description}`, ""];
  if (t.enum) out.push(`One of: ${t.enum.map((e) => `\`${e.value}\``).join(", ")}.`, "");
  else out.push(...propertyTable(t.properties ?? {}, t.required ?? [], () => []), "");
  return out;
}

/**
 * How a kind's create proves an object its own after a lost response (the declaration's `ownership`,
 * `engine/declare.ts`): `marker`, or `window` with what must match (`same`, e.g. `the same sink`) and whether a
 * lost copy is deleted rather than adopted (`lost`).
 */
export interface CreateProof {
  /** The kind's display name, e.g. `role binding`. */
  readonly what: string;
  /** `marker` or `window`. */
  readonly proof: "marker" | "window";
  /** What a `window` candidate must match, e.g. `the same sink`. */
  readonly same?: string | undefined;
  /** What happens to a lost copy; default `adopt`. */
  readonly lost?: "adopt" | "delete" | undefined;
}

/** The page's "Create" section: how a create proves its object its own (`docs/resources-guide.md`, "create"). */
function createSection(c: CreateProof): string[] {
  const what = c.what;
  const text =
    c.proof === "marker"
      ? `A create POSTs the ${what} with the ownership marker \`[pulumi-create:<createToken>]\` in its description, then one PATCH (\`updateMask=description\`) restores the declared description. After a lost response only the ${what} carrying the marker is adopted.`
      : `The ${what} has no free-text field to mark. After a lost response, the one ${what} with ${c.same ?? "the same fields"} created inside the attempt's time window (server time) is ${c.lost === "delete" ? "deleted and the create sent again" : "adopted"}; two or more are refused, named.`;
  return ["## Create", "", `${text} See [the resources guide](../resources-guide.md) on create.`, ""];
}

/** The reference page of one resource `token` of `spec`; with `create`, its "Create" section. */
export function resourcePage(spec: PackageSpec, token: string, r: ResourceSpec, create?: CreateProof): string {
  const kind = shortName(token);
  const outputsOnly = Object.fromEntries(Object.entries(r.properties).filter(([k]) => !(k in r.inputProperties)));
  const lookups = Object.entries(spec.functions).filter(([, f]) => {
    const res = f.outputs.properties["items"]?.items ?? f.outputs.properties["value"];
    return res?.$ref === `#/types/${token}Info`;
  });
  const seen = new Set<string>();
  for (const p of [...Object.values(r.inputProperties), ...Object.values(r.properties)]) reach(p, spec.types, seen);
  const lines = [
    `# ${kind}`,
    "",
    "<!-- Generated by `npm run gen` from the kind's declaration (provider/kinds/). Do not edit by hand. -->",
    "",
    r.description,
    "",
    `- Type token: \`${token}\` (dynamic provider: \`${r.aliases[0]?.type ?? ""}\`).`,
    `- In TypeScript: \`new ${kind}(name, args, opts?)\`, \`${kind}.get(name, uid)\`.`,
    "",
    "## Inputs",
    "",
    ...propertyTable(r.inputProperties, r.requiredInputs, (_n, p) => [p.replaceOnChanges && !/replaces/.test(p.description) ? "Changing it replaces the object." : "", p.secret ? "Secret." : ""].filter(Boolean)),
    "",
    "## Outputs",
    "",
    "Every input, and:",
    "",
    ...propertyTable(outputsOnly, r.required, (_n, p) => [p.secret ? "Secret." : ""].filter(Boolean)),
    "",
    ...(create ? createSection(create) : []),
  ];
  if (seen.size) {
    lines.push("## Types", "");
    for (const t of [...seen].sort()) if (spec.types[t] && !t.endsWith(`${kind}Info`)) lines.push(...typeSection(t, spec.types[t]!));
  }
  if (lookups.length) {
    lines.push("## Lookups", "");
    for (const [ft, f] of lookups) {
      lines.push(`### ${shortName(ft)}`, "", `\`${ft}\`: ${f.description}`, "", ...propertyTable(f.inputs.properties, [], () => []), "");
    }
  }
  return lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd() + "\n";
}

/** The index page: every resource, by module, with its description. */
export function indexPage(spec: PackageSpec): string {
  const lines = [
    "# Resource reference",
    "",
    "<!-- Generated by `npm run gen` from the kinds' declarations (provider/kinds/). Do not edit by hand. -->",
    "",
    `Package \`${spec.name}\` ${spec.version}: ${Object.keys(spec.resources).length} resources, ${Object.keys(spec.functions).length} lookups, ${Object.keys(spec.types).length} object types. The Pulumi package schema is [\`schema.json\`](../../schema.json).`,
    "",
    "| Resource | Token | What it is |",
    "| --- | --- | --- |",
  ];
  for (const [token, r] of Object.entries(spec.resources)) lines.push(`| [${shortName(token)}](${shortName(token)}.md) | \`${token}\` | ${cell(r.description)} |`);
  const others = Object.entries(spec.functions).filter(([, f]) => !(f.outputs.properties["items"]?.items ?? f.outputs.properties["value"])?.$ref?.endsWith("Info"));
  if (others.length) {
    lines.push("", "## Other lookups", "");
    for (const [ft, f] of others) lines.push(`### ${shortName(ft)}`, "", `\`${ft}\`: ${f.description}`, "", ...propertyTable(f.inputs.properties, [], () => []), "");
  }
  return lines.join("\n").trimEnd() + "\n";
}

/**
 * Every generated page: path relative to the repository → content. `creates`: each kind's create proof, by kind
 * name (the token's last segment); a kind missing from it has no "Create" section.
 */
export function referencePages(spec: PackageSpec, creates: Readonly<Record<string, CreateProof>> = {}): Record<string, string> {
  const pages: Record<string, string> = { "docs/resources/README.md": indexPage(spec) };
  for (const [token, r] of Object.entries(spec.resources)) pages[`docs/resources/${shortName(token)}.md`] = resourcePage(spec, token, r, creates[shortName(token)]);
  return pages;
}
