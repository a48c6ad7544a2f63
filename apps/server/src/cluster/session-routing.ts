import type { Handlers, Principal } from "@gatehouse/protocol";
import type { PostgresCluster, SessionCommand } from "./cluster.js";

type Routed = { sessionId: string };

/**
 * The handlers of one instance among several: a command on a session (prompt, abort, answers,
 * mode) is carried out by the instance that runs the session's turns, wherever it arrived; a new
 * session's turns run where it was created. Returns the commands as they run locally, by name,
 * for the cluster to carry out those that other instances send.
 */
export function routeToOwners(handlers: Handlers, cluster: PostgresCluster): { handlers: Handlers; commands: Record<string, SessionCommand> } {
  const commands: Record<string, SessionCommand> = {
    "agent.prompt": handlers.agent.prompt as SessionCommand,
    "agent.abort": handlers.agent.abort as SessionCommand,
    "tool.approve": handlers.tool.approve as SessionCommand,
    "tool.deny": handlers.tool.deny as SessionCommand,
    "tool.view": handlers.tool.view as SessionCommand,
    "tool.checkEdit": handlers.tool.checkEdit as SessionCommand,
    "session.setMode": handlers.session.setMode as SessionCommand,
  };
  const routed =
    <I extends Routed, O>(name: string) =>
    async (p: Principal, input: I): Promise<O> =>
      (await cluster.onOwner(name, p, input, commands[name]!)) as O;
  return {
    commands,
    handlers: {
      ...handlers,
      session: {
        ...handlers.session,
        create: async (p, input) => {
          const created = await handlers.session.create(p, input);
          await cluster.adopt(created.id);
          return created;
        },
        setMode: routed("session.setMode"),
      },
      agent: {
        ...handlers.agent,
        prompt: routed("agent.prompt"),
        abort: async (p, input) => {
          const aborted = await routed<typeof input, { aborted: boolean }>("agent.abort")(p, input);
          cluster.abortShellsElsewhere(input.sessionId, p.name);
          return aborted;
        },
      },
      tool: { approve: routed("tool.approve"), deny: routed("tool.deny"), view: routed("tool.view"), checkEdit: routed("tool.checkEdit") },
    },
  };
}
