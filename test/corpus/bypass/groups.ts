// The bypass classes' case lists by class, in the order their tests report them.
import { type Case } from "./case.js";
import { CONSTRUCTS, CONSTRUCTS_MORE, PATTERNS } from "./constructs.js";
import { ENVIRONMENT, ENVIRONMENT_MORE } from "./environment.js";
import { ORDER, ORDER_MORE, APPENDED } from "./order.js";
import { EXPANSION_ASSIGNMENTS, PATHS, PATHS_MORE } from "./paths.js";
import { NAME_LISTS, OPTION_FILES, READS, READS_MORE } from "./reads.js";
import { MODULES, RUNNERS, RUNNERS_MORE, TOOLCHAIN } from "./runners.js";
import { WRAPPERS, WRAPPERS_MORE } from "./wrappers.js";

export const GROUPS: [string, Case[]][] = [
  ["1 wrappers", [...WRAPPERS, ...WRAPPERS_MORE]],
  ["2 constructs", [...CONSTRUCTS, ...CONSTRUCTS_MORE, ...PATTERNS]],
  ["3 environment", [...ENVIRONMENT, ...ENVIRONMENT_MORE]],
  ["4 runners", [...RUNNERS, ...RUNNERS_MORE, ...MODULES, ...TOOLCHAIN]],
  ["5 reads", [...READS, ...READS_MORE, ...OPTION_FILES, ...NAME_LISTS]],
  ["6 paths", [...PATHS, ...PATHS_MORE, ...EXPANSION_ASSIGNMENTS]],
  ["7 order", [...ORDER, ...ORDER_MORE, ...APPENDED]],
];
