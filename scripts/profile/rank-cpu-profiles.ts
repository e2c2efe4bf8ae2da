/**
 * `tsx scripts/profile/rank-cpu-profiles.ts [--top 25] [--all] [--markdown] DIR_OR_FILE…`
 *
 * Merges V8 CPU profiles (`node --cpu-prof`, one `.cpuprofile` per process or worker thread) and
 * ranks functions by self and inclusive time. A function is its name, file and line, so the same
 * function seen by several processes adds up. Inclusive time counts a sample once per function
 * even when the function recurses. By default only the product's code is ranked (files under
 * `packages/…/src/`); `--all` ranks every function (node's, vitest's, the tests'). `--fold TEXT`
 * (repeatable) gives the self time of functions whose file contains TEXT to their nearest caller
 * outside such files: `--fold functor.ts` ranks the passes that walk trees, not the walker.
 * `--by-name` keys functions by name and file only (profiles of a bundle and of the sources then
 * add up; anonymous functions of one file are lumped together). Percentages are of the samples
 * in which the thread was not idle.
 *
 * A profile of an esbuild bundle (`esbuild --bundle`, not minified) is mapped back to the sources
 * by the `// packages/…` comments esbuild puts before each module; lines are then the bundle's.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { parseArgs } from "node:util";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
interface Row {
  key: string;
  selfUs: number;
  totalUs: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: "string", default: "25" },
    all: { type: "boolean", default: false },
    markdown: { type: "boolean", default: false },
    fold: { type: "string", multiple: true, default: [] },
    "by-name": { type: "boolean", default: false },
  },
});
if (positionals.length === 0) {
  console.error("usage: rank-cpu-profiles.ts [--top N] [--all] [--markdown] DIR_OR_FILE…");
  process.exit(2);
}

function profileFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => join(path, name));
}

/** Per bundle file: the source module starting at each line (esbuild's `// path` comments), in order. */
const bundleModules = new Map<string, { line: number; path: string }[]>();
function modulesOfBundle(url: string): { line: number; path: string }[] {
  let modules = bundleModules.get(url);
  if (modules === undefined) {
    modules = [];
    const file = url.startsWith("file://") ? fileURLToPath(url) : url;
    if (/\.m?js$/.test(file) && existsSync(file)) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((text, line) => {
          const comment = /^\/\/ (\S*packages\/[^/]+\/src\/\S+)$/.exec(text);
          if (comment !== null) modules!.push({ line, path: comment[1]! });
        });
    }
    bundleModules.set(url, modules);
  }
  return modules;
}

/** The product source path of a frame (`packages/ir/src/…`), read through a bundle's module comments. */
function sourcePathOf(frame: CallFrame): string | undefined {
  const direct = /(packages\/[^/]+\/src\/.*)$/.exec(frame.url.replace(/^file:\/\//, ""));
  if (direct !== null) return direct[1];
  if (frame.url === "") return undefined;
  let path: string | undefined;
  for (const m of modulesOfBundle(frame.url)) {
    if (m.line > frame.lineNumber) break;
    path = m.path;
  }
  return path === undefined ? undefined : /(packages\/[^/]+\/src\/.*)$/.exec(path)?.[1];
}

/** `fn packages/ir/src/arith/x.ts:12`, or undefined for code that is not the product's (unless --all). */
function keyOf(frame: CallFrame): string | undefined {
  const path = sourcePathOf(frame);
  if (path === undefined && !values.all) return undefined;
  const where = path ?? (frame.url || "(native)");
  const name = `${frame.functionName || "(anonymous)"} ${where}`;
  return values["by-name"] ? name : `${name}:${frame.lineNumber + 1}`;
}

const folded = (frame: CallFrame): boolean => values.fold.some((text) => (sourcePathOf(frame) ?? frame.url).includes(text));

const rows = new Map<string, Row>();
const rowOf = (key: string): Row => {
  let row = rows.get(key);
  if (row === undefined) rows.set(key, (row = { key, selfUs: 0, totalUs: 0 }));
  return row;
};
let sampledUs = 0;
/** Samples whose leaf is not V8's `(idle)` node. */
let busyUs = 0;
for (const file of positionals.flatMap(profileFiles)) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // The stack's keys of each node, worked out once per node (samples repeat nodes).
  const stackKeys = new Map<number, string[]>();
  const keysOf = (id: number): string[] => {
    const known = stackKeys.get(id);
    if (known !== undefined) return known;
    const keys = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = keyOf(byId.get(at)!.callFrame);
      if (key !== undefined) keys.add(key);
    }
    const list = [...keys];
    stackKeys.set(id, list);
    return list;
  };
  /** The sampled node's key, or its nearest caller's outside the `--fold` files. */
  const selfKeyOf = (id: number): string | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!folded(frame)) return keyOf(frame);
    }
    return undefined;
  };
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    if (us <= 0) return;
    sampledUs += us;
    if (byId.get(id)!.callFrame.functionName !== "(idle)") busyUs += us;
    const self = selfKeyOf(id);
    if (self !== undefined) rowOf(self).selfUs += us;
    for (const key of keysOf(id)) rowOf(key).totalUs += us;
  });
}

const top = Number(values.top);
const s = (us: number): string => (us / 1e6).toFixed(2);
const pct = (us: number): string => ((100 * us) / busyUs).toFixed(1);
const print = (title: string, sorted: Row[]): void => {
  console.log(`\n${title} (of ${s(busyUs)} s busy, ${s(sampledUs)} s sampled)`);
  if (values.markdown) {
    console.log("\n| # | function | self s | self % | incl. s | incl. % |\n| ---: | --- | ---: | ---: | ---: | ---: |");
    sorted.slice(0, top).forEach((r, i) => {
      console.log(`| ${i + 1} | \`${r.key}\` | ${s(r.selfUs)} | ${pct(r.selfUs)} | ${s(r.totalUs)} | ${pct(r.totalUs)} |`);
    });
  } else {
    for (const r of sorted.slice(0, top))
      console.log(`${s(r.selfUs).padStart(8)} ${pct(r.selfUs).padStart(5)}% ${s(r.totalUs).padStart(8)} ${pct(r.totalUs).padStart(5)}%  ${r.key}`);
  }
};
const all = [...rows.values()];
print(
  "by self time",
  [...all].sort((a, b) => b.selfUs - a.selfUs),
);
print(
  "by inclusive time",
  [...all].sort((a, b) => b.totalUs - a.totalUs),
);
