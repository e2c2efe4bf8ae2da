/**
 * `wgmma.mma_async` m64nNk16 fp16 × fp16 → fp32 (and m64nNk8 tf32 × tf32 → fp32: float32 elements,
 * both operands K-major, each operand truncated to tf32 as the tensor cores read it — the identity
 * on values a stage already rounded with `cvt.rna.tf32.f32`) in the simulator, one warp's 16 rows at a time (the
 * rows of warp w of a warpgroup depend on rows 16w… of A only), reading A and B from shared memory
 * as the tensor cores do: through the matrix descriptors' start addresses and leading / stride
 * byte offsets, with the 128-byte swizzle applied to each address (the 16-byte chunk, bits 4–6,
 * XOR the 128-byte row within its 1024-byte atom, bits 7–9; the shared buffer starts 1024-byte
 * aligned). A is K-major; B is MN-major (`trans_b`) or K-major. A wrong offset or a tile stored
 * in another swizzle reads other elements than the description, and the result differs.
 *
 * The warp's A pointer is its own 16 rows; the warpgroup's A starts 16·(warp mod 4) rows (2·SBO
 * bytes) before it, as the CUDA helper computes. The accumulator fragment: register 4c + i of
 * lane l is row l/4 + 8·(i/2), column 8c + 2·(l%4) + i%2. Products and sums in float32 one k at a
 * time in k order, as the unscheduled reduction, so a tensorized GEMM has the executor's bits.
 *
 * With A from registers (`wgmma_mma_async_rs`, tf32 only), each lane gives its 4 A registers: the
 * PTX ISA's wgmma A fragment for 32-bit types, register r of lane l is row l/4 + 8·(r%2), k l%4 +
 * 4·(r/2) of the warp's 16 rows; they must hold tf32 values (the loads round them, `cvt.rna`), as
 * for mma.sync: any other value is a misuse, the hardware's reading of the low bits unspecified.
 *
 * The MMA is performed when it is issued; what it read is returned (`WgmmaRead`), so that the
 * caller can check, when `wgmma.wait_group` retires its group, that nothing overwrote it meanwhile.
 */
import { roundToTF32, truncateToTF32 } from "@tessera/ir";

export interface WgmmaSite {
  readonly kind: "wgmma";
  readonly text: string;
  /** N of m64nNk16. */
  readonly n: number;
  /** B MN-major (n contiguous) rather than K-major. */
  readonly transB: boolean;
  /** m64nNk8 with float32 elements read as tf32 (else m64nNk16 fp16). */
  readonly tf32?: boolean;
  /** A from the lanes' registers (the register-A form) rather than shared memory. */
  readonly registerA?: boolean;
  /** scale-d 0: D = A·B, the accumulator registers written, not read. */
  readonly zeroD?: boolean;
}

type Registers = ArrayLike<number> & { [i: number]: number };

/** The shared elements one wgmma of one warp read (indices into `array`) and their values then. */
export interface WgmmaRead {
  readonly array: Registers;
  readonly at: ArrayLike<number>;
  /** Held in a Float64Array: -0 stays -0; a NaN's payload may not survive, and NaNs are compared as NaN. */
  readonly values: ArrayLike<number>;
  /** A lane's registers (checked when the group retires) rather than shared memory (checked at the next barrier). */
  readonly registers?: boolean;
}

/** One lane's operands: C registers and offset, A's array, element offset, LBO, SBO, B's the same. */
export type WgmmaOperands = readonly [
  c: Registers,
  cOffset: number,
  a: Registers,
  aOffset: number,
  aLbo: number,
  aSbo: number,
  b: Registers,
  bOffset: number,
  bLbo: number,
  bSbo: number,
];

const ROWS_PER_WARP = 16;

/** The 128-byte swizzle of a shared byte address. */
export function swizzle128(address: number): number {
  return address ^ (((address >> 7) & 7) << 4);
}

/** Performs the wgmma of warp `warp` (its index in the block) with its 32 lanes' operands; returns what it read of A and B. */
export function warpWgmma(warp: number, s: WgmmaSite, lanes: readonly WgmmaOperands[], misuse: (detail: string) => never): WgmmaRead[] {
  const [, , a, aOffset, , aSbo, b, bOffset, bLbo, bSbo] = lanes[0]!;
  const [elementBytes, depth] = s.tf32 === true ? [4, 8] : [2, 16];
  // The tensor cores read the sign, exponent and top 10 mantissa bits of a float32 (T.tf32_truncate).
  const operand = s.tf32 === true ? truncateToTF32 : (x: number) => x;
  const registerA = s.registerA === true;
  lanes.forEach((l, lane) => {
    if ((!registerA && (l[2] !== a || l[3] !== aOffset || l[5] !== aSbo)) || l[6] !== b || l[7] !== bOffset || l[8] !== bLbo || l[9] !== bSbo)
      misuse(`lane ${lane} gives other ${registerA ? "B descriptors" : "A or B descriptors"} than lane 0`);
  });
  const n = s.n;
  // What it reads, in typed arrays of the exact size (a wgmma of N = 128 reads over a thousand
  // elements, and plain arrays grown by push were a quarter of the wgmma tests' time in the GC).
  const reads = [registerA ? 0 : ROWS_PER_WARP * depth, depth * n].map((count, k) => ({
    array: k === 0 ? a : b,
    at: new Int32Array(count),
    values: new Float64Array(count),
    length: 0,
  }));
  const read = (operandIndex: 0 | 1, address: number, what: string): number => {
    const r = reads[operandIndex]!;
    const array = r.array;
    const at = swizzle128(address) / elementBytes;
    if (address < 0 || at >= array.length) misuse(`${what} at byte ${address} is outside the shared buffer of ${array.length * elementBytes} bytes`);
    r.at[r.length] = at;
    r.values[r.length++] = array[at]!;
    return operand(array[at]!);
  };
  const rank = warp % 4;
  const A = new Float64Array(ROWS_PER_WARP * depth);
  const registerReads = registerA ? registerFragmentA(lanes, A, misuse) : [];
  if (!registerA) {
    const aGroup = aOffset * elementBytes - rank * 2 * aSbo;
    for (let r = 0; r < ROWS_PER_WARP; r++) {
      const m = ROWS_PER_WARP * rank + r;
      for (let k = 0; k < depth; k++) A[r * depth + k] = read(0, aGroup + (m >> 3) * aSbo + (m & 7) * 128 + k * elementBytes, `A(${m}, ${k})`);
    }
  }
  const B = new Float64Array(depth * n);
  const bStart = bOffset * elementBytes;
  for (let k = 0; k < depth; k++)
    for (let j = 0; j < n; j++) {
      const address = s.transB
        ? bStart + (j >> 6) * bLbo + (k >> 3) * bSbo + (k & 7) * 128 + (j & 63) * elementBytes
        : bStart + (j >> 3) * bSbo + (j & 7) * 128 + k * elementBytes;
      B[k * n + j] = read(1, address, `B(${k}, ${j})`);
    }
  const registers = n / 2;
  const where = (lane: number, i: number) => ({ row: (lane >> 2) + 8 * ((i & 3) >> 1), col: 8 * (i >> 2) + 2 * (lane & 3) + (i & 1) });
  const C = new Float64Array(ROWS_PER_WARP * n);
  lanes.forEach(([c, cOffset], lane) => {
    if (cOffset < 0 || cOffset + registers > c.length) misuse(`lane ${lane}'s ${registers} accumulator registers from ${cOffset} are outside its ${c.length}`);
    if (s.zeroD === true) return;
    for (let i = 0; i < registers; i++) {
      const { row, col } = where(lane, i);
      C[row * n + col] = c[cOffset + i]!;
    }
  });
  const f = Math.fround;
  for (let r = 0; r < ROWS_PER_WARP; r++)
    for (let j = 0; j < n; j++) {
      let acc = C[r * n + j]!;
      for (let k = 0; k < depth; k++) acc = f(acc + f(A[r * depth + k]! * B[k * n + j]!));
      C[r * n + j] = acc;
    }
  lanes.forEach(([c, cOffset], lane) => {
    for (let i = 0; i < registers; i++) {
      const { row, col } = where(lane, i);
      c[cOffset + i] = C[row * n + col]!;
    }
  });
  const taken = reads.map(({ array, at, values }): WgmmaRead => ({ array, at, values }));
  return registerA ? [taken[1]!, ...registerReads] : taken;
}

/** Registers of the tf32 A fragment a lane gives (m64nNk8, 32-bit types). */
const A_FRAGMENT_REGISTERS = 4;
const TF32_DEPTH = 8;

/**
 * The warp's 16×8 tf32 A slice from its lanes' registers into `A` (row-major): register r of lane l
 * is row l/4 + 8·(r%2), k l%4 + 4·(r/2). Each must hold a tf32 value. Returns each lane's reads.
 */
function registerFragmentA(lanes: readonly WgmmaOperands[], A: Float64Array, misuse: (detail: string) => never): WgmmaRead[] {
  return lanes.map(([, , regs, offset], lane) => {
    if (offset < 0 || offset + A_FRAGMENT_REGISTERS > regs.length)
      misuse(`lane ${lane}'s ${A_FRAGMENT_REGISTERS} A registers from ${offset} are outside its ${regs.length}`);
    const at: number[] = [];
    const values: number[] = [];
    for (let r = 0; r < A_FRAGMENT_REGISTERS; r++) {
      const x = regs[offset + r]!;
      if (!Object.is(roundToTF32(x), x) && !Number.isNaN(x))
        misuse(`lane ${lane}'s A register ${r} holds ${x}, not a tf32 value: round A to tf32 before a register-A wgmma (T.tf32_round)`);
      A[((lane >> 2) + 8 * (r & 1)) * TF32_DEPTH + (lane & 3) + 4 * (r >> 1)] = x;
      at.push(offset + r);
      values.push(x);
    }
    return { array: regs, at, values, registers: true };
  });
}
