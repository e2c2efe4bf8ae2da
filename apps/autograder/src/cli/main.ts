/**
 * `tessera-grade`: dispatches to a subcommand (`grade` when the first argument is an option or
 * absent), and turns every error into a message and an exit code: 2 for a bad command line, 1 for
 * a failure; never an unexplained stack trace for a user mistake.
 */
import { batchCommand } from "./batch-command.js";
import { type GradeCommand, UsageError } from "./command.js";
import { gradeCommand } from "./grade-command.js";
import { ManifestError } from "../manifest/index.js";
import { MANIFEST_HINT } from "./manifest-hint.js";
import { tuneCommand } from "./tune-command.js";
import type { GradeIO } from "./io.js";
import { packageCommand } from "./package-command.js";
import { workerCommand } from "./worker-command.js";

/** The subcommands. */
export const COMMANDS: GradeCommand[] = [gradeCommand, tuneCommand, batchCommand, packageCommand, workerCommand];

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    "Usage: tessera-grade [command] [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    "",
    "Options of grade:",
    gradeCommand.help ?? "",
    "",
    "Exit code: 0 when grading finished (whatever the score; --test: 1 when a part's numerics fail, 0 when none fails — a part not checked says why), 1 when grading failed, 2 for a bad command line.",
    "",
  ].join("\n");
}

export async function runGradeCli(argv: readonly string[], io: GradeIO): Promise<number> {
  try {
    const { command, args } = route(argv);
    if (args.includes("--help") || args.includes("-h")) {
      io.stdout(command === gradeCommand ? helpText() : `Usage: tessera-grade ${command.usage}\n\n${command.summary}\n${command.help ?? ""}\n`);
      return 0;
    }
    return await command.run(args, io);
  } catch (err) {
    if (err instanceof UsageError || isParseArgsError(err)) {
      io.stderr(`tessera-grade: ${(err as Error).message}\n(see tessera-grade --help)\n`);
      return 2;
    }
    if (err instanceof ManifestError) {
      io.stderr(`tessera-grade: ${err.message}\n${MANIFEST_HINT}\n`);
      return 2;
    }
    io.stderr(`tessera-grade: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

/** The subcommand named first; the handout's `pnpm grade --tune` is the tune command; else grade. */
function route(argv: readonly string[]): { command: GradeCommand; args: readonly string[] } {
  const named = COMMANDS.find((c) => c.name === argv[0]);
  if (named !== undefined) return { command: named, args: argv.slice(1) };
  if (argv.includes("--tune")) return { command: tuneCommand, args: argv.filter((a) => a !== "--tune") };
  return { command: gradeCommand, args: argv };
}

function isParseArgsError(err: unknown): boolean {
  return err instanceof TypeError && "code" in err && String((err as { code: unknown }).code).startsWith("ERR_PARSE_ARGS_");
}
