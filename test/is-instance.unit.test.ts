/**
 * `X.isInstance` on every resource class  judges by the Pulumi type token, as generated SDKs
 * do, so it holds for an object made by another copy of this package and never confuses two kinds.
 */
import { describe, expect, it } from "vitest";
import { AccountAssociation, Group, GroupInvite, Identity, IdentityProvider, Overlay, OverlayBinding, Repo, Role, RoleBinding, Subscription, Tag } from "../provider/index";

const CLASSES: Record<string, { isInstance(obj: unknown): boolean; get: (...args: never[]) => unknown }> = { Group, Identity, Role, RoleBinding, IdentityProvider, AccountAssociation, GroupInvite, Repo, Tag, Overlay, OverlayBinding, Subscription };

describe("isInstance", () => {
  it.each(Object.entries(CLASSES))("%s.isInstance accepts its own type token only", (kind, cls) => {
    const fromAnotherCopy = { __pulumiType: `pulumi-nodejs:dynamic/platform:${kind}` };
    expect(cls.isInstance(fromAnotherCopy)).toBe(true);
    for (const [other, otherCls] of Object.entries(CLASSES)) if (other !== kind) expect(otherCls.isInstance(fromAnotherCopy)).toBe(false);
    for (const x of [undefined, null, "Group", {}, { __pulumiType: `pulumi-nodejs:dynamic/other:${kind}` }]) expect(cls.isInstance(x)).toBe(false);
  });

  it("every class has a static get(name, uid, opts?)", () => {
    for (const cls of Object.values(CLASSES)) expect(cls.get.length).toBe(3);
  });
});
