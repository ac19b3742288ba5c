// Lint rules: typescript-eslint's recommended set over the project's TypeScript, run by `npm test` (npm run lint).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", ".pulumi-work/**", "node_modules/**", "**/node_modules/**", "test/programs/**", "sdk/**", "bench/programs/**", "examples/**/program/**", "examples/workload-identity/setup/**", "examples/workload-identity/reader/**", "scripts/link-self.js", "scripts/clean-stale.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // The serialized provider shim and lazy loads require modules inside functions on purpose.
      "@typescript-eslint/no-require-imports": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // Closures read these before their one assignment (e.g. the emulator's token authority, set after listen).
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The emulator is an independent reading of the contract (docs/emulator.md): it shares no code with the provider.
    files: ["emulator/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [{ group: ["**/provider", "**/provider/**", "platform-pulumi", "platform-pulumi/*"], message: "the emulator shares no code with the provider" }] }] },
  },
  {
    // A kind's class takes its typed outputs from the interface of the same name that `npm run gen` writes
    // (`<Kind>OutputProperties`, docs/architecture.md "Generated from the declaration"): properties only, each
    // registered with the engine by the class's constructor, so the merge declares nothing the class lacks.
    files: ["provider/kinds/**/*.ts"],
    rules: { "@typescript-eslint/no-unsafe-declaration-merging": "off", "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }] },
  },
  {
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-non-null-assertion": "off" },
  },
);
