/**
 * A tiling structure such as `SSRSRS` (TVM's MultiLevelTiling `structure`): one letter per tile
 * level, S for a spatial level and R for a reduction level, outermost first.
 */
export interface TileStructure {
  readonly text: string;
  /** Level indices of the spatial levels, outermost first. */
  readonly spatial: readonly number[];
  /** Level indices of the reduction levels, outermost first. */
  readonly reduce: readonly number[];
}

export function parseTileStructure(rule: string, text: string): TileStructure {
  if (!/^[SR]+$/.test(text)) throw new RangeError(`${rule}: structure must be made of the letters S and R, got ${JSON.stringify(text)}`);
  const letters = [...text];
  const spatial = letters.flatMap((c, k) => (c === "S" ? [k] : []));
  const reduce = letters.flatMap((c, k) => (c === "R" ? [k] : []));
  if (spatial.length === 0 || reduce.length === 0) throw new RangeError(`${rule}: structure ${text} needs at least one S and one R level`);
  return { text, spatial, reduce };
}
