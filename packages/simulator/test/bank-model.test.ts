/** The bank model on single warp accesses: known patterns, Nsight Compute's counts on an H100, and properties. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type WarpAccessCost, WavefrontCounter, warpAccessCost } from "../src/index.js";

const LANES = Array.from({ length: 32 }, (_, lane) => lane);
const INACTIVE = -1;

/**
 * Byte addresses of a warp whose lane l accesses `widthBytes` bytes at element `element(l)` (in
 * units of the width), or takes no part where `active(l)` is false.
 */
function elements(element: (lane: number) => number, widthBytes = 4, active: (lane: number) => boolean = () => true): number[] {
  return LANES.map((l) => (active(l) ? element(l) * widthBytes : INACTIVE));
}

/**
 * The model written as plainly as possible, as an oracle: lanes in groups (phases) of
 * 32 / (width / 4), doubled for a load whose lanes agree pairwise; a phase costs its fullest bank.
 */
function referenceCost(addresses: readonly number[], widthBytes: number, access: "load" | "store"): WarpAccessCost {
  const agree = (partner: number): boolean =>
    LANES.every((l) => addresses[l] === INACTIVE || addresses[l ^ partner] === INACTIVE || addresses[l] === addresses[l ^ partner]);
  let lanesPerPhase = widthBytes <= 4 ? 32 : 32 / (widthBytes / 4);
  if (access === "load" && lanesPerPhase < 32 && (agree(1) || agree(2))) lanesPerPhase *= 2;
  let wavefronts = 0;
  let idealWavefronts = 0;
  let way = 0;
  for (let first = 0; first < 32; first += lanesPerPhase) {
    const active = addresses.slice(first, first + lanesPerPhase).filter((a) => a !== INACTIVE);
    if (active.length === 0) continue;
    const banks = new Map<number, Set<number>>();
    for (const a of active) {
      for (let w = Math.floor(a / 4); w <= Math.floor((a + widthBytes - 1) / 4); w++) {
        if (!banks.has(w % 32)) banks.set(w % 32, new Set());
        banks.get(w % 32)!.add(w);
      }
    }
    const fullest = Math.max(...[...banks.values()].map((words) => words.size));
    wavefronts += fullest;
    idealWavefronts++;
    way = Math.max(way, fullest);
  }
  return { wavefronts, idealWavefronts, way };
}

describe("warpAccessCost: 32-bit accesses", () => {
  it("stride 1 is conflict-free; stride s is a gcd(s, 32)-way conflict", () => {
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    for (const stride of [1, 2, 3, 4, 8, 16, 32, 33, 64, 96]) {
      const way = gcd(stride, 32);
      for (const access of ["load", "store"] as const) {
        expect(
          warpAccessCost(
            elements((l) => l * stride),
            4,
            access,
          ),
          `stride ${stride}`,
        ).toEqual({ wavefronts: way, idealWavefronts: 1, way });
      }
    }
  });

  it("threads reading one word share it (broadcast), whichever lanes they are", () => {
    expect(
      warpAccessCost(
        elements(() => 7),
        4,
        "load",
      ),
    ).toEqual({ wavefronts: 1, idealWavefronts: 1, way: 1 });
    expect(
      warpAccessCost(
        elements((l) => Math.floor(l / 4)),
        4,
        "load",
      ).wavefronts,
    ).toBe(1);
    // Two words of bank 0 (0 and 32), each read by 16 lanes: 2 wavefronts, not 32.
    expect(
      warpAccessCost(
        elements((l) => (l % 2) * 32),
        4,
        "load",
      ),
    ).toEqual({ wavefronts: 2, idealWavefronts: 1, way: 2 });
  });

  it("bytes of one word are one word: 8- and 16-bit accesses of neighbouring elements do not conflict", () => {
    expect(
      warpAccessCost(
        elements((l) => l, 2),
        2,
        "load",
      ).wavefronts,
    ).toBe(1);
    expect(
      warpAccessCost(
        elements((l) => l, 1),
        1,
        "store",
      ).wavefronts,
    ).toBe(1);
    // 16-bit elements 64 apart are 32 words apart: all lanes in one bank.
    expect(
      warpAccessCost(
        elements((l) => l * 64, 2),
        2,
        "load",
      ).wavefronts,
    ).toBe(32);
  });

  it("inactive lanes take no part; a warp access needs an active lane", () => {
    expect(
      warpAccessCost(
        elements(
          (l) => l * 32,
          4,
          (l) => l % 4 === 0,
        ),
        4,
        "load",
      ),
    ).toEqual({ wavefronts: 8, idealWavefronts: 1, way: 8 });
    expect(() =>
      warpAccessCost(
        LANES.map(() => INACTIVE),
        4,
        "load",
      ),
    ).toThrow(/at least one active lane/);
    expect(() => warpAccessCost([0, 4], 4, "load")).toThrow(/32 lanes/);
  });
});

describe("warpAccessCost: 64- and 128-bit accesses go by half- and quarter-warps", () => {
  it("consecutive float2 / float4 need the ideal 2 / 4 wavefronts", () => {
    for (const access of ["load", "store"] as const) {
      expect(
        warpAccessCost(
          elements((l) => l, 8),
          8,
          access,
        ),
      ).toEqual({ wavefronts: 2, idealWavefronts: 2, way: 1 });
      expect(
        warpAccessCost(
          elements((l) => l, 16),
          16,
          access,
        ),
      ).toEqual({ wavefronts: 4, idealWavefronts: 4, way: 1 });
    }
  });

  it("lanes of different phases never conflict, lanes of one phase do", () => {
    // float4s l and l + 8 use the same four banks, but lanes l and l + 8 are in different quarter-warps.
    expect(
      warpAccessCost(
        elements((l) => l, 16),
        16,
        "load",
      ).way,
    ).toBe(1);
    // float4 stride 2: in a quarter-warp, float4s 0 and 8 (banks 0–3) collide, and so on: 2-way.
    expect(
      warpAccessCost(
        elements((l) => 2 * l, 16),
        16,
        "load",
      ),
    ).toEqual({ wavefronts: 8, idealWavefronts: 4, way: 2 });
    // float2 stride 2: a half-warp spans 64 words, two per bank.
    expect(
      warpAccessCost(
        elements((l) => 2 * l, 8),
        8,
        "store",
      ),
    ).toEqual({ wavefronts: 4, idealWavefronts: 2, way: 2 });
  });

  it("a load whose lanes pair up has phases twice as wide; a store does not", () => {
    // Every lane reads one float4: 2 wavefronts (half-warps) for the load, 4 for the store.
    expect(
      warpAccessCost(
        elements(() => 3, 16),
        16,
        "load",
      ),
    ).toEqual({ wavefronts: 2, idealWavefronts: 2, way: 1 });
    expect(
      warpAccessCost(
        elements(() => 3, 16),
        16,
        "store",
      ),
    ).toEqual({ wavefronts: 4, idealWavefronts: 4, way: 1 });
    expect(
      warpAccessCost(
        elements(() => 3, 8),
        8,
        "load",
      ),
    ).toEqual({ wavefronts: 1, idealWavefronts: 1, way: 1 });
  });

  it("a phase with no active lane costs nothing", () => {
    expect(
      warpAccessCost(
        elements(
          (l) => l,
          16,
          (l) => l < 8,
        ),
        16,
        "store",
      ),
    ).toEqual({ wavefronts: 1, idealWavefronts: 1, way: 1 });
  });
});

/**
 * One-warp kernels measured with Nsight Compute 2025.3 on an H100 (sm_90): per pattern, the
 * wavefronts and bank conflicts of one LDS/STS instruction
 * (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st, l1tex__data_bank_conflicts_…).
 */
interface Measured {
  readonly pattern: string;
  readonly element: (lane: number) => number;
  readonly active?: (lane: number) => boolean;
  /** [wavefronts, conflicts] of the 128-bit load, 64-bit load, 128-bit store and 64-bit store, where measured. */
  readonly ld128?: readonly [number, number];
  readonly ld64?: readonly [number, number];
  readonly st128?: readonly [number, number];
  readonly st64?: readonly [number, number];
}
const MEASURED: readonly Measured[] = [
  { pattern: "consecutive", element: (l) => l, ld128: [4, 0], ld64: [2, 0], st128: [4, 0], st64: [2, 0] },
  { pattern: "all lanes one element", element: () => 0, ld128: [2, 0], ld64: [1, 0], st128: [4, 0], st64: [2, 0] },
  { pattern: "lanes n, n^1 share", element: (l) => l >> 1, ld128: [2, 0], ld64: [1, 0], st128: [4, 0], st64: [2, 0] },
  { pattern: "lanes n, n^2 share", element: (l) => (l & 1) | ((l >> 2) << 1), ld128: [2, 0], ld64: [1, 0], st128: [4, 0], st64: [2, 0] },
  { pattern: "lanes n, n^4 share", element: (l) => (l & 3) | ((l >> 3) << 2), ld128: [4, 0], ld64: [2, 0] },
  { pattern: "groups of four share", element: (l) => l >> 2, ld128: [2, 0], ld64: [1, 0], st128: [4, 0], st64: [2, 0] },
  { pattern: "l mod 8", element: (l) => l & 7, ld128: [4, 0], ld64: [2, 0], st128: [4, 0], st64: [2, 0] },
  { pattern: "pairs, then distinct", element: (l) => (l < 16 ? l >> 1 : l), ld128: [4, 0], ld64: [2, 0] },
  { pattern: "pairs 4 elements apart", element: (l) => (l >> 1) * 4, ld128: [8, 6], ld64: [4, 3], st128: [8, 4], st64: [4, 2] },
  { pattern: "even lanes only", element: (l) => l >> 1, active: (l) => l % 2 === 0, ld128: [2, 0], ld64: [1, 0] },
  { pattern: "pairs, lane 3 inactive", element: (l) => l >> 1, active: (l) => l !== 3, ld128: [2, 0], ld64: [1, 0] },
  { pattern: "lanes 0–7", element: (l) => l, active: (l) => l < 8, ld128: [1, 0] },
  { pattern: "lanes 0–15", element: (l) => l, active: (l) => l < 16, ld64: [1, 0] },
];

describe("warpAccessCost agrees with Nsight Compute on an H100", () => {
  const kinds = [
    ["ld128", 16, "load"],
    ["ld64", 8, "load"],
    ["st128", 16, "store"],
    ["st64", 8, "store"],
  ] as const;
  for (const m of MEASURED) {
    it(m.pattern, () => {
      for (const [kind, width, access] of kinds) {
        const measured = m[kind];
        if (measured === undefined) continue;
        const cost = warpAccessCost(elements(m.element, width, m.active), width, access);
        expect([cost.wavefronts, cost.wavefronts - cost.idealWavefronts], kind).toEqual(measured);
      }
    });
  }
});

describe("warpAccessCost: properties", () => {
  const widthArb = fc.constantFrom(1, 2, 4, 8, 16);
  const accessKindArb = fc.constantFrom("load" as const, "store" as const);
  /** A warp access: per lane an element (of the width) or inactive, at least one lane active. */
  const accessArb = fc.tuple(widthArb, accessKindArb).chain(([width, access]) =>
    fc
      .array(fc.option(fc.nat({ max: 2047 }), { nil: undefined, freq: 4 }), { minLength: 32, maxLength: 32 })
      .filter((lanes) => lanes.some((e) => e !== undefined))
      .map((lanes) => ({ width, access, addresses: lanes.map((e) => (e === undefined ? INACTIVE : e * width)) })),
  );

  it("agrees with the plain model; wavefronts ≥ ideal ≥ 1; conflicts = 0 exactly when every phase is 1-way", () => {
    fc.assert(
      fc.property(accessArb, ({ width, access, addresses }) => {
        const cost = warpAccessCost(addresses, width, access);
        expect(cost).toEqual(referenceCost(addresses, width, access));
        expect(cost.idealWavefronts).toBeGreaterThanOrEqual(1);
        expect(cost.wavefronts).toBeGreaterThanOrEqual(cost.idealWavefronts);
        expect(cost.wavefronts === cost.idealWavefronts).toBe(cost.way === 1);
      }),
      { numRuns: 300 },
    );
  });

  it("pairs of lanes sharing addresses (the broadcasts that merge phases) are also sampled", () => {
    const pairedArb = fc.tuple(fc.constantFrom(8, 16), fc.constantFrom(1, 2), fc.array(fc.nat({ max: 255 }), { minLength: 32, maxLength: 32 }));
    fc.assert(
      fc.property(pairedArb, ([width, partner, elementOf]) => {
        const addresses = LANES.map((l) => elementOf[Math.min(l, l ^ partner)]! * width);
        const load = warpAccessCost(addresses, width, "load");
        expect(load).toEqual(referenceCost(addresses, width, "load"));
        expect(load.idealWavefronts).toBe(width === 8 ? 1 : 2);
        expect(warpAccessCost(addresses, width, "store").idealWavefronts).toBe(width === 8 ? 2 : 4);
      }),
      { numRuns: 100 },
    );
  });

  it("one WavefrontCounter reused over a sequence of accesses (its scratch grown by far words) counts each as a fresh one", () => {
    // The latency model keeps one counter for all its accesses; a reused counter's stamps must not
    // leak words of an earlier access into a later one.
    const farAccessArb = fc
      .tuple(accessArb, fc.constantFrom(0, 4096, 65_536))
      .map(([a, base]) => ({ ...a, addresses: a.addresses.map((x) => (x === INACTIVE ? x : x + base)) }));
    fc.assert(
      fc.property(fc.array(farAccessArb, { minLength: 1, maxLength: 12 }), (accesses) => {
        const counter = new WavefrontCounter();
        for (const { width, access, addresses } of accesses) {
          counter.count(addresses, 0, width, access);
          expect({ wavefronts: counter.wavefronts, idealWavefronts: counter.idealWavefronts, way: counter.way }).toEqual(
            warpAccessCost(addresses, width, access),
          );
        }
      }),
      { numRuns: 100 },
    );
  });

  it("any permutation of 32 consecutive words, from any word, is conflict-free", () => {
    const permutationArb = fc.shuffledSubarray(LANES, { minLength: 32, maxLength: 32 });
    fc.assert(
      fc.property(permutationArb, fc.nat({ max: 100_000 }), accessKindArb, (permutation, base, access) => {
        const cost = warpAccessCost(
          permutation.map((k) => (base + k) * 4),
          4,
          access,
        );
        expect(cost.wavefronts - cost.idealWavefronts).toBe(0);
        expect(cost.wavefronts).toBe(1);
      }),
    );
  });
});
