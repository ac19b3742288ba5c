/** globalSetup of the engine and consumer projects (vitest.config.mts): refuses a build older than its sources. */
export { buildSetup as default } from "./global-setup";
