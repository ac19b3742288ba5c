/**
 * `platform-pulumi recover --stack <name> [--cwd <dir>] [--yes] [--delete] [--assume-unlocked]`: settles the creates
 * an interrupted `pulumi up` left pending, so the next `pulumi up` neither duplicates nor orphans.
 *
 * A killed update leaves `pending_operations` of type `creating` in the stack's state: the engine asked for a
 * create and never heard back, so the object may exist on the server while the state does not know it. `pulumi
 * refresh` keeps them; `--clear-pending-creates` forgets them and leaves the objects behind (orphans, then
 * duplicates at the next up); `--import-pending-creates` needs `pulumi import`, which dynamic resources cannot do
 * (pulumi/pulumi#16175). This command finds, for each pending create of this package's resources, the object it
 * made, and proves it:
 *
 * - groups, identities, roles, identity providers, repos: a same-named child of the parent whose description carries
 *   the create's ownership marker (`[pulumi-create:<token>]`, token from the pending operation's inputs); else,
 *   since a server completes the requests of a killed client and the create may have restored the description,
 *   the one child of that name created since the stack's last completed update that no stack of the project
 *   holds (several are reported, not adopted);
 * - account associations: the group's association when it carries the marker;
 * - role bindings: the same identity and role under the group, created since the stack's last completed update,
 *   held by no stack of the project, and the only one; likewise overlays (the same name), overlay bindings (the
 *   same overlay and tags under the repo) and subscriptions (the same sink); tags (which carry no createTime): the
 *   tag of that name and digest under the repo, held by no stack;
 * - group invites: matching invites made since the last completed update and held by no stack; their codes were
 *   only in the lost response, so they are always deleted and the next up creates a fresh one;
 * - a create with `adoptUid` (or an account association with `adopt`) adopted that object.
 *
 * **Identical pending creates** (twins: the same kind and the same inputs, `createToken` aside, e.g. five role
 * bindings of one identity and role at one group) are interchangeable, so the rules that count candidates count
 * for all of them: with `n` twins pending and `1..n` candidates, each twin in turn adopts one candidate no other
 * twin took (the earliest made first) and the rest made nothing; more candidates than twins are reported, not
 * adopted. A uid is adopted by one pending create at most, and an object carrying any create's marker is never a
 * candidate of the rules without one.
 *
 * Without `--yes` it prints the plan as a table and changes nothing. With `--yes` it writes each proven object
 * into the state as the resource it belongs to (id = uid, outputs read from the API with the provider's own
 * read, the resource's serialized provider kept) and removes the pending operations, through `pulumi stack
 * export` / `pulumi stack import`; with `--delete` it deletes the proven objects instead. While any update holds
 * the stack's lock (a live one, or a killed one not yet released with `pulumi cancel`), it reads and writes
 * nothing and says which update holds it (`lock.ts`: file, PostgreSQL and S3 backends, the project and backend
 * found as the CLI finds them, from a subfolder of the project or for a stack named fully from elsewhere too). On
 * a backend whose lock it does not read, it plans with a warning and `--yes` is refused unless
 * `--assume-unlocked`. When reading the state fails while an update may be writing it (the lock is held, or
 * cannot be read), it says so instead of advising to restore the checkpoint. A damaged file backend gets a
 * message saying what happened and what to run.
 */
import { Collection, type PlatformClient } from "../client/client";
import { isNotFound } from "../client/errors";
import { printable } from "../text";
import { TIMEOUT_USAGE, holdDeadline } from "./failure";
import { canonical } from "../engine/common";
import { markerToken, stripMarker } from "../engine/lifecycle";
import { kindEntry } from "../kinds/registry";
import type { ResourceKind } from "../kinds/registry";
import { configure, localProvider } from "../runtime";
import { explainUnderLock, refuseWhileLocked } from "./lock";
import { runStackFrame } from "./frame";
import {
  clientFor,
  exportStack,
  held,
  importStack,
  referencedUids,
  runPulumi,
  StackCommandError,
  stackConfig,
  table,
  type PendingOperation,
  type StackExport,
  type StackRef,
  type StateResource,
} from "./stack";
import { kindOfType } from "../typeTokens";

/** What recover does with one pending operation. */
export type RecoverAction = "adopt" | "delete" | "forget" | "refuse";

/** One row of the recovery plan. */
export interface RecoverRow {
  /** The resource's URN and its Pulumi name (the URN's last segment). */
  urn: string;
  name: string;
  /** Resource kind (`Group`, …) or the foreign type token. */
  kind: string;
  /** The pending operation's type (`creating`, `updating`, …). */
  operation: string;
  /** uid of the object found (adopt) or of the copies to delete. */
  uids: string[];
  /** How the object was proven to be this create's, or why nothing was. */
  proof: string;
  action: RecoverAction;
}

/** The plan: the state it was made from and a row per pending operation. */
export interface RecoverPlan {
  state: StackExport;
  rows: RecoverRow[];
}

function kindOf(r: StateResource): string {
  return kindOfType(r.type) ?? r.type;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The end of the stack's last completed update (epoch ms), from `pulumi stack history`; 0 when unknown. */
async function lastUpdateEnd(ref: StackRef): Promise<number> {
  const r = await runPulumi(ref, ["stack", "history", "--json"]);
  if (r.code !== 0) return 0;
  let best = 0;
  for (const u of JSON.parse(r.stdout || "[]") as Array<{ endTime?: string | number }>) {
    const t = typeof u.endTime === "number" ? u.endTime * 1000 : Date.parse(u.endTime ?? "");
    if (!Number.isNaN(t) && t > best) best = t;
  }
  return best;
}

/** A kind's collection on the client (the kind registry's), or undefined for a kind this package does not know. */
function collectionOf(client: PlatformClient, kind: string) {
  return kindEntry(kind)?.collection(client);
}

/**
 * Decides what to do with each pending operation (reads the API, changes nothing).
 * @throws StackCommandError when the state cannot be read (with what to do), SettingsError when the API settings
 *   are missing.
 */
export async function planRecovery(ref: StackRef, client: PlatformClient): Promise<RecoverPlan> {
  const state = await exportStack(ref);
  const pending = state.deployment.pending_operations ?? [];
  const rows: RecoverRow[] = [];
  if (pending.length === 0) return { state, rows };
  const holders = await referencedUids(ref);
  const since = await lastUpdateEnd(ref);
  const createdSince = (t: string | undefined) => since === 0 || Date.parse(t ?? "") >= since - 1000;
  // Twins: pending creates of one kind with the same inputs; how many are still to be planned, per twin key.
  const left = new Map<string, number>();
  for (const op of pending) if (op.type === "creating") left.set(twinKey(op.resource), (left.get(twinKey(op.resource)) ?? 0) + 1);
  const taken = new Set<string>();
  for (const op of pending) {
    const r = op.resource;
    const kind = kindOf(r);
    const base = { urn: r.urn, name: r.urn.split("::").pop() ?? r.urn, kind, operation: op.type };
    if (kindOfType(r.type) === undefined) {
      rows.push({ ...base, uids: [], proof: "not a platform-pulumi resource", action: "refuse" });
      continue;
    }
    if (op.type !== "creating") {
      rows.push({ ...base, uids: r.id ? [r.id] : [], proof: "the object is in the state already; `pulumi refresh` settles it", action: "forget" });
      continue;
    }
    const key = twinKey(r);
    const twins = left.get(key) ?? 1;
    left.set(key, twins - 1);
    const found = await findCreated(client, kind, r.inputs ?? {}, holders, createdSince, { taken, twins });
    if (found.action === "adopt") for (const uid of found.uids) taken.add(uid);
    rows.push({ ...base, ...found });
  }
  return { state, rows };
}

/** The kind and inputs of a pending create, `createToken` and the serialized provider left out: equal for twins. */
function twinKey(r: StateResource): string {
  const { createToken: _t, __provider: _p, ...inputs } = r.inputs ?? {};
  return `${r.type}\n${canonical(inputs)}`;
}

/** The uids pending creates of this plan adopted so far, and how many twins of this create are still to be planned (itself included). */
interface Twins {
  taken: Set<string>;
  twins: number;
}

async function findCreated(
  client: PlatformClient,
  kind: string,
  inputs: Record<string, unknown>,
  holders: Set<string>,
  createdSince: (t: string | undefined) => boolean,
  { taken, twins }: Twins,
): Promise<Pick<RecoverRow, "uids" | "proof" | "action">> {
  const entry = kindEntry(kind);
  if (!entry) return { uids: [], proof: `unknown kind ${kind}`, action: "refuse" };
  const token = str(inputs["createToken"]);
  const adoptUid = str(inputs["adoptUid"]);
  if (adoptUid) return { uids: [adoptUid], proof: "adoptUid", action: "adopt" };
  // The kind's own ownership rule (its declaration, `engine/declare.ts`): the same candidates its create's
  // recovery looks at.
  const own = entry.ownership;
  const candidates = await own.matching(client, inputs);
  if (inputs["adopt"] === true && candidates[0]) return { uids: [candidates[0].uid], proof: "adopt: true", action: "adopt" };
  const time = (x: { uid: string }) => (own.time ? own.time(x) : (x as { createTime?: string }).createTime);
  const free = (x: { uid: string }) => !taken.has(x.uid) && !holders.has(held(kind, x.uid)) && createdSince(time(x));
  if (own.proof === "marker") {
    const description = (x: { uid: string }) => (x as { description?: string }).description;
    const mine = token ? candidates.filter((x) => markerToken(description(x)) === token) : [];
    if (mine.length > 0) return { uids: mine.map((x) => x.uid), proof: `ownership marker ${token}`, action: "adopt" };
    if (!own.loose) {
      return candidates.length > 0
        ? { uids: [], proof: `${entry.what} ${candidates.map((x) => x.uid).join(", ")} exists and this create did not make it`, action: "forget" }
        : { uids: [], proof: "nothing was created", action: "forget" };
    }
    // The create finished and restored the description (a server completes requests whose client was killed),
    // so no marker is left: the object is the one of that kind, parent and name created during the interrupted
    // update that no stack holds, when there is exactly one.
    // With twins pending (the same inputs), each adopts one such object no twin took (see the module comment).
    const loose = earliestFirst(candidates.filter((x) => markerToken(description(x)) === undefined && free(x)) as Array<{ uid: string; createTime?: string }>);
    if (loose.length >= 1 && loose.length <= twins) {
      const proof = twins > 1 ? `one of ${twins} identical creates; ` : "";
      return { uids: [loose[0]!.uid], proof: `${proof}same kind, parent and name, created during the interrupted update, held by no stack`, action: "adopt" };
    }
    if (loose.length > twins) {
      return { uids: loose.map((x) => x.uid), proof: "several same-named objects held by no stack: not adopted; `platform-pulumi unmanaged` lists them", action: "forget" };
    }
    return { uids: [], proof: "nothing was created", action: "forget" };
  }
  // Kinds without a marker: the one object matching the inputs, created during the update and held by no stack.
  // One candidate per create, or with twins pending, up to one per twin, each taken once (see the module comment).
  const same = own.same ?? "the same fields";
  const rows = earliestFirst(candidates.filter(free).map((x) => ({ ...x, createTime: time(x) })));
  if (own.lost === "delete") {
    if (rows.length > 0) return { uids: rows.map((x) => x.uid), proof: `matching ${entry.what}(s) created during the update (${same}); what only the lost answer held cannot be read back`, action: "delete" };
    return { uids: [], proof: "nothing was created", action: "forget" };
  }
  const proof = twins > 1 ? `one of ${twins} identical creates; ` : "";
  if (rows.length >= 1 && rows.length <= twins) return { uids: [rows[0]!.uid], proof: `${proof}${same}, created during the update, held by no stack`, action: "adopt" };
  if (rows.length > twins) return { uids: rows.map((x) => x.uid), proof: `several objects with ${same}: not proven; adopt one with adoptUid`, action: "forget" };
  return { uids: [], proof: "nothing was created", action: "forget" };
}

/** Objects by `createTime`, then uid: the earliest made first. */
function earliestFirst<T extends { uid: string; createTime?: string | undefined }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (a.createTime ?? "").localeCompare(b.createTime ?? "") || a.uid.localeCompare(b.uid));
}

/** The state entry of a pending create whose object is `uid`, with outputs read through the provider's read. */
async function stateEntry(r: StateResource, uid: string, config: Record<string, string>): Promise<StateResource> {
  const kind = kindOf(r) as ResourceKind;
  await configure({ config: { get: (k: string) => config[k] } } as never);
  const p = localProvider(kind);
  const got = await p.read!(uid, r.inputs ?? {});
  if (!got.id) throw new Error(`${r.urn}: ${uid} disappeared while recovering`);
  const outputs: Record<string, unknown> = { ...(got.props as Record<string, unknown>), __provider: r.inputs?.["__provider"] };
  const { propertyDependencies, dependencies, parent, provider: prov } = r;
  return {
    urn: r.urn,
    custom: true,
    id: uid,
    type: r.type,
    inputs: r.inputs ?? {},
    outputs,
    ...(parent ? { parent } : {}),
    ...(prov ? { provider: prov } : {}),
    dependencies: dependencies ?? [],
    ...(propertyDependencies ? { propertyDependencies } : {}),
  };
}

/** Applies a plan: adopts or deletes, then writes the state without its pending operations. */
async function applyPlan(ref: StackRef, plan: RecoverPlan, client: PlatformClient, config: Record<string, string>, deleteInstead: boolean, out: (s: string) => void): Promise<void> {
  holdDeadline(); // from the first write on, --timeout does not stop it halfway (./failure.ts)
  const added: StateResource[] = [];
  const byUrn = new Map((plan.state.deployment.pending_operations ?? []).map((op) => [op.resource.urn, op] as const));
  for (const row of plan.rows) {
    const op = byUrn.get(row.urn)!;
    const coll = collectionOf(client, row.kind);
    if (row.action === "delete" || (row.action === "adopt" && deleteInstead)) {
      for (const uid of row.uids) {
        try {
          await coll!.delete(uid);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        out(`deleted ${row.kind} ${printable(uid)} (${printable(row.name)})\n`);
      }
      continue;
    }
    if (row.action !== "adopt") continue;
    const [keep, ...extra] = row.uids;
    for (const uid of extra) {
      await coll!.delete(uid); // a second copy carrying the same create's marker: provably this create's
      out(`deleted ${row.kind} ${printable(uid)} (${printable(row.name)}): a second copy made by the same create\n`);
    }
    const obj = (await coll!.get(keep!)) as { description?: string };
    const declared = str(op.resource.inputs?.["description"]);
    // Only marked kinds carry a marker, and each has PATCH (`Collection`).
    if (coll instanceof Collection && obj.description !== undefined && markerToken(obj.description) !== undefined && stripMarker(obj.description) === declared) {
      await coll.patch(keep!, { description: declared }, ["description"]);
    }
    added.push(await stateEntry(op.resource, keep!, config));
    out(`adopted ${row.kind} ${printable(keep!)} as ${printable(row.urn)}\n`);
  }
  const next: StackExport = {
    ...plan.state,
    deployment: { ...plan.state.deployment, resources: [...(plan.state.deployment.resources ?? []), ...added] },
  };
  delete next.deployment.pending_operations;
  await importStack(ref, next);
}

/** Options of {@link recover}. */
export interface RecoverOptions extends StackRef {
  /** Apply the plan (default: print it and change nothing). */
  yes?: boolean;
  /** Delete the proven objects instead of adopting them. */
  delete?: boolean;
  /**
   * With `yes`: apply even when the backend's lock cannot be read (`lock.ts`, `checked: false`); the caller vouches
   * that no update of the stack runs. Default false: `yes` is refused on such a backend.
   */
  assumeUnlocked?: boolean;
  /** Where the table and messages go; default stdout. */
  out?: (s: string) => void;
}

/**
 * Prints the recovery plan for a stack's pending operations and, with `yes`, applies it.
 *
 * The stack's lock is read first (`lock.ts`, the project and backend found as the CLI finds them): while an update
 * holds it, nothing is read or written. When the backend's locks cannot be read, the plan is printed with a warning
 * and `yes` is refused unless `assumeUnlocked`. When reading the state fails, the lock is read again and the error
 * says so when an update holds the stack or the lock cannot be read, without the CLI's advice to restore the
 * checkpoint (`explainUnderLock`).
 * @returns the exit code: 0 when there was nothing to do, the plan was printed, or it was applied; 1 when a
 *   pending operation cannot be settled by this command (a foreign resource type), nothing changed then.
 * @throws StackCommandError (with what to run) when an update holds the stack's lock, when `yes` is asked on a
 *   backend whose lock is not read without `assumeUnlocked`, or when the state cannot be read or written;
 *   SettingsError when the API settings are missing.
 */
export async function recover(opts: RecoverOptions): Promise<number> {
  const out = opts.out ?? ((s: string) => void process.stdout.write(s));
  // A live update's in-flight creates are pending operations too: while any update holds the stack, recover
  // neither plans (it would call them interrupted) nor writes (`lock.ts`).
  const lock = await refuseWhileLocked(opts, "recover");
  if (!lock.checked) {
    const why = printable(lock.why ?? lock.backend);
    if (opts.yes && !opts.assumeUnlocked) {
      throw new StackCommandError(
        `recover --yes did not run: the stack's lock was not read (${why}), so recover cannot tell whether an update of stack ${printable(opts.stack)} is running, and applying beside one deletes or adopts what that update is creating`,
        `Run the plan (without --yes) to see what it would do; when no update of the stack is running, run again with --yes --assume-unlocked.`,
      );
    }
    process.stderr.write(`platform-pulumi recover: the stack's lock was not read (${why}): run this command only when no update of stack ${opts.stack} is running.\n`);
  }
  let config: Record<string, string>;
  let client: PlatformClient | undefined;
  let plan: RecoverPlan;
  try {
    config = await stackConfig(opts);
    client = clientFor(config);
    plan = await planRecovery(opts, client);
  } catch (err) {
    await client?.close();
    // An update may have started since the lock was read, and be writing the checkpoint this read failed on.
    throw await explainUnderLock(opts, err, "recover");
  }
  try {
    if (plan.rows.length === 0) {
      out(`stack ${opts.stack}: no pending operations, nothing to recover\n`);
      return 0;
    }
    const act = (r: RecoverRow) => (opts.delete && r.action === "adopt" ? "delete" : r.action);
    out(
      `${table(
        ["resource", "kind", "operation", "object", "action", "proof"],
        plan.rows.map((r) => [r.name, r.kind, r.operation, r.uids.join(", ") || "-", act(r), r.proof]),
      )}\n`,
    );
    const refused = plan.rows.filter((r) => r.action === "refuse");
    if (refused.length > 0) {
      out(`\n${refused.length} pending operation(s) this command cannot settle (${refused.map((r) => printable(r.name)).join(", ")}): settle them first (e.g. \`pulumi refresh\`), then run recover again. Nothing changed.\n`);
      return 1;
    }
    if (!opts.yes) {
      const unread = lock.checked ? "" : " The stack's lock was not read: add --assume-unlocked to --yes only when no update of the stack is running.";
      out(`\nNothing changed. Run again with --yes to apply this plan${opts.delete ? "" : " (or --yes --delete to delete the objects instead of adopting them)"}.${unread}\n`);
      return 0;
    }
    // Planning took a while: an update may have started meanwhile.
    await refuseWhileLocked(opts, "recover");
    await applyPlan(opts, plan, client, config, opts.delete ?? false, out);
    out(`\nstack ${opts.stack}: ${plan.rows.length} pending operation(s) settled; the next \`pulumi up\` neither duplicates nor orphans them.\n`);
    return 0;
  } finally {
    await client.close();
  }
}

/** The `recover` subcommand's usage. */
export const RECOVER_USAGE = `usage: platform-pulumi recover --stack <name> [--cwd <dir>] [--yes] [--delete] [--assume-unlocked] [--timeout <d>]
  Settles the creates an interrupted \`pulumi up\` left pending (pulumi on PATH; settings from the stack's
  platform:* config, then PLATFORM_* variables).
  --stack <name>   the stack (required; or PULUMI_STACK)
  --cwd <dir>      where to run: the Pulumi project's folder or one below it, found upward as pulumi does
                   (default: the current one)
  --yes            apply the plan (default: print it, change nothing)
  --delete         delete the objects found instead of adopting them
  --assume-unlocked
                   with --yes, on a backend whose update lock recover does not read (Azure Blob, Google
                   Cloud Storage, the Pulumi Cloud, S3 without @aws-sdk/client-s3): apply anyway, when you
                   know no update of the stack is running (without it, --yes is refused there)
${TIMEOUT_USAGE}
                    (with --yes: up to the first write; from there it runs to the end)`;

/**
 * `platform-pulumi recover …`: parses `argv` (the arguments after `recover`) and runs {@link recover}.
 * It prints its plan as text and takes no `--format` (./frame.ts).
 * @returns the exit code (./frame.ts): 0 nothing to do, planned or applied; 1 a pending operation it cannot
 *   settle; 2 a usage error, a failure or past `--timeout`.
 */
export function recoverCommand(argv: readonly string[]): Promise<number> {
  const frame = {
    name: "recover",
    usage: RECOVER_USAGE,
    found: "a pending operation it cannot settle",
    options: { yes: { type: "boolean", default: false }, delete: { type: "boolean", default: false }, "assume-unlocked": { type: "boolean", default: false } },
  } as const;
  return runStackFrame(frame, argv, ({ ref, values }) =>
    recover({ ...ref, yes: values["yes"] === true, delete: values["delete"] === true, assumeUnlocked: values["assume-unlocked"] === true }),
  );
}

export type { PendingOperation };
