/**
 * Registers every instruction kind (importing a primitive module registers its kinds).
 */
import "./get-block-loop.js";
import "./loops.js";
import "./for-kind.js";
import "./annotate.js";
import "./cache-read-write.js";
import "./buffer-scope.js";
import "./layout-transform.js";
import "./compute-at.js";
import "./compute-inline.js";
import "./reduction.js";
import "./sampling.js";
