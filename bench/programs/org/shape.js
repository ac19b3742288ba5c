// The benchmark org's shape, generated for any size (used by index.js and by test/bench-org-shape.test.ts).
//
// Groups come in units of five, nested four deep: a top group under the org, two children of it, a grandchild
// under the first child and a great-grandchild under that. Every group gets one identity and one role binding
// (the identity bound in its group), so a unit is 15 resources and `size` must be a multiple of 15.

/**
 * The groups of an org of `size` resources (a multiple of 15), parents before children.
 * @param {number} size resources in total: groups, identities and bindings, one of each per group.
 * @returns {Array<{ key: string, name: string, parent: string | undefined, depth: number }>} `parent` is the key
 *   of the parent group, undefined for a top group (whose parent is the org).
 */
function orgGroups(size) {
  if (!Number.isInteger(size) || size <= 0 || size % 15 !== 0) throw new Error(`size must be a positive multiple of 15, got ${size}`);
  const groups = [];
  for (let t = 0; t < size / 15; t++) {
    const top = `team-${t}`;
    groups.push({ key: top, name: top, parent: undefined, depth: 1 });
    groups.push({ key: `${top}-a`, name: "sub-a", parent: top, depth: 2 });
    groups.push({ key: `${top}-b`, name: "sub-b", parent: top, depth: 2 });
    groups.push({ key: `${top}-a-c`, name: "sub-c", parent: `${top}-a`, depth: 3 });
    groups.push({ key: `${top}-a-c-d`, name: "sub-d", parent: `${top}-a-c`, depth: 4 });
  }
  return groups;
}

module.exports = { orgGroups };
