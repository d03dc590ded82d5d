import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../../config.js';

export interface Mail {
  id: number;
  to: string;
  subject: string;
  text: string;
}

/**
 * Where e-mail notices go: SMTP_URL through nodemailer; without it, in development, a file outbox
 * (`<DATA_DIR>/outbox/<id>.eml`, one RFC 822 message per notice; nothing when the store is in memory);
 * in production without SMTP_URL nothing is sent (the notice is still listed by GET /notices).
 */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'dataDir' | 'env' | 'publicUrl'>) {
  const from = `Payment gateway <notices@${new URL(config.publicUrl).hostname}>`;
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      send: async (mail: Mail) => {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
        return true;
      },
      close: () => transport.close(),
    };
  }
  const fileOutbox = config.env === 'development' && config.dataDir !== 'memory://';
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    send: async (mail: Mail) => {
      if (!fileOutbox) return false;
      const info = await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      const dir = path.join(config.dataDir, 'outbox');
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, `${mail.id}.eml`), info.message as Buffer);
      return true;
    },
    close: () => transport.close(),
  };
}

export type Mailer = ReturnType<typeof createMailer>;
