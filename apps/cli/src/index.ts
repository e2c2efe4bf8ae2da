export { helpText, runCli } from "./cli.js";
export { commands, type Command, type CommandRunner } from "./commands/index.js";
export { CliError } from "./errors.js";
export { type CliIO, processIO } from "./io.js";
