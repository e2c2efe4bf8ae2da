/**
 * Checks how the detected splits use the input iterators: the indices must be independent (no
 * digit of an input iterator reached twice) and, for a bijective map, cover every input iterator
 * exactly, from its lowest digit to its top one (which may round up, after a non-divisible split).
 *
 * Digit ranges taken from a fused mark are pushed down to its parts when they line up with them
 * (`floordiv(i0*32 + i1, 32)` reads all of `i0`); when one cuts through a part
 * (`floordiv(i0*5 + i1, 2)` with `i1 < 5`) the fused mark is checked as a whole and then reads all
 * of its parts. Marks are processed from the most recently fused down, so a mark's ranges are
 * complete before they are pushed to its parts.
 */
import { type IterMark, type IterSum, markExtent, splitExtent, splitLower, splitScale } from "./types.js";

/** Digits `[lower, lower·extent)` of a mark; `extent` may round up past the mark at the top. */
interface DigitRange {
  readonly lower: number;
  readonly extent: number;
}

type RangesByMark = Map<IterMark, DigitRange[]>;

function addRange(uses: RangesByMark, mark: IterMark, range: DigitRange): void {
  const list = uses.get(mark);
  if (list === undefined) uses.set(mark, [range]);
  else list.push(range);
}

/** The ranges of the parts of fused `mark` that `range` reads, or `undefined` if it cuts through one. */
function projectOntoParts(mark: IterSum, total: number, range: DigitRange): [IterMark, DigitRange][] | undefined {
  const top = range.lower * range.extent >= total ? Infinity : range.lower * range.extent;
  const out: [IterMark, DigitRange][] = [];
  for (const part of mark.args) {
    const [scale, extent] = [splitScale(part), splitExtent(part)];
    const lo = Math.max(range.lower, scale);
    const hi = Math.min(top, scale * extent);
    if (lo >= hi) continue;
    if (lo % scale !== 0 || hi % lo !== 0) return undefined;
    out.push([part.source, { lower: splitLower(part) * (lo / scale), extent: hi / lo }]);
  }
  return out;
}

function checkDigits(extent: number, ranges: readonly DigitRange[], bijective: boolean, name: string): string[] {
  const sorted = [...ranges].sort((a, b) => a.lower - b.lower);
  let covered = 1; // digits below `covered` are taken
  for (const r of sorted) {
    if (r.lower < covered) return [`iterator ${name} is used more than once (overlapping splits)`];
    if (r.lower % covered !== 0) return [`iterator ${name} is split at ${r.lower}, which is not a multiple of ${covered}`];
    if (bijective && r.lower !== covered) return [`iterator ${name} is not covered: values ${covered}..${r.lower} apart are missing`];
    covered = r.lower * r.extent;
  }
  if (bijective && covered < extent) return [`iterator ${name} is not fully covered: ${covered} of ${extent} values are reached`];
  return [];
}

/**
 * Error messages (empty when fine). `marks` lists every mark in creation order (parts before the
 * marks fused from them); `inputMarks` names the marks of the input iterators.
 */
export function checkCoverage(
  sums: readonly IterSum[],
  marks: readonly IterMark[],
  inputMarks: ReadonlyMap<IterMark, string>,
  bijective: boolean,
  describe: (m: IterMark) => string,
): string[] {
  const uses: RangesByMark = new Map();
  for (const sum of sums) {
    for (const s of sum.args) addRange(uses, s.source, { lower: splitLower(s), extent: splitExtent(s) });
  }
  const errors: string[] = [];
  for (let k = marks.length - 1; k >= 0; k--) {
    const mark = marks[k]!;
    const source = mark.source;
    const ranges = uses.get(mark);
    if (source.kind !== "IterSum" || ranges === undefined) continue;
    const total = markExtent(mark);
    const projected = ranges.map((r) => projectOntoParts(source, total, r));
    if (projected.every((p) => p !== undefined)) {
      for (const p of projected) for (const [part, r] of p!) addRange(uses, part, r);
      continue;
    }
    errors.push(...checkDigits(total, ranges, bijective, describe(mark)));
    for (const part of source.args) addRange(uses, part.source, { lower: splitLower(part), extent: splitExtent(part) });
  }
  for (const [mark, name] of inputMarks) {
    const ranges = uses.get(mark) ?? [];
    if (ranges.length === 0) {
      if (bijective && markExtent(mark) > 1) errors.push(`iterator ${name} is not used by any index`);
      continue;
    }
    errors.push(...checkDigits(markExtent(mark), ranges, bijective, name));
  }
  return errors;
}
