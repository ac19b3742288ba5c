/**
 * A step harness for engine tests, in the spirit of Terraform's `resource.Test{Steps, CheckDestroy}`
 * (docs/testing.md, "Engine tests as steps"): one program, one stack on a fresh file backend, one emulator, and an
 * ordered list of steps, each a program edit (stack config) and what the engine and the API must do about it.
 *
 * For each step, {@link stepTest} registers one `it`, which:
 * 1. sets the step's stack config (a `null` value removes the key), then runs its `before` (e.g. an edit behind
 *    the API);
 * 2. when `preview` is given, runs `pulumi preview --diff` and checks its summary and changes;
 * 3. runs the step's command (`up` unless said otherwise) through the real CLI with its event log, and checks its
 *    exit (`fails`), summary, changes and the API writes the emulator served during it (`writes`);
 * 4. after a successful `up`, reads the stack's outputs and, unless `settled: false`, runs {@link settleCheck}:
 *    one `pulumi preview --refresh --expect-no-changes` (what the program declared is what the API holds, and the
 *    engine sees nothing to do; test/settle-check.test.ts shows it failing on each kind of change it must catch);
 * 5. runs the step's own `check`.
 * A step after a failed one is skipped (it would fail for the earlier step's reason), so one failure is reported
 * once. A last `it` destroys the stack and checks that the emulator holds exactly the objects it held before the
 * first step (every collection of its store), apart from those a step made outside the stack and declared with
 * `keep` (which must still be there); `checkDestroy` adds its own checks.
 *
 * Everything runs the real Pulumi CLI (scripts/lib/pulumi.ts, scripts/lib/engine.ts) against an emulator on a
 * loopback port: nothing imitates the engine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../provider/client/client";
import { changes, engineOk, runEngine, type ChangeCounts, type EngineCommand, type EngineResult, type EngineRun } from "../../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../../scripts/lib/pulumi";

/** Stack outputs as `pulumi stack output --json --show-secrets` gives them. */
export type Outputs = Record<string, any>;

/** What a step's checks get: the running stack and emulator, and the outputs before and after the step. */
export interface StepContext {
  emu: Emulator;
  cli: PulumiCli;
  /** The file backend's folder (the stack's whole state, history and backups). */
  backend: string;
  /** The program's folder. */
  cwd: string;
  /** The stack's outputs after the last successful `up` ({} before the first). */
  outputs: Outputs;
  /** The outputs as they were when the step began. */
  previous: Outputs;
  /** The API writes the emulator served since request number `since` ({@link writesSince}). */
  writes(since: number): string[];
  /** The API writes of the step's command ({@link writesSince}); [] before it ran. */
  sent: string[];
  /** A client of the emulator's API as its owner (for objects made outside the stack, and reads). */
  client: PlatformClient;
  /** Declares objects made outside the stack: the destroy must leave them, and they are not counted as left over. */
  keep(...uids: string[]): void;
}

/** What a run of the engine must show: counts of its summary (those given) and its changes. */
export interface RunExpectation {
  /** Counts the run's summary must have (`toMatchObject`: counts not given are not checked). */
  summary?: Partial<Omit<ChangeCounts, "other">>;
  /** Every change the run made or planned, as `op name[ diff,diff…]` (e.g. `update team description`), in any order. */
  changes?: readonly string[];
}

/** One step: a program edit and what the engine and the API must do about it. */
export interface Step extends RunExpectation {
  /** The step's `it` title: what it shows. */
  name: string;
  /** Stack config set before the run (`pulumi config set key value`); `null` removes the key. */
  config?: Readonly<Record<string, string | null>>;
  /** Stack config set with `--path` before the run (e.g. `packages[0]`). */
  pathConfig?: Readonly<Record<string, string>>;
  /** Put the keys of `config` back as they were after the step (e.g. after a failing preview). */
  restoreConfig?: boolean;
  /** Runs after the config is set, before the preview and the command (e.g. an edit behind the API). */
  before?: (t: StepContext) => Promise<void> | void;
  /** Expectations of a `pulumi preview --diff` run before the command (and more checks of it); none is run when absent. */
  preview?: RunExpectation & { check?: (preview: EngineResult) => void };
  /** The engine command of the step (default `up`); `null` runs none, only `check`. */
  command?: Exclude<EngineCommand, "destroy"> | null;
  /** More arguments of the command (e.g. `--expect-no-changes`); `--yes --skip-preview` are given to up and refresh. */
  args?: readonly string[];
  /** The command must exit non-zero (default: it must succeed). */
  fails?: boolean;
  /**
   * Exactly the API writes (non-GET requests) the command must cause, in order, as
   * `METHOD path[?updateMask=…]`; a function gets the context after the run (its uids from the outputs).
   */
  writes?: readonly string[] | ((t: StepContext) => readonly string[]);
  /** After a successful `up`: {@link settleCheck} must find no changes (default true). */
  settled?: boolean;
  /** More checks; `run` is the command's result (undefined when `command` is null). */
  check?: (t: StepContext, run: EngineResult | undefined) => Promise<void> | void;
}

/** A whole engine test: where it runs and its steps. */
export interface StepTestOptions {
  /** The program's folder under test/programs. */
  program: string;
  /** The stack's name (its `Pulumi.<stack>.yaml` is removed afterwards). */
  stack: string;
  /** The CLI's environment (default: the emulator's URL, owner token and org uid). */
  env?: (emu: Emulator) => NodeJS.ProcessEnv;
  /** Runs once the stack exists, before the inventory the destroy is checked against (e.g. secret config). */
  setup?: (t: StepContext) => Promise<void> | void;
  steps: readonly Step[];
  /** Checks after the destroy, beyond the harness's own "nothing left" check. */
  checkDestroy?: (t: StepContext, destroy: EngineResult) => Promise<void> | void;
  /** Each step's timeout in milliseconds (default 240 000). */
  timeoutMs?: number;
}

/** The default environment: the emulator's URL, its owner's token and its org. */
export const emulatorEnv = (emu: Emulator): NodeJS.ProcessEnv => ({ PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid });

/** The API writes (non-GET requests) `emu` served from request number `since` on, as `METHOD path[?updateMask=…]`. */
export function writesSince(emu: Emulator, since: number): string[] {
  return emu.requests
    .slice(since)
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path}${r.query["updateMask"] ? `?updateMask=${r.query["updateMask"]}` : ""}`);
}

/** A run's changes as `op name[ diff,diff…]`, sorted. */
export function changeLines(run: Pick<EngineRun, "steps">): string[] {
  return changes(run)
    .map((s) => [s.op, s.name, s.diffs.join(",")].filter(Boolean).join(" "))
    .sort();
}

/** The uids of every collection of the emulator's store (the objects the API holds), by collection. */
export function inventory(emu: Emulator): Record<string, string[]> {
  return Object.fromEntries(emu.store.names.map((c) => [c, emu.store.table(c).all().map((r) => String(r["uid"])).sort()]));
}

/** A stack of `program` on a fresh file backend against a fresh emulator; `close` removes all of it. */
export interface EngineStack {
  emu: Emulator;
  cli: PulumiCli;
  /** A client of the emulator as its owner. */
  client: PlatformClient;
  backend: string;
  cwd: string;
  close(): Promise<void>;
}

/**
 * Starts an emulator, makes a file backend in a temporary folder and creates (selects) `stack` of
 * test/programs/`program` on it, with `env(emu)` as the CLI's environment.
 * @throws Error when the Pulumi CLI cannot be found or the stack cannot be created.
 */
export async function startEngineStack(program: string, stack: string, env: (emu: Emulator) => NodeJS.ProcessEnv = emulatorEnv): Promise<EngineStack> {
  const emu = await startEmulator();
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  const backend = mkdtempSync(path.join(tmpdir(), `engine-${path.basename(program)}-`));
  const cwd = path.join(REPO_ROOT, "test", "programs", program);
  const close = async () => {
    await client.close();
    await emu.close();
    rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(cwd, `Pulumi.${stack}.yaml`), { force: true });
  };
  try {
    const cli = new PulumiCli({ cwd, backendDir: backend, stack, env: env(emu) });
    await cli.initStack();
    return { emu, cli, client, backend, cwd, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function expectRun(run: EngineRun, want: RunExpectation, what: string): void {
  if (want.summary) expect(run.summary, `${what}: summary`).toMatchObject(want.summary);
  if (want.changes) expect(changeLines(run), `${what}: changes`).toEqual([...want.changes].sort());
}

/**
 * The settle check every `up` step ends with: one `pulumi preview --refresh --expect-no-changes`, which exits
 * non-zero when the refresh reads a declared field, or a field the program leaves unset, that differs from the
 * state (an edit behind the API), finds an object gone, or the program against the refreshed state plans any
 * step. It stands for the `pulumi refresh --expect-no-changes` then `pulumi preview --expect-no-changes` this
 * harness ran before: both found the same changes, and neither fails on a server-set output alone
 * (`verified`, `lastSeenTime`: the provider's diff does not compare them, so a refresh takes them in silently).
 * test/settle-check.test.ts shows it passing on a settled stack and failing on each of those changes.
 * @returns the run (its `changes` say what was not settled).
 */
export async function settleCheck(cli: PulumiCli): Promise<EngineResult> {
  return runEngine(cli, "preview", ["--refresh", "--expect-no-changes"]);
}

/** Succeeds when {@link settleCheck} exits 0; fails with the changes it found and its output otherwise. */
async function expectSettled(cli: PulumiCli): Promise<void> {
  const r = await settleCheck(cli);
  expect(r.code, `pulumi preview --refresh --expect-no-changes: ${JSON.stringify(changeLines(r))}\n${r.stdout}${r.stderr}`).toBe(0);
}

/**
 * Registers `title` as a `describe` of one `it` per step and a last `it` for the destroy (see the module
 * comment). The emulator, stack and backend are made in `beforeAll` and removed in `afterAll`.
 */
export function stepTest(title: string, opts: StepTestOptions): void {
  const timeout = opts.timeoutMs ?? 240_000;
  describe(title, () => {
    let stack: EngineStack | undefined;
    let t: StepContext;
    let before: Record<string, string[]> = {};
    let broken: string | undefined;
    const kept: string[] = [];

    beforeAll(async () => {
      stack = await startEngineStack(opts.program, opts.stack, opts.env);
      const { emu } = stack;
      t = { ...stack, outputs: {}, previous: {}, sent: [], writes: (since) => writesSince(emu, since), keep: (...uids) => kept.push(...uids) };
      await opts.setup?.(t);
      before = inventory(emu);
    }, timeout);
    afterAll(async () => {
      await stack?.close();
    });

    for (const step of opts.steps) {
      it(step.name, async (ctx) => {
        if (broken !== undefined) ctx.skip(`an earlier step failed: ${broken}`);
        try {
          await runStep(t, step);
        } catch (err) {
          broken = step.name;
          throw err;
        }
      }, timeout);
    }

    it("destroy removes everything the steps made: the API holds what it held before the first step", async (ctx) => {
      const destroy = await engineOk(t.cli, "destroy", ["--yes", "--skip-preview"]);
      if (broken !== undefined) ctx.skip(`destroyed; not checked, since an earlier step failed: ${broken}`);
      const after = inventory(t.emu);
      for (const uid of kept) expect(Object.values(after).flat(), `${uid}, made outside the stack, is still there`).toContain(uid);
      expect(Object.fromEntries(Object.entries(after).map(([c, uids]) => [c, uids.filter((u) => !kept.includes(u))]))).toEqual(before);
      await opts.checkDestroy?.(t, destroy);
    }, timeout);
  });
}

async function runStep(t: StepContext, step: Step): Promise<void> {
  const { cli } = t;
  t.previous = t.outputs;
  t.sent = [];
  const saved = step.restoreConfig ? await savedConfig(cli, Object.keys(step.config ?? {})) : undefined;
  try {
    for (const [key, value] of Object.entries(step.config ?? {})) {
      await cli.ok(value === null ? ["config", "rm", key] : ["config", "set", key, value]);
    }
    for (const [key, value] of Object.entries(step.pathConfig ?? {})) await cli.ok(["config", "set", "--path", key, value]);

    await step.before?.(t);
    if (step.preview) {
      const preview = await engineOk(cli, "preview", ["--diff"]);
      expectRun(preview, step.preview, "preview --diff");
      step.preview.check?.(preview);
    }

    const command = step.command === undefined ? "up" : step.command;
    let run: EngineResult | undefined;
    if (command !== null) {
      const since = t.emu.requests.length;
      run = await runEngine(cli, command, [...(command === "preview" ? [] : ["--yes", "--skip-preview"]), ...(step.args ?? [])]);
      const said = `pulumi ${command} exited ${run.code}:\n${`${run.stdout}\n${run.stderr}`.trim().split("\n").slice(-40).join("\n")}`;
      if (step.fails) expect(run.code, said).not.toBe(0);
      else expect(run.code, said).toBe(0);
      const sent = (t.sent = t.writes(since));
      if (command === "up" && !step.fails) t.outputs = await cli.outputs();
      expectRun(run, step, command);
      if (step.writes !== undefined) expect(sent, "API writes").toEqual(typeof step.writes === "function" ? step.writes(t) : step.writes);
      if (command === "up" && !step.fails && step.settled !== false) await expectSettled(cli);
    }
    await step.check?.(t, run);
  } finally {
    if (saved) await restoreConfig(cli, saved);
  }
}

/** The stack config values of `keys` (`undefined`: not set). */
async function savedConfig(cli: PulumiCli, keys: readonly string[]): Promise<Map<string, string | undefined>> {
  const saved = new Map<string, string | undefined>();
  for (const key of keys) {
    const r = await cli.run(["config", "get", key]);
    saved.set(key, r.code === 0 ? r.stdout.replace(/\n$/, "") : undefined);
  }
  return saved;
}

async function restoreConfig(cli: PulumiCli, saved: Map<string, string | undefined>): Promise<void> {
  for (const [key, value] of saved) {
    await cli.ok(value === undefined ? ["config", "rm", key] : ["config", "set", key, value]);
  }
}
