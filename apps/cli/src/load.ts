import { readFile } from "node:fs/promises";
import {
  type IRModule,
  type PrimFunc,
  TesseraError,
  TVMScriptSyntaxError,
  entryFunctionName,
  getFunction,
  parseTVMScript,
} from "@tessera/ir";
import { CliError } from "./errors.js";

/** Reads a text file; a missing or unreadable file becomes a CliError naming it. */
export async function readTextFile(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : String(code ?? err);
    throw new CliError(`cannot read ${file}: ${why}`);
  }
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
