/**
 * The C symbol of a function. A global symbol that C reserves — `main` above all (the program's
 * entry point; a PrimFunc parsed from `def main` is called that), or a keyword or libm function
 * the generated code calls — is mangled the way TVM's C code generator names module functions:
 * prefixed with `tvmgen_default_` (TVM's `tvmgen_<module name>_<function>`, module "default").
 */
import { isCIdentifier } from "../c-family/names.js";

export const MANGLE_PREFIX = "tvmgen_default_";

export interface CSymbol {
  /** The name of the C function. */
  readonly symbol: string;
  /** Why it differs from the global symbol, for the generated header comment; undefined when it does not. */
  readonly renamedBecause?: string | undefined;
}

/** The C symbol of `globalSymbol`, or undefined when it is not an identifier at all (`a.b`, `1x`). */
export function cSymbolOf(globalSymbol: string): CSymbol | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(globalSymbol)) return undefined;
  if (isCIdentifier(globalSymbol)) return { symbol: globalSymbol };
  const why = globalSymbol === "main" ? '"main" is the C program\'s entry point' : `"${globalSymbol}" is reserved in the generated C`;
  return { symbol: `${MANGLE_PREFIX}${globalSymbol}`, renamedBecause: why };
}
