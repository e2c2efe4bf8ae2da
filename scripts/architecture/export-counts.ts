/**
 * How many names each entry point exports, counted by the TypeScript compiler as a consumer sees
 * them (`checker.getExportsOfModule`): `export *` chains and re-exports from other workspace
 * packages are followed. Reads sources only, so it needs no install of the checkout it measures.
 */
import { join } from "node:path";
import ts from "typescript";
import type { WorkspacePackage } from "./workspace.js";

export interface ExportCount {
  readonly specifier: string;
  /** Every exported name. */
  readonly names: number;
  /** Names that exist at run time (functions, classes, constants, enums). */
  readonly values: number;
  /** Names that are only types (interfaces, type aliases). */
  readonly types: number;
}

export function countExports(root: string, packages: readonly WorkspacePackage[]): ExportCount[] {
  const entries = packages.flatMap((p) => p.entryPoints);
  // Workspace imports resolve to the measured checkout's sources, whatever node_modules holds.
  const paths = Object.fromEntries(entries.map((e) => [e.specifier, [join(root, e.source)]]));
  const program = ts.createProgram(
    entries.map((e) => join(root, e.source)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      baseUrl: root,
      paths,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
  );
  const checker = program.getTypeChecker();
  return entries.map((entry) => {
    const file = program.getSourceFile(join(root, entry.source));
    const moduleSymbol = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (moduleSymbol === undefined) throw new Error(`${entry.source} (${entry.specifier}) is not a module the compiler can read`);
    let values = 0;
    let types = 0;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (target.flags & ts.SymbolFlags.Value) values++;
      else types++;
    }
    return { specifier: entry.specifier, names: values + types, values, types };
  });
}
