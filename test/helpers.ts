/** Test helpers: raw HTTP against an emulator, so emulator tests do not depend on the provider's client. */
import { request } from "undici";
import type { Emulator } from "../emulator";

/** A raw response: HTTP status and parsed JSON body. */
export interface Raw {
  status: number;
  body: any;
}

/**
 * Sends one request to the emulator with the owner's token (or `token`, or none when `token` is null).
 * `path` may include a query string.
 */
export async function raw(emu: Emulator, method: string, path: string, body?: unknown, token: string | null = emu.token): Promise<Raw> {
  const headers: Record<string, string> = {};
  if (token !== null) headers["authorization"] = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await request(`${emu.url}${path}`, { method: method as "GET", headers, body: body === undefined ? null : JSON.stringify(body) });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Creates a group under `parent` through the API and returns it. */
export async function mkGroup(emu: Emulator, parent: string, name: string, description = ""): Promise<{ uid: string; [k: string]: unknown }> {
  const r = await raw(emu, "POST", `/iam/v2beta1/groups/${parent}`, { name, description });
  if (r.status !== 200) throw new Error(`create group failed: ${JSON.stringify(r.body)}`);
  return r.body;
}
