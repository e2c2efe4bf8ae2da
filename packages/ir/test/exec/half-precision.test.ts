import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bfloat16Bits,
  bfloat16FromBits,
  decodeHalfArray,
  encodeHalfArray,
  float16Bits,
  float16FromBits,
  roundToBFloat16,
  roundToFloat16,
  roundToTF32,
} from "../../src/exec/index.js";

// Independent references, written on float32 bit patterns with integer arithmetic only.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bitsOfFloat32 = (x: number): number => {
  f32[0] = x;
  return u32[0]!;
};
const float32OfBits = (bits: number): number => {
  u32[0] = bits >>> 0;
  return f32[0]!;
};

/** bfloat16 of a float32 by the usual integer trick: add 0x7fff plus the kept lowest bit, drop 16 bits. */
function referenceBFloat16(x: number): number {
  const bits = bitsOfFloat32(x);
  const rounded = (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
  return float32OfBits(rounded << 16);
}

/** tf32 (ties away) of a float32: add half of the dropped quantum, clear the 13 low bits. */
function referenceTF32(x: number): number {
  return float32OfBits(((bitsOfFloat32(x) + 0x1000) & ~0x1fff) >>> 0);
}

/** float16 bits of a float32 by integer manipulation of its fields (round to nearest even). */
function referenceFloat16Bits(x: number): number {
  const bits = bitsOfFloat32(x);
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127;
  let mantissa = bits & 0x7fffff;
  if (exponent > 15) return sign | 0x7c00;
  let shift: number;
  let field: number;
  if (exponent >= -14) {
    shift = 13;
    field = exponent + 15;
  } else {
    if (exponent < -25) return sign;
    mantissa |= 0x800000;
    shift = 13 + (-14 - exponent);
    field = 0;
  }
  const kept = mantissa >>> shift;
  const dropped = mantissa & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  const up = dropped > half || (dropped === half && (kept & 1) === 1) ? 1 : 0;
  // A carry out of the mantissa moves into the exponent field, as the bit layout allows.
  const magnitude = (field === 0 ? kept : (field << 10) | (kept & 0x3ff)) + up;
  return sign | Math.min(magnitude, 0x7c00);
}

const finiteFloat32 = fc.float({ noNaN: true, noDefaultInfinity: true });

describe("16-bit float bit patterns", () => {
  it("float16: every one of the 65536 patterns decodes to a half that encodes back to itself (NaNs to 0x7fff)", () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = float16FromBits(bits);
      const nanPattern = (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;
      expect(Number.isNaN(value)).toBe(nanPattern);
      if (nanPattern) {
        expect(float16Bits(value)).toBe(0x7fff);
        continue;
      }
      if (roundToFloat16(value) !== value || float16Bits(value) !== bits) throw new Error(`float16 pattern 0x${bits.toString(16)} does not round-trip`);
    }
  });

  it("bfloat16: every one of the 65536 patterns decodes to a value that encodes back to itself (NaNs to 0x7fff)", () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = bfloat16FromBits(bits);
      if (Number.isNaN(value)) {
        expect((bits & 0x7f80) === 0x7f80 && (bits & 0x7f) !== 0).toBe(true);
        expect(bfloat16Bits(value)).toBe(0x7fff);
        continue;
      }
      if (roundToBFloat16(value) !== value || bfloat16Bits(value) !== bits) throw new Error(`bfloat16 pattern 0x${bits.toString(16)} does not round-trip`);
    }
  });

  it("encodes and decodes arrays", () => {
    const values = Float32Array.from([0, -0, 1, -2.5, 65504, Infinity, Number.NaN, 2 ** -24]);
    const half = encodeHalfArray("float16", values);
    expect(Array.from(half)).toEqual([0, 0x8000, 0x3c00, 0xc100, 0x7bff, 0x7c00, 0x7fff, 0x0001]);
    expect(Array.from(decodeHalfArray("float16", half))).toEqual(Array.from(values));
    const bf = encodeHalfArray("bfloat16", values);
    expect(Array.from(bf).slice(0, 4)).toEqual([0, 0x8000, 0x3f80, 0xc020]);
    expect(Array.from(decodeHalfArray("bfloat16", bf)).slice(0, 4)).toEqual([0, -0, 1, -2.5]);
  });

  it("decodes every 16-bit pattern of both dtypes to the value its bits name", () => {
    const all = Uint16Array.from({ length: 0x10000 }, (_, b) => b);
    for (const [dtype, fromBits] of [
      ["float16", float16FromBits],
      ["bfloat16", bfloat16FromBits],
    ] as const) {
      const decoded = decodeHalfArray(dtype, all);
      const wrong = Array.from(all).filter((b) => !Object.is(decoded[b], Math.fround(fromBits(b))));
      expect(wrong, `${dtype} patterns decoded wrongly`).toEqual([]);
    }
  });
});

describe("rounding float32 values, against integer reference implementations", () => {
  it("float16 (ties to even, subnormals, overflow)", () => {
    fc.assert(
      fc.property(finiteFloat32, (x) => {
        expect(float16Bits(x)).toBe(referenceFloat16Bits(x));
      }),
      { numRuns: 20000 },
    );
  });

  it("float16 on every tie and near-tie of a band of patterns", () => {
    // Float32s halfway between consecutive halves (and one float32 step either side), all exponents.
    for (let bits = 0; bits < 0x7c00; bits += 7) {
      const mid = (float16FromBits(bits) + float16FromBits(bits + 1)) / 2;
      for (const x of [mid, float32OfBits(bitsOfFloat32(mid) - 1), float32OfBits(bitsOfFloat32(mid) + 1)]) {
        if (float16Bits(x) !== referenceFloat16Bits(x)) throw new Error(`float16 rounding of ${x} differs`);
      }
    }
  });

  it("bfloat16 (ties to even; the top float32s overflow to infinity)", () => {
    fc.assert(
      fc.property(finiteFloat32, (x) => {
        expect(roundToBFloat16(x)).toBe(referenceBFloat16(x));
      }),
      { numRuns: 20000 },
    );
    // Halfway between the largest bfloat16 and 2^128: ties to even, which is infinity.
    expect(roundToBFloat16((2 - 2 ** -8) * 2 ** 127)).toBe(Infinity);
    expect(roundToBFloat16((2 - 2 ** -8) * 2 ** 127 - 2 ** 103)).toBe((2 - 2 ** -7) * 2 ** 127);
  });

  it("tf32 (ties away from zero)", () => {
    fc.assert(
      fc.property(finiteFloat32, (x) => {
        expect(roundToTF32(x)).toBe(referenceTF32(x));
      }),
      { numRuns: 20000 },
    );
    expect(roundToTF32(1 + 2 ** -11)).toBe(1 + 2 ** -10);
    expect(roundToTF32(-(1 + 2 ** -11))).toBe(-(1 + 2 ** -10));
    expect(roundToTF32(Number.NaN)).toBeNaN();
  });

  it("keeps signed zeros, infinities and NaN", () => {
    for (const round of [roundToFloat16, roundToBFloat16, roundToTF32]) {
      expect(Object.is(round(-0), -0)).toBe(true);
      expect(Object.is(round(-(2 ** -160)), -0)).toBe(true);
      expect(round(-Infinity)).toBe(-Infinity);
      expect(round(Number.NaN)).toBeNaN();
    }
  });
});

describe("rounding from a double, not through float32", () => {
  it("rounds the exact value once (float64 → float32 → half would round twice)", () => {
    // Just above the tie between 1 and the next half: float32 rounds it onto the tie, which then goes to even (1).
    const x = 1 + 2 ** -11 + 2 ** -40;
    expect(roundToFloat16(Math.fround(x))).toBe(1);
    expect(roundToFloat16(x)).toBe(1 + 2 ** -10);
    const y = 1 + 2 ** -8 + 2 ** -40;
    expect(roundToBFloat16(Math.fround(y))).toBe(1);
    expect(roundToBFloat16(y)).toBe(1 + 2 ** -7);
  });

  it("of doubles picks the nearest half", () => {
    // The result must be the nearer of the two halves around the double (the even one on a tie).
    fc.assert(
      fc.property(fc.double({ min: -70000, max: 70000, noNaN: true }), (x) => {
        const a = Math.abs(x);
        const r = roundToFloat16(x);
        if (a >= 65520) {
          expect(Math.abs(r)).toBe(Infinity);
          return;
        }
        const lower = float16FromBits(float16Bits(Math.abs(r)) - (Math.abs(r) > a ? 1 : 0));
        const upper = float16FromBits(float16Bits(lower) + 1);
        expect(Math.abs(r) === lower || Math.abs(r) === upper).toBe(true);
        const dLower = a - lower;
        const dUpper = upper - a;
        if (dLower !== dUpper) expect(Math.abs(r)).toBe(dLower < dUpper ? lower : upper);
        else expect(float16Bits(Math.abs(r)) & 1).toBe(0);
      }),
      { numRuns: 20000 },
    );
  });
});
