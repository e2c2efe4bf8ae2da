/**
 * Several generated CUDA modules as one nvcc translation unit, and the split of that unit's ptxas
 * report and PTX back into one per module.
 *
 * Why: nvcc's fixed cost per translation unit (the preprocessor and cicc parsing the CUDA headers)
 * is about 0.9 CPU s, most of what a small kernel costs; the nvcc tests compile tens of modules per
 * architecture. How the modules stay apart in one unit, so that each compiles as it would alone:
 * - each module's text sits in a namespace of its own (`tessera_batch_<i>_`), so a helper one module
 *   defines is invisible to the others (a module that forgot one fails as it would alone);
 * - its kernels (extern "C", so not namespaced) are renamed to `tessera_batch_<i>_<kernel>` by a macro
 *   around its text, and ptxas' report is attributed back by that prefix;
 * - every macro it defines (the preamble's include guards) is undefined after it, so the next module's
 *   guarded helpers are defined again in its own namespace;
 * - only modules with the same `#include` lines share a unit (the caller groups them): the headers are
 *   included once at the top, so no module sees a header it did not ask for;
 * - `#line 1 "<file>"` before each module's text (its `#include` lines blanked, not removed): an error
 *   names the module's file and line, as in a compile of that file alone.
 */
import type { PtxasKernelRecord } from "./corpus-ptxas.js";

export interface BatchMember {
  /** The module's own file name (what `#line` names in errors). */
  readonly file: string;
  readonly source: string;
  /** The module's kernel names as its source spells them. */
  readonly kernels: readonly string[];
}

/** The prefix of module `i`'s names in the batch: no prefix of one module is a substring of another's. */
export function batchTag(i: number): string {
  return `tessera_batch_${i}_`;
}

const INCLUDE = /^\s*#\s*include\b.*$/;
const DEFINE = /^\s*#\s*define\s+([A-Za-z_]\w*)/;

/** A source's `#include` lines, trimmed, in order: modules share a unit only when these are equal. */
export function includeLinesOf(source: string): string[] {
  return source
    .split("\n")
    .filter((l) => INCLUDE.test(l))
    .map((l) => l.trim());
}

/** The translation unit of `members` (all with the same `#include` lines). */
export function batchTranslationUnit(members: readonly BatchMember[]): string {
  const includes = includeLinesOf(members[0]?.source ?? "");
  for (const m of members) {
    if (includeLinesOf(m.source).join("\n") !== includes.join("\n")) {
      throw new Error(`batchTranslationUnit: ${m.file} includes other headers than ${members[0]!.file}; they cannot share a translation unit`);
    }
    if (m.file.includes('"') || m.file.includes("\n"))
      throw new Error(`batchTranslationUnit: the file name ${JSON.stringify(m.file)} cannot be named by #line`);
  }
  const parts = [`// ${members.length} modules as one translation unit (nvcc-batch.ts)`, ...includes];
  members.forEach((m, i) => {
    const tag = batchTag(i);
    const lines = m.source.split("\n");
    const defined = [...new Set(lines.flatMap((l) => DEFINE.exec(l)?.[1] ?? []))];
    parts.push(
      `namespace ${tag} {`,
      ...m.kernels.map((k) => `#define ${k} ${tag}${k}`),
      `#line 1 "${m.file}"`,
      ...lines.map((l) => (INCLUDE.test(l) ? "" : l)),
      ...m.kernels.map((k) => `#undef ${k}`),
      ...defined.filter((d) => !m.kernels.includes(d)).map((d) => `#undef ${d}`),
      `}  // namespace ${tag}`,
    );
  });
  return `${parts.join("\n")}\n`;
}

/**
 * Puts each entry function of a batch's ptxas report back with its module, under the kernel's own
 * name. `unattributed`: entry functions that carry no member's prefix (none when all is well).
 */
export function attributeBatchKernels(
  records: readonly PtxasKernelRecord[],
  members: readonly BatchMember[],
): { perMember: PtxasKernelRecord[][]; unattributed: string[] } {
  const perMember: PtxasKernelRecord[][] = members.map(() => []);
  const unattributed: string[] = [];
  for (const r of records) {
    const i = members.findIndex((m, j) => m.kernels.some((k) => r.kernel === `${batchTag(j)}${k}`));
    if (i < 0) unattributed.push(r.kernel);
    else perMember[i]!.push({ ...r, kernel: r.kernel.slice(batchTag(i).length) });
  }
  return { perMember, unattributed };
}

/**
 * Module `i`'s part of a batch's PTX: the header (`.version`, `.target`, `.address_size`), the
 * top-level items whose code names no member (shared declarations), and the items whose code carries
 * its prefix (its kernels, its functions, their shared variables), in the file's order.
 */
export function batchPtxOf(ptx: string, i: number, memberCount: number): string {
  const tags = Array.from({ length: memberCount }, (_, j) => batchTag(j));
  return topLevelItems(ptx)
    .filter((item) => {
      const code = item.replace(/\/\/.*$/gm, "");
      const owners = tags.filter((t) => code.includes(t));
      return owners.length === 0 || owners.includes(tags[i]!);
    })
    .join("\n");
}

/**
 * PTX split into its top-level items: a directive line of the header, a declaration ending in `;`,
 * or a function with its body; comment lines go with the item after them.
 */
export function topLevelItems(ptx: string): string[] {
  const items: string[] = [];
  let current: string[] = [];
  let depth = 0;
  const close = () => {
    items.push(current.join("\n"));
    current = [];
  };
  for (const line of ptx.split("\n")) {
    const code = line.replace(/\/\/.*$/, "");
    const trimmed = code.trim();
    current.push(line);
    for (const ch of code) {
      if (ch === "{") depth++;
      else if (ch === "}") depth--;
    }
    if (depth > 0) continue;
    if (/^\.(version|target|address_size)\b/.test(trimmed) || trimmed.endsWith(";") || trimmed.endsWith("}")) close();
  }
  if (current.length > 0) items.push(current.join("\n"));
  return items;
}
