// Lint rules that find mistakes; style is prettier's (.prettierrc.json).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "apps/web/static/**", "**/*.js", "**/*.mjs", "**/*.cjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      // A variable that closures read before its one assignment (a link created after its handlers).
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests send malformed input and read raw frames on purpose.
    files: ["test/**", "**/test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
