/** Prints a fresh ES256 key pair as `.env` lines (for docker compose or any deployment). */
import { generateDevKeyPair } from '../shared/src/auth';

const { publicKey, privateKey } = generateDevKeyPair();
const oneLine = (pem: string) => JSON.stringify(pem.trim()).slice(1, -1);
console.log(`JWT_PUBLIC_KEY="${oneLine(publicKey)}"`);
console.log(`JWT_PRIVATE_KEY="${oneLine(privateKey)}"`);
