import http from 'node:http';

/** One Server-Sent Events block as it arrived: its fields, or a comment line (`: ping`). */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface SseClient {
  events: SseEvent[];
  status(): number;
  /** Everything received, as text (an envelope when the stream was refused). */
  body(): string;
  notifications(): SseEvent[];
  /** The stream's end: the connection closed by either side. */
  closed(): boolean;
  close(): void;
}

/**
 * A raw SSE client (what a browser's EventSource does, without its reconnects): every event and comment line as
 * it arrives, so tests see heartbeats and event ids exactly as they came.
 */
export function openStream(url: string, headers: Record<string, string> = {}): SseClient {
  const events: SseEvent[] = [];
  let status = 0;
  let body = '';
  let closed = false;
  const req = http.get(url, { headers }, (res) => {
    status = res.statusCode ?? 0;
    let buffer = '';
    res.setEncoding('utf8');
    res.on('close', () => (closed = true));
    res.on('data', (chunk: string) => {
      body += chunk;
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const parsed: SseEvent = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) parsed.comment = line.slice(1).trim();
          else {
            const [field, ...rest] = line.split(': ');
            (parsed as Record<string, string>)[field] = rest.join(': ');
          }
        }
        events.push(parsed);
      }
    });
  });
  req.on('error', () => (closed = true));
  return {
    events,
    status: () => status,
    body: () => body,
    notifications: () => events.filter((e) => e.event === 'notification'),
    closed: () => closed,
    close: () => req.destroy(),
  };
}
