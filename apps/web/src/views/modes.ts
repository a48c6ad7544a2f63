/** The session modes, in the order a person meets them (docs/permissions.md). */
export const MODES = ["default", "accept-edits", "read-only", "yolo", "strict"] as const;
