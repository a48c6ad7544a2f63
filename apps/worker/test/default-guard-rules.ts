import { DEFAULT_RULES_TEXT, parseRulesOrThrow } from "@gatehouse/policy";
import type { Guard } from "@gatehouse/protocol";

/** The default rules as a guard carries them, `~/` expanded to `home`. */
export function defaultGuardRules(home = "/"): Guard["static"] {
  return parseRulesOrThrow(DEFAULT_RULES_TEXT, { file: "p", home }).map(({ tool, pattern, action, origin }) => ({ tool, pattern, action, origin }));
}
