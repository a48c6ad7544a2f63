/**
 * The kernel's settings under /proc, read-only over the sandbox's own /proc. sysctl files check
 * the caller's uid, not its capabilities, and bubblewrap leaves /proc/sys writable when the
 * folder itself answers EACCES: a worker run as root would let a command set the host's
 * `kernel.core_pattern` (a program the kernel runs as root outside every namespace). The
 * others are what container runtimes keep read-only too, where the kernel has them.
 */
const KERNEL_SETTINGS = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/acpi", "/proc/scsi"];

/** The /proc options every sandbox gets: its own /proc, the kernel's settings read-only on it. */
export function procOptions(): string[] {
  return ["--proc", "/proc", ...KERNEL_SETTINGS.flatMap((p) => ["--ro-bind-try", p, p])];
}
