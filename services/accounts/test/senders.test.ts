import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import request from 'supertest';
import { generateDevKeyPair } from '@binzip/shared';
import { readConfig } from '../src/config';
import {
  DEFAULT_SEND_DEADLINE_MS,
  DEFAULT_SMTP_TIMEOUTS,
  DEFAULT_TWILIO_TIMEOUT_MS,
  LocalMailSender,
  LocalSmsSender,
  SmtpMailSender,
  TwilioSmsSender,
  createSenders,
  toE164Korea,
  twilioClient,
} from '../src/domain/senders';
import { expectError } from '../../../test/support';
import { startAccountsHarness } from './helpers';

/** A real key pair: accounts refuses to start with keys it could not sign or verify with. */
const configKeys = generateDevKeyPair();

interface SmtpServer {
  port: number;
  messages: Array<{ from: string; to: string[]; data: string }>;
  close(): Promise<void>;
}

/** Just enough SMTP (RFC 5321 happy path, no TLS, no auth) to receive what nodemailer sends; `rejectRcpt` answers 550. */
async function startSmtp(options: { rejectRcpt?: boolean } = {}): Promise<SmtpServer> {
  const messages: SmtpServer['messages'] = [];
  const server = net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    socket.write('220 test.local ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          messages.push(current);
          current = { from: '', to: [], data: '' };
          socket.write('250 2.0.0 queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-test.local\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') {
          current.from = line;
          socket.write('250 2.1.0 ok\r\n');
        } else if (verb === 'RCPT') {
          if (options.rejectRcpt) socket.write('550 5.1.1 no such user\r\n');
          else {
            current.to.push(line);
            socket.write('250 2.1.5 ok\r\n');
          }
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
          return;
        } else if (verb === 'RSET' || verb === 'NOOP') socket.write('250 ok\r\n');
        else socket.write('502 not implemented\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, messages, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A peer that accepts TCP connections and then stays silent (no SMTP greeting), or, with `greetThenStall`,
 * greets and answers EHLO but never answers anything after it.
 */
async function startHungServer(options: { greetThenStall?: boolean } = {}): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (!options.greetThenStall) return;
    socket.write('220 test.local ESMTP\r\n');
    socket.on('data', (chunk) => {
      if (/^(EHLO|HELO)/i.test(chunk.toString('utf8'))) socket.write('250-test.local\r\n250 8BITMIME\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const GATEWAY_TIMEOUT_MS = 10_000;

describe('outbound calls end before the gateway gives up (UPSTREAM_TIMEOUT_MS)', () => {
  const base = { JWT_PUBLIC_KEY: configKeys.publicKey, JWT_PRIVATE_KEY: configKeys.privateKey };

  it('send/email answers 500 C0000 when the SMTP server accepts but never greets (configured greeting timeout)', async () => {
    const hung = await startHungServer();
    const config = readConfig({
      ...base,
      MAIL_PROVIDER: 'smtp',
      SMTP_URL: `smtp://127.0.0.1:${hung.port}?ignoreTLS=true`,
      MAIL_FROM: 'noreply@binzip.kr',
      SMTP_CONNECTION_TIMEOUT_MS: '300',
      SMTP_GREETING_TIMEOUT_MS: '300',
    });
    const mail = createSenders(config).mail as SmtpMailSender;
    const h = await startAccountsHarness('acctsmtphung', { mailSender: mail });
    try {
      const started = Date.now();
      const res = await request(h.app).post('/api/v1/users/send/email').send({ email: 'hung@example.com' });
      expectError(res, 500, 'C0000', '예기치 못한 오류가 발생했습니다.');
      expect(Date.now() - started).toBeLessThan(GATEWAY_TIMEOUT_MS);
      expect(hung.connections()).toBe(1);
    } finally {
      mail.close();
      await h.close();
      await hung.close();
    }
  });

  it('bounds the whole SMTP exchange by SEND_DEADLINE_MS when the server stalls after the greeting', async () => {
    const hung = await startHungServer({ greetThenStall: true });
    const mail = new SmtpMailSender({
      smtpUrl: `smtp://127.0.0.1:${hung.port}?ignoreTLS=true`,
      from: 'noreply@binzip.kr',
      timeouts: { socketMs: 60_000 },
      deadlineMs: 300,
    });
    const h = await startAccountsHarness('acctsmtpstall', { mailSender: mail });
    try {
      expectError(await request(h.app).post('/api/v1/users/send/email').send({ email: 'stall@example.com' }), 500, 'C0000');
      expect(hung.connections()).toBe(1);
    } finally {
      mail.close();
      await h.close();
      await hung.close();
    }
  });

  it('send/sms answers 500 C0000 when the SMS provider never answers', async () => {
    const never = { create: () => new Promise<unknown>(() => undefined) };
    const sms = new TwilioSmsSender({ accountSid: 'ACxxxxxxxx', authToken: 'token', from: '+15005550006', deadlineMs: 300 }, never);
    const h = await startAccountsHarness('acctsmshung', { smsSender: sms });
    try {
      expectError(await request(h.app).post('/api/v1/users/send/sms').send({ phone_num: '01055554444' }), 500, 'C0000');
    } finally {
      await h.close();
    }
  });

  it('gives the real twilio client the configured HTTP timeout, without retries', () => {
    const client = twilioClient({ accountSid: 'AC00000000000000000000000000000000', authToken: 'token', timeoutMs: 1234 });
    expect(client.httpClient).toMatchObject({ defaultTimeout: 1234, autoRetry: false });
  });

  it('defaults every timeout below the gateway timeout, and reads them from the env', () => {
    const defaults = readConfig(base);
    expect(defaults).toMatchObject({
      SEND_DEADLINE_MS: DEFAULT_SEND_DEADLINE_MS,
      TWILIO_TIMEOUT_MS: DEFAULT_TWILIO_TIMEOUT_MS,
      SMTP_CONNECTION_TIMEOUT_MS: DEFAULT_SMTP_TIMEOUTS.connectionMs,
      SMTP_GREETING_TIMEOUT_MS: DEFAULT_SMTP_TIMEOUTS.greetingMs,
      SMTP_SOCKET_TIMEOUT_MS: DEFAULT_SMTP_TIMEOUTS.socketMs,
    });
    for (const ms of [DEFAULT_SEND_DEADLINE_MS, DEFAULT_TWILIO_TIMEOUT_MS, ...Object.values(DEFAULT_SMTP_TIMEOUTS)])
      expect(ms).toBeLessThan(GATEWAY_TIMEOUT_MS);
    expect(readConfig({ ...base, SEND_DEADLINE_MS: '2500', TWILIO_TIMEOUT_MS: '2000' })).toMatchObject({ SEND_DEADLINE_MS: 2500, TWILIO_TIMEOUT_MS: 2000 });
    expect(() => readConfig({ ...base, SMTP_SOCKET_TIMEOUT_MS: '0' })).toThrow(/SMTP_SOCKET_TIMEOUT_MS/);
  });
});

describe('SmtpMailSender (nodemailer over a real SMTP connection)', () => {
  it('delivers subject, sender, recipient and the code text', async () => {
    const smtp = await startSmtp();
    const sender = new SmtpMailSender({ smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, from: 'noreply@binzip.kr' });
    try {
      await sender.send('someone@example.com', '[빈집] 이메일 인증번호', '인증번호는 1234 입니다.');
      expect(smtp.messages).toHaveLength(1);
      const [message] = smtp.messages;
      expect(message.from).toContain('noreply@binzip.kr');
      expect(message.to).toEqual([expect.stringContaining('someone@example.com')]);
      expect(message.data).toMatch(/^Subject: /m);
      expect(message.data).toMatch(/^To: someone@example\.com/m);
      const body = message.data.split('\r\n\r\n').slice(1).join('\r\n\r\n');
      const text = /base64/i.test(message.data) ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') : body;
      expect(text).toContain('1234');
    } finally {
      sender.close();
      await smtp.close();
    }
  });

  it('turns a refused delivery into send/email HTTP 500 C0000 through the real transport', async () => {
    const smtp = await startSmtp({ rejectRcpt: true });
    const mail = new SmtpMailSender({ smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, from: 'noreply@binzip.kr' });
    const h = await startAccountsHarness('acctsmtp', { mailSender: mail });
    try {
      expectError(await request(h.app).post('/api/v1/users/send/email').send({ email: 'missing@example.com' }), 500, 'C0000');
    } finally {
      mail.close();
      await h.close();
      await smtp.close();
    }
  });

  it('builds the message nodemailer would send (stream transport)', async () => {
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    let raw = '';
    const wrapped = {
      ...transport,
      sendMail: async (mail: SendMailOptions) => {
        const info = await transport.sendMail(mail);
        raw = (info.message as Buffer).toString('utf8');
        return info;
      },
      close: () => transport.close(),
    } as unknown as Transporter;
    await new SmtpMailSender({ transport: wrapped, from: 'noreply@binzip.kr' }).send('x@example.com', 'subject line', 'code 4321');
    expect(raw).toMatch(/^From: noreply@binzip\.kr$/m);
    expect(raw).toMatch(/^To: x@example\.com$/m);
    expect(raw).toContain('code 4321');
  });
});

describe('TwilioSmsSender', () => {
  it('sends from the configured number to the E.164 form of the phone', async () => {
    const calls: unknown[] = [];
    const sender = new TwilioSmsSender(
      { accountSid: 'ACxxxxxxxx', authToken: 'token', from: '+15005550006' },
      { create: async (params) => calls.push(params) },
    );
    await sender.send('01012345678', '인증번호 5678');
    expect(calls).toEqual([{ to: '+821012345678', from: '+15005550006', body: '인증번호 5678' }]);
    expect(toE164Korea('+821011112222')).toBe('+821011112222');
  });

  it('builds a real twilio client when none is given', () => {
    expect(() => new TwilioSmsSender({ accountSid: 'AC00000000000000000000000000000000', authToken: 'token', from: '+15005550006' })).not.toThrow();
  });
});

describe('local senders', () => {
  it('record in memory and append one JSON line per message when DEV_OUTBOX_DIR is set', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'accounts-outbox-'));
    try {
      const sms = new LocalSmsSender(path.join(dir, 'nested'));
      const mail = new LocalMailSender(path.join(dir, 'nested'));
      await sms.send('01012345678', 'code 1111');
      await mail.send('a@b.co', 'subject', 'code 2222');
      const lines = readFileSync(path.join(dir, 'nested', 'messages.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toEqual([
        { channel: 'sms', to: '01012345678', text: 'code 1111', at: expect.any(String) },
        { channel: 'email', to: 'a@b.co', subject: 'subject', text: 'code 2222', at: expect.any(String) },
      ]);
      expect(sms.sent).toHaveLength(1);
      expect(mail.lastTo('a@b.co')?.text).toBe('code 2222');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('config', () => {
  const base = { JWT_PUBLIC_KEY: configKeys.publicKey, JWT_PRIVATE_KEY: configKeys.privateKey };

  it('defaults: port 7001, db accounts, bcrypt 10, local senders, no admins', () => {
    const config = readConfig(base);
    expect(config).toMatchObject({ PORT: 7001, MONGODB_DB: 'accounts', BCRYPT_COST: 10, SMS_PROVIDER: 'local', MAIL_PROVIDER: 'local', ADMIN_BOOTSTRAP: [] });
    expect(createSenders(config).sms).toBeInstanceOf(LocalSmsSender);
  });

  it('requires the private key, provider settings, a sane bcrypt cost and valid ADMIN_BOOTSTRAP', () => {
    expect(() => readConfig({ JWT_PUBLIC_KEY: configKeys.publicKey })).toThrow(/JWT_PRIVATE_KEY/);
    expect(() => readConfig({ ...base, SMS_PROVIDER: 'twilio' })).toThrow(/TWILIO_ACCOUNT_SID/);
    expect(() => readConfig({ ...base, MAIL_PROVIDER: 'smtp', SMTP_URL: 'smtp://x' })).toThrow(/MAIL_FROM/);
    expect(() => readConfig({ ...base, BCRYPT_COST: '3' })).toThrow(/BCRYPT_COST/);
    expect(() => readConfig({ ...base, ADMIN_BOOTSTRAP: '{not json' })).toThrow(/ADMIN_BOOTSTRAP/);
    expect(() => readConfig({ ...base, ADMIN_BOOTSTRAP: '[{"userName":"a"}]' })).toThrow(/ADMIN_BOOTSTRAP/);
  });

  it('picks the real senders by provider and parses ADMIN_BOOTSTRAP', () => {
    const config = readConfig({
      ...base,
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_FROM: '+15005550006',
      MAIL_PROVIDER: 'smtp',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      MAIL_FROM: 'noreply@binzip.kr',
      BCRYPT_COST: '4',
      ADMIN_BOOTSTRAP: JSON.stringify([
        { userName: 'boot_admin', password: 'Passw0rd!', nick_name: '부트', phone_num: '01011112222', email: 'b@b.co', userType: 'WEB' },
      ]),
    });
    const senders = createSenders(config);
    expect(senders.sms).toBeInstanceOf(TwilioSmsSender);
    expect(senders.mail).toBeInstanceOf(SmtpMailSender);
    (senders.mail as SmtpMailSender).close();
    expect(config.BCRYPT_COST).toBe(4);
    expect(config.ADMIN_BOOTSTRAP).toHaveLength(1);
  });
});
