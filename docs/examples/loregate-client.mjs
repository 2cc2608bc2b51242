// A bot-side client of the loregate GraphQL API in plain JavaScript: Node's
// built-in fetch, FormData and Blob (Node 18 or later), no dependencies.
// The JSDoc typedefs below describe the operations it uses, so a TypeScript
// bot (checkJs, or `import type` through a .d.ts) gets types; for the whole
// API, generate types from docs/schema.graphql (docs/api.md "Typed clients").
//
//   import { LoregateClient } from "./loregate-client.mjs";
//   const lg = new LoregateClient({ url: "http://127.0.0.1:8080/graphql", key: process.env.LOREGATE_KEY });
//   const turn = await lg.activateTurn({ serverDiscordId, channelId, turnId, messageCount, messages });

/**
 * @typedef {object} MutationError An operation's failure (docs/api.md "Errors").
 * @property {string} code An ErrorCode: INVALID_INPUT, NOT_FOUND, SCOPE_FULL, ...
 * @property {string} message
 * @property {string | null} [field] The input field at fault (INVALID_INPUT).
 */

/**
 * @typedef {object} MessageInput One chat message; only content is scanned.
 * @property {string} content
 * @property {string} [name]
 * @property {string} [role] user, assistant or system.
 */

/**
 * @typedef {object} ActivationOverrides Per-request engine overrides (omitted: the server's settings).
 * @property {number} [scanDepth]
 * @property {number} [budget]
 * @property {number} [budgetTokens]
 * @property {boolean} [recursive]
 * @property {number} [maxRecursionSteps]
 * @property {boolean} [wholeWords]
 * @property {boolean} [caseSensitive]
 * @property {boolean} [channelScoping]
 * @property {number} [random] A fixed chance draw in [0, 1).
 */

/**
 * @typedef {object} ActivateInput A dry-run turn (activate, assemblePrompt).
 * @property {string} serverDiscordId
 * @property {number} [lineageId] 0 or omitted: Serverwide lore only.
 * @property {string} [channelId]
 * @property {string} [parentChannelId]
 * @property {MessageInput[]} messages Oldest first.
 * @property {{user?: string, char?: string, bot?: string}} [names]
 * @property {ActivationOverrides} [overrides]
 * @property {number} [messageCount]
 */

/**
 * @typedef {ActivateInput & {turnId: string, channelId: string, messageCount: number}} ActivateTurnInput
 * A recorded turn: turnId is unique in the conversation (reuse it only to retry: the recorded result comes back).
 */

/**
 * @typedef {object} AdmittedEntry
 * @property {string} id
 * @property {string} title
 * @property {"BEFORE" | "AFTER"} placement
 * @property {"ALWAYS_ON" | "ACTIVATED"} group
 * @property {string} content Identity macros resolved.
 * @property {number} pass
 */

/**
 * @typedef {object} PromptBlock
 * @property {string} tag
 * @property {string} role
 * @property {string} text
 */

/**
 * @typedef {object} Activation
 * @property {AdmittedEntry[]} admitted
 * @property {PromptBlock[]} blocks
 * @property {{unit: string, limit: number, used: number}} budget
 * @property {number} passes
 * @property {boolean} storeUnavailable True when no lore could be read (the turn goes on without it).
 */

/**
 * @typedef {object} PromptMessage
 * @property {string} role
 * @property {string} content
 * @property {string | null} tag The block tag of lore and documents, null for history.
 */

/**
 * @typedef {object} AssembledPrompt
 * @property {PromptMessage[]} messages
 * @property {Activation} activation
 */

/**
 * @typedef {object} ImportResult
 * @property {number} added
 * @property {number} duplicates
 * @property {{id: string, name: string} | null} collection
 * @property {{id: string, state: string} | null} job Set when a large upload became a background job.
 */

/** An operation failed: a MutationError, a GraphQL error or an HTTP status. */
export class LoregateError extends Error {
  /**
   * @param {string} message
   * @param {{code?: string, field?: string | null}} [detail]
   */
  constructor(message, detail = {}) {
    super(message);
    this.name = "LoregateError";
    /** @type {string | undefined} */
    this.code = detail.code;
    /** @type {string | null | undefined} */
    this.field = detail.field;
  }
}

const ACTIVATION = `admitted { id title placement group content pass } blocks { tag role text }
  budget { unit limit used } passes storeUnavailable`;

export class LoregateClient {
  /**
   * @param {{url: string, key: string, fetch?: typeof fetch}} options url is the API's /graphql endpoint, key a service key.
   */
  constructor({ url, key, fetch: f = globalThis.fetch }) {
    this.url = url;
    this.key = key;
    this.fetch = f;
  }

  /**
   * Posts one operation and returns data[field]; throws a LoregateError on a
   * GraphQL error, an HTTP error, or a payload whose error is set.
   * @template T
   * @param {string} query
   * @param {Record<string, unknown>} variables
   * @param {string} field
   * @param {RequestInit["body"]} [body] A prepared body (multipart uploads).
   * @returns {Promise<T>}
   */
  async request(query, variables, field, body) {
    const headers = { Authorization: `Bearer ${this.key}` };
    if (body === undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify({ query, variables });
    }
    const res = await this.fetch(this.url, { method: "POST", headers, body });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LoregateError(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    if (json.errors?.length) {
      const e = json.errors[0];
      throw new LoregateError(e.message, { code: e.extensions?.code });
    }
    const out = json.data?.[field];
    if (out?.error) {
      throw new LoregateError(out.error.message, out.error);
    }
    return out;
  }

  /**
   * Registers (or renames) a Discord server.
   * @param {string} discordId
   * @param {string} name
   * @returns {Promise<{discordId: string, name: string}>}
   */
  async upsertServer(discordId, name) {
    const p = await this.request(
      `mutation($input: UpsertServerInput!) { upsertServer(input: $input) { server { discordId name } error { code message field } } }`,
      { input: { discordId, name } }, "upsertServer");
    return p.server;
  }

  /**
   * Imports a lorebook file (world info JSON, a card, NovelAI, RisuAI, Agnai)
   * into a new Serverwide collection (lineageId 0) or a persona book, through
   * the GraphQL multipart upload.
   * @param {{serverDiscordId: string, lineageId?: number, name?: string, fileName: string, data: Uint8Array | string}} input
   * @returns {Promise<ImportResult>}
   */
  async importLorebook({ serverDiscordId, lineageId = 0, name, fileName, data }) {
    const query = `mutation($input: ImportLorebookInput!) { importLorebook(input: $input) {
      added duplicates collection { id name } job { id state } error { code message field } } }`;
    const input = { serverDiscordId, lineageId, file: null };
    if (name !== undefined) input.name = name;
    const form = new FormData();
    form.set("operations", JSON.stringify({ query, variables: { input } }));
    form.set("map", JSON.stringify({ 0: ["variables.input.file"] }));
    form.set("0", new Blob([data]), fileName);
    return this.request(query, {}, "importLorebook", form);
  }

  /**
   * Runs and records one chat turn: timed effects advance, and the result
   * is stored under turnId (a retry with the same input returns it).
   * @param {ActivateTurnInput} input
   * @returns {Promise<Activation>}
   */
  async activateTurn(input) {
    const p = await this.request(
      `mutation($input: ActivateTurnInput!) { activateTurn(input: $input) { result { ${ACTIVATION} } error { code message field } } }`,
      { input }, "activateTurn");
    return p.result;
  }

  /**
   * Runs a dry-run turn and places its lore in the caller's prompt.
   * @param {{activation: ActivateInput, systemPrompt?: string, documents?: string[], presetMarkers?: string[]}} input
   * @returns {Promise<AssembledPrompt>}
   */
  async assemblePrompt(input) {
    return this.request(
      `query($input: AssemblePromptInput!) { assemblePrompt(input: $input) { messages { role content tag } activation { ${ACTIVATION} } } }`,
      { input }, "assemblePrompt");
  }
}
