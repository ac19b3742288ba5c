/**
 * `npm run gen`: writes the files generated from the kinds' declarations (`provider/schema/generate.ts`):
 * `schema.json` and `docs/resources/*.md`. With `--check`, writes nothing and exits 1 naming each file that differs
 * from what would be written (0 when all are current).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { generatedFiles } from "../provider/schema/generate";

const root = path.resolve(__dirname, "..", "..");
const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
const check = process.argv.includes("--check");
let stale = 0;
for (const [rel, content] of Object.entries(generatedFiles(version))) {
  const file = path.join(root, rel);
  const current = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  if (current === content) continue;
  if (check) {
    process.stderr.write(`gen: ${rel} is not current; run \`npm run gen\`\n`);
    stale++;
    continue;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  process.stdout.write(`gen: wrote ${rel}\n`);
}
process.exitCode = stale ? 1 : 0;
