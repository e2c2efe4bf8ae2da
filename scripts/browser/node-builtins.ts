/**
 * Finds the Node built-ins that code meant for a browser imports: bundles an entry for the
 * browser with esbuild and reports each built-in it meets with the file that imports it.
 */
import { isBuiltin } from "node:module";
import { type Plugin, build } from "esbuild";

export interface NodeBuiltinImport {
  /** The specifier as written, e.g. `node:os` or `fs`. */
  readonly builtin: string;
  /** The importing file, relative to the bundle's working directory. */
  readonly importer: string;
}

/** Records every import of a Node built-in and leaves it out of the bundle, so that one run lists them all. */
function recordBuiltins(found: NodeBuiltinImport[], root: string): Plugin {
  return {
    name: "record-node-builtins",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!isBuiltin(args.path)) return undefined;
        const importer = args.importer.startsWith(root) ? args.importer.slice(root.length + 1) : args.importer;
        found.push({ builtin: args.path, importer });
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * The Node built-ins reached from the entries (file paths relative to `root`, or TypeScript source
 * with `source`) when they are bundled for the browser, in one build, with the workspace's source condition.
 */
export async function nodeBuiltinsReachedFrom(root: string, entry: { files: readonly string[] } | { source: string }): Promise<NodeBuiltinImport[]> {
  const found: NodeBuiltinImport[] = [];
  await build({
    ...("files" in entry
      ? { entryPoints: [...entry.files], outdir: "browser-bundle" }
      : { stdin: { contents: entry.source, resolveDir: root, sourcefile: "entry.ts", loader: "ts" as const } }),
    absWorkingDir: root,
    bundle: true,
    platform: "browser",
    format: "esm",
    conditions: ["@tessera/source"],
    write: false,
    logLevel: "silent",
    plugins: [recordBuiltins(found, root)],
  });
  return found;
}
