/**
 * Naive reference implementations of the operator library: plain loops over flat row-major
 * arrays, written from the textbook definitions (not derived from the IR), so executor and
 * operator tests can check generated code against them. Each takes the operator's
 * configuration followed by its inputs and returns a new output array of the first input's type.
 */
import { IRError } from "../errors.js";
import type { BatchNormConfig } from "./elementwise.js";
import { broadcastShape } from "./elementwise.js";
import type { Conv2dConfig, DepthwiseConv2dConfig, WindowGeometry } from "./conv.js";
import { windowGeometry } from "./conv.js";
import type { Pool2dConfig } from "./pool.js";
import { product, rowMajorStrides } from "./common.js";

export type FloatArray = Float32Array | Float64Array;

function like(x: FloatArray, length: number): FloatArray {
  return x instanceof Float32Array ? new Float32Array(length) : new Float64Array(length);
}

function expectLength(x: FloatArray, length: number, label: string): void {
  if (x.length !== length) throw new IRError(`reference: ${label} has ${x.length} elements, expected ${length}`);
}

function vectorAddRef(a: FloatArray, b: FloatArray): FloatArray {
  expectLength(b, a.length, "B");
  const c = like(a, a.length);
  for (let i = 0; i < a.length; i++) c[i] = a[i]! + b[i]!;
  return c;
}

function broadcastAddRef(shapeA: readonly number[], shapeB: readonly number[], a: FloatArray, b: FloatArray): FloatArray {
  expectLength(a, product(shapeA), "A");
  expectLength(b, product(shapeB), "B");
  const out = broadcastShape(shapeA, shapeB);
  const rank = out.length;
  const stridesA = rowMajorStrides(shapeA);
  const stridesB = rowMajorStrides(shapeB);
  const c = like(a, product(out));
  const idx = new Array<number>(rank).fill(0);
  for (let flat = 0; flat < c.length; flat++) {
    let rem = flat;
    for (let d = rank - 1; d >= 0; d--) {
      idx[d] = rem % out[d]!;
      rem = Math.floor(rem / out[d]!);
    }
    const offset = (shape: readonly number[], strides: readonly number[]): number => {
      let o = 0;
      for (let d = 0; d < shape.length; d++) {
        const i = idx[rank - shape.length + d]!;
        o += (shape[d] === 1 ? 0 : i) * strides[d]!;
      }
      return o;
    };
    c[flat] = a[offset(shapeA, stridesA)]! + b[offset(shapeB, stridesB)]!;
  }
  return c;
}

function matmulRef(n: number, m: number, l: number, a: FloatArray, b: FloatArray): FloatArray {
  expectLength(a, n * l, "A");
  expectLength(b, l * m, "B");
  const c = like(a, n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let acc = 0;
      for (let k = 0; k < l; k++) acc += a[i * l + k]! * b[k * m + j]!;
      c[i * m + j] = acc;
    }
  }
  return c;
}

function batchMatmulRef(batch: number, n: number, m: number, l: number, a: FloatArray, b: FloatArray): FloatArray {
  expectLength(a, batch * n * l, "A");
  expectLength(b, batch * l * m, "B");
  const c = like(a, batch * n * m);
  for (let s = 0; s < batch; s++) {
    const product = matmulRef(n, m, l, a.subarray(s * n * l, (s + 1) * n * l), b.subarray(s * l * m, (s + 1) * l * m));
    c.set(product, s * n * m);
  }
  return c;
}

/** Reads X[n, c, h, w] of an NCHW array, or `fill` outside the image (padding). */
function pixel(x: FloatArray, g: WindowGeometry, channels: number, n: number, c: number, h: number, w: number, fill: number): number {
  if (h < 0 || h >= g.height || w < 0 || w >= g.width) return fill;
  return x[((n * channels + c) * g.height + h) * g.width + w]!;
}

function conv2dRef(cfg: Conv2dConfig, x: FloatArray, weight: FloatArray): FloatArray {
  const g = windowGeometry(cfg, "conv2d reference");
  const ic = cfg.inChannels;
  const oc = cfg.outChannels;
  expectLength(x, g.batch * ic * g.height * g.width, "X");
  expectLength(weight, oc * ic * g.kh * g.kw, "W");
  const y = like(x, g.batch * oc * g.oh * g.ow);
  for (let n = 0; n < g.batch; n++)
    for (let o = 0; o < oc; o++)
      for (let i = 0; i < g.oh; i++)
        for (let j = 0; j < g.ow; j++) {
          let acc = 0;
          for (let c = 0; c < ic; c++)
            for (let r = 0; r < g.kh; r++)
              for (let s = 0; s < g.kw; s++) {
                const v = pixel(x, g, ic, n, c, i * g.sh + r - g.ph, j * g.sw + s - g.pw, 0);
                acc += v * weight[((o * ic + c) * g.kh + r) * g.kw + s]!;
              }
          y[((n * oc + o) * g.oh + i) * g.ow + j] = acc;
        }
  return y;
}

function depthwiseConv2dRef(cfg: DepthwiseConv2dConfig, x: FloatArray, weight: FloatArray): FloatArray {
  const g = windowGeometry(cfg, "depthwiseConv2d reference");
  const ch = cfg.channels;
  expectLength(x, g.batch * ch * g.height * g.width, "X");
  expectLength(weight, ch * g.kh * g.kw, "W");
  const y = like(x, g.batch * ch * g.oh * g.ow);
  for (let n = 0; n < g.batch; n++)
    for (let c = 0; c < ch; c++)
      for (let i = 0; i < g.oh; i++)
        for (let j = 0; j < g.ow; j++) {
          let acc = 0;
          for (let r = 0; r < g.kh; r++)
            for (let s = 0; s < g.kw; s++) {
              acc += pixel(x, g, ch, n, c, i * g.sh + r - g.ph, j * g.sw + s - g.pw, 0) * weight[(c * g.kh + r) * g.kw + s]!;
            }
          y[((n * ch + c) * g.oh + i) * g.ow + j] = acc;
        }
  return y;
}

/** The lowest finite value of the array's element type (max pooling's padding). */
function lowest(x: FloatArray): number {
  return x instanceof Float32Array ? -3.4028234663852886e38 : -Number.MAX_VALUE;
}

function poolRef(kind: "max" | "avg", cfg: Pool2dConfig, x: FloatArray): FloatArray {
  const g = windowGeometry(cfg, `${kind}Pool2d reference`);
  const ch = cfg.channels;
  expectLength(x, g.batch * ch * g.height * g.width, "X");
  const y = like(x, g.batch * ch * g.oh * g.ow);
  const fill = kind === "max" ? lowest(x) : 0;
  for (let n = 0; n < g.batch; n++)
    for (let c = 0; c < ch; c++)
      for (let i = 0; i < g.oh; i++)
        for (let j = 0; j < g.ow; j++) {
          let acc = kind === "max" ? lowest(x) : 0;
          for (let r = 0; r < g.kh; r++)
            for (let s = 0; s < g.kw; s++) {
              const v = pixel(x, g, ch, n, c, i * g.sh + r - g.ph, j * g.sw + s - g.pw, fill);
              acc = kind === "max" ? Math.max(acc, v) : acc + v;
            }
          y[((n * ch + c) * g.oh + i) * g.ow + j] = kind === "max" ? acc : acc / (g.kh * g.kw);
        }
  return y;
}

function batchNormRef(cfg: BatchNormConfig, x: FloatArray, mean: FloatArray, variance: FloatArray, gamma: FloatArray, beta: FloatArray): FloatArray {
  const { channels: c, height: h, width: w } = cfg;
  const eps = cfg.eps ?? 1e-5;
  expectLength(x, c * h * w, "X");
  const y = like(x, x.length);
  for (let ci = 0; ci < c; ci++) {
    const scale = gamma[ci]! / Math.sqrt(variance[ci]! + eps);
    for (let p = 0; p < h * w; p++) {
      const k = ci * h * w + p;
      y[k] = (x[k]! - mean[ci]!) * scale + beta[ci]!;
    }
  }
  return y;
}

function transposeRef(shape: readonly number[], perm: readonly number[], x: FloatArray): FloatArray {
  expectLength(x, product(shape), "X");
  const outShape = perm.map((p) => shape[p]!);
  const inStrides = rowMajorStrides(shape);
  const y = like(x, x.length);
  const idx = new Array<number>(shape.length).fill(0);
  for (let flat = 0; flat < y.length; flat++) {
    let rem = flat;
    for (let d = outShape.length - 1; d >= 0; d--) {
      idx[d] = rem % outShape[d]!;
      rem = Math.floor(rem / outShape[d]!);
    }
    let src = 0;
    for (let d = 0; d < perm.length; d++) src += idx[d]! * inStrides[perm[d]!]!;
    y[flat] = x[src]!;
  }
  return y;
}

function reshapeRef(shapeFrom: readonly number[], shapeTo: readonly number[], x: FloatArray): FloatArray {
  expectLength(x, product(shapeFrom), "X");
  if (product(shapeTo) !== x.length) throw new IRError("reference: reshape changes the number of elements");
  return x.slice();
}

function sliceRef(
  shape: readonly number[],
  begin: readonly number[],
  end: readonly number[],
  strides: readonly number[] | undefined,
  x: FloatArray,
): FloatArray {
  expectLength(x, product(shape), "X");
  const steps = strides ?? shape.map(() => 1);
  const outShape = shape.map((_, d) => Math.ceil((end[d]! - begin[d]!) / steps[d]!));
  const inStrides = rowMajorStrides(shape);
  const y = like(x, product(outShape));
  for (let flat = 0; flat < y.length; flat++) {
    let rem = flat;
    let src = 0;
    for (let d = outShape.length - 1; d >= 0; d--) {
      const i = rem % outShape[d]!;
      rem = Math.floor(rem / outShape[d]!);
      src += (begin[d]! + i * steps[d]!) * inStrides[d]!;
    }
    y[flat] = x[src]!;
  }
  return y;
}

function gemmReluAddRef(M: number, N: number, K: number, a: FloatArray, b: FloatArray, c: FloatArray): FloatArray {
  expectLength(c, M * N, "C");
  const prod = matmulRef(M, N, K, a, b);
  const d = like(a, M * N);
  for (let p = 0; p < M * N; p++) d[p] = Math.max(prod[p]!, 0) + c[p]!;
  return d;
}

export const REFERENCE_OPERATORS = {
  vectorAdd: vectorAddRef,
  broadcastAdd: broadcastAddRef,
  matmul: matmulRef,
  batchMatmul: batchMatmulRef,
  conv2d: conv2dRef,
  depthwiseConv2d: depthwiseConv2dRef,
  maxPool2d: (cfg: Pool2dConfig, x: FloatArray): FloatArray => poolRef("max", cfg, x),
  avgPool2d: (cfg: Pool2dConfig, x: FloatArray): FloatArray => poolRef("avg", cfg, x),
  batchNorm: batchNormRef,
  transpose: transposeRef,
  reshape: reshapeRef,
  slice: sliceRef,
  gemmReluAdd: gemmReluAddRef,
} as const;
