// The server's HTTP and WebSocket API (docs/api.md). The browser's session is the HttpOnly
// bg_session cookie, sent with every same-origin request and with the WebSocket handshake.

/** A refusal from the server: HTTP status plus the API's {code, message}. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Call the API; resolves to the parsed JSON body (null for 204 or an empty body), rejects
 * with ApiError: the server's {code, message} for a refusal, `network` (status 0) when the
 * request or its answer's body was lost on the way, `bad_response` for a success whose body
 * is not JSON (a proxy's page, a cut answer): never the server's word on anything.
 * `headers` are added to the request's own. */
export async function request(method, path, body, headers = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, "network", String(err.message || err));
  }
  if (response.status === 204) return null;
  let text;
  try {
    text = await response.text();
  } catch (err) {
    throw new ApiError(0, "network", String(err.message || err));
  }
  let data = null;
  let parsed = true;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    parsed = false;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.code || "http_" + response.status,
      error.message || text || response.statusText);
  }
  if (!parsed) {
    throw new ApiError(response.status, "bad_response", "the answer is not JSON");
  }
  return data;
}

/** A unique action_id, so that a resent action is applied once. */
export function actionId() {
  return "act_" + Array.from(crypto.getRandomValues(new Uint8Array(12)),
    (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The live event stream of one match. Calls onEvent(message) for each server message and
 * onStatus("open" | "closed") when the connection changes; reconnects with back-off (the server
 * sends the full state on every connect, so nothing is missed).
 */
export class MatchSocket {
  constructor(matchId, onEvent, onStatus) {
    this.url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws/matches/${encodeURIComponent(matchId)}`;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.closed = false;
    this.delay = 500;
    this._connect();
  }

  _connect() {
    if (this.closed) return; // closed while a reconnect waited
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      this.onStatus("open");
      this.ping = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (e) => {
      let message;
      try {
        message = JSON.parse(e.data);
      } catch {
        return;
      }
      this.onEvent(message);
    };
    ws.onclose = () => {
      clearInterval(this.ping);
      if (this.closed) return;
      this.onStatus("closed");
      this.retry = setTimeout(() => this._connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    };
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  close() {
    this.closed = true;
    clearTimeout(this.retry); // no reconnect after close, even one already scheduled
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}
