import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * Browser security headers of the gateway's two HTML pages (helmet). Both refuse to be framed by anyone
 * (`frame-ancestors 'none'`, `X-Frame-Options: DENY`: clickjacking an administrator's console) and load code only
 * from the gateway itself. HSTS is left to the TLS terminator in front (the gateway speaks plain HTTP to it).
 */
const common = {
  strictTransportSecurity: false,
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
  crossOriginEmbedderPolicy: false,
} as const;

const lockedDown = {
  defaultSrc: ["'self'"],
  baseUri: ["'none'"],
  objectSrc: ["'none'"],
  frameAncestors: ["'none'"],
  formAction: ["'self'"],
  connectSrc: ["'self'"],
  // The page is served over plain HTTP in development (and behind TLS in production): nothing to upgrade here.
  upgradeInsecureRequests: null,
};

/**
 * The administrators' console: a Vite build of module scripts and one style sheet, calling the API on the same
 * origin. Nothing inline, no `eval`, no images but its own (and chart.js's canvas needs none).
 */
export const consolePolicy: RequestHandler = helmet({
  ...common,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { ...lockedDown, scriptSrc: ["'self'"], styleSrc: ["'self'"], imgSrc: ["'self'", 'data:'], fontSrc: ["'self'"] },
  },
}) as RequestHandler;

/**
 * Swagger UI at /docs: its scripts and style sheets are files served here, but it renders descriptions with
 * inline `style` attributes and draws its icons as `data:` SVG images, so those two are allowed; scripts stay
 * `'self'` only.
 */
export const docsPolicy: RequestHandler = helmet({
  ...common,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { ...lockedDown, scriptSrc: ["'self'"], styleSrc: ["'self'", "'unsafe-inline'"], imgSrc: ["'self'", 'data:'], fontSrc: ["'self'", 'data:'] },
  },
}) as RequestHandler;
