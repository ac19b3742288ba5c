/**
 * One report frame for `drift`, `gate`, `access` and `unmanaged` (provider/commands/report.ts, ./frame.ts), in this
 * process: each command's `--help` words the shared lines (`--format`, `--json-out`, `--max-chars`, `--timeout`)
 * the same; a bad `--format` or `--max-chars` is refused in the same words; the Markdown of `drift` and
 * `unmanaged` stays within `--max-chars`, the rows left out counted in a closing line naming the JSON report;
 * `unmanaged`'s JSON is one object; the emulator's errors read as every command's. What the built bin prints is
 * test/report-frame.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { accessCommand } from "../provider/commands/access";
import { driftCommand, formatDrift, type DriftReport } from "../provider/commands/drift";
import { gateCommand } from "../provider/commands/gate";
import { BoundedMarkdown, formatUsage, type ReportFormat } from "../provider/commands/report";
import { unmanagedCommand, unmanagedMarkdown, unmanagedReport, type UnmanagedObject } from "../provider/commands/unmanaged";
import { emulatorErrorText, EmulatorUsageError } from "../emulator/cli";

/** The four report commands, with the formats each prints. */
const COMMANDS: Record<string, { run: (argv: readonly string[]) => Promise<number>; formats: readonly ReportFormat[] }> = {
  drift: { run: driftCommand, formats: ["table", "json", "markdown", "sarif"] },
  gate: { run: gateCommand, formats: ["table", "json", "markdown", "sarif"] },
  access: { run: accessCommand, formats: ["table", "json", "markdown", "sarif"] },
  unmanaged: { run: unmanagedCommand, formats: ["table", "json", "markdown"] },
};

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `cmd argv` in this process: its exit code and what it wrote on stdout and stderr. */
async function run(cmd: string, argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  try {
    const code = await COMMANDS[cmd]!.run(argv);
    return { code, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

/**
 * The description of option `flag` in a usage: its line and continuation lines (indented past the option names),
 * the option name and the gaps collapsed to single spaces, so commands whose columns differ compare equal.
 */
function optionText(help: string, flag: string): string | undefined {
  const lines = help.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^ {2}${flag}(?![a-z-])`).test(l));
  if (at < 0) return undefined;
  const out = [lines[at]!];
  for (const l of lines.slice(at + 1)) {
    if (!/^ {8,}\S/.test(l)) break;
    out.push(l);
  }
  return out.join(" ").replace(/\s+/g, " ").trim();
}

describe("the report commands' --help", () => {
  it("words --format, --json-out, --max-chars and --timeout the same in drift, gate, access and unmanaged", async () => {
    const helps = Object.fromEntries(await Promise.all(Object.keys(COMMANDS).map(async (cmd) => [cmd, await run(cmd, ["--help"])] as const)));
    for (const [cmd, r] of Object.entries(helps)) expect(r.code, `${cmd} --help: ${r.stderr}`).toBe(0);
    const words = (cmd: string, flag: string) => optionText(helps[cmd]!.stdout, flag);
    for (const flag of ["--json-out", "--max-chars", "--timeout"]) {
      const each = Object.keys(COMMANDS).map((cmd) => [cmd, words(cmd, flag)] as const);
      for (const [cmd, text] of each) expect(text, `${cmd} ${flag}`).toBeDefined();
      expect(new Set(each.map(([, t]) => t)), `${flag}: ${JSON.stringify(Object.fromEntries(each), null, 1)}`).toHaveProperty("size", 1);
    }
    // --format: one wording (formatUsage), the formats each command prints.
    for (const [cmd, { formats }] of Object.entries(COMMANDS)) {
      expect(words(cmd, "--format"), cmd).toBe(optionText(formatUsage(formats), "--format"));
      expect(helps[cmd]!.stdout, cmd).toContain(`[--format ${formats.join("|")}]`);
    }
    // Each takes --json-out, so its exit codes say the file holds the reason when it could not run.
    for (const cmd of Object.keys(COMMANDS)) expect(helps[cmd]!.stdout, cmd).toMatch(/and in json\/markdown\/sarif output and the --json-out file\), or past --timeout/);
  });

  it("access says that a change's default --fail-severity (critical,high) already exits 1", async () => {
    const r = await run("access", ["--help"]);
    const one = /^ {2}1 {2}found something: ([\s\S]*?)\n {2}2 {2}/m.exec(r.stdout)?.[1]?.replace(/\s+/g, " ");
    expect(one, r.stdout).toMatch(/the default --fail-severity critical,high already exits 1 on a critical or high gain/);
  });

  it("refuses a bad --format in the same words, naming the formats each prints", async () => {
    for (const [cmd, { formats }] of Object.entries(COMMANDS)) {
      const r = await run(cmd, ["--stack", "s", "--format", "yaml"]);
      expect(r.code, cmd).toBe(2);
      expect(r.stdout, cmd).toBe("");
      expect(r.stderr.split("\n")[0], cmd).toBe(`platform-pulumi ${cmd}: --format: "yaml" is not one of ${formats.join(", ")}`);
    }
  });

  it("refuses a bad --max-chars in the same words, before reading the stack", async () => {
    for (const cmd of Object.keys(COMMANDS)) {
      const r = await run(cmd, ["--stack", "s", "--cwd", "/nonexistent-folder-of-the-test", "--max-chars", "999"]);
      expect(r.code, cmd).toBe(2);
      expect(r.stderr.split("\n")[0], `${cmd}: ${r.stderr}`).toBe(`platform-pulumi ${cmd}: --max-chars: "999" is not a whole number of at least 1000`);
      expect(r.stderr, cmd).toMatch(/\nusage: /);
    }
  });
});

/** A drift report with `n` drifted fields, `n` pending steps and `n` unmanaged objects. */
function bigDrift(n: number): DriftReport {
  const urn = (i: number) => `urn:pulumi:prod::infra::platform:iam:Group::team-${i}`;
  return {
    stack: "prod",
    drifted: Array.from({ length: n }, (_, i) => ({ urn: urn(i), type: "Group", name: `team-${i}`, uid: `${"a".repeat(40)}/${i}`, change: "changed" as const, fields: [{ path: "description", state: "as declared", live: `changed by hand ${i}` }] })),
    pending: Array.from({ length: n }, (_, i) => ({ urn: urn(i), type: "Group", name: `team-${i}`, op: "update" as const, fields: ["description"] })),
    unmanaged: Array.from({ length: n }, (_, i) => ({ type: "Identity", uid: `${"a".repeat(40)}/x/${i}`, name: `stray-${i}`, parentUid: `${"a".repeat(40)}/x` })),
  };
}

/** The rows of the Markdown tables in `md` (lines starting `| ` that are not a header or a rule). */
function tableRows(md: string, first: string): number {
  return md.split("\n").filter((l) => l.startsWith(`| ${first}`)).length;
}

describe("--max-chars on drift and unmanaged Markdown", () => {
  it("drift: every row within the budget, the rest counted in a closing line naming the --json-out file", () => {
    const r = bigDrift(300);
    const all = formatDrift(r, "markdown", true);
    expect(all.length).toBeLessThanOrEqual(60_000); // the default budget
    expect(all).toContain("more row(s) not shown to keep this comment within 60000 characters; the full report is in the JSON output");
    const md = formatDrift(r, "markdown", true, { maxChars: 4000, jsonFile: "drift.json" });
    expect(md.length).toBeLessThanOrEqual(4000);
    const shown = tableRows(md, "Group") + tableRows(md, "Identity");
    expect(shown).toBeGreaterThan(0);
    const closing = md.trimEnd().split("\n").pop()!;
    expect(closing).toBe(`*${900 - shown} more row(s) not shown to keep this comment within 4000 characters; the full report is in \`drift.json\`.*`);
    // The headings of every section stay: a reader sees what was cut.
    expect(md).toContain("**Pending**");
    expect(md).toContain("**Unmanaged**");
    // A small report is whole, with no closing line.
    const small = formatDrift(bigDrift(2), "markdown", true, { maxChars: 4000 });
    expect(tableRows(small, "Group") + tableRows(small, "Identity")).toBe(6);
    expect(small).not.toContain("not shown");
  });

  it("unmanaged: the objects within the budget, the rest counted in a closing line naming the JSON report", () => {
    const rows: UnmanagedObject[] = Array.from({ length: 200 }, (_, i) => ({ kind: "Group", uid: `${"b".repeat(40)}/g/${i}`, name: `stray-${i}`, parentUid: `${"b".repeat(40)}/g`, parentPath: "eng", adopt: `adoptUid: "${"b".repeat(40)}/g/${i}"` }));
    const md = unmanagedMarkdown("dev", rows, [], { maxChars: 3000 });
    expect(md.length).toBeLessThanOrEqual(3000);
    const shown = tableRows(md, "Group");
    expect(shown).toBeGreaterThan(0);
    expect(md).toContain(`*${200 - shown} of 200 row(s) not shown.*`);
    expect(md.trimEnd().split("\n").pop()).toBe(`*${200 - shown} more row(s) not shown to keep this comment within 3000 characters; the full report is in the JSON output (\`--format json\`, or \`--json-out <file>\`).*`);
  });

  it("BoundedMarkdown: a table none of whose rows fit is one line; text is always written", () => {
    const md = new BoundedMarkdown(1000);
    md.lines("### t", "");
    md.table(["a"], [["x".repeat(700)], ["y"]]);
    md.table(["b"], [["z"]]);
    md.table(["c"], [], "Nothing.");
    expect(md.left).toBe(3);
    expect(md.text()).toBe(["### t", "", "*2 of 2 row(s) not shown.*", "", "*1 of 1 row(s) not shown.*", "", "Nothing.", "", "*3 more row(s) not shown to keep this comment within 1000 characters; the full report is in the JSON output (`--format json`, or `--json-out <file>`).*", ""].join("\n"));
  });
});

describe("unmanaged's JSON", () => {
  it("is one object: the readable objects in unmanaged, the rows with a problem in unreadable", () => {
    const ok: UnmanagedObject = { kind: "Group", uid: "u/1", name: "stray", parentUid: "u", parentPath: "eng", adopt: 'adoptUid: "u/1"' };
    const bad: UnmanagedObject = { kind: "Identity", uid: "", name: "", parentUid: "u", parentPath: "eng", adopt: "look at it", problem: "claimMatch: expected object" };
    expect(unmanagedReport("dev", [ok, bad])).toEqual({ stack: "dev", unmanaged: [ok], unreadable: [{ kind: "Identity", uid: null, parentUid: "u", parentPath: "eng", problem: "claimMatch: expected object" }] });
    expect(unmanagedReport("dev", [])).toEqual({ stack: "dev", unmanaged: [], unreadable: [] });
  });
});

describe("the emulator's errors", () => {
  it("read as every command's: platform-pulumi emulator: <reason>, the hint indented; the usage only for a bad argument", () => {
    const busy = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:4100"), { code: "EADDRINUSE", port: 4100 });
    expect(emulatorErrorText(busy)).toBe("platform-pulumi emulator: listen EADDRINUSE: address already in use 127.0.0.1:4100\n  another process listens on port 4100: stop it, or give another --port (or --auth-port); 0 picks a free one\n");
    const bad = emulatorErrorText(new EmulatorUsageError('--port must be an integer 0-65535, got "x"'), "platform-pulumi emulator");
    expect(bad).toMatch(/^platform-pulumi emulator: --port must be an integer 0-65535, got "x"\nusage: platform-pulumi emulator \[options\]\n/);
    // A message quoting a file is inert: no control sequence, no workflow command.
    expect(emulatorErrorText(new Error("bad\n::error::x\u001b[2J"))).toBe("platform-pulumi emulator: bad\n  \\u003a:error::x\\u001b[2J\n");
  });
});
