// The options of `gatehouse permissions eval`, `explain` and `lint`, in the order help lists them; light, so that help loads without the commands.
import { MODE_OPTION } from "../flags.js";
import type { OptionTable } from "../options.js";

export const RULES_OPTIONS = {
  rules: { value: "FILE", help: "the permissions file", required: true },
  cwd: { value: "DIR", help: "the working directory calls are judged in (default: here)" },
  ...MODE_OPTION,
  protect: { value: "PATH", help: "a path no tool may read or write", multiple: true },
} as const satisfies OptionTable;

export const EXPLAIN_OPTIONS = {
  ...RULES_OPTIONS,
  tool: { value: "NAME", help: "the tool called", required: true },
  args: { value: "JSON", help: "its arguments, a JSON object", required: true },
} as const satisfies OptionTable;
