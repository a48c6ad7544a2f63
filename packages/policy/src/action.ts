export const ACTIONS = ["allow", "deny", "ask"] as const;
export type Action = (typeof ACTIONS)[number];

const STRICTNESS: Record<Action, number> = { allow: 0, ask: 1, deny: 2 };

export function isAction(value: unknown): value is Action {
  return typeof value === "string" && (ACTIONS as readonly string[]).includes(value);
}

/** The stricter of two actions: deny over ask over allow. */
export function stricter(a: Action, b: Action): Action {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

export function isStricter(a: Action, than: Action): boolean {
  return STRICTNESS[a] > STRICTNESS[than];
}
