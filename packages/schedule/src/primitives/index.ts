/**
 * Registers every instruction kind (importing a primitive module registers its kinds).
 */
import "./get-block-loop.js";
import "./loops/index.js";
import "./for-kind.js";
import "./annotate.js";
import "./cache/read-write.js";
import "./buffer-scope.js";
import "./layout/transform.js";
import "./layout/swizzle.js";
import "./compute-at/index.js";
import "./compute-inline/index.js";
import "./reduction/index.js";
import "./blockize/index.js";
import "./tensorize/index.js";
import "./sampling/index.js";
