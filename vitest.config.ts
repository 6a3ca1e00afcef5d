import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suite in two projects that split it: `unit` (pure logic and in-process operations: no child
 * process, no database server; `npm run test:unit`, the inner loop) and `integration` (everything
 * else: the built CLI, the emulator over HTTP, PostgreSQL, CI templates). `npm test` runs both. A
 * test file in a new folder lands in `integration` until the folder is listed here.
 */
const unit = [
  'test/engine/**/*.test.ts',
  'test/manifest/**/*.test.ts',
  'test/render/**/*.test.ts',
  'test/util/**/*.test.ts',
  'test/run/**/*.test.ts',
  // The PostgreSQL backend's tests start a database server.
  'test/state/!(postgres-*).test.ts',
  // The docs' examples run the built CLI in a shell.
  'test/docs/!(pages|examples).test.ts',
  'test/serve/**/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Tests start emulators in the ideal shapes unless they ask for the production ones (the emulator's
    // default): most are about something else than real accounts' legacy objects. CLI children started
    // with a clean environment (test/e2e/cli.ts) do not inherit this, so their embedded emulators are production-shaped.
    env: { TELFORM_EMULATOR_SHAPES: 'ideal' },
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...unit] },
      },
    ],
  },
});
