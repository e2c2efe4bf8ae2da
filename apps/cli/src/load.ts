import { readFile, stat } from "node:fs/promises";
import { type IRModule, type PrimFunc, TesseraError, TVMScriptSyntaxError, entryFunctionName, getFunction, parseTVMScript } from "@tessera/ir";
import { CliError } from "./errors.js";

/**
 * The largest input file read (TVMScript or trace). The course's programs are a few KB; a 50 MB
 * file took minutes and gigabytes to parse and print (a 2 MiB one takes seconds and a few hundred MB),
 * so larger files are refused before they are read.
 */
export const MAX_INPUT_BYTES = 2 * 1024 * 1024;

/** Reads a text file; a missing, unreadable or too large file becomes a CliError naming it. */
export async function readTextFile(file: string): Promise<string> {
  try {
    const { size } = await stat(file);
    if (size > MAX_INPUT_BYTES) {
      throw new CliError(
        `${file}: the file is ${megabytes(size)} (${size} bytes); tessera reads input files of up to ${megabytes(MAX_INPUT_BYTES)} (${MAX_INPUT_BYTES} bytes)`,
      );
    }
    return await readFile(file, "utf8");
  } catch (err) {
    if (err instanceof CliError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : String(code ?? err);
    throw new CliError(`cannot read ${file}: ${why}`);
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Reads a TVMScript file and parses it; every failure becomes a CliError naming the file. */
export async function loadModule(file: string): Promise<IRModule> {
  const text = await readTextFile(file);
  try {
    return parseTVMScript(text, { fileName: file });
  } catch (err) {
    if (err instanceof TVMScriptSyntaxError) throw new CliError(err.message);
    if (err instanceof TesseraError) throw new CliError(`${file}: ${err.message}`);
    throw err;
  }
}

/** The function named `name`, or the module's entry function. */
export function pickFunction(mod: IRModule, file: string, name: string | undefined): { name: string; func: PrimFunc } {
  try {
    const chosen = name ?? entryFunctionName(mod);
    return { name: chosen, func: getFunction(mod, chosen) };
  } catch (err) {
    if (err instanceof TesseraError) throw new CliError(`${file}: ${err.message}`);
    throw err;
  }
}
