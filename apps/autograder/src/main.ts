#!/usr/bin/env node
/** The `tessera-grade` executable (`pnpm grade` at the repository root). */
import { runGradeCli } from "./cli/main.js";
import { processIO } from "./cli/io.js";

process.exitCode = await runGradeCli(process.argv.slice(2), processIO);
