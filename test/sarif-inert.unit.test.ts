/**
 * Server text in `--format sarif` (provider/commands/sarifLog.ts `LogBuilder`, provider/text.ts `sarifText`): every
 * SARIF producer (gate, access, drift, unmanaged through drift, the could-not-run log) writes its messages through
 * the builder, which makes them plain text: no control or bidirectional character, no workflow command, no SARIF
 * placeholder (§3.11.5: `{0}` is one, a literal brace is doubled), no SARIF embedded link (§3.11.6: `[t](x)` is
 * one, `\[` a literal bracket), and, rendered as GitHub-flavoured Markdown by a viewer that does, no link, image or
 * tag. Every log still validates against the OASIS schema.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { driftSarif, type DriftReport } from "../provider/commands/drift";
import { gateSarif, type GateReport } from "../provider/commands/gate";
import { LogBuilder, couldNotRunSarif, type SarifLog } from "../provider/commands/sarifLog";
import { printable, sarifText } from "../provider/text";

const REPO_ROOT = path.resolve(__dirname, "..");
const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "node_modules", "@microsoft", "jest-sarif", "lib", "schemas", "sarif-2.1.0-rtm.5.json"), "utf8")) as object;
// The schema's language-tag pattern is not valid under the `u` flag Ajv uses by default.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** What the review found raw in `message.text`, each as a name the server sends. */
const PAYLOADS = [
  "esc\u001b[2J\u001b[31mred",
  "cr\rover",
  "lf\n::error title=forged::owned",
  "::error::at the start",
  "##[error]old form",
  "abc\u202edcba",
  "<img src=x onerror=alert(1)>",
  "<script>alert(1)</script>",
  "[link](https://evil.example/x)",
  "![pixel](https://evil.example/p.png)",
  "https://evil.example/autolink",
  "www.evil.example/autolink",
  "{0}",
  "{0} and {1} {{2}}",
  "back\\slash\\",
  "lone\ud800surrogate",
];

/** The message strings of a log: results', rules', notifications'. */
function messages(log: SarifLog): string[] {
  const run = log.runs[0]!;
  return [
    ...run.results.map((r) => r.message.text),
    ...run.tool.driver.rules.flatMap((r) => [r.shortDescription.text, r.help.text, ...(r.fullDescription ? [r.fullDescription.text] : [])]),
    ...(run.invocations ?? []).flatMap((i) => i.toolExecutionNotifications.map((n) => n.message.text)),
  ];
}

/**
 * A SARIF plain-text message as a consumer reads it (§3.11.5, §3.11.6): `{{`/`}}` are braces, `\[`, `\]`, `\\` the
 * characters; a lone `{` or `}`, or an unescaped `[`, is markup. Returns the text, or throws at markup.
 */
function readPlain(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "{" || c === "}") {
      if (text[i + 1] !== c) throw new Error(`placeholder brace at ${i} in ${JSON.stringify(text)}`);
      out += c;
      i++;
    } else if (c === "\\" && /[[\]\\<>/.]/.test(text[i + 1] ?? "")) {
      out += text[i + 1];
      i++;
    } else if (c === "[" || c === "]") {
      throw new Error(`embedded-link bracket at ${i} in ${JSON.stringify(text)}`);
    } else out += c;
  }
  return out;
}

/** Checks `log` is valid SARIF, has no `markdown` message, and every message string is inert. */
function expectInert(log: SarifLog, hostile: string): void {
  expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
  expect(JSON.stringify(log)).not.toMatch(/"markdown"/);
  const texts = messages(log);
  expect(texts.length).toBeGreaterThan(0);
  for (const t of texts) {
    // eslint-disable-next-line no-control-regex -- looking for control characters is the assertion
    expect(t).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udfff]/);
    expect(t.trimStart().startsWith("::")).toBe(false);
    expect(t).not.toContain("##[");
    expect(t).not.toMatch(/(^|[^\\])[<>]/);
    readPlain(t);
  }
  // The server's text is there, as text: read back per §3.11.5/§3.11.6 it is the printable form of what was sent
  // (as printable writes it inside a line: the messages quote it after words of their own).
  expect(texts.some((t) => readPlain(t).includes(printable(`x${hostile}`).slice(1)))).toBe(true);
}

describe("sarifText", () => {
  it("doubles braces, escapes brackets, angle brackets and the backslash, breaks autolinks, keeps identifiers", () => {
    expect(sarifText("{0} [x](https://e) <img>")).toBe("{{0}} \\[x\\](https:/\\/e) \\<img\\>");
    expect(sarifText("/release2 gains role_bindings.create at /platform")).toBe("/release2 gains role_bindings.create at /platform");
    expect(sarifText("a\u001b[2Jb\nc")).toBe("a\\\\u001b\\[2Jb\\\\u000ac");
    expect(sarifText("::error::x")).toBe("\\\\u003a:error::x");
    expect(sarifText("www.evil.example")).toBe("www\\.evil.example");
  });

  describe("rendered as GitHub-flavoured Markdown (micromark with GFM) or markdown-it with HTML on", () => {
    let gfmHtml: (md: string) => string;
    let mdHtml: (md: string) => string;
    beforeAll(async () => {
      const { micromark } = await import("micromark");
      const ext = await import("micromark-extension-gfm");
      gfmHtml = (doc) => micromark(doc, { extensions: [ext.gfm()], htmlExtensions: [ext.gfmHtml()] });
      const MarkdownIt = (await import("markdown-it")).default;
      const md = new MarkdownIt({ html: true });
      mdHtml = (doc) => md.render(doc);
    });
    it.each(PAYLOADS)("%j makes no link, image or tag", (s) => {
      for (const html of [gfmHtml(sarifText(s)), mdHtml(sarifText(s))]) expect(html).not.toMatch(/<(a|img|script)\b/);
    });
  });
});

describe("every SARIF producer writes server text inert, and the log validates", () => {
  it.each(PAYLOADS)("LogBuilder: a result's message, a rule's texts, a notification and a logical location: %j", (s) => {
    const b = new LogBuilder("access", "dev", undefined);
    const rule = { id: "r", shortDescription: { text: `rule ${s}` }, fullDescription: { text: `full ${s}` }, help: { text: `help ${s}` } };
    b.result(rule, { level: "error", message: { text: `identity ${s} gains x` }, locations: [{ logicalLocations: [{ fullyQualifiedName: `urn::${s}`, name: s, kind: "resource" }] }], partialFingerprints: { a: "b" }, properties: {} });
    b.failed([`could not read ${s}`]);
    const log = b.log();
    expectInert(log, s);
    const loc = log.runs[0]!.results[0]!.locations[0]!.logicalLocations![0]!;
    expect(loc.name).toBe(printable(s));
    expect(loc.fullyQualifiedName).toBe(printable(`urn::${s}`));
  });

  it.each(PAYLOADS)("drift (drifted, unmanaged, pending): %j", (s) => {
    const report: DriftReport = {
      stack: "dev",
      drifted: [{ urn: `urn:pulumi:dev::p::platform:index:Group::${s}`, type: "Group", name: s, uid: `g/${s}`, change: "changed", fields: [{ path: "description", state: s, live: { v: s } }] as DriftReport["drifted"][number]["fields"] }],
      pending: [{ urn: "urn:pulumi:dev::p::platform:index:Group::g", type: "Group", name: s, op: "update", fields: [s] }],
      unmanaged: [{ type: "Identity", uid: `g/${s}`, name: s, parentUid: s }],
    };
    expectInert(driftSarif(report), s);
  });

  it.each(PAYLOADS)("gate (a violation naming server text, a preview error): %j", (s) => {
    const report = {
      stack: "dev",
      passed: false,
      failSeverities: ["critical"],
      all: false,
      violations: [{ level: "advisory", severity: "low", status: "new", policy: "p", pack: "pack", urn: `urn:pulumi:dev::p::platform:index:Group::${s}`, resource: s, message: `named ${s}`, description: `policy on ${s}` }],
      notEvaluated: [],
      access: null,
      errors: [`server said ${s}`],
    } as unknown as GateReport;
    expectInert(gateSarif(report), s);
  });

  it.each(PAYLOADS)("the could-not-run log: %j", (s) => {
    expectInert(couldNotRunSarif("unmanaged", "dev", [`the API answered ${s}`, "what to do: retry"]), s);
  });
});
