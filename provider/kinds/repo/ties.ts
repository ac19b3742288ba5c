/**
 * Compile-time ties of the Repo kind (`../ties.ts`): `RepoArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiRepo`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiRepo } from "../../client/types";
import type { RepoShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Repo, RepoArgs, RepoInputs, RepoOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type RepoTies = ExpectNone<
  | KindDrift<RepoArgs, RepoInputs, Repo, RepoOutputs, never, "adoptUid">
  | SchemaDrift<typeof RepoShape, ApiRepo>
  | WireDrift<RepoInputs, ApiRepo, "parentUid" | "adoptUid" | "syncConfig" | "readme">
>;
