// What a client needs to show calls safely, without the schemas: `@gatehouse/protocol/show` (the browser console bundles only this).
export { escapeCodePoint, isShowable, originalOf, safeLine, safeText, showJson, showText, unescapeShown, type ShownText } from "./safe-text.js";
export { lookAlikes, type LookAlike } from "./look-alikes.js";
export { cutLine, describeCuts, inSight, SCREEN_LIMITS, TAB_STOP, type Cut, type InSight, type SightLimits } from "./in-sight.js";
export { approvalMark, describeMark, safeArguments, safePresentation, type CallMark } from "./shown-call.js";
export { ANSWER_PAUSE_MS, onceOnly } from "./approval-answers.js";
export { editableText, editedArguments } from "./edited-arguments.js";
export { EditedArgumentsError, UnescapeError } from "./errors.js";
