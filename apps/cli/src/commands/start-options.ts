// The options of `gatehouse start`, in the order help lists them; light, so that help loads without the command.
import { LOCAL_OPTIONS, MODE_OPTION } from "../flags.js";
import type { OptionTable } from "../options.js";

export const START_OPTIONS = {
  demo: { help: "work on a demo project created in a temporary folder" },
  ...LOCAL_OPTIONS,
  ...MODE_OPTION,
} as const satisfies OptionTable;
