import { colorEnabled, colors } from "./color.js";
import { type Command, commands } from "./commands/index.js";
import { CliError } from "./errors.js";
import { DEFAULT_HELP_WIDTH, type HelpStyle, formatCommandHelp, formatOverview } from "./help/format.js";
import { type CliIO, processIO } from "./io.js";

/** `tessera --help`, wrapped to `width` columns. */
export function helpText(commandList: readonly Command[] = commands, width = DEFAULT_HELP_WIDTH, style?: HelpStyle): string {
  return formatOverview(
    commandList.map((c) => c.spec),
    width,
    style,
  );
}

function helpWidth(io: CliIO): number {
  const columns = io.stdoutColumns;
  return columns !== undefined && columns > 0 ? columns : DEFAULT_HELP_WIDTH;
}

function helpStyle(io: CliIO): HelpStyle {
  const c = colors(colorEnabled(io));
  return { heading: (t) => c.bold(t) };
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
      io.stderr(helpText(commandList, DEFAULT_HELP_WIDTH));
      return 2;
    }
    if (name === "-h" || name === "--help" || name === "help") {
      io.stdout(helpText(commandList, helpWidth(io), helpStyle(io)));
      return 0;
    }
    const command = commandList.find((c) => c.name === name);
    if (command === undefined) {
      throw new CliError(`unknown command '${name}' (see 'tessera --help')`);
    }
    if (rest.includes("-h") || rest.includes("--help")) {
      io.stdout(formatCommandHelp(command.spec, helpWidth(io), helpStyle(io)));
      return 0;
    }
    return await command.run(rest, io);
  } catch (err) {
    return reportError(err, io);
  }
}

/** Error messages longer than this are cut: a huge input must not produce megabytes of error text. */
export const MAX_ERROR_CHARS = 4000;

function reportError(err: unknown, io: CliIO): number {
  if (err instanceof CliError) {
    io.stderr(`tessera: ${capLength(err.message)}\n`);
    return err.exitCode;
  }
  // node:util parseArgs reports bad flags with these codes: user errors.
  if (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS_")) {
    io.stderr(`tessera: ${capLength(err.message)}\n`);
    return 2;
  }
  // A safety net behind the parser's nesting limits: never a stack trace for deep input.
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    io.stderr("tessera: the input is nested too deeply to process (stack overflow)\n");
    return 2;
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr(`tessera: internal error: ${capLength(detail)}\n`);
  return 1;
}

function capLength(message: string): string {
  if (message.length <= MAX_ERROR_CHARS) return message;
  return `${message.slice(0, MAX_ERROR_CHARS)}… (${message.length - MAX_ERROR_CHARS} more characters not shown)`;
}
