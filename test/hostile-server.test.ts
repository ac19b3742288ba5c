/**
 * Against a misbehaving server (docs/security.md "Against a misbehaving server"): servers on loopback, in this process, that
 * break the API's rules the way a compromised or buggy server (or something else answering at its URL) could.
 *
 * - The export: a proxy in front of the emulator rewrites List rows (the emulator itself refuses such names).
 *   Names that break the API's rules are refused, naming the object and field; free text (descriptions, claim
 *   values, READMEs, emails) is written, and the generated program is compiled with the TypeScript compiler API
 *   (only the expected top-level statements) and run in a sandbox that records every module it loads.
 * - Reads: List walks whose pages never end, bodies dripped or never ending, a `.` uid segment, and a token echoed
 *   in derived forms.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import * as vm from "node:vm";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, isLoopbackHost, type Emulator } from "../emulator";
import { usage } from "../emulator/cli";
import { PlatformClient } from "../provider/client/client";
import { DeadlineExceededError, PaginationError, ResponseTooLargeError, redact } from "../provider/client/errors";
import { MAX_EMPTY_PAGES } from "../provider/client/pagination";
import { registerSecret } from "../provider/client/secrets";
import { clientFromSettings } from "../provider/clientFactory";
import { resolveSettings, SettingsError } from "../provider/config";
import { TokenExchangeError, tokenSource } from "../provider/credentials";
import { buildModel } from "../provider/export/model";
import { getGroup, getGroups } from "../provider/kinds/group/lookups";
import { readOrg } from "../provider/export/read";
import { ExportRefusedError } from "../provider/export/trust";
import { writeIndex, writeTypeScriptProject } from "../provider/export/typescript";
import { writeOrgFile } from "../provider/export/yaml";
import { splitModel, writeSplitIndex, writeSplitProjects } from "../provider/export/split";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { mkGroup, raw } from "./helpers";
import { proxyTo, useLoopbackServers } from "./harness/loopback";

const BIN = path.join(REPO_ROOT, "dist", "cli", "main.js");
let emu: Emulator;
let work: string;

/** A server on a free loopback port; resolves to its base URL. All are closed after the file. */
const serve = useLoopbackServers();

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

beforeAll(async () => {
  emu = await startEmulator({ seed: { repos: 1, tagsPerRepo: 1, groups: 0, advisories: 0 } });
  work = mkdtempSync(path.join(os.tmpdir(), "platform-pulumi-hostile-"));
  const eng = await mkGroup(emu, emu.orgUid, "engineering", "Engineering");
  await mkGroup(emu, eng.uid, "platform", "Platform team");
  const id = await raw(emu, "POST", `/iam/v2beta1/identities/${eng.uid}`, { name: "ci bot", claimMatch: { issuer: "https://ci.example", subject: "repo:acme/app" } });
  expect(id.status, JSON.stringify(id.body)).toBe(200);
  // A kind on the export's generic path (docs/export.md): its server values are held to its fields' check rules.
  const sub = await raw(emu, "POST", `/events/v2beta1/subscriptions/${eng.uid}`, { sink: "https://hooks.example.com/engineering" });
  expect(sub.status, JSON.stringify(sub.body)).toBe(200);
});

afterAll(async () => {
  await emu.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * A proxy in front of the emulator that passes every request on and lets `rewrite` change a JSON answer (by
 * path, without the query) before it goes back.
 */
async function hostileProxy(rewrite: (path: string, body: any) => any): Promise<string> {
  return serve(
    proxyTo(emu.url, ({ status, text, path }) => {
      const body = text ? JSON.parse(text) : undefined;
      return { status, text: JSON.stringify(status === 200 ? rewrite(path, body) : body) };
    }),
  );
}

/** Is `p` the List path of `collection` (e.g. `/iam/v2beta1/groups`)? */
const isList = (p: string, collection: string) => new RegExp(`^/(iam|registry|events)/v2beta1/${collection}$`).test(p);

const marker = () => path.join(work, `executed-${Math.random().toString(16).slice(2)}`);

/** Payloads that end a `//` comment or a string in a naive writer and then run a command at top level. */
const payloads = (file: string) => [
  `evil\nrequire('child_process').execSync('touch ${file}')//`,
  `evil\u2028require('child_process').execSync('touch ${file}')//`,
  `evil\u2029require('child_process').execSync('touch ${file}')//`,
  `evil\rrequire('child_process').execSync('touch ${file}')//`,
  `*/ require('child_process').execSync('touch ${file}') /*`,
  `"); require('child_process').execSync('touch ${file}'); ("`,
];

describe("the export against a server that breaks the API's field rules", () => {
  it.each([0, 1, 2, 3, 4, 5])("a group name with hostile text (payload %i) is refused, naming the group, its uid and the field", async (n) => {
    const file = marker();
    const evil = payloads(file)[n]!;
    let uid = "";
    const url = await hostileProxy((p, body) => {
      if (isList(p, "groups") && body.groups.length) {
        body.groups[0].name = evil;
        uid = body.groups[0].uid;
      }
      return body;
    });
    const client = new PlatformClient({ apiUrl: url, token: emu.token, retry: { maxAttempts: 1 } });
    try {
      const snapshot = await readOrg(client, emu.orgUid);
      const err = (() => {
        try {
          buildModel(snapshot);
        } catch (e) {
          return e;
        }
      })() as ExportRefusedError;
      expect(err).toBeInstanceOf(ExportRefusedError);
      expect({ kind: err.kind, uid: err.uid, field: err.field, value: err.value }).toEqual({ kind: "Group", uid, field: "name", value: evil });
      expect(err.message).toContain(`Group "${uid}" with name`);
      // The message quotes the value escaped: no line break of any kind reaches a terminal or a log.
      expect(err.message).not.toMatch(/[\n\r\u2028\u2029]/);
    } finally {
      await client.close();
    }
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ["identities", "Identity", "name", (r: any, v: string) => (r.name = v)],
    ["repos", "Repo", "name", (r: any, v: string) => (r.name = v)],
    ["tags", "Tag", "name", (r: any, v: string) => (r.name = v)],
    ["roleBindings", "RoleBinding", "roleUid", (r: any, v: string) => (r.roleUid = v)],
    ["subscriptions", "Subscription", "sink", (r: any, v: string) => (r.sink = v)],
    ["groups", "Group", "uid", (r: any) => (r.uid = `${emu.orgUid}/.`)],
  ] as const)("a hostile %s row is refused at its field (%s.%s)", async (collection, kind, field, set) => {
    const file = marker();
    const url = await hostileProxy((p, body) => {
      if (isList(p, collection) && body[collection].length) set(body[collection][0], payloads(file)[1]!);
      return body;
    });
    const client = new PlatformClient({ apiUrl: url, token: emu.token, retry: { maxAttempts: 1 } });
    try {
      const snapshot = await readOrg(client, emu.orgUid);
      expect(() => buildModel(snapshot)).toThrow(ExportRefusedError);
      try {
        buildModel(snapshot);
      } catch (e) {
        expect({ kind: (e as ExportRefusedError).kind, field: (e as ExportRefusedError).field }).toEqual({ kind, field });
      }
    } finally {
      await client.close();
    }
  });

  it("platform-pulumi export exits 2 (could not run) naming the object and field, and writes no file", async () => {
    const file = marker();
    const url = await hostileProxy((p, body) => {
      if (isList(p, "groups") && body.groups.length) body.groups[0].name = payloads(file)[0];
      return body;
    });
    const out = path.join(work, "refused");
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, "export", "--org", emu.orgUid, "--out", out], {
        env: { PATH: process.env["PATH"], HOME: process.env["HOME"], PLATFORM_API_URL: url, PLATFORM_TOKEN: emu.token },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/export refused: the server returned Group "[0-9a-f/]+" with name "evil\\nrequire\('child_process'\)/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(file)).toBe(false);
  }, 30_000);
});

/**
 * Checks a generated `index.ts`: it parses without errors, its top-level statements are only imports, `const`
 * declarations and `new X(...)` statements, and running it (transpiled, in a fresh context) loads only
 * `@pulumi/pulumi` and `platform-pulumi` and touches nothing else. Returns what it declared: kind, resource name
 * and arguments of each `new`.
 */
function runGenerated(index: string): Array<{ kind: string; name: string; args: Record<string, unknown> }> {
  const sf = ts.createSourceFile("index.ts", index, ts.ScriptTarget.ES2020, true, ts.ScriptKind.TS);
  const parseErrors = (sf as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  expect(parseErrors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  for (const st of sf.statements) {
    const ok =
      ts.isImportDeclaration(st) ||
      (ts.isVariableStatement(st) && (st.declarationList.flags & ts.NodeFlags.Const) !== 0) ||
      (ts.isExpressionStatement(st) && ts.isNewExpression(st.expression));
    expect(ok, `unexpected top-level statement: ${st.getText(sf).slice(0, 200)}`).toBe(true);
  }
  // No identifier the generated program does not write itself: hostile text stays inside literals and comments.
  const identifiers = new Set<string>();
  const visit = (n: ts.Node): void => {
    // `config.requireSecret(...)` and `new pulumi.Config("platform").require(...)` are the program's own calls.
    const own = n.parent !== undefined && ts.isPropertyAccessExpression(n.parent) && n.parent.name === n && /^(config|new pulumi\.Config\("platform"\))$/.test(n.parent.expression.getText(sf));
    if (ts.isIdentifier(n) && !own) identifiers.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  expect([...identifiers].filter((i) => ["require", "execSync", "child_process", "process", "eval", "Function"].includes(i))).toEqual([]);

  const js = ts.transpileModule(index, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 } }).outputText;
  const loaded: string[] = [];
  const declared: Array<{ kind: string; name: string; args: Record<string, unknown> }> = [];
  const resource = (kind: string) =>
    class {
      readonly uid = `uid-of-${kind}`;
      constructor(name: string, args: Record<string, unknown>) {
        declared.push({ kind, name, args });
      }
    };
  // The package's functions the generated program calls; every other name is a resource class.
  const functions: Record<string, unknown> = { getRoleOutput: () => ({ uid: "builtin-role-uid" }), orgUid: () => "0".repeat(40) };
  const platform = new Proxy({}, { get: (_t, k) => (typeof k === "string" && k in functions ? functions[k] : k === "__esModule" ? false : resource(String(k))) });
  const pulumi = {
    Config: class { require() { return "0".repeat(40); } requireSecret() { return "secret"; } getObject() { return undefined; } },
    // A split layout's stack reads the others' uids (export/split.ts).
    StackReference: class { requireOutput() { return { apply: () => "uid-from-another-stack" }; } },
    getOrganization: () => "organization",
    getStack: () => "dev",
  };
  const sandbox = {
    exports: {},
    require: (m: string) => {
      loaded.push(m);
      if (m === "platform-pulumi") return platform;
      if (m === "@pulumi/pulumi") return pulumi;
      throw new Error(`the generated program loaded ${m}`);
    },
  };
  vm.runInNewContext(js, sandbox, { timeout: 5_000 });
  // The package, and @pulumi/pulumi where a split stack reads another's outputs: nothing else.
  expect(loaded).toContain("platform-pulumi");
  expect([...new Set(loaded)].filter((m) => m !== "@pulumi/pulumi" && m !== "platform-pulumi")).toEqual([]);
  return declared;
}

describe("the export writes free text as data, never as code", () => {
  it("hostile descriptions, claim values, a README and an email: the program compiles to the expected declarations and runs nothing else", async () => {
    const file = marker();
    const [nl, ls, ps, cr, block, quote] = payloads(file);
    const url = await hostileProxy((p, body) => {
      if (isList(p, "groups")) for (const g of body.groups) g.description = `${nl} ${ls} ${block}`;
      if (isList(p, "identities")) for (const i of body.identities) if (i.claimMatch) i.claimMatch = { ...i.claimMatch, subject: `${ps}${quote}`, claims: { [`k${nl}`]: cr } };
      if (isList(p, "roleBindings")) for (const b of body.roleBindings) b.identity = { ...(b.identity ?? {}), email: `${block}${ls}` };
      if (/\/readme$/.test(p)) body.content = `${nl}${quote}`;
      return body;
    });
    const client = new PlatformClient({ apiUrl: url, token: emu.token, retry: { maxAttempts: 1 } });
    let model;
    try {
      model = buildModel(await readOrg(client, emu.orgUid));
    } finally {
      await client.close();
    }
    const files = writeTypeScriptProject(model, { project: "hostile", stack: "dev", apiUrl: url, packageRange: "*", pulumiRange: "*" });
    const index = files.find((f) => f.path === "index.ts")!.text;
    const declared = runGenerated(index);
    expect(existsSync(file)).toBe(false);
    // The text arrived as data, unchanged.
    const groups = declared.filter((d) => d.kind === "Group");
    expect(groups.length).toBe(model.groups.length);
    for (const g of groups) expect(g.args["description"]).toBe(`${nl} ${ls} ${block}`);
    const ident = declared.find((d) => d.kind === "Identity")!;
    expect((ident.args["claimMatch"] as any).subject).toBe(`${ps}${quote}`);
    expect((ident.args["claimMatch"] as any).claims).toEqual({ [`k${nl}`]: cr });
    expect(declared.find((d) => d.kind === "Repo")!.args["readme"]).toBe(`${nl}${quote}`);
    // Every comment line is one line: no comment carries a line terminator of any kind.
    for (const line of index.split("\n")) if (line.trimStart().startsWith("//")) expect(line).not.toMatch(/[\r\u2028\u2029]/);
    // The org file and the stack file parse back to the same values.
    const { parse } = await import("yaml");
    const stackFile = parse(files.find((f) => f.path === "Pulumi.dev.yaml")!.text);
    expect(stackFile.config["platform:apiUrl"]).toBe(url);
    const orgFile = parse(writeOrgFile(model).text);
    expect(orgFile.groups[0].description).toBe(`${nl} ${ls} ${block}`);
  });

  it("even past the field rules (names changed in the model after the check), every name stays data", async () => {
    const client = new PlatformClient({ apiUrl: emu.url, token: emu.token, retry: { maxAttempts: 1 } });
    const model = buildModel(await readOrg(client, emu.orgUid));
    await client.close();
    const file = marker();
    const evil = payloads(file);
    model.groups.forEach((g, i) => {
      g.api = { ...g.api, name: evil[i % evil.length]! };
      g.path = evil[(i + 1) % evil.length]!;
      g.resourceName = evil[(i + 2) % evil.length]!;
    });
    for (const b of model.roleBindings) b.path = evil[0]!;
    const declared = runGenerated(writeIndex(model));
    expect(existsSync(file)).toBe(false);
    expect(declared.filter((d) => d.kind === "Group").map((d) => d.args["name"])).toEqual(model.groups.map((g) => g.api.name));
  });

  it("the split layout too: every stack's program keeps names as data, and project folders are safe names", async () => {
    const client = new PlatformClient({ apiUrl: emu.url, token: emu.token, retry: { maxAttempts: 1 } });
    const model = buildModel(await readOrg(client, emu.orgUid));
    await client.close();
    const file = marker();
    const evil = [...payloads(file), "../../etc", ".."];
    model.groups.forEach((g, i) => {
      g.api = { ...g.api, name: evil[i % evil.length]! };
      g.path = evil[(i + 1) % evil.length]!;
      g.resourceName = evil[(i + 2) % evil.length]!;
    });
    for (const b of model.roleBindings) b.path = evil[0]!;
    const layout = splitModel(model, { project: "hostile" });
    expect(layout.stacks.filter((s) => s.role === "child").length).toBeGreaterThan(0);
    const declared = layout.stacks.flatMap((s) => runGenerated(writeSplitIndex(s, layout)));
    expect(existsSync(file)).toBe(false);
    expect(declared.filter((d) => d.kind === "Group").map((d) => d.args["name"]).sort()).toEqual(model.groups.map((g) => g.api.name).sort());
    for (const f of writeSplitProjects(layout, { stack: "dev", packageRange: () => "*", pulumiRange: "*" })) {
      expect(f.path).toMatch(/^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)?[A-Za-z0-9_.-]+$/);
      expect(f.path.split("/")).not.toContain("..");
    }
  });
});

/**
 * A server answering each groups List with `page(n)` for the n-th such request (from 0), counting them; other
 * Lists are empty, a group GET answers a group, anything else NOT_FOUND.
 */
async function pagedServer(page: (n: number) => Record<string, unknown>): Promise<{ url: string; requests: () => number }> {
  let n = 0;
  const url = await serve((req, res) => {
    const p = (req.url ?? "").split("?")[0]!;
    if (p === "/iam/v2beta1/groups") return json(res, 200, page(n++));
    if (/^\/(iam|registry|events)\/v2beta1\/[A-Za-z]+$/.test(p)) return json(res, 200, {});
    if (p.startsWith("/iam/v2beta1/groups/")) return json(res, 200, { uid: p.slice("/iam/v2beta1/groups/".length), name: "root" });
    json(res, 404, { code: 5, message: "not found", details: [] });
  });
  return { url, requests: () => n };
}

const row = (i: number) => ({ uid: `${"a".repeat(40)}/${i.toString(16).padStart(16, "0")}`, name: `g${i}` });

describe("every List walk is bounded", () => {
  const walks: Array<[string, (c: PlatformClient) => Promise<unknown>]> = [
    ["collect() (prefetching)", (c) => c.groups.list().collect()],
    [
      "for await (page by page)",
      async (c) => {
        for await (const g of c.groups.list()) void g;
      },
    ],
    ["the export's reader", (c) => readOrg(c, "a".repeat(40))],
    ["a plural lookup (getGroups)", (c) => getGroups({}, c)],
    ["a single lookup (getGroup by a name no row has)", (c) => getGroup({ name: "no-such-group" }, c)],
  ];

  it.each(walks)("fresh next page tokens forever: %s stops at maxPages with an error naming the collection and the pages read", async (_what, walk) => {
    const s = await pagedServer((n) => ({ groups: [row(n)], nextPageToken: `t${n}` }));
    const client = new PlatformClient({ apiUrl: s.url, token: "plat_test_token_1234", maxPages: 40, retry: { maxAttempts: 1 } });
    const err = (await walk(client).catch((e: unknown) => e)) as PaginationError;
    await client.close();
    expect(err).toBeInstanceOf(PaginationError);
    expect(err.message).toMatch(/^GET \/iam\/v2beta1\/groups: the listing's pages do not end: .* after 40 pages .*; stopped after 40 pages and 40 rows$/);
    expect(err.pagesRead).toBe(40);
    // The walk sent at most one request beyond the pages it counted (the prefetch).
    expect(s.requests()).toBeLessThanOrEqual(41);
  });

  it("more rows than the totalCount the server announced, with a next token still: stops right after", async () => {
    const s = await pagedServer((n) => ({ groups: [row(n), row(n + 1000)], nextPageToken: `t${n}`, totalCount: "3" }));
    const client = new PlatformClient({ apiUrl: s.url, token: "plat_test_token_1234", retry: { maxAttempts: 1 } });
    const err = (await client.groups.list().collect().catch((e: unknown) => e)) as PaginationError;
    await client.close();
    expect(err).toBeInstanceOf(PaginationError);
    expect(err.message).toContain("it sent 4 rows, more than the 3 its totalCount announced");
    expect({ pages: err.pagesRead, rows: err.itemsRead }).toEqual({ pages: 2, rows: 4 });
    expect(s.requests()).toBeLessThanOrEqual(3);
  });

  it(`empty pages with fresh tokens: stops after ${MAX_EMPTY_PAGES} in a row (collect(5) as well)`, async () => {
    const s = await pagedServer((n) => ({ groups: [], nextPageToken: `t${n}` }));
    const client = new PlatformClient({ apiUrl: s.url, token: "plat_test_token_1234", retry: { maxAttempts: 1 } });
    for (const limit of [Infinity, 5]) {
      const err = (await client.groups.list().collect(limit).catch((e: unknown) => e)) as PaginationError;
      expect(err).toBeInstanceOf(PaginationError);
      expect(err.message).toContain(`it sent ${MAX_EMPTY_PAGES} empty pages in a row`);
      expect(err.pagesRead).toBe(MAX_EMPTY_PAGES);
    }
    await client.close();
    expect(s.requests()).toBeLessThanOrEqual(2 * (MAX_EMPTY_PAGES + 1));
  });

  it("a token the server already sent is an error, not a silently short listing", async () => {
    const s = await pagedServer((n) => ({ groups: [row(n)], nextPageToken: n < 2 ? `t${n}` : "t0" }));
    const client = new PlatformClient({ apiUrl: s.url, token: "plat_test_token_1234", retry: { maxAttempts: 1 } });
    const err = (await client.groups.list().collect().catch((e: unknown) => e)) as PaginationError;
    await client.close();
    expect(err).toBeInstanceOf(PaginationError);
    expect(err.message).toContain("a page token it had already sent");
  });

  it("a walk that ends is not bothered by the bounds: pages of 2 with totalCount, an empty last page", async () => {
    const s = await pagedServer((n) => (n < 5 ? { groups: [row(2 * n), row(2 * n + 1)], nextPageToken: `t${n}`, totalCount: "10" } : { groups: [], totalCount: "10" }));
    const client = new PlatformClient({ apiUrl: s.url, token: "plat_test_token_1234", retry: { maxAttempts: 1 } });
    expect((await client.groups.list().collect()).length).toBe(10);
    await client.close();
  });
});

describe("every response is bounded in time and size", () => {
  const settingsClient = (url: string, env: Record<string, string>) =>
    clientFromSettings(resolveSettings(() => undefined, { PLATFORM_API_URL: url, PLATFORM_TOKEN: "plat_test_token_1234", PLATFORM_RETRY_MAX_ATTEMPTS: "1", ...env }));

  it("a body dripped one byte at a time (never idle long enough for the idle timer) ends at the request deadline", async () => {
    let closed = false;
    let sent = 0;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const t = setInterval(() => {
        res.write(" ");
        sent++;
      }, 50);
      res.on("close", () => {
        clearInterval(t);
        closed = true;
      });
    });
    const client = settingsClient(url, { PLATFORM_REQUEST_DEADLINE_MS: "800" });
    const err = (await client.groups.get("a".repeat(40)).catch((e: unknown) => e)) as DeadlineExceededError;
    await client.close();
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect(err.message).toMatch(new RegExp(`^GET /iam/v2beta1/groups/a{40}: could not reach the Platform API: no complete response within the request deadline of 800 ms \\(\\d+ bytes of the body read\\)`));
    expect(err.bytesRead).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    // The client hung up: the server stopped dripping.
    expect(closed).toBe(true);
    const after = sent;
    await new Promise((r) => setTimeout(r, 200));
    expect(sent).toBe(after);
  });

  it("a body that never ends: the client stops reading at the size cap; the server could write only a bounded amount", async () => {
    let written = 0;
    let closed = false;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        // Writes as fast as the client reads (honouring backpressure), forever.
        while (!closed && res.write(chunk)) written += chunk.length;
        if (!closed) written += chunk.length;
      };
      res.on("drain", pump);
      res.on("close", () => (closed = true));
      res.write("{\"groups\":[");
      pump();
    });
    const cap = 1024 * 1024;
    const client = settingsClient(url, { PLATFORM_MAX_RESPONSE_BYTES: String(cap) });
    const rssBefore = process.memoryUsage().rss;
    const err = (await client.groups.list().collect().catch((e: unknown) => e)) as ResponseTooLargeError;
    await client.close();
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err.message).toMatch(/^GET \/iam\/v2beta1\/groups: unexpected response \(HTTP 200\): the body is larger than the 1048576 bytes the client reads \(stopped after \d+ bytes\)/);
    expect(err.bytesRead).toBeGreaterThan(cap);
    expect(err.bytesRead).toBeLessThan(cap + 1024 * 1024);
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
    // What the server got out is the cap plus what the sockets' buffers hold, not an endless stream.
    expect(written).toBeLessThan(cap + 32 * 1024 * 1024);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
  });

  it("a content-length over the cap is refused before the body is read", async () => {
    let written = 0;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(400 * 1024 * 1024) });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
      };
      res.on("drain", pump);
      pump();
    });
    const client = new PlatformClient({ apiUrl: url, token: "plat_test_token_1234", maxResponseBytes: 1024 * 1024, retry: { maxAttempts: 1 } });
    const err = (await client.groups.get("a".repeat(40)).catch((e: unknown) => e)) as ResponseTooLargeError;
    await client.close();
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err.message).toContain("(content-length 419430400)");
    expect(err.bytesRead).toBe(400 * 1024 * 1024);
    await new Promise((r) => setTimeout(r, 100));
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it("the settings: defaults, stack config and env var, and a clear error for a bad value", () => {
    const base = { PLATFORM_API_URL: "http://127.0.0.1:9", PLATFORM_TOKEN: "plat_test_token_1234" };
    expect(resolveSettings(() => undefined, base)).toMatchObject({ requestDeadlineMs: undefined, maxResponseBytes: undefined, maxPages: undefined });
    const s = resolveSettings((k) => ({ "platform:requestDeadlineMs": "5000", "platform:maxPages": "7" })[k], { ...base, PLATFORM_MAX_RESPONSE_BYTES: "1024" });
    expect(s).toMatchObject({ requestDeadlineMs: 5000, maxResponseBytes: 1024, maxPages: 7 });
    expect(clientFromSettings(s).transport.maxPages).toBe(7);
    expect(() => resolveSettings(() => undefined, { ...base, PLATFORM_REQUEST_DEADLINE_MS: "soon" })).toThrow(SettingsError);
    expect(() => resolveSettings(() => undefined, { ...base, PLATFORM_MAX_RESPONSE_BYTES: "0" })).toThrow(/platform:maxResponseBytes \(PLATFORM_MAX_RESPONSE_BYTES\) must be a positive integer, got "0"/);
  });
});

describe("uids and credentials", () => {
  it("a uid with a '.' segment is refused before any request, as '..' is", async () => {
    const s = await pagedServer(() => ({}));
    const client = new PlatformClient({ apiUrl: s.url, token: "plat_test_token_1234" });
    for (const uid of [`${"a".repeat(40)}/.`, `${"a".repeat(40)}/./b`, ".", `${"a".repeat(40)}/..`]) {
      await expect(client.groups.delete(uid)).rejects.toThrow(/is not a valid uid .*none of them "\." or "\.\."/);
      expect(() => client.groups.get(uid)).toThrow(TypeError);
    }
    await client.close();
    expect(s.requests()).toBe(0);
  });

  it("an error that echoes the token cut short, upper-cased, spaced out, base64- or hex-encoded is redacted", async () => {
    const TOKEN = "plat_live_Vq8Rt3Zp6Lm1Nx4Kc7Bw";
    const forms = [
      TOKEN.slice(0, -3),
      TOKEN.slice(3),
      TOKEN.toUpperCase(),
      TOKEN.split("").join(" "),
      Buffer.from(TOKEN).toString("base64"),
      Buffer.from(`user:${TOKEN}`).toString("base64"),
      Buffer.from(`x${TOKEN}`).toString("base64url"),
      Buffer.from(TOKEN).toString("hex"),
    ];
    const url = await serve((_req, res) => json(res, 401, { code: 16, message: `rejected: ${forms.join(" | ")}`, details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "BAD", metadata: { seen: forms[4] } }] }));
    const client = new PlatformClient({ apiUrl: url, token: TOKEN, retry: { maxAttempts: 1 } });
    const err = (await client.groups.get("a".repeat(40)).catch((e: unknown) => e)) as Error & { status: unknown };
    await client.close();
    // Nothing but redactions and the separators between them is left of what the server echoed.
    expect(err.message).toMatch(new RegExp(`^GET /iam/v2beta1/groups/a{40}: rejected: \\[REDACTED\\]( \\| \\[REDACTED\\])* \\(code 16, HTTP 401\\)$`));
    const everything = `${err.message} ${JSON.stringify(err.status)}`;
    for (const f of forms) expect(everything).not.toContain(f);
    // What the forms share with the token: no run of 12 of its letters and digits is left, in any case.
    const norm = (t: string) => t.toLowerCase().replace(/[^a-z0-9]/g, "");
    const tok = norm(TOKEN);
    for (let i = 0; i + 12 <= tok.length; i++) expect(norm(everything)).not.toContain(tok.slice(i, i + 12));
    // The README's bound: every piece of 60% of a token's letters and digits (at most 19) is recognised.
    for (const tok of [TOKEN, "oidc_Zx4Cv6Bn8Mm0Lk2J", "7f3c9a1e5b2d8f4a6c0e9b7d3a1f5c8e2b6d4a9f0c3e7b1d5a8f2c6e4b0d9a3f"]) {
      const letters = tok.replace(/[^A-Za-z0-9]/g, "");
      const piece = Math.min(19, Math.ceil(letters.length * 0.6));
      registerSecret(tok);
      for (let i = 0; i + piece <= letters.length; i++) expect(redact(`seen ${letters.slice(i, i + piece)} here`), tok).toBe("seen [REDACTED] here");
    }
    // Ordinary text stays readable.
    expect(redact("group engineering/platform was not found (code 5)")).toBe("group engineering/platform was not found (code 5)");
  });
});

describe("server text in errors", () => {
  it("a server message with line breaks and terminal escapes is quoted with them escaped; the Status keeps it as sent", async () => {
    const message = "line one\nFAKE: all good\u001b[2K\u2028\u202e";
    const url = await serve((_req, res) => json(res, 400, { code: 3, message, details: [] }));
    const client = new PlatformClient({ apiUrl: url, token: "plat_test_token_1234", retry: { maxAttempts: 1 } });
    const err = (await client.groups.get("a".repeat(40)).catch((e: unknown) => e)) as Error & { status: { message: string } };
    await client.close();
    expect(err.message).toBe(`GET /iam/v2beta1/groups/${"a".repeat(40)}: line one\\u000aFAKE: all good\\u001b[2K\\u2028\\u202e (code 3, HTTP 400)`);
    expect(err.status.message).toBe(message);
  });

  it("the token exchange reads at most 1 MiB of an answer that never ends", async () => {
    let closed = false;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!closed && res.write(chunk));
      };
      res.on("drain", pump);
      res.on("close", () => (closed = true));
      res.write("{\"token\":\"");
      pump();
    });
    const source = tokenSource({ apiUrl: url, identity: `${"a".repeat(40)}/0123456789abcdef`, identityToken: "oidc_opaque_Hostile123" });
    const err = (await source.getToken().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TokenExchangeError);
    expect(err.message).toMatch(/GET \/sts\/exchange: unexpected response \(HTTP 200\): the body is larger than the 1048576 bytes the client reads/);
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
  });
});

describe("the emulator outside loopback", () => {
  it("refuses a non-loopback host unless told, naming /oidc/token and the control surface; --help says so", async () => {
    await expect(startEmulator({ host: "0.0.0.0", control: true })).rejects.toThrow(/refusing to listen on 0\.0\.0\.0.*\/oidc\/token.*control surface.*--allow-unauthenticated-remote/);
    expect(usage()).toMatch(/--allow-unauthenticated-remote/);
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(["0.0.0.0", "::", "10.0.0.5", "192.168.1.1", "example.com"].map(isLoopbackHost)).toEqual([false, false, false, false, false]);
  });
});
