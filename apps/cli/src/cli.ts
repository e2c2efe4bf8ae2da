import { type Command, commands } from "./commands/index.js";
import { CliError } from "./errors.js";
import { type CliIO, processIO } from "./io.js";

export function helpText(commandList: readonly Command[] = commands): string {
  const width = Math.max(...commandList.map((c) => c.usage.length));
  const lines = [
    "Usage: tessera <command> [args]",
    "",
    "Commands:",
    ...commandList.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    `  ${"-h, --help".padEnd(width)}  show this help`,
  ];
  return lines.join("\n") + "\n";
}

/**
 * Dispatch `argv` (without the node/script prefix) to a subcommand and return
 * the exit code. Never throws: errors are reported on `io.stderr`. Tests may
 * pass their own command list (commands with injected dependencies).
 */
export async function runCli(argv: readonly string[], io: CliIO = processIO, commandList: readonly Command[] = commands): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      io.stderr(helpText(commandList));
      return 2;
    }
    if (name === "-h" || name === "--help" || name === "help") {
      io.stdout(helpText(commandList));
      return 0;
    }
    const command = commandList.find((c) => c.name === name);
    if (command === undefined) {
      throw new CliError(`unknown command '${name}' (see 'tessera --help')`);
    }
    if (rest.includes("-h") || rest.includes("--help")) {
      io.stdout(`Usage: tessera ${command.usage}\n\n${command.summary}\n`);
      return 0;
    }
    return await command.run(rest, io);
  } catch (err) {
    return reportError(err, io);
  }
}

function reportError(err: unknown, io: CliIO): number {
  if (err instanceof CliError) {
    io.stderr(`tessera: ${err.message}\n`);
    return err.exitCode;
  }
  // node:util parseArgs reports bad flags with these codes: user errors.
  if (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS_")) {
    io.stderr(`tessera: ${err.message}\n`);
    return 2;
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr(`tessera: internal error: ${detail}\n`);
  return 1;
}
