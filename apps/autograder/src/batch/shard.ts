/**
 * `--shard i/n`: the batch's submissions split into n parts for the jobs of a CI matrix. Shard i
 * (1-based, as matrices count) takes the submissions at positions i-1, i-1+n, i-1+2n, … of the
 * name-sorted list: every submission lands in exactly one shard, whatever the machine, and the
 * shards are as even as they can be.
 */

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

/** Parses "i/n"; undefined when the text is not of that form or i is not in 1..n. */
export function parseShard(text: string): Shard | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (match === null) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (!Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) return undefined;
  return { index, count };
}

/** The shard's part of `items` (sorted by name here, so the caller's order does not matter). */
export function selectShard<T extends { readonly name: string }>(items: readonly T[], shard: Shard): T[] {
  const sorted = [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sorted.filter((_, position) => position % shard.count === shard.index - 1);
}

export function describeShard(shard: Shard): string {
  return `shard ${shard.index}/${shard.count}`;
}
