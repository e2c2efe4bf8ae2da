import { Analyzer } from "../src/arith/index.js";
import { variable, lt, and, add, floormod, intImm } from "../src/expr.js";
import { printExpr } from "../src/printer/index.js";
const x = variable("x");
const an = new Analyzer();
console.log(printExpr(an.rewriteSimplify(lt(add(x, 20), 0))));
console.log(printExpr(an.rewriteSimplify(and(lt(add(x, 20), 0), lt(floormod(x, 5), 2)))));
