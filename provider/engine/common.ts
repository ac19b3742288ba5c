/**
 * Pieces every resource's provider implementation shares: the implementation type, field diffing, and the
 * read/delete handling of NOT_FOUND.
 */
import type * as pulumi from "@pulumi/pulumi";
import { ApiError, isNotFound } from "../client/errors";

/**
 * What a resource file implements and the runtime serves to the shim: every CRUD method, required (README, How it works:
 * without `update`, outputs collapse after an update, pulumi/pulumi#13983).
 */
export type ProviderImpl<Inputs, Outputs> = Required<Omit<pulumi.dynamic.ResourceProvider<Inputs, Outputs>, "configure">>;

/** Stable JSON: object keys sorted, so equal values compare equal whatever their key order. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** The fields among `fields` whose values differ between `olds` and `news`. */
export function changedFields<K extends string>(
  olds: Partial<Record<K, unknown>>,
  news: Partial<Record<K, unknown>>,
  fields: readonly K[],
): K[] {
  return fields.filter((f) => canonical(olds[f]) !== canonical(news[f]));
}

/**
 * Diff from field lists: a change to a `replaceOn` field replaces; a change to an `updateOn` field updates.
 */
export function fieldDiff<K extends string>(
  olds: Partial<Record<K, unknown>>,
  news: Partial<Record<K, unknown>>,
  replaceOn: readonly K[],
  updateOn: readonly K[],
): pulumi.dynamic.DiffResult {
  const replaces = changedFields(olds, news, replaceOn);
  const updates = changedFields(olds, news, updateOn);
  return { changes: replaces.length + updates.length > 0, replaces };
}

/**
 * Runs a read; a NOT_FOUND means the object was deleted outside Pulumi, reported to the engine as an empty id
 * (it then drops the resource from state on refresh and plans a create). `inputs` are the inputs that would
 * produce the current server state (the SDK types them as outputs), so a refresh leaves no spurious diff.
 */
export async function readOrGone<O>(
  fn: () => Promise<{ id: string; props: O; inputs: object }>,
): Promise<pulumi.dynamic.ReadResult<O>> {
  try {
    const r = await fn();
    return { id: r.id, props: r.props, inputs: r.inputs as O };
  } catch (err) {
    if (isNotFound(err)) return { id: "" };
    throw err;
  }
}

/**
 * The update every resource does: PATCH exactly the fields among `mutable` that differ between `olds` and `news`
 * (as `updateMask`), or nothing when none differ.
 * @param patch sends the PATCH and maps the server's answer to outputs.
 */
export async function patchChanged<I extends object, O extends object>(
  olds: O,
  news: I,
  mutable: ReadonlyArray<keyof I & string>,
  patch: (body: Partial<I>, mask: Array<keyof I & string>) => Promise<O>,
): Promise<pulumi.dynamic.UpdateResult<O>> {
  const mask = changedFields(olds as Partial<Record<keyof I & string, unknown>>, news as Partial<Record<keyof I & string, unknown>>, mutable);
  if (mask.length === 0) return { outs: { ...olds, ...news } };
  const body: Partial<I> = {};
  for (const f of mask) body[f] = news[f];
  return { outs: await patch(body, mask) };
}

/** Runs a delete; NOT_FOUND counts as done (the object is already gone). */
export async function deleteIgnoringNotFound(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** The parent of a UIDP (everything before the last `/`). */
export function parentOfUid(uid: string): string {
  const i = uid.lastIndexOf("/");
  return i < 0 ? "" : uid.slice(0, i);
}

/**
 * Makes a resource's `uid` output its engine id, which is the same value (create returns `id: uid`).
 *
 * Why: during the preview of an update the engine marks every output of a dynamic resource unknown, because
 * the dynamic-provider host drops `diff().stables` (README, How it works). A child wired to `parent.uid` would then see an
 * unknown `parentUid` and preview a replace of the whole subtree whenever a parent's description changes. The id
 * survives updates and stays known in previews, so children wired to `uid` preview correctly.
 */
export function useIdAsUid(resource: pulumi.CustomResource & { uid: pulumi.Output<string> }): void {
  Object.defineProperty(resource, "uid", { value: resource.id, enumerable: true, configurable: false, writable: false });
}

/** Sends a progress line to the Pulumi engine (shown in the update's output); never throws. */
export function logInfo(message: string): void {
  try {
      (require("@pulumi/pulumi") as typeof import("@pulumi/pulumi")).log.info(message);
  } catch {
    // No engine to log to (e.g. unit tests): stay quiet.
  }
}

/**
 * Takes an existing object under management (`adoptUid`): it must exist and live under `expectedParent`.
 * @throws Error naming the uid and what is wrong (missing, or under another parent).
 */
export async function adoptExisting<T extends { uid: string }>(what: string, uid: string, expectedParent: string, get: (uid: string) => Promise<T>): Promise<T> {
  let row: T;
  try {
    row = await get(uid);
  } catch (err) {
    if (isNotFound(err)) throw new Error(`adoptUid: there is no ${what} with uid ${uid} to adopt`, { cause: err });
    throw err;
  }
  const parent = parentOfUid(row.uid);
  if (parent !== expectedParent) throw new Error(`adoptUid: ${what} ${uid} lives under ${parent}, not under ${expectedParent} as declared`);
  return row;
}

/**
 * Refuses to adopt an object of a kind the API cannot change in place (no PATCH) when a declared field differs
 * from the object's: the next diff would replace, that is delete, the object just adopted.
 * @throws Error naming each differing field with both values.
 */
export function refuseDifferingAdoption(what: string, existing: object, inputs: object, keys: readonly string[]): void {
  const e = existing as Record<string, unknown>;
  const i = inputs as Record<string, unknown>;
  const differ = keys.filter((k) => canonical(e[k]) !== canonical(i[k]));
  if (differ.length === 0) return;
  const list = differ.map((k) => `${k} is ${canonical(e[k])}, declared ${canonical(i[k])}`).join("; ");
  throw new Error(`adoptUid: ${what} ${String(e["uid"] ?? "")} differs from the declaration (${list}), and the API cannot change it in place; declare its values, or let Pulumi create a new one`);
}

/** google.rpc.Code UNIMPLEMENTED (the client names no constant for it). */
const UNIMPLEMENTED = 12;

/** A beta-only collection's rows, or none when the API version does not serve it (UNIMPLEMENTED). */
export async function betaOnly<T>(rows: Promise<T[]>): Promise<T[]> {
  try {
    return await rows;
  } catch (err) {
    if (err instanceof ApiError && err.code === UNIMPLEMENTED) return [];
    throw err;
  }
}
