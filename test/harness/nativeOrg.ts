/**
 * The steps of the native provider plugin's tests in other languages, which the consumer tier runs once per
 * language from the packed package (test/consumer/languages.ts; the repository has no other copy of them):
 * {@link YAML_PROGRAM}, {@link PYTHON_PROGRAM} and {@link GO_PROGRAM}. Their programs (test/programs/native-<language>) declare the same small org by type
 * token, `team` (a group under the org, its description from config `desc`), `sub` (a group under it), `ci` (an
 * identity with `claimMatch`) and `ciViewer` (a role binding of `ci` at `sub` to the built-in viewer role found
 * through the plugin's Invoke of `platform:iam:getRole`), with the outputs teamUid, subUid, subParent, ciUid,
 * bindingUid and viewerUid.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { PulumiCli, REPO_ROOT } from "../../scripts/lib/pulumi";
import { run } from "../consumer/toolchain";
import { mkGroup } from "../helpers";
import { emulatorEnv, stepTest, type Step } from "./steps";

/** What {@link ensureHost} found: the script's exit status, its printed lines and its stderr. */
export interface HostBuild {
  /** 0: built or found; 3: cannot be built on this machine (no toolchain), the tests skip; else a build error. */
  status: number | null;
  /** The script's stdout lines (scripts/ensure-language-*: the host's folder, then for Python the interpreter). */
  lines: string[];
  /** The script's stderr (its reason when status is not 0). */
  stderr: string;
}

/**
 * Runs `scripts/<script>` (ensure-language-yaml or ensure-language-python) synchronously, while the test file is
 * collected, so a file can choose between its tests and one skip with the reason.
 * @throws Error with the script's stderr when it failed for another reason than a missing toolchain (exit 3).
 */
export function ensureHost(script: string): HostBuild {
  const r = spawnSync("bash", [path.join(REPO_ROOT, "scripts", script)], { encoding: "utf8" });
  if (r.status !== 0 && r.status !== 3) throw new Error(`scripts/${script} exited ${r.status}:\n${r.stderr}`);
  return { status: r.status, lines: r.stdout.trim().split("\n"), stderr: r.stderr };
}

/**
 * The shared steps: up (and the org as the API holds it), a one-field edit (one PATCH with its updateMask), an
 * edit made outside Pulumi seen by `pulumi preview --refresh`, and `up --refresh` putting it back.
 * @param language the program's language, in the edited description (e.g. `YAML`).
 */
export function orgSteps(language: string): Step[] {
  const edited = `edited from ${language}`;
  return [
    {
      name: "up creates the org: a group under a group, an identity with claimMatch, a role binding to the viewer role found through Invoke",
      changes: ["create ci", "create ciViewer", "create sub", "create team"],
      check: async ({ outputs, client, cli }) => {
        expect(outputs["subParent"]).toBe(outputs["teamUid"]);
        const viewer = (await client.roles.list({ name: "viewer" }).collect())[0];
        expect(outputs["viewerUid"]).toBe(viewer?.uid);
        const binding = await client.roleBindings.get(outputs["bindingUid"] as string);
        expect(binding).toMatchObject({ identity: { uid: outputs["ciUid"] }, role: { uid: viewer?.uid } });
        expect((await client.identities.get(outputs["ciUid"] as string)).claimMatch).toMatchObject({
          issuer: "https://token.actions.githubusercontent.com",
          subject: "repo:example/app:ref:refs/heads/main",
        });
        const types = ((await cli.exportState()).deployment.resources ?? []).map((r) => String(r["type"])).filter((t) => t.startsWith("platform:"));
        expect(types.sort()).toEqual(["platform:iam:Group", "platform:iam:Group", "platform:iam:Identity", "platform:iam:RoleBinding"]);
      },
    },
    {
      name: "a description edit is exactly one PATCH with updateMask=description",
      config: { desc: edited },
      preview: { summary: { update: 1, replace: 0, create: 0, delete: 0 }, changes: ["update team description"] },
      writes: ({ outputs }) => [`PATCH /iam/v2beta1/groups/${outputs["teamUid"]}?updateMask=description`],
      check: async ({ client, outputs }) => {
        expect((await client.groups.get(outputs["teamUid"] as string)).description).toBe(edited);
      },
    },
    OUTSIDE_EDIT_SEEN,
    PUT_BACK,
  ];
}

/** An edit of `team`'s description made outside Pulumi (through the API), seen by `pulumi preview --refresh`. */
export const OUTSIDE_EDIT_SEEN: Step = {
  name: "an edit made outside Pulumi shows in pulumi preview --refresh",
  before: async ({ client, outputs }) => {
    await client.groups.patch(outputs["teamUid"] as string, { description: "changed outside" }, ["description"]);
  },
  command: "preview",
  args: ["--refresh"],
  summary: { update: 1 },
};

/** `up --refresh` after {@link OUTSIDE_EDIT_SEEN}: one PATCH puts the declared description back. */
export const PUT_BACK: Step = {
  name: "up --refresh puts the declared description back with one PATCH",
  args: ["--refresh"],
  writes: ({ outputs }) => [`PATCH /iam/v2beta1/groups/${outputs["teamUid"]}?updateMask=description`],
};

/** A native-plugin test of a program in another language ({@link languageTest}). */
export interface LanguageTest {
  /** The test's title. */
  title: string;
  /** The language, as the program's edited description says it (e.g. `YAML`). */
  language: string;
  /** `scripts/<script>`, which makes the language host and prints its folder (then, for Python, the interpreter). */
  script: string;
  /** The program's folder under test/programs, also the stack's name unless `stack` is given. */
  program: string;
  /** From the script's printed lines: the host's folder, and more environment (Python: `PULUMI_PYTHON_CMD`). */
  host: (lines: readonly string[]) => { dir: string; env?: NodeJS.ProcessEnv };
  /** The language's own steps, after {@link orgSteps}. */
  steps: Step[];
  /**
   * Where the program runs instead of test/programs/`program`: an absolute folder holding a copy of it (the
   * consumer tier's project, with the package installed from its tarball). It must exist when the test's
   * `beforeAll` runs (it is where the stack is made), not when the test is registered.
   */
  cwd?: string;
  /** The stack's name (default `program`). */
  stack?: string;
  /** More folders on PATH after the host's (e.g. a toolchain's node, which the plugin's launcher runs), read when the test starts. */
  pathDirs?: () => readonly string[];
  /** Each step's timeout in milliseconds (stepTest's default when absent). */
  timeoutMs?: number;
}

/** The programs' folder, test/programs. */
const PROGRAMS = path.join(REPO_ROOT, "test", "programs");

/**
 * Registers a native-plugin test in another language: the host made by `scripts/<script>` (its folder first on
 * PATH, then `pathDirs`), the org's `orgUid` config from the emulator, {@link orgSteps} and then the language's own
 * steps. Where the host cannot be made here (the script exits 3: no Go or python3), one skipped test says why.
 */
export function languageTest(o: LanguageTest): void {
  const host = ensureHost(o.script);
  if (host.status === 3) {
    describe(o.title, () => {
      it.skip(`skipped: scripts/${o.script} cannot make the host here (${host.stderr.trim().split("\n").pop()})`, () => {});
    });
    return;
  }
  const made = o.host(host.lines);
  stepTest(o.title, {
    // stepTest takes a folder under test/programs: another folder is given relative to it.
    program: o.cwd === undefined ? o.program : path.relative(PROGRAMS, o.cwd),
    stack: o.stack ?? o.program,
    env: (emu) => ({
      ...emulatorEnv(emu),
      PATH: [made.dir, ...(o.pathDirs?.() ?? []), process.env["PATH"] ?? ""].join(path.delimiter),
      ...made.env,
    }),
    setup: async ({ cli, emu }) => {
      await cli.ok(["config", "set", "orgUid", emu.orgUid]);
    },
    steps: [...orgSteps(o.language), ...o.steps],
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  });
}

/** A language's program and host: a {@link LanguageTest} but for where and as what it runs. */
export type LanguageProgram = Omit<LanguageTest, "title" | "cwd" | "stack" | "pathDirs" | "timeoutMs">;

/**
 * The YAML program (test/programs/native-yaml) on Pulumi's YAML host (scripts/ensure-language-yaml), and its own
 * step: `pulumi import` of a group made outside Pulumi by its uid, with no write, whose generated YAML, added to
 * (a copy of) the program, previews no change.
 */
export const YAML_PROGRAM: LanguageProgram = {
  language: "YAML",
  // Built (or found) while the file is collected: the first build takes about two minutes, later runs milliseconds.
  script: "ensure-language-yaml",
  program: "native-yaml",
  host: (lines) => ({ dir: lines[lines.length - 1] ?? "" }),
  steps: [
    {
      // docs/native.md "The commands and the policy pack on a native stack": the package's jobs read a native
      // stack as they read a dynamic one (the engine's own fields, such as the create token, are never drift).
      name: "every job of the installed bin is clean on the unchanged stack (drift, gate, access --current, unmanaged, recover), then drift sees exactly the one change made outside Pulumi",
      command: null,
      check: async ({ cli, cwd, client, outputs }) => {
        const bin = path.join(cwd, "node_modules", ".bin", "platform-pulumi");
        const stack = cli.opts.stack;
        const job = async (args: string[]) => {
          const r = await run(bin, [...args, "--stack", stack, "--cwd", cwd], { cwd, env: cli.env(), timeoutMs: 300_000 });
          return { code: r.code, out: r.stdout, json: () => JSON.parse(r.stdout) as Record<string, any>, why: `${args.join(" ")}: exit ${r.code}\n${r.stdout}\n${r.stderr}` };
        };
        const driftJson = path.join(cwd, "drift-report.json");
        const [drift, gate, access, unmanaged, recover] = await Promise.all([
          job(["drift", "--format", "json", "--json-out", driftJson]),
          job(["gate", "--format", "json"]),
          job(["access", "--current", "--format", "json"]),
          job(["unmanaged", "--format", "json"]),
          job(["recover"]),
        ]);
        expect(drift.code, drift.why).toBe(0);
        expect(drift.json()).toEqual({ stack, drifted: [], pending: [], unmanaged: [] });
        expect(readFileSync(driftJson, "utf8"), "drift --json-out writes what --format json prints").toBe(drift.out);
        expect(gate.code, gate.why).toBe(0);
        expect(gate.json()["violations"].filter((v: { status: string }) => v.status === "new"), gate.why).toEqual([]);
        expect((gate.json()["access"]?.changes ?? []) as unknown[]).toEqual([]);
        expect(access.code, access.why).toBe(0);
        const grants = access.json()["grants"] as Array<{ identity: { uid: string | null; managed?: string } }>;
        expect(grants.length, access.why).toBeGreaterThan(0);
        // The whole org: the stack's ci, and the org's owner, which no stack manages.
        expect(new Set(grants.filter((g) => g.identity.managed === "this stack").map((g) => g.identity.uid))).toEqual(new Set([outputs["ciUid"]]));
        expect(new Set(grants.filter((g) => g.identity.managed !== "this stack").map((g) => g.identity.managed))).toEqual(new Set(["unmanaged"]));
        expect(unmanaged.code, unmanaged.why).toBe(0);
        expect(unmanaged.json()).toEqual({ stack, unmanaged: [], unreadable: [] });
        expect(recover.code, recover.why).toBe(0);
        expect(recover.out).toContain(`stack ${stack}: no pending operations, nothing to recover`);
        // One change made outside Pulumi: exactly one drifted row, that field; then put back as it was.
        const team = outputs["teamUid"] as string;
        const declared = (await client.groups.get(team)).description;
        await client.groups.patch(team, { description: "changed outside, once" }, ["description"]);
        try {
          const once = await job(["drift", "--format", "json"]);
          expect(once.code, once.why).toBe(1);
          const rows = once.json()["drifted"] as Array<{ uid: string; change: string; fields: Array<{ path: string }> }>;
          expect(rows.map((r) => [r.uid, r.change, r.fields.map((f) => f.path)])).toEqual([[team, "changed", ["description"]]]);
        } finally {
          await client.groups.patch(team, { description: declared }, ["description"]);
        }
      },
    },
    {
      name: "pulumi import adopts a group made outside Pulumi by its uid with no write, and its generated YAML previews no change",
      command: null,
      check: async ({ emu, cli, writes, backend, cwd }) => {
        const stack = cli.opts.stack;
        const legacy = await mkGroup(emu, emu.orgUid, "yaml-legacy", "made outside");
        const work = mkdtempSync(path.join(tmpdir(), "native-yaml-import-"));
        try {
          const since = emu.requests.length;
          const code = path.join(work, "legacy.yaml");
          const r = await cli.run(["import", "platform:iam:Group", "legacy", legacy.uid, "--yes", "--out", code]);
          expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
          expect(writes(since)).toEqual([]);
          const generated = parse(readFileSync(code, "utf8")) as { resources: Record<string, unknown> };
          expect(generated.resources["legacy"]).toMatchObject({
            type: "platform:iam:Group",
            properties: { name: "yaml-legacy", description: "made outside", parentUid: emu.orgUid },
          });
          // The program with the generated code added, in a copy whose plugin path (if it names one: the consumer
          // tier's installs the plugin into its Pulumi home instead) is absolute (the same plugin).
          const project = parse(readFileSync(path.join(cwd, "Pulumi.yaml"), "utf8")) as Record<string, any>;
          if (project["plugins"]) project["plugins"].providers[0].path = path.resolve(cwd, project["plugins"].providers[0].path as string);
          project["resources"] = { ...project["resources"], ...generated.resources };
          writeFileSync(path.join(work, "Pulumi.yaml"), stringify(project));
          copyFileSync(path.join(cwd, `Pulumi.${stack}.yaml`), path.join(work, `Pulumi.${stack}.yaml`));
          const copy = new PulumiCli({ cwd: work, backendDir: backend, stack, env: cli.opts.env ?? {} });
          const preview = await copy.run(["preview", "--expect-no-changes"]);
          expect(preview.code, `${preview.stdout}\n${preview.stderr}`).toBe(0);
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
        // Imported resources are protected; unprotected, the destroy below removes it with the rest.
        const imported = ((await cli.exportState()).deployment.resources ?? []).find((x) => x["id"] === legacy.uid);
        expect(imported?.["type"]).toBe("platform:iam:Group");
        await cli.ok(["state", "unprotect", imported?.["urn"] as string, "--yes"]);
      },
    },
  ],
};

/**
 * The Python program (test/programs/native-python) on Pulumi's Python host (scripts/ensure-language-python, with
 * `PULUMI_PYTHON_CMD` its venv's Python), and its own step: `pulumi import --generate-code=false` of a group made
 * outside Pulumi by its uid, with no write (this host cannot generate code).
 */
export const PYTHON_PROGRAM: LanguageProgram = {
  language: "Python",
  // Made (or found) while the file is collected: the first time about a minute and a half, later milliseconds.
  script: "ensure-language-python",
  program: "native-python",
  host: (lines) => ({ dir: lines[lines.length - 2] ?? "", env: { PULUMI_PYTHON_CMD: lines[lines.length - 1] ?? "" } }),
  steps: [importWithoutCode("py")],
};

/** A step of {@link PYTHON_PROGRAM} and {@link GO_PROGRAM}: `pulumi import --generate-code=false` of a group made outside Pulumi, with no write. */
function importWithoutCode(prefix: string): Step {
  return {
    name: "pulumi import --generate-code=false adopts a group made outside Pulumi by its uid, with no write",
    command: null,
    check: async ({ emu, cli, writes }) => {
      const legacy = await mkGroup(emu, emu.orgUid, `${prefix}-legacy`, "made outside");
      const since = emu.requests.length;
      const r = await cli.run(["import", "platform:iam:Group", "legacy", legacy.uid, "--yes", "--generate-code=false"]);
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(writes(since)).toEqual([]);
      const imported = ((await cli.exportState()).deployment.resources ?? []).find((x) => x["id"] === legacy.uid);
      expect(imported?.["type"]).toBe("platform:iam:Group");
      expect(imported?.["outputs"]).toMatchObject({ name: `${prefix}-legacy`, description: "made outside", parentUid: emu.orgUid });
      // Imported resources are protected; unprotected, the destroy below removes it with the rest.
      await cli.ok(["state", "unprotect", imported?.["urn"] as string, "--yes"]);
    },
  };
}

/**
 * The Go program (test/programs/native-go, on the generated Go SDK by its go.mod's `replace`) on Pulumi's Go host
 * (scripts/ensure-language-go, sdk/v3 v3.62.0), and its own step: `pulumi import --generate-code=false` (this host
 * cannot generate code). The host builds the program with the `go` on PATH at every engine command.
 */
export const GO_PROGRAM: LanguageProgram = {
  language: "Go",
  // Made (or found) while the file is collected: the first time under a minute, later milliseconds.
  script: "ensure-language-go",
  program: "native-go",
  // The checksum database does not know some modules through the reachable proxy: go.sum is committed (FACTS.md).
  host: (lines) => ({ dir: lines[lines.length - 1] ?? "", env: { GOSUMDB: "off" } }),
  steps: [importWithoutCode("go")],
};
