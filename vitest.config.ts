import { configDefaults, defineConfig } from "vitest/config";

// Tests run on the workspace packages' sources (their "@gatehouse/source" export condition), never on
// a dist/ that may be older than them; the build and the programs still use dist/. The condition is
// scoped: some dependencies publish a plain "source" condition pointing at TypeScript Node cannot run.
const conditions = ["@gatehouse/source", "module", "node", "development|production"];

const ALL = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "apps/*/test/**/*.test.tsx", "test/**/*.test.ts"];
/**
 * The integration tier: tests that start processes (the built program, bash, git, npm, pytest), the
 * server or workers, or need what scripts/test installs (tmux, Chromium, PostgreSQL, bubblewrap,
 * socat), or minutes: the end-to-end ones by their name, and these. The rest are the unit tier
 * (`pnpm test:unit`): in-process, with loopback listeners of their own at most; `pnpm test` runs both.
 */
const INTEGRATION = [
  "**/*.e2e.test.ts",
  "test/postgres.test.ts",
  "apps/worker/test/sandbox.test.ts",
  "apps/worker/test/sandbox-git.test.ts",
  "apps/worker/test/sandbox-kernel.test.ts",
  "apps/worker/test/sandbox-sockets.test.ts",
  "apps/worker/test/never-weaker.test.ts",
  "apps/worker/test/tree-watch.test.ts",
  "apps/worker/test/egress.test.ts",
  "apps/worker/test/own-git.test.ts",
  "apps/worker/test/made-git-dirs.test.ts",
  "apps/worker/test/unnamed-git-dirs.test.ts",
  "apps/worker/test/deep-tree.test.ts",
  "apps/worker/test/hidden-nested.test.ts",
  "apps/worker/test/git-history-unlisted.test.ts",
  "apps/worker/test/sandbox-git-removal.test.ts",
  "apps/worker/test/other-namespace.test.ts",
  "apps/worker/test/steering-links.test.ts",
  "apps/worker/test/assumed-paths-race.test.ts",
  // 10,000 generated command lines against a second shell parser.
  "test/differential.test.ts",
  "apps/cli/test/cli-process.test.ts",
  "apps/cli/test/token.test.ts",
  "apps/server/test/config/error-codes.test.ts",
  "apps/server/test/config/limits-server.test.ts",
  "apps/server/test/transport/tls.test.ts",
  "apps/worker/test/git-history.test.ts",
  "apps/worker/test/mcp-servers.test.ts",
  "apps/worker/test/shell-exec.test.ts",
  "packages/policy/test/append-rule-processes.test.ts",
  "test/bypass-npm.test.ts",
  "test/bypass-proofs.test.ts",
  "test/steering-attacks.test.ts",
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 30_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        // The unit tier's files share their worker processes and loaded modules (one parse of the
        // shell grammar, one load of each package, for all of them); what a test spies on is
        // restored after it, so nothing it changes reaches the next file.
        test: { name: "unit", include: ALL, exclude: [...configDefaults.exclude, ...INTEGRATION], isolate: false, restoreMocks: true },
      },
      { extends: true, test: { name: "integration", include: INTEGRATION } },
    ],
  },
});
