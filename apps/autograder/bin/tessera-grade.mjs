#!/usr/bin/env node
// `tessera-grade` of a built autograder (`pnpm --filter @tessera/autograder build` writes dist/).
// In the repository, `pnpm grade` runs the same command from the TypeScript sources.
await import("../dist/main.js");
