import { EditedArgumentsError } from "./errors.js";

/** The argument a person edits as plain text, by tool; every other call is edited as its arguments in JSON. */
const TEXT_ARGUMENT: Readonly<Record<string, string>> = { shell_exec: "command" };

function argumentsOf(argumentsJson: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // A call whose arguments are not an object is edited as a whole new object.
  }
  return {};
}

/** The one argument edited as text for this call, when it has one (a shell command). */
function textArgument(toolName: string, args: Record<string, unknown>): string | undefined {
  const key = TEXT_ARGUMENT[toolName];
  return key !== undefined && typeof args[key] === "string" ? key : undefined;
}

/**
 * The text a person edits for a call: a shell command as it is, any other call's arguments as
 * JSON (on one line, or `pretty` over several for an editor).
 */
export function editableText(toolName: string, argumentsJson: string, pretty = false): string {
  const args = argumentsOf(argumentsJson);
  const key = textArgument(toolName, args);
  return key ? (args[key] as string) : JSON.stringify(args, null, pretty ? 2 : undefined);
}

/** The whole argument object a person's edited text stands for (see `editableText`); EditedArgumentsError when it stands for none. */
export function editedArguments(toolName: string, argumentsJson: string, text: string): Record<string, unknown> {
  const original = argumentsOf(argumentsJson);
  const key = textArgument(toolName, original);
  if (key) {
    const value = text.replace(/\n+$/, "");
    if (value.trim() === "") throw new EditedArgumentsError(`the edited ${key} is empty`);
    return { ...original, [key]: value };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new EditedArgumentsError(`the edited arguments are not JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new EditedArgumentsError("the edited arguments must be a JSON object");
  return parsed as Record<string, unknown>;
}
