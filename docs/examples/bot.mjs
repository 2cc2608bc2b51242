// The walk of a bot on loregate: register its server, import a book, run a
// recorded turn and assemble a prompt. Run against a `loregate serve`:
//
//   LOREGATE_URL=http://127.0.0.1:8080/graphql LOREGATE_KEY=... node bot.mjs book.json
//
// It prints one JSON object: the import, the turn and the prompt.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { LoregateClient } from "./loregate-client.mjs";

const [bookPath] = process.argv.slice(2);
if (!bookPath || !process.env.LOREGATE_URL || !process.env.LOREGATE_KEY) {
  console.error("usage: LOREGATE_URL=... LOREGATE_KEY=... node bot.mjs BOOK");
  process.exit(2);
}
const lg = new LoregateClient({ url: process.env.LOREGATE_URL, key: process.env.LOREGATE_KEY });
const server = process.env.LOREGATE_SERVER ?? "111111111111111111";
const channel = "222222222222222222";
const messages = [
  { role: "user", name: "Ana", content: process.env.LOREGATE_MESSAGE ?? "Tell me about the kingdom." },
];

await lg.upsertServer(server, "Example server");
const imported = await lg.importLorebook({ serverDiscordId: server, fileName: basename(bookPath), data: await readFile(bookPath) });
const turn = await lg.activateTurn({ serverDiscordId: server, channelId: channel, turnId: "turn-1", messageCount: 1, messages });
const retry = await lg.activateTurn({ serverDiscordId: server, channelId: channel, turnId: "turn-1", messageCount: 1, messages });
const prompt = await lg.assemblePrompt({
  activation: { serverDiscordId: server, channelId: channel, messages, names: { user: "Ana", char: "Mira" } },
  systemPrompt: "You are {{char}}.",
  presetMarkers: ["main", "worldInfoBefore", "chatHistory", "worldInfoAfter"],
});
let badInput = null;
try {
  await lg.activateTurn({ serverDiscordId: server, channelId: "not-a-channel", turnId: "t", messageCount: 1, messages });
} catch (e) {
  badInput = { code: e.code, field: e.field };
}
console.log(JSON.stringify({
  imported: { added: imported.added, collection: imported.collection?.name },
  turn: { admitted: turn.admitted.map((a) => a.title), used: turn.budget.used },
  retrySame: JSON.stringify(retry) === JSON.stringify(turn),
  prompt: prompt.messages,
  badInput,
}));
