/** The one site of a named block, or why there is none to check. */
import type { BlockSite, ProgramView } from "./program-view.js";

export function requireBlock(view: ProgramView, name: string): BlockSite | string {
  const sites = view.blocks.get(name);
  if (sites === undefined) return `there is no block named "${name}"`;
  if (sites.length > 1) return `there are ${sites.length} blocks named "${name}"`;
  return sites[0]!;
}
