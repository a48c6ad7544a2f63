import { parseIp, type ExtraFloor } from "@gatehouse/policy";
import { resolveHost } from "./egress-gate.js";

/**
 * The server's own addresses, which commands never reach unless a rule names them: its host as
 * written, and what that name resolves to now. Loopback servers are floors already.
 */
export async function serverFloors(server: string): Promise<{ floors: ExtraFloor[]; problem: string | null }> {
  const host = new URL(server).hostname.replace(/^\[|\]$/g, "");
  const literal = parseIp(host);
  if (literal) return { floors: [{ ip: literal, what: "the Gatehouse server" }], problem: null };
  const what = `the Gatehouse server ${host}`;
  try {
    return { floors: (await resolveHost(host)).map((ip) => ({ ip, what })), problem: null };
  } catch (err) {
    return {
      floors: [],
      problem: `the server's name ${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); commands are not kept from its address`,
    };
  }
}
