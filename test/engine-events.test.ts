/**
 * scripts/lib/engine.ts: reading the engine's events instead of its human output.
 *
 * The unit part parses event logs recorded from a real run here (test/fixtures/engine-events: `pulumi preview
 * --diff` and `pulumi up` of test/programs/steps after changing `names` from [a, b] to [a, c] and `description`
 * from "one" to "two", written with `PULUMI_DEBUG_COMMANDS=true … --event-log <file>`). The engine part runs the
 * same change through the real CLI against the emulator, as steps of the harness (test/harness/steps.ts).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { changeCounts, changes, engineOk, parseEventLines, readEngineEvents, runEngine, type EngineRun } from "../scripts/lib/engine";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { stepTest } from "./harness/steps";

const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "engine-events");
const LONG = 180_000;
const GROUP = "pulumi-nodejs:dynamic/platform:Group";

/** The change steps as `op name`, sorted. */
const ops = (run: EngineRun) => changes(run).map((s) => `${s.op} ${s.name}`).sort();

/** The expectations both the recorded and the live run must meet: one create (c), one update (a), one delete (b). */
function expectCreateUpdateDelete(run: EngineRun) {
  expect(run.summary).toMatchObject({ create: 1, update: 1, delete: 1, replace: 0, same: 1 });
  expect(ops(run)).toEqual(["create c", "delete b", "update a"]);
  const update = changes(run).find((s) => s.op === "update")!;
  expect(update.type).toBe(GROUP);
  expect(update.diffs).toEqual(["description"]);
  expect(Object.keys(update.detailedDiff)).toEqual(["description"]);
  expect(update.detailedDiff["description"]?.diffKind).toBe("update");
  expect(update.oldInputs?.["description"]).toBe("one");
  expect(update.newInputs?.["description"]).toBe("two");
  const create = changes(run).find((s) => s.op === "create")!;
  expect(create.oldInputs).toBeUndefined();
  expect(create.newInputs?.["name"]).toBe("steps-c");
  const del = changes(run).find((s) => s.op === "delete")!;
  expect(del.oldInputs?.["name"]).toBe("steps-b");
  expect(run.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
}

describe("parsing recorded event logs", () => {
  it("a preview: summary counts, steps with diffs and old/new inputs", () => {
    const events = parseEventLines(readFileSync(path.join(FIXTURES, "steps-preview.jsonl"), "utf8"));
    expect(events.length).toBe(30);
    expect(events.map((e) => e.sequence)).toEqual([...events.map((e) => e.sequence)].sort((a, b) => a - b));
    const run = readEngineEvents(events);
    expectCreateUpdateDelete(run);
    expect(run.result).toBe("succeeded");
    expect(run.policyPacks).toEqual([]);
  });

  it("an up: the same counts and steps, and the applied steps' outputs", () => {
    const run = readEngineEvents(parseEventLines(readFileSync(path.join(FIXTURES, "steps-up.jsonl"), "utf8")));
    expectCreateUpdateDelete(run);
    expect(changes(run).find((s) => s.op === "create")!.newOutputs?.["uid"]).toMatch(/^[0-9a-f]+\/[0-9a-f]+$/);
    expect(changes(run).find((s) => s.op === "update")!.newOutputs?.["description"]).toBe("two");
    expect(changes(run).map((s) => s.outcome === s.op)).toEqual([true, true, true]);
    expect(run.steps.some((s) => s.failed)).toBe(false);
  });

  it("skips lines that are not events, and reads diagnostics and policy events", () => {
    const lines = [
      "Previewing update (dev):",
      '{"sequence":2,"timestamp":1,"policyEvent":{"resourceUrn":"urn:pulumi:dev::p::t::x","message":"d\\nthe reason","color":"never","policyName":"p1","policyPackName":"platform","policyPackVersion":"0.1.0","policyPackVersionTag":"0.1.0","enforcementLevel":"mandatory"}}',
      '{"sequence":1,"timestamp":1,"diagnosticEvent":{"urn":"urn:pulumi:dev::p::t::x","message":"boom\\n","color":"never","severity":"error"}}',
      '{"sequence":3,"timestamp":1,"diagnosticEvent":{"message":"noise","color":"never","severity":"debug"}}',
      '{"sequence":4,"timestamp":1,"summaryEvent":{"maybeCorrupt":false,"durationSeconds":1,"resourceChanges":{"same":2,"discard":1},"PolicyPacks":{"platform|local|~/p/policies":"0.1.0"},"result":"failed"}}',
      '{"sequence":5,',
      "",
    ];
    const run = readEngineEvents(parseEventLines(lines.join("\n")));
    expect(run.events.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
    expect(run.diagnostics).toEqual([{ severity: "error", message: "boom", urn: "urn:pulumi:dev::p::t::x" }]);
    expect(run.policies).toEqual([
      { enforcementLevel: "mandatory", policyName: "p1", policyPackName: "platform", policyPackVersion: "0.1.0", urn: "urn:pulumi:dev::p::t::x", message: "d\nthe reason" },
    ]);
    expect(run.summary).toEqual({ ...changeCounts({}), same: 2, other: { discard: 1 } });
    expect(run.result).toBe("failed");
    expect(run.policyPacks).toEqual([{ name: "platform", version: "0.1.0" }]);
    expect(readEngineEvents([]).summary).toBeUndefined();
  });
});

stepTest("runEngine through the real Pulumi CLI", {
  program: "steps",
  stack: "events",
  timeoutMs: LONG,
  steps: [
    {
      name: "an up that creates reports each step and the counts",
      summary: { create: 3, update: 0, delete: 0, replace: 0 }, // a, b and the stack
      changes: ["create a", "create b"],
    },
    {
      name: "an up that creates, updates and deletes reports each step and the counts, as its preview does",
      config: { names: '["a","c"]', description: "two" },
      preview: { check: expectCreateUpdateDelete },
      check: (_t, up) => {
        expectCreateUpdateDelete(up!);
        expect(changes(up!).find((s) => s.op === "create")!.newOutputs?.["name"]).toBe("steps-c");
      },
    },
    {
      name: "a failed run resolves with its error diagnostics; engineOk throws; a bad flag gives no events",
      config: { names: '["x","x"]' }, // two resources named x: the engine refuses the duplicate URN
      restoreConfig: true,
      command: "preview",
      fails: true,
      check: async ({ cli }, failed) => {
        expect(failed!.diagnostics.some((d) => d.severity === "error")).toBe(true);
        await expect(engineOk(cli, "preview")).rejects.toThrow(/pulumi preview exited/);
        const bad = await runEngine(cli, "preview", ["--no-such-flag"]);
        expect(bad.code).not.toBe(0);
        expect(bad.events).toEqual([]);
        expect(bad.summary).toBeUndefined();
      },
    },
  ],
  checkDestroy: (_t, destroy) => {
    expect(destroy.summary).toMatchObject({ delete: 3, create: 0, update: 0 });
  },
});
