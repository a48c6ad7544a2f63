import type { SyntaxNode } from "./parser.js";

/** Node types of tree-sitter-bash whose meaning the analysis models. Anything else asks. */
const MODELLED: ReadonlySet<string> = new Set([
  "program",
  "command",
  "command_name",
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "number",
  "string_content",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "variable_name",
  "special_variable_name",
  "variable_assignment",
  "variable_assignments",
  "declaration_command",
  "unset_command",
  "pipeline",
  "list",
  "redirected_statement",
  "file_redirect",
  "heredoc_redirect",
  "herestring_redirect",
  "heredoc_body",
  "heredoc_content",
  "heredoc_start",
  "heredoc_end",
  "file_descriptor",
  "subshell",
  "compound_statement",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "do_group",
  "case_statement",
  "case_item",
  "function_definition",
  "negated_command",
  "test_command",
  "comment",
  "arithmetic_expansion",
  "binary_expression",
  "unary_expression",
  "postfix_expression",
  "parenthesized_expression",
  "ternary_expression",
  "subscript",
  "array",
  "brace_expression",
  "regex",
  "test_operator",
  "extglob_pattern",
  "ERROR",
]);

export type Construct = "unmodelled" | "function" | "expansion" | "arithmetic" | "loop" | "variable-test" | "pattern";

const ARITHMETIC_TEST = /^-(eq|ne|lt|le|gt|ge)$/;

/** What a node means to the checks on shell constructs, or null when it needs none. */
export function constructOf(node: SyntaxNode, type: string): Construct | null {
  switch (type) {
    case "function_definition":
      return "function";
    case "expansion":
      return "expansion";
    case "for_statement":
      return "loop";
    case "arithmetic_expansion":
    case "c_style_for_statement":
    case "subscript":
      return "arithmetic";
    case "compound_statement":
      return node.text.startsWith("((") ? "arithmetic" : null;
    case "binary_expression":
      return node.parent?.type === "test_command" && ARITHMETIC_TEST.test(node.childForFieldName("operator")?.text ?? "") ? "arithmetic" : null;
    // `${v#PATTERN}`, `${v^^PATTERN}`: tree-sitter keeps the pattern as text, which the shell expands.
    case "regex":
      return node.parent?.type === "expansion" && /[$`]|[<>]\(/.test(node.text) ? "pattern" : null;
    case "unary_expression":
      return /^-[vR]$/.test(node.children[0]?.text ?? "") ? "variable-test" : null;
    default:
      return MODELLED.has(type) || !node.isNamed ? null : "unmodelled";
  }
}

/** Variables an expansion's offset, length or subscript reads (`${v:x}`, `${v:1:$n}`). */
export function expansionArithmetic(text: string, into: string[]): void {
  const m = /^\$\{#?[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?:(?![-=?+])([^}]*)\}$/s.exec(text);
  if (!m) return;
  const expr = m[2]!;
  if (/[[$`'"\\]/.test(expr)) into.push("$(");
  for (const name of expr.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) into.push(name);
}

/** The variable `${v:=word}` or `${v=word}` assigns when it is unset, or null. */
export function expansionAssignment(text: string): string | null {
  return /^\$\{([A-Za-z_][A-Za-z0-9_]*):?=/.exec(text)?.[1] ?? null;
}

/** `${x@P}` runs the substitutions in x's value; `${!x}` reads the variable x names. */
export function riskyExpansion(text: string): string | null {
  if (/^\$\{[^}]*@P\}$/.test(text)) return `the prompt expansion ${text} runs the substitutions in the variable's value`;
  if (/^\$\{![A-Za-z_][A-Za-z0-9_]*\}$/.test(text) || /^\$\{![A-Za-z_][A-Za-z0-9_]*[:#%/^,]/.test(text))
    return `the indirect expansion ${text} reads a variable named by a value`;
  return null;
}

/** Names of the variables an arithmetic context reads; "$(" for a substitution, "$1" for arguments. */
export function arithmeticNames(node: SyntaxNode, into: string[]): void {
  const stack: SyntaxNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.type === "variable_name" || (n.type === "word" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(n.text))) into.push(n.text);
    else if (/^(word|string|raw_string|ansi_c_string|concatenation)$/.test(n.type) && /[[$`]/.test(n.text) && n.type !== "word") into.push("$(");
    else if (n.type === "special_variable_name" && /^[0-9@*]$/.test(n.text)) into.push(`$${n.text}`);
    else if (n.type === "command_substitution" || n.type === "process_substitution") into.push("$(");
    for (const child of n.namedChildren) if (child) stack.push(child);
  }
}
