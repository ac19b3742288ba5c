/**
 * The emulator's control surface for tests (not part of the API contract): latency, an error rate per code,
 * connection resets, "commit the next N creates but drop their responses", token lifetime, a clock offset, and
 * an eventual-consistency delay for children of new groups.
 * Reachable in-process (`emulator.control`) and, when started with `--control`, over HTTP under
 * `/_emulator/` (see `index.ts`).
 *
 * Random faults use a seeded generator, so a test that sets `seed` sees the same faults on every run.
 */
import { invalidArgument, type FieldViolation } from "./errors";

/** The controllable settings. */
export interface ControlSettings {
  /** Added to every API request before it is handled, in milliseconds; default 0. */
  latencyMs: number;
  /** Probability (0–1) per google.rpc code that an API request fails with that code, e.g. `{ "14": 0.1 }`. */
  errorRates: Record<string, number>;
  /** Probability (0–1) that an API request's connection is reset before it is handled; default 0. */
  resetRate: number;
  /** The next N creates (POST) are committed, then their connection is reset instead of answered; default 0. */
  dropCreateResponses: number;
  /** Probability (0–1) that any create is committed and its response dropped the same way; default 0. */
  dropCreateRate: number;
  /** Lifetime of API tokens minted from now on (start, exchange, mint), in seconds; default 3600. */
  tokenTtlSeconds: number;
  /** Added to the emulator's clock, in milliseconds (timestamps, token expiry, page-token age); default 0. */
  clockOffsetMs: number;
  /** Seed of the fault generator; setting it restarts the sequence. */
  seed: number;
  /**
   * Eventual consistency: for this many milliseconds after a group is created, creates under it fail with
   * PERMISSION_DENIED (as the real service's permission cache catches up); default 0.
   */
  consistencyDelayMs: number;
}

/** Defaults of {@link ControlSettings}. */
export const DEFAULT_CONTROL: ControlSettings = {
  latencyMs: 0,
  errorRates: {},
  resetRate: 0,
  dropCreateResponses: 0,
  dropCreateRate: 0,
  tokenTtlSeconds: 3600,
  clockOffsetMs: 0,
  seed: 1,
  consistencyDelayMs: 0,
};

/** Holds the settings and draws faults. */
export class Control {
  private settings: ControlSettings;
  private state: number;

  constructor(initial: Partial<ControlSettings> = {}) {
    this.settings = { ...DEFAULT_CONTROL, ...initial, errorRates: { ...(initial.errorRates ?? {}) } };
    this.state = this.settings.seed >>> 0 || 1;
  }

  /** A copy of the current settings. */
  get(): ControlSettings {
    return { ...this.settings, errorRates: { ...this.settings.errorRates } };
  }

  /** The current settings, without copying (hot path: read, never modify). */
  get current(): Readonly<ControlSettings> {
    return this.settings;
  }

  /**
   * Changes some settings; the others keep their values.
   * @throws StatusError INVALID_ARGUMENT naming each unknown or out-of-range setting.
   */
  set(patch: Partial<ControlSettings>): ControlSettings {
    const v: FieldViolation[] = [];
    for (const [k, val] of Object.entries(patch)) {
      if (!(k in DEFAULT_CONTROL)) v.push({ field: k, description: `unknown control; known: ${Object.keys(DEFAULT_CONTROL).join(", ")}` });
      else if (k === "errorRates") {
        if (typeof val !== "object" || val === null) v.push({ field: k, description: "must be an object of code -> probability" });
        else for (const [code, p] of Object.entries(val)) if (!/^\d+$/.test(code) || typeof p !== "number" || p < 0 || p > 1) v.push({ field: `errorRates.${code}`, description: "must map a numeric code to a probability 0-1" });
      } else if (typeof val !== "number" || !Number.isFinite(val)) v.push({ field: k, description: "must be a number" });
      else if (((k === "resetRate" || k === "dropCreateRate") && (val < 0 || val > 1)) || (k !== "clockOffsetMs" && val < 0)) v.push({ field: k, description: `out of range: ${val}` });
    }
    if (v.length > 0) throw invalidArgument(v);
    this.settings = { ...this.settings, ...patch, errorRates: { ...(patch.errorRates ?? this.settings.errorRates) } };
    if (patch.seed !== undefined) this.state = patch.seed >>> 0 || 1;
    return this.get();
  }

  /** Back to the defaults. */
  reset(): void {
    this.settings = { ...DEFAULT_CONTROL, errorRates: {} };
    this.state = DEFAULT_CONTROL.seed;
  }

  /** Current time on the emulator's clock. */
  now(): Date {
    return new Date(Date.now() + this.settings.clockOffsetMs);
  }

  /** A uniform draw in [0, 1) (mulberry32). */
  random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** The fault to inject into one API request, if any. */
  drawFault(): { reset: true } | { code: number } | undefined {
    if (this.noFaults()) return undefined;
    if (this.settings.resetRate > 0 && this.random() < this.settings.resetRate) return { reset: true };
    for (const [code, p] of Object.entries(this.settings.errorRates)) if (p > 0 && this.random() < p) return { code: Number(code) };
    return undefined;
  }

  private noFaults(): boolean {
    if (this.settings.resetRate > 0) return false;
    for (const k in this.settings.errorRates) if ((this.settings.errorRates[k] ?? 0) > 0) return false;
    return true;
  }

  /** Whether this create's response is to be dropped (and counts it). */
  takeDroppedCreate(): boolean {
    if (this.settings.dropCreateResponses > 0) {
      this.settings.dropCreateResponses -= 1;
      return true;
    }
    return this.settings.dropCreateRate > 0 && this.random() < this.settings.dropCreateRate;
  }
}
