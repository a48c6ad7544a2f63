import { configDefaults, defineConfig } from "vitest/config";

// Tests run on the workspace packages' sources (their "@gatehouse/source" export condition), never on
// a dist/ that may be older than them; the build and the programs still use dist/. The condition is
// scoped: some dependencies publish a plain "source" condition pointing at TypeScript Node cannot run.
const conditions = ["@gatehouse/source", "module", "node", "development|production"];

const ALL = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "apps/*/test/**/*.test.tsx", "test/**/*.test.ts"];
/**
 * Tests that need what scripts/test installs (tmux, Chromium, PostgreSQL, bubblewrap, socat), a
 * whole server and workers, or minutes: the end-to-end ones by their name, and these. The rest are
 * the unit tier (`pnpm test:unit`, under a minute); `pnpm test` runs both.
 */
const SLOW = [
  "**/*.e2e.test.ts",
  "test/postgres.test.ts",
  "apps/worker/test/sandbox.test.ts",
  "apps/worker/test/sandbox-git.test.ts",
  "apps/worker/test/never-weaker.test.ts",
  "apps/worker/test/tree-watch.test.ts",
  "apps/worker/test/egress.test.ts",
  "apps/worker/test/own-git.test.ts",
  "apps/worker/test/made-git-dirs.test.ts",
  // 10,000 generated command lines against a second shell parser.
  "test/differential.test.ts",
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 30_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: ALL, exclude: [...configDefaults.exclude, ...SLOW] } },
      { extends: true, test: { name: "slow", include: SLOW } },
    ],
  },
});
