// Talking to the Knower server: JSON requests carrying the token, errors
// as the server's {error, detail}, and the live event stream with catch-up.

const TOKEN_KEY = 'knower-token';

// A token given once in the page's address (`/?token=…`) is kept for the
// tab and taken out of the address bar, so it is not bookmarked or shared.
{
  const params = new URLSearchParams(location.search);
  const given = params.get('token');
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? `?${rest}` : '') + location.hash);
  }
}
const token = sessionStorage.getItem(TOKEN_KEY);

export class ApiError extends Error {
  constructor(status, code, detail) {
    super(detail);
    this.status = status;
    this.code = code;
  }
}

export async function request(method, path, body) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'unreachable', 'The Knower server cannot be reached. Is it still running?');
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail = data?.detail || text || response.statusText;
    throw new ApiError(response.status, data?.error || `http_${response.status}`, detail);
  }
  return data;
}

/// POSTs JSON and reads the answer as server-sent events, calling
/// `onEvent(name, data)` for each (the chat's reply streams this way;
/// `EventSource` cannot POST). `signal` aborts it.
export async function postStream(path, body, onEvent, signal) {
  const headers = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body), signal });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'unreachable', 'The Knower server cannot be reached. Is it still running?');
  }
  if (!response.ok) {
    const text = await response.text();
    let data = null;
    try { data = JSON.parse(text); } catch { data = null; }
    throw new ApiError(response.status, data?.error || `http_${response.status}`, data?.detail || text || response.statusText);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(name, JSON.parse(data.join('\n')));
    }
  }
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, body);

export const fileUrl = (path) => `/api/file?path=${encodeURIComponent(path)}`;
export const rawUrl = (path) =>
  `/api/raw?path=${encodeURIComponent(path)}${token ? `&token=${encodeURIComponent(token)}` : ''}`;

/// Follows `/sse`. The browser reconnects by itself and sends the last
/// event's id, so the server replays what was missed (or sends `resync`).
/// If the stream is closed for good (the server refused it), we open a new
/// one after a pause, passing the last id ourselves.
export function followEvents(handlers, onState) {
  let lastId = null;
  let source = null;
  let broken = false;
  const open = () => {
    const params = new URLSearchParams();
    if (token) params.set('token', token);
    if (lastId) params.set('last_event_id', lastId);
    const query = params.toString();
    source = new EventSource(query ? `/sse?${query}` : '/sse');
    source.onopen = () => {
      onState('live');
      // Back after a break: the server replays what it still has, but if
      // nothing had reached us before, it cannot know what we missed.
      if (broken) handlers.resync?.({ reason: 'reconnected' });
      broken = false;
    };
    source.onerror = () => {
      broken = true;
      if (source.readyState === EventSource.CLOSED) {
        onState('reconnecting');
        setTimeout(open, 3000);
      } else {
        onState('reconnecting');
      }
    };
    for (const [name, handle] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
        if (event.lastEventId) lastId = event.lastEventId;
        let data = null;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        handle(data);
      });
    }
  };
  open();
}
