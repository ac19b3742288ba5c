/**
 * The step harness's settle check (test/harness/steps.ts `settleCheck`: one `pulumi preview --refresh
 * --expect-no-changes` after every `up` step) through the real CLI on test/programs/basic: it passes on a settled
 * stack and fails, naming the one resource, on each change the `pulumi refresh --expect-no-changes` then
 * `pulumi preview --expect-no-changes` it replaced caught:
 * - (a) a refresh that would change the state's outputs: a field the program leaves unset (the identity's
 *   description) set behind the API;
 * - (b) an input drifted: a declared field (the group's description) edited behind the API;
 * - an object deleted behind the API.
 * Each change is put back through the API before the next, and each failure must name exactly its resource, so
 * one case cannot pass for another. Neither the old pair nor this check fails on a server-set output alone
 * (`verified`, `lastSeenTime`): a refresh takes those into the state without a diff (test/engine-fields.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeLines, settleCheck, startEngineStack, type EngineStack } from "./harness/steps";

describe("the step harness's settle check (pulumi preview --refresh --expect-no-changes)", () => {
  let s: EngineStack;
  let out: Record<string, string>;

  beforeAll(async () => {
    s = await startEngineStack("basic", "settle-check");
    await s.cli.ok(["up", "--yes", "--skip-preview"]);
    out = (await s.cli.outputs()) as Record<string, string>;
  }, 240_000);
  afterAll(async () => {
    await s?.close();
  });

  it("passes on a settled stack", async () => {
    const r = await settleCheck(s.cli);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(changeLines(r)).toEqual([]);
  }, 120_000);

  it("(a) fails when a refresh would change an output: a field the program leaves unset, set behind the API", async () => {
    const bot = out["botUid"]!;
    await s.client.identities.patch(bot, { description: "set by hand" }, ["description"]);
    try {
      const r = await settleCheck(s.cli);
      expect(r.code).not.toBe(0);
      expect(changeLines(r)).toEqual(["update bot description"]);
    } finally {
      await s.client.identities.patch(bot, { description: "" }, ["description"]);
    }
  }, 120_000);

  it("(b) fails when an input drifted: a declared field edited behind the API", async () => {
    const team = out["teamUid"]!;
    await s.client.groups.patch(team, { description: "edited outside" }, ["description"]);
    try {
      const r = await settleCheck(s.cli);
      expect(r.code).not.toBe(0);
      expect(changeLines(r)).toEqual(["update team description"]);
    } finally {
      await s.client.groups.patch(team, { description: "first" }, ["description"]);
    }
  }, 120_000);

  it("fails when an object was deleted behind the API: the refresh drops it and the plan creates it again", async () => {
    await s.client.identities.delete(out["botUid"]!); // its binding goes with it
    const r = await settleCheck(s.cli);
    expect(r.code).not.toBe(0);
    expect(changeLines(r)).toEqual(["create bot", "create bot-viewer"]);
  }, 120_000);
});
