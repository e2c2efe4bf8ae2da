/** Finding cache stages (the blocks cacheRead / cacheWrite create) in a program view. */
import type { BufferLoad, BufferStore } from "@tessera/ir";
import { type BlockSite, type ProgramView } from "./program-view.js";

/** A block whose body is `dst[...] = src[...]`: what cacheRead creates. */
function copySource(s: BlockSite): string | undefined {
  const body = s.block.body;
  if (body.kind !== "BufferStore") return undefined;
  const value = (body as BufferStore).value;
  return value.kind === "BufferLoad" ? (value as BufferLoad).buffer.name : undefined;
}

function allSites(view: ProgramView): BlockSite[] {
  return [...view.blocks.values()].flat();
}

/** The original buffer a buffer's data comes from, following copy blocks (`A_shared_local` → `A`). */
export function originOf(view: ProgramView, bufferName: string): string {
  let name = bufferName;
  for (let hops = 0; hops < 8; hops++) {
    const writer = allSites(view).find((s) => s.block.writes.some((w) => w.buffer.name === name));
    const src = writer === undefined ? undefined : copySource(writer);
    if (src === undefined) return name;
    name = src;
  }
  return name;
}

/** The copy block that brings `origin` into `scope` memory and that `consumer` reads directly. */
export function readStage(view: ProgramView, consumer: BlockSite, origin: string, scope: string): BlockSite | undefined {
  for (const read of consumer.block.reads) {
    if (read.buffer.scope !== scope || originOf(view, read.buffer.name) !== origin) continue;
    const writer = allSites(view).find((s) => s.block.writes.some((w) => w.buffer === read.buffer));
    if (writer !== undefined && copySource(writer) !== undefined) return writer;
  }
  return undefined;
}

/** The `scope` buffer `producer` writes in place of `buffer` (cacheWrite), and the block that writes it back. */
export function writeStage(
  view: ProgramView,
  producer: BlockSite,
  buffer: string,
  scope: string,
): { cache: string; writeBack: BlockSite | undefined } | undefined {
  const cache = producer.block.writes.find((w) => w.buffer.scope === scope && w.buffer.name.startsWith(buffer));
  if (cache === undefined) return undefined;
  const writeBack = allSites(view).find((s) => s !== producer && s.block.reads.some((r) => r.buffer === cache.buffer));
  return { cache: cache.buffer.name, writeBack };
}

/** Loops of `stage` that are not also loops of `of` (the stage's own copy loops). */
export function ownLoops(stage: BlockSite, of: BlockSite): BlockSite["loops"] {
  return stage.loops.filter((l) => !of.loops.includes(l));
}
