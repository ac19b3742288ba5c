/**
 * The SARIF 2.1.0 schema check the tests share (README, "SARIF schema check (tests)"): the OASIS schema as
 * Microsoft's @microsoft/jest-sarif ships it (`lib/schemas/sarif-2.1.0-rtm.5.json`, a draft-04 schema), compiled
 * with Ajv 8 through ajv-draft-04, ajv-formats checking its `uri` fields; the same check as
 * test/sarif-inert.unit.test.ts and test/gate-org.test.ts.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";

const REPO_ROOT = path.resolve(__dirname, "..", "..");
const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "node_modules", "@microsoft", "jest-sarif", "lib", "schemas", "sarif-2.1.0-rtm.5.json"), "utf8")) as object;
// The schema's language-tag pattern is not valid under the `u` flag Ajv uses by default.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** The schema's complaints about `log` (the first 20, as JSON), or undefined when it is valid SARIF 2.1.0. */
export function sarifSchemaErrors(log: unknown): string | undefined {
  return validate(log) ? undefined : JSON.stringify(validate.errors?.slice(0, 20), null, 2);
}
