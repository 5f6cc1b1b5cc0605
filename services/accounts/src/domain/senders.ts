import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import twilio from 'twilio';

/** Where verification codes leave the system; the domain only knows these two ports. */
export interface SmsSender {
  send(to: string, text: string): Promise<void>;
}

export interface MailSender {
  send(to: string, subject: string, text: string): Promise<void>;
}

export interface SentMessage {
  channel: 'sms' | 'email';
  to: string;
  text: string;
  subject?: string;
  at: string;
}

/**
 * Dev/test delivery: keeps every message in memory and, when a folder is given, appends it as one JSON
 * line to `messages.jsonl` so a test driving the real process can read the code.
 */
class LocalOutbox {
  readonly sent: SentMessage[] = [];

  constructor(private readonly dir: string | undefined) {}

  async record(message: SentMessage): Promise<void> {
    this.sent.push(message);
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true });
    await appendFile(path.join(this.dir, 'messages.jsonl'), `${JSON.stringify(message)}\n`);
  }

  lastTo(to: string): SentMessage | undefined {
    return [...this.sent].reverse().find((m) => m.to === to);
  }
}

export class LocalSmsSender extends LocalOutbox implements SmsSender {
  async send(to: string, text: string): Promise<void> {
    await this.record({ channel: 'sms', to, text, at: new Date().toISOString() });
  }
}

export class LocalMailSender extends LocalOutbox implements MailSender {
  async send(to: string, subject: string, text: string): Promise<void> {
    await this.record({ channel: 'email', to, subject, text, at: new Date().toISOString() });
  }
}

/** The part of the Twilio client this sender uses (lets a test capture the request). */
export interface TwilioMessages {
  create(params: { to: string; from: string; body: string }): Promise<unknown>;
}

/** Korean mobile numbers are stored as `010...`; Twilio wants E.164 (`+8210...`). */
export function toE164Korea(phone: string): string {
  return phone.startsWith('0') ? `+82${phone.slice(1)}` : phone;
}

/**
 * Outbound calls run inside a client request that the gateway gives up on after UPSTREAM_TIMEOUT_MS (10 s by
 * default). The clients' own timeouts (SMTP connection/greeting/socket, Twilio's HTTP timeout) close the
 * sockets; this deadline bounds the whole call however a peer dribbles its answers, so the client gets the
 * spec's 500 rather than the gateway's 504. Defaults leave room below the gateway's 10 s.
 */
export const DEFAULT_SEND_DEADLINE_MS = 8_000;
export const DEFAULT_TWILIO_TIMEOUT_MS = 5_000;
export const DEFAULT_SMTP_TIMEOUTS = { connectionMs: 3_000, greetingMs: 3_000, socketMs: 5_000 } as const;

export class SendTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} took longer than ${ms} ms`);
    this.name = 'SendTimeoutError';
  }
}

/** Rejects when `work` has not settled within `ms`; the work itself is left to its client's own timeouts. */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new SendTimeoutError(what, ms)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export class TwilioSmsSender implements SmsSender {
  private readonly messages: TwilioMessages;
  private readonly from: string;
  private readonly deadlineMs: number;

  constructor(options: { accountSid: string; authToken: string; from: string; timeoutMs?: number; deadlineMs?: number }, messages?: TwilioMessages) {
    this.from = options.from;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_SEND_DEADLINE_MS;
    // autoRetry stays off: a retried 429 could outlive the deadline, and the caller retries anyway.
    this.messages = messages ?? twilioClient(options).messages;
  }

  async send(to: string, text: string): Promise<void> {
    await withDeadline(this.messages.create({ to: toE164Korea(to), from: this.from, body: text }), this.deadlineMs, 'SMS send');
  }
}

/** Twilio's HTTP timeout is both the socket timeout and the per-request timeout (its default is 30 s). */
export function twilioClient(options: { accountSid: string; authToken: string; timeoutMs?: number }) {
  return twilio(options.accountSid, options.authToken, { timeout: options.timeoutMs ?? DEFAULT_TWILIO_TIMEOUT_MS, autoRetry: false });
}

export interface SmtpTimeouts {
  connectionMs: number;
  greetingMs: number;
  socketMs: number;
}

export class SmtpMailSender implements MailSender {
  private readonly transport: Transporter;
  private readonly from: string;
  private readonly deadlineMs: number;

  constructor(options: ({ smtpUrl: string; timeouts?: Partial<SmtpTimeouts> } | { transport: Transporter }) & { from: string; deadlineMs?: number }) {
    this.from = options.from;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_SEND_DEADLINE_MS;
    if ('transport' in options) {
      this.transport = options.transport;
    } else {
      // nodemailer's defaults are 2 minutes to connect, 30 s for the greeting and 10 minutes of silence.
      const timeouts = options.timeouts ?? {};
      this.transport = nodemailer.createTransport({
        url: options.smtpUrl,
        connectionTimeout: timeouts.connectionMs ?? DEFAULT_SMTP_TIMEOUTS.connectionMs,
        greetingTimeout: timeouts.greetingMs ?? DEFAULT_SMTP_TIMEOUTS.greetingMs,
        socketTimeout: timeouts.socketMs ?? DEFAULT_SMTP_TIMEOUTS.socketMs,
      });
    }
  }

  async send(to: string, subject: string, text: string): Promise<void> {
    await withDeadline(this.transport.sendMail({ from: this.from, to, subject, text }), this.deadlineMs, 'e-mail send');
  }

  close(): void {
    this.transport.close();
  }
}

export interface SenderConfig {
  SMS_PROVIDER: 'local' | 'twilio';
  MAIL_PROVIDER: 'local' | 'smtp';
  TWILIO_ACCOUNT_SID?: string;
  TWILIO_AUTH_TOKEN?: string;
  TWILIO_FROM?: string;
  SMTP_URL?: string;
  MAIL_FROM?: string;
  DEV_OUTBOX_DIR?: string;
  SEND_DEADLINE_MS?: number;
  TWILIO_TIMEOUT_MS?: number;
  SMTP_CONNECTION_TIMEOUT_MS?: number;
  SMTP_GREETING_TIMEOUT_MS?: number;
  SMTP_SOCKET_TIMEOUT_MS?: number;
}

export function createSenders(config: SenderConfig): { sms: SmsSender; mail: MailSender } {
  const sms =
    config.SMS_PROVIDER === 'twilio'
      ? new TwilioSmsSender({
          accountSid: config.TWILIO_ACCOUNT_SID ?? '',
          authToken: config.TWILIO_AUTH_TOKEN ?? '',
          from: config.TWILIO_FROM ?? '',
          timeoutMs: config.TWILIO_TIMEOUT_MS,
          deadlineMs: config.SEND_DEADLINE_MS,
        })
      : new LocalSmsSender(config.DEV_OUTBOX_DIR);
  const mail =
    config.MAIL_PROVIDER === 'smtp'
      ? new SmtpMailSender({
          smtpUrl: config.SMTP_URL ?? '',
          from: config.MAIL_FROM ?? '',
          deadlineMs: config.SEND_DEADLINE_MS,
          timeouts: {
            connectionMs: config.SMTP_CONNECTION_TIMEOUT_MS,
            greetingMs: config.SMTP_GREETING_TIMEOUT_MS,
            socketMs: config.SMTP_SOCKET_TIMEOUT_MS,
          },
        })
      : new LocalMailSender(config.DEV_OUTBOX_DIR);
  return { sms, mail };
}
