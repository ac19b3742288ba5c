/**
 * `/iam/{version}/groups`: list, get, create under a parent, PATCH with and without updateMask, delete.
 *
 * Contract: FACTS.md "Collections", "PATCH", "Errors". A group cannot be deleted while it has child groups,
 * identities, role bindings or repos: FAILED_PRECONDITION with a `RESOURCE_NOT_EMPTY` violation naming the
 * kinds of children left.
 */
import { failedPrecondition, invalidArgument, type FieldViolation } from "../errors";
import { envelope, paginate, parseListQuery } from "../list";
import type { GroupRow, Store } from "../store";
import { isChild, newChildUid, parentOf, rootOf } from "../uidp";
import { checkName, checkOptionalString, mustGet, patchRow, pickBody, prefixes, timestamp, uidParam, type Handler } from "./common";

const WRITABLE = ["name", "description"] as const;
const READ_ONLY = ["uid", "createTime", "updateTime", "kind", "status", "resourceLimits", "verified"] as const;

function validate(g: Record<string, unknown>, violations: FieldViolation[] = []): void {
  checkName(g["name"], violations);
  checkOptionalString("description", g["description"], violations);
  if (violations.length > 0) throw invalidArgument(violations);
}

/** A group as the API returns it; subgroups inherit the root's provisioning status. */
export function renderGroup(g: GroupRow): Record<string, unknown> {
  return { ...g, status: "ORG_STATUS_READY", ...(parentOf(g.uid) === undefined ? { resourceLimits: { repos: 1000 } } : {}) };
}

/** Kinds of children still under `uid`, e.g. `["groups (2)", "identities (1)"]`. */
export function childrenOf(store: Store, uid: string): string[] {
  const count = (rows: Array<{ uid: string }>) => rows.filter((r) => isChild(r.uid, uid)).length;
  const kinds: Array<[string, number]> = [
    ["groups", count(store.groups.all())],
    ["identities", count(store.identities.all())],
    ["roleBindings", count(store.roleBindings.all())],
    ["repos", count(store.repos.all())],
  ];
  return kinds.filter(([, n]) => n > 0).map(([k, n]) => `${k} (${n})`);
}

/** Registers the groups routes. */
export const groups: Handler = (app, ctx) => {
  const { store } = ctx;
  for (const base of prefixes(ctx, "iam", "groups")) {
    app.get(base, async (req) => {
      const q = parseListQuery(req.query as Record<string, string>);
      return envelope("groups", paginate(store.groups.all(), q), renderGroup);
    });

    app.get(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      return renderGroup(mustGet(store.groups.get(uid), "iam.group", uid));
    });

    app.post(`${base}/*`, async (req) => {
      const parentUid = uidParam(req, "parent");
      mustGet(store.groups.get(parentUid), "iam.group", parentUid);
      const unknown: FieldViolation[] = [];
      const body = pickBody(req.body, WRITABLE, READ_ONLY, unknown);
      validate(body, unknown);
      const t = timestamp(ctx.now());
      const row: GroupRow = {
        uid: newChildUid(parentUid),
        name: body["name"] as string,
        description: (body["description"] as string | undefined) ?? "",
        createTime: t,
        updateTime: t,
      };
      store.groups.put(row);
      return renderGroup(row);
    });

    app.patch(`${base}/*`, async (req) => renderGroup(patchRow(ctx, store.groups, req, "iam.group", WRITABLE, READ_ONLY, validate)));

    app.delete(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      mustGet(store.groups.get(uid), "iam.group", uid);
      if (uid === rootOf(uid)) {
        throw failedPrecondition("ROOT_GROUP", uid, "the organization's root group cannot be deleted through this emulator");
      }
      const left = childrenOf(store, uid);
      if (left.length > 0) {
        throw failedPrecondition("RESOURCE_NOT_EMPTY", uid, `group ${uid} still has ${left.join(", ")}`);
      }
      store.groups.delete(uid);
      return {};
    });
  }
};
