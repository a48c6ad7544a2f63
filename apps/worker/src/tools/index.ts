import type { Tool } from "../tool.js";
import { editFile, readFile, writeFile } from "./files.js";
import { glob, grep } from "./search.js";
import { shellExec } from "./shell-exec.js";
import { skill } from "./skill.js";

export const BUILTIN_TOOLS: readonly Tool[] = [readFile, writeFile, editFile, glob, grep, shellExec, skill] as Tool[];
