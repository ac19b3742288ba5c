// The Org component as a user declares it: from a file (ORG_FILE), or from an object (ORG_SPEC, JSON).
const { Org } = require("platform-pulumi");

const parentUid = process.env.PLATFORM_ORG_UID;
const org = process.env.ORG_SPEC
  ? new Org("org", { parentUid, spec: JSON.parse(process.env.ORG_SPEC) })
  : new Org("org", { parentUid, file: process.env.ORG_FILE });
module.exports = { groupUids: org.groupUids, identityUids: org.identityUids, repoUids: org.repoUids, counts: org.counts };
