/**
 * 2-D convolutions in NCHW layout. Padding is a separate compute (`PaddedX`) that selects the
 * pad value with `if_then_else` at the borders, as in the d2l book; it becomes an intermediate
 * buffer of the generated function.
 */
import { IRError } from "../errors.js";
import { type ExprLike, add, ge, lt, mul, sub } from "../expr.js";
import { ifThenElse } from "../intrinsics.js";
import { compute } from "../te/compute.js";
import { createPrimFunc } from "../te/create-prim-func.js";
import { anyOf } from "../te/logic.js";
import { reduceAxis, reduceSum } from "../te/reduce.js";
import { type Tensor, placeholder } from "../te/tensor.js";
import { type FloatDType, type OperatorBuild, type Size2, checkExtent, checkFloatDType, convOutSize, pair } from "./common.js";

/**
 * Pads the last two dimensions of `X` by `ph` rows and `pw` columns on each side with `value`.
 * Returns `X` itself when there is nothing to pad.
 */
export function pad2d(X: Tensor, ph: number, pw: number, value: ExprLike = 0, name = "PaddedX"): Tensor {
  if (X.ndim < 2) throw new IRError(`pad2d: ${X.name} needs at least 2 dimensions, it has ${X.ndim}`);
  if (ph === 0 && pw === 0) return X;
  const shape = X.shape.map((s) => {
    if (s.kind !== "IntImm") throw new IRError(`pad2d: ${X.name} must have a constant shape`);
    return s.value;
  });
  const nh = shape[shape.length - 2]!;
  const nw = shape[shape.length - 1]!;
  const outShape = [...shape.slice(0, -2), nh + 2 * ph, nw + 2 * pw];
  return compute(
    outShape,
    (...idx) => {
      const h = idx[idx.length - 2]!;
      const w = idx[idx.length - 1]!;
      const outside = anyOf(lt(h, ph), ge(h, nh + ph), lt(w, pw), ge(w, nw + pw));
      return ifThenElse(outside, value, X.at(...idx.slice(0, -2), sub(h, ph), sub(w, pw)));
    },
    name,
  );
}

/** Shared sliding-window geometry of convolutions and pooling. */
export interface WindowConfig {
  readonly batch: number;
  readonly height: number;
  readonly width: number;
  readonly kernel: Size2;
  /** Zero padding on each side (default 0). */
  readonly padding?: Size2;
  /** Window step (default 1). */
  readonly stride?: Size2;
  readonly dtype?: FloatDType;
}

export interface WindowGeometry {
  readonly batch: number;
  readonly height: number;
  readonly width: number;
  readonly kh: number;
  readonly kw: number;
  readonly ph: number;
  readonly pw: number;
  readonly sh: number;
  readonly sw: number;
  readonly oh: number;
  readonly ow: number;
  readonly dtype: FloatDType;
}

export function windowGeometry(cfg: WindowConfig, what: string): WindowGeometry {
  const batch = checkExtent(cfg.batch, "batch", what);
  const height = checkExtent(cfg.height, "height", what);
  const width = checkExtent(cfg.width, "width", what);
  const [kh, kw] = pair(cfg.kernel, "kernel", what);
  const [ph, pw] = pair(cfg.padding ?? 0, "padding", what, true);
  const [sh, sw] = pair(cfg.stride ?? 1, "stride", what);
  const oh = convOutSize(height, kh, ph, sh);
  const ow = convOutSize(width, kw, pw, sw);
  if (oh < 1 || ow < 1) {
    throw new IRError(`${what}: a ${kh}x${kw} kernel does not fit the ${height + 2 * ph}x${width + 2 * pw} padded input`);
  }
  const dtype = checkFloatDType(cfg.dtype ?? "float32", what);
  return { batch, height, width, kh, kw, ph, pw, sh, sw, oh, ow, dtype };
}

export interface Conv2dConfig extends WindowConfig {
  readonly inChannels: number;
  readonly outChannels: number;
}

/**
 * `Y[n, c, i, j] = Σ_{ric, rkh, rkw} PaddedX[n, ric, i·sh + rkh, j·sw + rkw] · W[c, ric, rkh, rkw]`
 * with X: (batch, inChannels, height, width), W: (outChannels, inChannels, kh, kw).
 */
export function conv2d(cfg: Conv2dConfig): OperatorBuild {
  const what = "conv2d";
  const g = windowGeometry(cfg, what);
  const ic = checkExtent(cfg.inChannels, "inChannels", what);
  const oc = checkExtent(cfg.outChannels, "outChannels", what);
  const X = placeholder([g.batch, ic, g.height, g.width], g.dtype, "X");
  const W = placeholder([oc, ic, g.kh, g.kw], g.dtype, "W");
  const padded = pad2d(X, g.ph, g.pw);
  const ric = reduceAxis([0, ic], "ric");
  const rkh = reduceAxis([0, g.kh], "rkh");
  const rkw = reduceAxis([0, g.kw], "rkw");
  const Y = compute(
    [g.batch, oc, g.oh, g.ow],
    (n, c, i, j) => reduceSum(mul(padded.at(n, ric, add(mul(i, g.sh), rkh), add(mul(j, g.sw), rkw)), W.at(c, ric, rkh, rkw)), [ric, rkh, rkw]),
    "Y",
  );
  return { func: createPrimFunc([X, W, Y], { name: "conv2d" }), inputs: [X, W], output: Y };
}

export interface DepthwiseConv2dConfig extends WindowConfig {
  readonly channels: number;
}

/**
 * Each channel convolved with its own kernel:
 * `Y[n, c, i, j] = Σ_{rkh, rkw} PaddedX[n, c, i·sh + rkh, j·sw + rkw] · W[c, 0, rkh, rkw]`,
 * W: (channels, 1, kh, kw).
 */
export function depthwiseConv2d(cfg: DepthwiseConv2dConfig): OperatorBuild {
  const what = "depthwiseConv2d";
  const g = windowGeometry(cfg, what);
  const ch = checkExtent(cfg.channels, "channels", what);
  const X = placeholder([g.batch, ch, g.height, g.width], g.dtype, "X");
  const W = placeholder([ch, 1, g.kh, g.kw], g.dtype, "W");
  const padded = pad2d(X, g.ph, g.pw);
  const rkh = reduceAxis([0, g.kh], "rkh");
  const rkw = reduceAxis([0, g.kw], "rkw");
  const Y = compute(
    [g.batch, ch, g.oh, g.ow],
    (n, c, i, j) => reduceSum(mul(padded.at(n, c, add(mul(i, g.sh), rkh), add(mul(j, g.sw), rkw)), W.at(c, 0, rkh, rkw)), [rkh, rkw]),
    "Y",
  );
  return { func: createPrimFunc([X, W, Y], { name: "depthwise_conv2d" }), inputs: [X, W], output: Y };
}
