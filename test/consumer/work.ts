/**
 * The consumer tier's per-file fixture (docs/testing.md, "The consumer tier"): a work folder for the file's
 * projects, made while the file is collected (their folders in it are named when their tests are registered), and
 * the packed tarball (test/harness/tarball.ts), found in `beforeAll`. The folder is removed after the file when
 * nothing was kept, and kept (its paths printed) otherwise.
 */
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { packedTarball } from "../harness/tarball";

/** What {@link useConsumerWork} gives a file. */
export interface ConsumerWork {
  /** The file's work folder. */
  work: string;
  /** The tarball's absolute path. @throws Error before the file's `beforeAll` found it. */
  tarball(): string;
  /** Keeps `dir` (a folder a failed step used) for inspection: the work folder is then not removed. */
  keep(dir: string): void;
}

/** Registers the fixture in the calling file; `prefix` names its folder in the system's temporary folder. */
export function useConsumerWork(prefix: string): ConsumerWork {
  const work = mkdtempSync(path.join(os.tmpdir(), prefix));
  let tarball: string | undefined;
  const kept: string[] = [];
  beforeAll(async () => {
    tarball = await packedTarball();
  }, 300_000);
  afterAll(() => {
    if (kept.length === 0) rmSync(work, { recursive: true, force: true });
    else process.stderr.write(`consumer tier: kept ${kept.join(", ")} for inspection\n`);
  });
  return {
    work,
    tarball: () => {
      if (tarball === undefined) throw new Error("the tarball is found in the file's beforeAll, which has not run");
      return tarball;
    },
    keep: (dir) => kept.push(dir),
  };
}
