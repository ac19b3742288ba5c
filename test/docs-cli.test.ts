/**
 * docs/cli.md gives every command's flags as the command's own `--help` prints them; this runs the built bin
 * (`dist/cli/main.js`, what `npx platform-pulumi` runs) and compares, so a flag added, renamed or dropped in the code
 * fails here until docs/cli.md follows. Needs `npm run build`.
 */
import { describe, expect, it } from "vitest";
import { runBin } from "./harness/bin";
import { readDoc } from "./harness/docs";

const CLI_MD = readDoc("docs/cli.md");

/** The first ```text block after a heading line of docs/cli.md that is exactly `heading`. */
function helpBlock(heading: string): string | undefined {
  const at = CLI_MD.split("\n").indexOf(heading);
  if (at < 0) return undefined;
  const rest = CLI_MD.split("\n").slice(at + 1).join("\n");
  return /```text\n([\s\S]*?)\n```/.exec(rest)?.[1];
}

/** What `platform-pulumi <args>` prints for help (the emulator's on stderr, the others' on stdout). */
async function help(args: string[]): Promise<string> {
  const r = await runBin(args, process.env);
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return (r.stdout.trim() === "" ? r.stderr : r.stdout).trimEnd();
}

describe("docs/cli.md", () => {
  it("lists every command of `platform-pulumi --help`, with that help as printed", async () => {
    const top = await help(["--help"]);
    expect(CLI_MD).toContain(`\`npx platform-pulumi --help\`:\n\n\`\`\`text\n${top}\n\`\`\``);
    const commands = [...top.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThanOrEqual(7);
    for (const c of commands) expect(CLI_MD.split("\n"), c).toContain(`### \`${c}\``);
  });

  it.each(["drift", "gate", "access", "export", "unmanaged", "recover", "emulator"])("gives `%s --help` as the command prints it", async (command) => {
    const block = helpBlock(`### \`${command}\``);
    expect(block, `a \`\`\`text block under "### \`${command}\`" in docs/cli.md`).toBeDefined();
    expect(block).toBe(await help([command, "--help"]));
  });
});
