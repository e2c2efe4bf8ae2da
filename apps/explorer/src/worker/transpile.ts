/**
 * TypeScript to a CommonJS function body, in the browser. Sucrase: small (no WebAssembly to
 * fetch, unlike esbuild-wasm), synchronous, maintained, and it keeps every line where it was, so
 * a stack frame's line is the line in the editor without a source map.
 */
import { transform } from "sucrase";

export class TranspileError extends Error {
  override readonly name = "TranspileError";
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

export function transpile(code: string): string {
  try {
    return transform(code, { transforms: ["typescript", "imports"], filePath: "schedule.ts", production: true }).code;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Sucrase reports "... (LINE:COLUMN)".
    const at = /\((\d+):(\d+)\)\s*$/.exec(message);
    throw new TranspileError(message, at === null ? undefined : Number(at[1]));
  }
}
