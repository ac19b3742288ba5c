/**
 * UIDP (hierarchical uid) shapes, per the contract (the API description's UIDP shape): a root group is 40 lowercase hex
 * characters; every child appends `/` + 16 lowercase hex characters. Built-in roles are one 40-hex segment.
 */
import { createHash, randomBytes } from "node:crypto";

const ROOT = /^[0-9a-f]{40}$/;
const UIDP = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;

/** A new random root uid (40 hex chars). */
export function newRootUid(): string {
  return randomBytes(20).toString("hex");
}

/** A new random child uid under `parent` (parent + `/` + 16 hex chars). */
export function newChildUid(parent: string): string {
  return `${parent}/${randomBytes(8).toString("hex")}`;
}

/** A stable single-segment uid derived from a name (used for built-in roles, so uids survive restarts). */
export function stableRootUid(name: string): string {
  return createHash("sha1").update(`builtin-role:${name}`).digest("hex");
}

/** Whether `uid` is a well-formed UIDP (root or descendant). */
export function isUidp(uid: string): boolean {
  return UIDP.test(uid);
}

/** Whether `uid` is a well-formed root (single-segment) uid. */
export function isRootUid(uid: string): boolean {
  return ROOT.test(uid);
}

/** The parent of a UIDP, or undefined for a root uid. */
export function parentOf(uid: string): string | undefined {
  const i = uid.lastIndexOf("/");
  return i < 0 ? undefined : uid.slice(0, i);
}

/** Whether `uid` is a strict descendant of `ancestor`. */
export function isDescendant(uid: string, ancestor: string): boolean {
  return uid.length > ancestor.length && uid.startsWith(ancestor) && uid[ancestor.length] === "/";
}

/** Whether `uid` is a direct child of `parent`: the parent's uid, `/`, then one 16-hex segment. Allocation-free. */
export function isChild(uid: string, parent: string): boolean {
  return uid.length === parent.length + 17 && uid.charCodeAt(parent.length) === 47 && uid.startsWith(parent);
}

/** The root segment of a UIDP. */
export function rootOf(uid: string): string {
  const i = uid.indexOf("/");
  return i < 0 ? uid : uid.slice(0, i);
}
