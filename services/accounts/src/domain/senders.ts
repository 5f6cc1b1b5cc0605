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

export class TwilioSmsSender implements SmsSender {
  private readonly messages: TwilioMessages;
  private readonly from: string;

  constructor(options: { accountSid: string; authToken: string; from: string }, messages?: TwilioMessages) {
    this.from = options.from;
    this.messages = messages ?? twilio(options.accountSid, options.authToken).messages;
  }

  async send(to: string, text: string): Promise<void> {
    await this.messages.create({ to: toE164Korea(to), from: this.from, body: text });
  }
}

export class SmtpMailSender implements MailSender {
  private readonly transport: Transporter;
  private readonly from: string;

  constructor(options: { smtpUrl: string; from: string } | { transport: Transporter; from: string }) {
    this.from = options.from;
    this.transport = 'transport' in options ? options.transport : nodemailer.createTransport(options.smtpUrl);
  }

  async send(to: string, subject: string, text: string): Promise<void> {
    await this.transport.sendMail({ from: this.from, to, subject, text });
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
}

export function createSenders(config: SenderConfig): { sms: SmsSender; mail: MailSender } {
  const sms =
    config.SMS_PROVIDER === 'twilio'
      ? new TwilioSmsSender({ accountSid: config.TWILIO_ACCOUNT_SID ?? '', authToken: config.TWILIO_AUTH_TOKEN ?? '', from: config.TWILIO_FROM ?? '' })
      : new LocalSmsSender(config.DEV_OUTBOX_DIR);
  const mail =
    config.MAIL_PROVIDER === 'smtp'
      ? new SmtpMailSender({ smtpUrl: config.SMTP_URL ?? '', from: config.MAIL_FROM ?? '' })
      : new LocalMailSender(config.DEV_OUTBOX_DIR);
  return { sms, mail };
}
