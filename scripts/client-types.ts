/**
 * `npm run client:types`: writes the client package's types (api-client/src/schema.d.ts) from the merged API
 * document and sets the package's version to the document's. `--check` (part of `npm run typecheck`, so of
 * `npm test`) changes nothing: it exits 1 when either is out of step and prints the command that fixes it
 * (`--types <file>` checks another copy of the types; the tests use it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { GATEWAY_ACCESS_FILE, gatewayAccessSource } from './lib/gateway-access';
import { CLIENT_PACKAGE_FILE, CLIENT_TYPES_FILE, clientDrift, clientTypesSource, REGENERATE_COMMAND } from './lib/client-types';
import { API_INFO } from '../services/gateway/src/routes/api-docs';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, types: { type: 'string' } } });
  if (values.check) {
    const problems = await clientDrift(values.types ? path.resolve(values.types) : CLIENT_TYPES_FILE);
    if (problems.length === 0) {
      console.log('api-client: types and version in step with the API document');
      return;
    }
    console.error(`api-client is out of step with the API document (${problems.join('; ')}).\nRun: ${REGENERATE_COMMAND}`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(CLIENT_TYPES_FILE, await clientTypesSource());
  // The gateway's table of who may call what (it refuses an anonymous body to a members' operation unread).
  writeFileSync(GATEWAY_ACCESS_FILE, await gatewayAccessSource());
  const manifest = readFileSync(CLIENT_PACKAGE_FILE, 'utf8');
  const versioned = manifest.replace(/("version":\s*")[^"]*(")/, `$1${API_INFO.version}$2`);
  if (versioned !== manifest) writeFileSync(CLIENT_PACKAGE_FILE, versioned);
  console.log(
    `wrote ${path.relative(process.cwd(), CLIENT_TYPES_FILE)} (version ${API_INFO.version}) and ${path.relative(process.cwd(), GATEWAY_ACCESS_FILE)}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
