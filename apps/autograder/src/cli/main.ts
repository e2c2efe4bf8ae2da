/**
 * `tessera-grade`: dispatches to a subcommand (`grade` when the first argument is an option or
 * absent), and turns every error into a message and an exit code: 2 for a bad command line, 1 for
 * a failure; never an unexplained stack trace for a user mistake.
 *
 * Only `grade` (the default) is imported up front: the other subcommands' modules (the tuner, the
 * job queue, the batch reports) load when one of them runs or prints its help.
 */
import { type GradeCommand, UsageError } from "./command.js";
import { gradeCommand } from "./grade-command.js";
import { ManifestError } from "../manifest/index.js";
import { MANIFEST_HINT } from "./manifest-hint.js";
import type { GradeIO } from "./io.js";
import { type CommandLine, batchLine, packageLine, tuneLine, workerLine } from "./specs.js";

/** A subcommand as listed: its line of help, and its command, loaded on demand. */
export interface ListedCommand extends CommandLine {
  load(): Promise<GradeCommand>;
}

const loaded = (command: GradeCommand): ListedCommand => ({ name: command.name, usage: command.usage, summary: command.summary, load: async () => command });

/** The subcommands. */
export const COMMANDS: readonly ListedCommand[] = [
  loaded(gradeCommand),
  { ...tuneLine, load: async () => (await import("./tune-command.js")).tuneCommand },
  { ...batchLine, load: async () => (await import("./batch-command.js")).batchCommand },
  { ...packageLine, load: async () => (await import("./package-command.js")).packageCommand },
  { ...workerLine, load: async () => (await import("./worker-command.js")).workerCommand },
];

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
    const { listed, args } = route(argv);
    const command = await listed.load();
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
function route(argv: readonly string[]): { listed: ListedCommand; args: readonly string[] } {
  const named = COMMANDS.find((c) => c.name === argv[0]);
  if (named !== undefined) return { listed: named, args: argv.slice(1) };
  if (argv.includes("--tune")) return { listed: byName(tuneLine.name), args: argv.filter((a) => a !== "--tune") };
  return { listed: byName(gradeCommand.name), args: argv };
}

function byName(name: string): ListedCommand {
  return COMMANDS.find((c) => c.name === name)!;
}

function isParseArgsError(err: unknown): boolean {
  return err instanceof TypeError && "code" in err && String((err as { code: unknown }).code).startsWith("ERR_PARSE_ARGS_");
}
