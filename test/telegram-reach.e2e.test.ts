import net from "node:net";
import { afterEach, expect, it } from "vitest";
import { CLIENT_TOKEN } from "./support/cluster.js";
import { FakeBotApi } from "./support/fake-bot-api.js";
import { ServerProcess } from "./support/server-process.js";

let server: ServerProcess | undefined;
let api: FakeBotApi | undefined;
afterEach(async () => {
  await server?.stop();
  await api?.stop();
  server = api = undefined;
});

/** A Bot API that takes connections and never answers: what a dropped route looks like. */
async function silentApi(): Promise<{ port: number; close(): Promise<void> }> {
  const held = new Set<net.Socket>();
  const hole = net.createServer((socket) => held.add(socket.on("error", () => undefined)));
  await new Promise<void>((resolve) => hole.listen(0, "127.0.0.1", resolve));
  return {
    port: (hole.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => hole.close(() => resolve()));
    },
  };
}

it("gatehouse telegram says within seconds that the Bot API cannot be reached, tries again with backoff, and says when it connects", async () => {
  server = await ServerProcess.start({ clientTokens: [{ token: CLIENT_TOKEN, name: "ada", role: "admin" }] });
  const silent = await silentApi();
  const root = `http://127.0.0.1:${silent.port}`;
  process.env.TELEGRAM_BOT_TOKEN = "4242:fake-bot-token-for-tests";
  const began = Date.now();
  const bot = server.spawnCli([
    "telegram",
    "--server",
    server.url,
    "--token",
    CLIENT_TOKEN,
    "--users",
    "222",
    "--state",
    `${server.root}/bot.json`,
    "--api-root",
    root,
  ]);
  delete process.env.TELEGRAM_BOT_TOKEN;
  // Silence first: the check gives up after its own time, not grammY's 500 s.
  expect(await bot.err.next(/cannot reach the Telegram Bot API/, 15_000)).toContain(
    `cannot reach the Telegram Bot API at ${root}: no answer within 5 s; trying again in 1 s`,
  );
  expect(Date.now() - began).toBeLessThan(12_000);
  // Then down: refused at once, and the next wait is longer.
  await silent.close();
  expect(await bot.err.next(/ECONNREFUSED/, 15_000)).toMatch(/cannot reach the Telegram Bot API at .*ECONNREFUSED.*; trying again in 2 s/);
  expect(bot.out.lines).toEqual([]);
  // Then up where the bot looks.
  api = await FakeBotApi.start(silent.port);
  expect(await bot.err.next(/connected to the Telegram Bot API/, 15_000)).toContain(`connected to the Telegram Bot API at ${root} as @gatehouse_test_bot`);
  expect(await bot.out.next(/bot running/)).toContain('"bot":"gatehouse_test_bot"');
  api.userSends(222, "/workers");
  expect((await api.waitForMessage(222, () => true, "an answer", 15_000)).text).toBe("No worker has registered with the server.");
  bot.child.kill("SIGTERM");
  expect(await bot.exit).toBe(0);
}, 60_000);
