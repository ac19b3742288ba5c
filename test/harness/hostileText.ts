/**
 * An org whose text is code in the languages an export may land in (docs/export.md, "Server text in the export"),
 * made through the API (so the emulator's rules, the API's, decide what it keeps): the export tests write it in
 * every format and prove each payload comes back as the same text, never as code. `canary` is the file the code
 * payloads would write were they run.
 */
import type { PlatformClient } from "../../provider/client/client";
import { subscriptionKind } from "../../provider/kinds/subscription";

/** The payloads: group descriptions (by the group's name) and subscription sinks, for the file `canary`. */
export function hostileText(canary: string): { descriptions: Record<string, string>; sinks: string[] } {
  const write = `require("fs").writeFileSync(${JSON.stringify(canary)},"x")`;
  return {
    descriptions: {
      // Ends a double-quoted string literal (TypeScript, Python, Go) and runs code.
      quote: `a"+${write}+"b`,
      // Python's triple quotes both ways, and line breaks, escaped and real.
      lines: `one\n"""\nopen(${JSON.stringify(canary)}, "w")\n"""\n'''\nopen(${JSON.stringify(canary)}, "w")\n'''\\n\ttwo\r\nthree`,
      // Pulumi YAML: an escaped and a live interpolation of the API token, and runs of "$".
      dollar: "$${platform:token}",
      interp: "${platform:token} $$ $$$ $ end",
      // Ends a JavaScript comment, and JavaScript's line terminators that JSON does not escape.
      comment: `*/ ${write} /* // \u2028${write}\u2029 \`\${${write}}\``,
      // Bidirectional controls that make code read differently from how it runs.
      bidi: "\u202e\u2066 reversed \u2069\u202c \\ back\\slash",
    },
    sinks: [
      `https://hooks.example/"+${write}+"`,
      "https://hooks.example/${platform:token}",
      "https://hooks.example/$${platform:token}/$$",
      `https://hooks.example/\`+\${${write}}+\``,
      `https://hooks.example/'''+${write}+'''`,
    ],
  };
}

/** What {@link seedHostile} made. */
export interface Hostile {
  /** The top-level group holding the rest (named `hostile`). */
  top: string;
  /** The top-level group named `pulumi` (Pulumi YAML's reserved resource name). */
  pulumiGroup: string;
  /** Each described group's uid → its description as sent. */
  descriptions: Map<string, string>;
  /** Each subscription's uid → its sink as sent. */
  sinks: Map<string, string>;
}

/**
 * Makes, under `root`: group `hostile` with one group per description of {@link hostileText} (named by its key)
 * and every sink as a subscription of it, and group `pulumi` (described with the live interpolation).
 * @throws the API's error when it refuses one (the payloads are meant to be valid by the API's rules).
 */
export async function seedHostile(c: PlatformClient, root: string, canary: string): Promise<Hostile> {
  const { descriptions, sinks } = hostileText(canary);
  const top = (await c.groups.create(root, { name: "hostile", description: "" })).uid;
  const pulumiGroup = (await c.groups.create(root, { name: "pulumi", description: descriptions["interp"]! })).uid;
  const made: Hostile = { top, pulumiGroup, descriptions: new Map([[pulumiGroup, descriptions["interp"]!]]), sinks: new Map() };
  for (const [name, description] of Object.entries(descriptions)) {
    made.descriptions.set((await c.groups.create(top, { name, description })).uid, description);
  }
  for (const sink of sinks) {
    made.sinks.set((await subscriptionKind.collection(c).create(top, { sink })).uid, sink);
  }
  return made;
}
