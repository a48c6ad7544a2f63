import { SandboxUnavailableError } from "../errors.js";

/**
 * The seccomp program bubblewrap installs in every sandbox (`--seccomp FD`): classic BPF, as the
 * kernel reads it, that refuses the kernel keyring's calls (`add_key`, `request_key`, `keyctl`)
 * with EPERM and allows everything else. Keyrings belong to the user, not to any namespace, so
 * without it a command reads the worker user's keys (Kerberos tickets, cached passphrases).
 * Calls of an architecture the program does not know end the process: their numbers mean
 * other calls.
 */

/** The BPF opcodes used here (linux/filter.h). */
const BPF = { LD_W_ABS: 0x20, JEQ_K: 0x15, JGE_K: 0x35, RET_K: 0x06 };
/** seccomp's answers (linux/seccomp.h), with the errno numbers given back. */
const RET = { ALLOW: 0x7fff0000, KILL_PROCESS: 0x80000000, ERRNO: 0x00050000, EPERM: 1, ENOSYS: 38 };
/** struct seccomp_data: the call's number, then its architecture. */
const DATA = { NR: 0, ARCH: 4 };
// x86_64's x32 calls carry this bit in their number.
const X32_BIT = 0x40000000;

/** An architecture as seccomp names it (AUDIT_ARCH_*), with the numbers of add_key, request_key and keyctl there. */
interface Arch {
  audit: number;
  keyring: readonly number[];
  /** Calls at or above this number are of another ABI on the same architecture (x32), refused whole. */
  otherAbiFrom?: number;
}

const X86_64: Arch = { audit: 0xc000003e, keyring: [248, 249, 250], otherAbiFrom: X32_BIT };
const I386: Arch = { audit: 0x40000003, keyring: [286, 287, 288] };
const AARCH64: Arch = { audit: 0xc00000b7, keyring: [217, 218, 219] };
const ARM: Arch = { audit: 0x40000028, keyring: [309, 310, 311] };

/** The architectures a process may run under on a kernel of Node's architecture: its own and the 32-bit one it can also run. */
const ARCHES: Record<string, readonly Arch[]> = { x64: [X86_64, I386], arm64: [AARCH64, ARM] };

/** One instruction; jumps name the label they go to, resolved when the program is laid out. */
type Insn = { code: number; k: number; jt?: string; jf?: string } | { label: string };

function program(arches: readonly Arch[]): Insn[] {
  const out: Insn[] = [{ code: BPF.LD_W_ABS, k: DATA.ARCH }];
  arches.forEach((a, i) => out.push({ code: BPF.JEQ_K, k: a.audit, jt: `arch${i}` }));
  out.push({ code: BPF.RET_K, k: RET.KILL_PROCESS });
  arches.forEach((a, i) => {
    out.push({ label: `arch${i}` }, { code: BPF.LD_W_ABS, k: DATA.NR });
    if (a.otherAbiFrom !== undefined) out.push({ code: BPF.JGE_K, k: a.otherAbiFrom, jt: "nosys" });
    for (const nr of a.keyring) out.push({ code: BPF.JEQ_K, k: nr, jt: "deny" });
    out.push({ code: BPF.RET_K, k: RET.ALLOW });
  });
  out.push({ label: "deny" }, { code: BPF.RET_K, k: RET.ERRNO | RET.EPERM }, { label: "nosys" }, { code: BPF.RET_K, k: RET.ERRNO | RET.ENOSYS });
  return out;
}

/** The program as bytes: struct sock_filter { u16 code; u8 jt; u8 jf; u32 k }, little-endian as both architectures are. */
function assemble(insns: readonly Insn[]): Buffer {
  const labels = new Map<string, number>();
  const code: Exclude<Insn, { label: string }>[] = [];
  for (const i of insns) {
    if ("label" in i) labels.set(i.label, code.length);
    else code.push(i);
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((i, at) => {
    const offset = (label?: string) => {
      if (label === undefined) return 0;
      const distance = labels.get(label)! - at - 1;
      if (distance < 0 || distance > 255) throw new Error(`seccomp jump to ${label} out of range`);
      return distance;
    };
    out.writeUInt16LE(i.code, at * 8);
    out.writeUInt8(offset(i.jt), at * 8 + 2);
    out.writeUInt8(offset(i.jf), at * 8 + 3);
    out.writeUInt32LE(i.k >>> 0, at * 8 + 4);
  });
  return out;
}

const built = new Map<string, Buffer>();

/**
 * The filter for a kernel of Node's architecture `arch` (process.arch). Throws
 * SandboxUnavailableError for an architecture whose call numbers it does not know: the sandbox
 * then does not run rather than run without it.
 */
export function keyringFilter(arch: string = process.arch): Buffer {
  const arches = ARCHES[arch];
  if (!arches) throw new SandboxUnavailableError(`no seccomp filter for the ${arch} architecture, so the kernel keyring cannot be refused to commands`);
  let filter = built.get(arch);
  if (!filter) built.set(arch, (filter = assemble(program(arches))));
  return filter;
}
