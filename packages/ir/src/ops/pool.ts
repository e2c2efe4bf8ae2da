/**
 * 2-D pooling in NCHW layout, as in the d2l book: max pooling pads with the dtype's minimum value,
 * average pooling pads with zeros and divides by the full window size (padding counts).
 */
import { add, div, mul } from "../expr.js";
import { compute } from "../te/compute.js";
import { createPrimFunc } from "../te/create-prim-func.js";
import { minValue } from "../te/limits.js";
import { reduceAxis, reduceMax, reduceSum } from "../te/reduce.js";
import { placeholder } from "../te/tensor.js";
import { type OperatorBuild, checkExtent } from "./common.js";
import { type WindowConfig, pad2d, windowGeometry } from "./conv.js";

export interface Pool2dConfig extends WindowConfig {
  readonly channels: number;
}

function poolSetup(cfg: Pool2dConfig, what: string) {
  const g = windowGeometry(cfg, what);
  const ch = checkExtent(cfg.channels, "channels", what);
  const X = placeholder([g.batch, ch, g.height, g.width], g.dtype, "X");
  const rkh = reduceAxis([0, g.kh], "rkh");
  const rkw = reduceAxis([0, g.kw], "rkw");
  return { g, ch, X, rkh, rkw };
}

export function maxPool2d(cfg: Pool2dConfig): OperatorBuild {
  const { g, ch, X, rkh, rkw } = poolSetup(cfg, "maxPool2d");
  const padded = pad2d(X, g.ph, g.pw, minValue(g.dtype));
  const Y = compute(
    [g.batch, ch, g.oh, g.ow],
    (n, c, h, w) => reduceMax(padded.at(n, c, add(mul(h, g.sh), rkh), add(mul(w, g.sw), rkw)), [rkh, rkw]),
    "PoolMax",
  );
  return { func: createPrimFunc([X, Y], { name: "max_pool2d" }), inputs: [X], output: Y };
}

export function avgPool2d(cfg: Pool2dConfig): OperatorBuild {
  const { g, ch, X, rkh, rkw } = poolSetup(cfg, "avgPool2d");
  const padded = pad2d(X, g.ph, g.pw);
  const sum = compute(
    [g.batch, ch, g.oh, g.ow],
    (n, c, h, w) => reduceSum(padded.at(n, c, add(mul(h, g.sh), rkh), add(mul(w, g.sw), rkw)), [rkh, rkw]),
    "PoolSum",
  );
  const Y = compute([g.batch, ch, g.oh, g.ow], (n, c, h, w) => div(sum.at(n, c, h, w), g.kh * g.kw), "PoolAvg");
  return { func: createPrimFunc([X, Y], { name: "avg_pool2d" }), inputs: [X], output: Y };
}
