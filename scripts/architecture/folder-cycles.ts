/**
 * Folder cycles of each workspace package's `src/`: folder A imports from folder B and B (through
 * any chain) from A. A folder is a layer of its package, so a cycle between folders is a layering
 * mistake even where no file cycle exists. Reads the relative imports of the TypeScript sources;
 * a file's folder is the one it sits in. The imports of an `index.ts` are left out: a folder's
 * index gathers what lies below it for the folder's users, which is not a dependency of the layer.
 *
 * `tsx scripts/architecture/folder-cycles.ts [ROOT]` prints JSON; `folderCycles(root)` is used by
 * the architecture figures.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface PackageFolderCycles {
  readonly package: string;
  /** Each cycle: the folders (relative to the package's src/) of one strongly connected set, sorted. */
  readonly cycles: readonly (readonly string[])[];
}

const IMPORT = /(?:import|export)\s[^;]*?from\s*"(\.{1,2}\/[^"]+)"|import\s*\(\s*"(\.{1,2}\/[^"]+)"\s*\)|import\s*"(\.{1,2}\/[^"]+)"/g;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The folder graph of one `src/`: folder → folders it imports from (itself left out). */
function folderGraph(src: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourcesUnder(src)) {
    const from = relative(src, dirname(file)) || ".";
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    if (file.endsWith("/index.ts")) continue;
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (spec === undefined) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(src)) continue;
      const to = relative(src, dirname(target)) || ".";
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** Strongly connected sets of more than one folder (Tarjan's algorithm). */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      for (;;) {
        const w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
        if (w === v) break;
      }
      if (set.length > 1) out.push(set.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

export function folderCycles(root: string): PackageFolderCycles[] {
  return ["packages", "apps", "assignments"].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => {
        const src = join(root, group, d.name, "src");
        try {
          return [{ package: `${group}/${d.name}`, cycles: cyclesOf(folderGraph(src)) }];
        } catch {
          return [];
        }
      }),
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", ".."));
  console.log(JSON.stringify(folderCycles(root), null, 2));
}
