import { initTRPC, tracked, TRPCError } from "@trpc/server";
import { z, ZodError } from "zod";
import { describeIssues } from "./issues.js";
import { isGatehouseErrorCode, type GatehouseErrorCode } from "./error-codes.js";
import type { GatehouseEvent, WorkerMessage } from "./events.js";
import {
  AuditEntry,
  AuditQueryInput,
  Applied,
  ApproveInput,
  CheckEditInput,
  DenyInput,
  OnEventsInput,
  PermissionsExplainInput,
  PermissionsExplainOutput,
  PermissionsGetOutput,
  PromptInput,
  SessionCreateInput,
  SessionGetOutput,
  SessionRef,
  SessionSetModeInput,
  SessionShellInput,
  ShellOutput,
  ViewInput,
  WhoAmI,
  WorkerRef,
  WorkerRegisterInput,
  WorkerResultInput,
} from "./procedures.js";
import { Presentation, SessionInfo, WorkerInfo } from "./schemas.js";

export type Role = "admin" | "approver" | "viewer";

/** Who is calling: a person's client or a worker, as established from its token. */
export interface Principal {
  kind: "client" | "worker";
  name: string;
  /** Identifies the token (its SHA-256), never the token itself. */
  tokenId?: string;
  /** A client's role. */
  role?: Role;
  /** The worker ids a worker token may register, or an approver or viewer may use; "*" is any. */
  workers?: readonly string[];
  /** Whether an approver may run a person's `!command`. */
  shell?: boolean;
}

export interface Context {
  principal: Principal | null;
}

type In<T extends z.ZodType> = z.output<T>;
type Out<T extends z.ZodType> = z.input<T>;

export interface TrackedEvent {
  id: string;
  event: GatehouseEvent;
}

/** What the server implements behind the protocol. */
export interface Handlers {
  session: {
    create(p: Principal, input: In<typeof SessionCreateInput>): Promise<Out<typeof SessionInfo>>;
    list(p: Principal): Promise<Out<typeof SessionInfo>[]>;
    get(p: Principal, input: In<typeof SessionRef>): Promise<Out<typeof SessionGetOutput>>;
    setMode(p: Principal, input: In<typeof SessionSetModeInput>): Promise<Out<typeof Applied>>;
    shell(p: Principal, input: In<typeof SessionShellInput>): Promise<Out<typeof ShellOutput>>;
  };
  agent: {
    prompt(p: Principal, input: In<typeof PromptInput>): Promise<{ accepted: boolean }>;
    abort(p: Principal, input: In<typeof SessionRef>): Promise<{ aborted: boolean }>;
    events(p: Principal, input: In<typeof OnEventsInput>, signal: AbortSignal | undefined): AsyncIterable<TrackedEvent>;
  };
  tool: {
    approve(p: Principal, input: In<typeof ApproveInput>): Promise<Out<typeof Applied>>;
    deny(p: Principal, input: In<typeof DenyInput>): Promise<Out<typeof Applied>>;
    /** A pending approval's presentation whole, not cut; null when there is nothing to show. */
    view(p: Principal, input: In<typeof ViewInput>): Promise<Presentation | null>;
    /** The gate's decision for edited arguments of a pending call, and the patterns "always" would save; refused as `tool.approve` would refuse the edit. */
    checkEdit(p: Principal, input: In<typeof CheckEditInput>): Promise<Out<typeof PermissionsExplainOutput>>;
  };
  worker: {
    register(p: Principal, input: In<typeof WorkerRegisterInput>): Promise<{ ok: true }>;
    requests(p: Principal, input: In<typeof WorkerRef>, signal: AbortSignal | undefined): AsyncIterable<WorkerMessage>;
    result(p: Principal, input: In<typeof WorkerResultInput>): Promise<{ accepted: boolean }>;
    heartbeat(p: Principal, input: In<typeof WorkerRef>): Promise<{ ok: true }>;
  };
  workers: {
    list(p: Principal): Promise<Out<typeof WorkerInfo>[]>;
  };
  audit: {
    query(p: Principal, input: In<typeof AuditQueryInput>): Promise<Out<typeof AuditEntry>[]>;
  };
  permissions: {
    get(p: Principal, input: In<typeof WorkerRef>): Promise<Out<typeof PermissionsGetOutput>>;
    explain(p: Principal, input: In<typeof PermissionsExplainInput>): Promise<Out<typeof PermissionsExplainOutput>>;
  };
}

/** The Gatehouse code an error carries: the first error behind it that has one (a tRPC error's own code is not one). */
function carriedCode(error: TRPCError): GatehouseErrorCode | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++, cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (!(cause instanceof TRPCError) && isGatehouseErrorCode(code)) return code;
  }
  return undefined;
}

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const internal = error.code === "INTERNAL_SERVER_ERROR";
    const message = error.cause instanceof ZodError ? describeIssues(error.cause) : internal ? "internal server error" : shape.message;
    const gatehouseCode = internal ? "INTERNAL" : carriedCode(error);
    const data: { code: typeof shape.data.code; httpStatus: number; path?: string; gatehouseCode?: GatehouseErrorCode } = {
      code: shape.data.code,
      httpStatus: shape.data.httpStatus,
      path: shape.data.path,
    };
    if (gatehouseCode) data.gatehouseCode = gatehouseCode;
    return { ...shape, message, data };
  },
});

const authed = (kind: Principal["kind"]) =>
  t.procedure.use(({ ctx, next }) => {
    const principal = ctx.principal;
    if (!principal) throw new TRPCError({ code: "UNAUTHORIZED", message: "missing or unknown token" });
    if (principal.kind !== kind) throw new TRPCError({ code: "FORBIDDEN", message: `this procedure is for ${kind}s` });
    return next({ ctx: { principal } });
  });

/**
 * A step the server puts around every client and worker procedure, run once the caller is known
 * (its access checks, limits, the mapping of its errors): `ctx.principal` is set, `path` names
 * the procedure, `getRawInput()` is its input before validation, and for a subscription the
 * result's `data` is the stream it may wrap.
 */
export const procedureMiddleware = t.middleware;
export type ProcedureMiddleware = ReturnType<typeof procedureMiddleware>;

/** The caller of a procedure in a step of `RouterOptions.middleware`, which runs only once it is known. */
export function callerOf(ctx: Context): Principal {
  if (!ctx.principal) throw new TRPCError({ code: "UNAUTHORIZED", message: "missing or unknown token" });
  return ctx.principal;
}

export interface RouterOptions {
  /** Applied in order, the first outermost. */
  middleware?: readonly ProcedureMiddleware[];
}

/** The Gatehouse protocol, bound to the server's handlers. */
export function createAppRouter(handlers: Handlers, options: RouterOptions = {}) {
  const around = (kind: Principal["kind"]) => (options.middleware ?? []).reduce((base, step) => base.use(step), authed(kind));
  const client = around("client");
  const worker = around("worker");
  return t.router({
    session: t.router({
      create: client
        .input(SessionCreateInput)
        .output(SessionInfo)
        .mutation(({ ctx, input }) => handlers.session.create(ctx.principal, input)),
      list: client.output(z.array(SessionInfo)).query(({ ctx }) => handlers.session.list(ctx.principal)),
      get: client
        .input(SessionRef)
        .output(SessionGetOutput)
        .query(({ ctx, input }) => handlers.session.get(ctx.principal, input)),
      setMode: client
        .input(SessionSetModeInput)
        .output(Applied)
        .mutation(({ ctx, input }) => handlers.session.setMode(ctx.principal, input)),
      shell: client
        .input(SessionShellInput)
        .output(ShellOutput)
        .mutation(({ ctx, input }) => handlers.session.shell(ctx.principal, input)),
    }),
    agent: t.router({
      prompt: client.input(PromptInput).mutation(({ ctx, input }) => handlers.agent.prompt(ctx.principal, input)),
      abort: client.input(SessionRef).mutation(({ ctx, input }) => handlers.agent.abort(ctx.principal, input)),
      onEvents: client.input(OnEventsInput).subscription(async function* ({ ctx, input, signal }) {
        for await (const { id, event } of handlers.agent.events(ctx.principal, input, signal)) yield tracked(id, event);
      }),
    }),
    tool: t.router({
      approve: client
        .input(ApproveInput)
        .output(Applied)
        .mutation(({ ctx, input }) => handlers.tool.approve(ctx.principal, input)),
      deny: client
        .input(DenyInput)
        .output(Applied)
        .mutation(({ ctx, input }) => handlers.tool.deny(ctx.principal, input)),
      view: client
        .input(ViewInput)
        .output(Presentation.nullable())
        .query(({ ctx, input }) => handlers.tool.view(ctx.principal, input)),
      checkEdit: client
        .input(CheckEditInput)
        .output(PermissionsExplainOutput)
        .query(({ ctx, input }) => handlers.tool.checkEdit(ctx.principal, input)),
    }),
    worker: t.router({
      register: worker.input(WorkerRegisterInput).mutation(({ ctx, input }) => handlers.worker.register(ctx.principal, input)),
      onToolRequests: worker.input(WorkerRef).subscription(async function* ({ ctx, input, signal }) {
        yield* handlers.worker.requests(ctx.principal, input, signal);
      }),
      result: worker.input(WorkerResultInput).mutation(({ ctx, input }) => handlers.worker.result(ctx.principal, input)),
      heartbeat: worker.input(WorkerRef).mutation(({ ctx, input }) => handlers.worker.heartbeat(ctx.principal, input)),
    }),
    auth: t.router({
      whoami: client.output(WhoAmI).query(({ ctx: { principal: p } }) => ({
        name: p.name,
        role: p.role ?? "admin",
        workers: [...(p.workers ?? ["*"])],
        shell: p.shell ?? p.role !== "viewer",
      })),
    }),
    workers: t.router({
      list: client.output(z.array(WorkerInfo)).query(({ ctx }) => handlers.workers.list(ctx.principal)),
    }),
    audit: t.router({
      query: client
        .input(AuditQueryInput)
        .output(z.array(AuditEntry))
        .query(({ ctx, input }) => handlers.audit.query(ctx.principal, input)),
    }),
    permissions: t.router({
      get: client
        .input(WorkerRef)
        .output(PermissionsGetOutput)
        .query(({ ctx, input }) => handlers.permissions.get(ctx.principal, input)),
      explain: client
        .input(PermissionsExplainInput)
        .output(PermissionsExplainOutput)
        .query(({ ctx, input }) => handlers.permissions.explain(ctx.principal, input)),
    }),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;
