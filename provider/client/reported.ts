/**
 * How this package's errors reach a user whose Pulumi program fails with one.
 */

/**
 * Makes `err` one clear message wherever it is reported, and returns it:
 *
 * - it is marked so that a Pulumi program failing with it prints its message alone, once, the way Pulumi prints
 *   its own `RunError` (`@pulumi/pulumi`'s language runtime checks the `__pulumiRunError` member; not enumerable,
 *   so it shows in no log);
 * - its `stack` becomes its first line, `<name>: <message>`. The message of every error this package throws
 *   names what failed and how to fix it; frames into this package's compiled files tell a user nothing more.
 *   Above all, Pulumi's language runtime passes every uncaught error to `util.inspect(err, { colors: true })`
 *   (for its tracing span, RunErrors included), and on Node 20.19.6 and later that call loops for tens of
 *   seconds, then fails, on a frame that Pulumi's own source maps produce (`node_modules/@pulumi/output.ts`,
 *   present in every error raised inside an `apply`): nodejs/node#64011, fixed in later release lines. An error
 *   without frames is told at once (README, "When a program fails").
 *
 * Set `PLATFORM_ERROR_STACKS=1` to keep stacks, e.g. to report a bug in this package.
 */
export function markReported<E extends Error>(err: E): E {
  Object.defineProperty(err, "__pulumiRunError", { value: true, enumerable: false, configurable: true });
  if (process.env["PLATFORM_ERROR_STACKS"] !== "1") {
    Object.defineProperty(err, "stack", { value: `${err.name}: ${err.message}`, enumerable: false, writable: true, configurable: true });
  }
  return err;
}
